#!/usr/bin/env bash
# Issue #57's speed target on the GPU: `adi3d bench` at 512^3 of the step
# with tables of temperature (--material tables: two materials by region,
# K(T) and c(T), a source field; the nonlinear step with its material
# evaluated on the device) against the K-field step (--material field), both
# schemes, both precisions, mixed faces, in one call (one copy bandwidth per
# bench run). NONLINEAR: the tables' scheme.nonlinear values to time
# (default "iterate"; e.g. "extrapolated predictor-corrector"). Logs and
# JSON under $OUT/tbench; a line per case last.
set -uo pipefail
O=${OUT:-/tmp/out}/tbench; mkdir -p "$O"; T0=$(date +%s)
B=build-gpu/app/adi3d
[ -x $B ] || { cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=OFF > "$O/build.log" 2>&1 &&
  cmake --build build-gpu -j 16 --target adi3d >> "$O/build.log" 2>&1; echo "build rc=$? $(( $(date +%s) - T0 )) s"; }
CASES="field"; for nl in ${NONLINEAR:-iterate}; do CASES="$CASES tables:$nl"; done
for prec in float64 float32; do for sch in strang douglas; do for c in $CASES; do
  m=${c%%:*}; nl=${c#*:}; n=$m; args=(--material $m)
  [ "$m" = tables ] && { n=$m-$nl; args+=(--nonlinear $nl); }
  timeout 100 $B bench --backend cuda --size 512 --precision $prec "${args[@]}" --faces mixed --scheme $sch \
    --reps ${REPS:-7} --json "$O/$n-$sch-$prec.json" > "$O/$n-$sch-$prec.txt" 2>&1
  echo "$n $sch $prec rc=$? $(grep -E '^  step ' "$O/$n-$sch-$prec.txt") $(grep -o 'copy bandwidth [0-9.]* TB/s' "$O/$n-$sch-$prec.txt") $(grep -o 'over [0-9]* steps' "$O/$n-$sch-$prec.txt")"
done; done; done
