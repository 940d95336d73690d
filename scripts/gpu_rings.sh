#!/usr/bin/env bash
# Periodic axes on the classic kernels (#17): build adi3d and the two GPU
# test programs that cover them, run the ring tests (ADI_REQUIRE_GPU=1),
# then bench, at each size, the all-Dirichlet step beside the periodic one
# (classic rings), the general segmented ring kernel (ADI_CLASSIC_RINGS=0),
# Robin faces and mixed faces, on one device in one call:
#   scripts/gpu_rings.sh [OUT_DIR] [reps] [sizes...]
# Full logs under OUT_DIR; a short table last.
set -uo pipefail
OUT="${1:-${OUT:-gpu-out}}"
REPS="${2:-10}"
shift 2 || true
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(512)
mkdir -p "$OUT"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="$ROOT/build-gpu"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/machine.txt"
cmake --preset gpu -S "$ROOT" -B "$BUILD" -G Ninja >"$OUT/build.log" 2>&1 &&
  cmake --build "$BUILD" -j "$(nproc)" --target adi3d test_cuda_solver test_cuda_general >>"$OUT/build.log" 2>&1
rc=$?
[ $rc -ne 0 ] && { grep -E "error" "$OUT/build.log" | head -30; exit $rc; }
if [ "${SKIP_GPU_TESTS:-0}" != 1 ]; then
  ADI_REQUIRE_GPU=1 "$BUILD/tests/gpu/test_cuda_solver" --gtest_filter="${SOLVER_FILTER:-*Ring*:*EverySegmentLength*:*HalfTiles*:CudaRhs*}" \
    >"$OUT/solver_tests.log" 2>&1
  echo "solver tests rc=$?"
  grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|tests ran" "$OUT/solver_tests.log" | head -20
  ADI_REQUIRE_GPU=1 "$BUILD/tests/gpu/test_cuda_general" >"$OUT/general_tests.log" 2>&1
  echo "general tests rc=$?"
  grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|tests ran" "$OUT/general_tests.log" | head -20
  grep -E "rel [0-9.e+-]+ \(tol" "$OUT/general_tests.log" | awk '{for(i=1;i<=NF;i++) if($i=="rel") print $(i+1)}' |
    sort -g | tail -1 | sed 's/^/largest relative difference: /'
fi
B="$BUILD/app/adi3d"
# One file per size (few files come back from a remote run): the
# all-Dirichlet step, periodic x, y, z on the classic rings and on the
# general ring kernel, Robin on all six faces, and the mixed faces.
for s in "${SIZES[@]}"; do
  f="$OUT/bench_$s.txt"
  : >"$f"
  "$B" bench --size "$s" --precision both --reps "$REPS" >>"$f" 2>&1
  "$B" bench --size "$s" --precision both --reps "$REPS" --material constant --faces periodic >>"$f" 2>&1
  ADI_CLASSIC_RINGS=0 "$B" bench --size "$s" --precision both --reps "$REPS" --material constant --faces periodic \
    >>"$f" 2>&1
  "$B" bench --size "$s" --precision both --reps "$REPS" --material constant --faces robin >>"$f" 2>&1
  "$B" bench --size "$s" --precision both --reps "$REPS" --material constant --faces mixed >>"$f" 2>&1
  echo "bench $s rc=$?"
done
echo "== summary (median ms, % of copy bandwidth)"
for f in "$OUT"/bench_*.txt; do
  echo "-- $(basename "$f" .txt)"
  grep -E "^case|^  (rhs|x|y|z\+update|step) |floor|rror" "$f" | sed -E 's/ +/ /g'
done
[ -f "$OUT/solver_tests.log" ] && grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|tests ran" "$OUT/solver_tests.log" | sed 's/^/solver tests: /'
[ -f "$OUT/general_tests.log" ] && grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|tests ran" "$OUT/general_tests.log" | sed 's/^/general tests: /'
