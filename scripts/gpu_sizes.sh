#!/usr/bin/env bash
# #18's size sweep on a GPU in one go: build adi3d (Release, sm_90), bench each
# size in both precisions, and print one line per case (step / 8-word floor,
# each phase's % of the copy bandwidth measured in the same run):
#   scripts/gpu_sizes.sh [OUT_DIR] [sizes...]
# EXTRA_ENV="ADI_...=..." runs every case a second time with those variables
# (an A/B in the same process start-up conditions). Full logs under OUT_DIR.
set -uo pipefail
OUT="${1:-${OUT:-gpu-out}}"
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(129 193 257 512 513 500x384x260)
REPS="${REPS:-20}"
mkdir -p "$OUT"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="$ROOT/build-gpu"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  cmake --preset gpu -S "$ROOT" -B "$BUILD" -G Ninja -DADI_BUILD_TESTS=OFF >"$OUT/build.log" 2>&1 &&
    cmake --build "$BUILD" -j "$(nproc)" --target adi3d >>"$OUT/build.log" 2>&1 ||
    { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
fi
B="$BUILD/app/adi3d"
for s in "${SIZES[@]}"; do
  "$B" bench --size "$s" --precision both --reps "$REPS" >"$OUT/sizes_$s.txt" 2>&1 || echo "bench $s failed"
  if [ -n "${EXTRA_ENV:-}" ]; then
    env $EXTRA_ENV "$B" bench --size "$s" --precision both --reps "$REPS" >"$OUT/sizes_${s}_extra.txt" 2>&1 ||
      echo "bench $s ($EXTRA_ENV) failed"
  fi
done
summ() {  # one line per case: grid, precision, step ms, step / floor, each phase's % of copy
  awk '/^case /{c=$2" "$3" "$4" "$5" "$6" "$7; sub(/,$/,"",c)}
       /^  (rhs|x|y|z\+update|rhs\+x) /{p[$1]=$NF} /^  step /{st=$2}
       /step \/ floor/{f = ("rhs+x" in p) ? "rhs+x " p["rhs+x"] : "rhs " p["rhs"] " x " p["x"];
         print c, "step", st, "ms", "x" $NF, f, "y", p["y"], "z", p["z+update"]; delete p}' "$1"
}
echo "== summary ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
for s in "${SIZES[@]}"; do
  summ "$OUT/sizes_$s.txt"
  [ -f "$OUT/sizes_${s}_extra.txt" ] && summ "$OUT/sizes_${s}_extra.txt" | sed "s/^/[$EXTRA_ENV] /"
done
grep -h "kernels:" "$OUT"/sizes_*.txt | sort -u | cut -c1-220
