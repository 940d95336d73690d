#!/usr/bin/env bash
# Bit-identity of the CPU backend between two builds (the CPU path is the
# oracle the GPU's general kernels are held to bit for bit, so a change that
# only reorganises its loops must not move a bit):
#   scripts/cpu_bitcheck.sh OLD_ADI3D NEW_ADI3D [WORK_DIR]
# Runs every case of scripts/bitcheck/ (the constant tables, axis tables and
# field rows of step_plan.hpp) plus examples/layered_wall.yaml, periodic.yaml,
# plate_2d.yaml (a flat axis, a flux table) and convective_cooling.yaml
# (convective faces only), in float64 and float32, on one process and on
# mpirun -np 2 and -np 3 (uneven splits, rings across ranks), with both
# binaries, and compares every float dataset of the outputs bitwise.
# Needs python3 with numpy and h5py (scripts/setup.sh installs them for the
# examples) and, for the MPI runs, mpirun. Exit status 0: all identical.
set -uo pipefail
OLD="$(realpath "$1")" NEW="$(realpath "$2")"
WORK="${3:-/tmp/adi3d_bitcheck}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-python3}"
rm -rf "$WORK" && mkdir -p "$WORK/inputs"
cp "$ROOT"/scripts/bitcheck/*.yaml "$ROOT/examples/layered_wall.yaml" "$ROOT/examples/periodic.yaml" \
  "$ROOT/examples/plate_2d.yaml" "$ROOT/examples/convective_cooling.yaml" "$WORK/inputs/"
"$PY" "$ROOT/scripts/bitcheck/make_fields.py" "$WORK/inputs" || exit 2
"$PY" "$ROOT/examples/make_wall.py" "$WORK/inputs/wall.h5" >/dev/null || exit 2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launchers=("1")
command -v mpirun >/dev/null && launchers+=("2" "3")
total=0 failed=0
for cfg in "$WORK"/inputs/*.yaml; do
  case_name=$(basename "$cfg" .yaml)
  for prec in float64 float32; do
    for np in "${launchers[@]}"; do
      tag="${case_name}_${prec}_np${np}"
      for side in old new; do
        bin=$OLD
        [ "$side" = new ] && bin=$NEW
        dir="$WORK/$tag/$side"
        mkdir -p "$dir" && cp "$WORK"/inputs/*.h5 "$cfg" "$dir/"
        cmd=("$bin" run "$(basename "$cfg")" --precision "$prec" --backend cpu)
        [ "$np" != 1 ] && cmd=(mpirun -np "$np" --oversubscribe "${cmd[@]}")
        (cd "$dir" && OMP_NUM_THREADS=$([ "$np" = 1 ] && echo 2 || echo 1) "${cmd[@]}" >log.txt 2>&1) ||
          { echo "$tag: the $side binary failed (see $dir/log.txt)"; failed=$((failed + 1)); continue 2; }
      done
      out=$(grep -E "^output:" "$cfg" | sed -E 's/.*file: *([^,}]+).*/\1/')
      total=$((total + 1))
      if r=$("$PY" "$ROOT/scripts/bitcheck/compare.py" "$WORK/$tag/old/$out" "$WORK/$tag/new/$out"); then
        echo "$tag: $r"
      else
        echo "$tag: DIFFERS: $r"
        failed=$((failed + 1))
      fi
    done
  done
done
echo "== $total runs compared, $failed differ or failed"
[ "$failed" -eq 0 ]
