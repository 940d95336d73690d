#!/usr/bin/env bash
# The general path on a GPU in one go: build adi3d and the general-path
# tests, run them (ADI_REQUIRE_GPU=1), then bench the general cases beside
# the classic all-Dirichlet step at one size:
#   scripts/gpu_general.sh [OUT_DIR] [size] [reps]
# Full logs under OUT_DIR; a short table last.
set -uo pipefail
OUT="${1:-${OUT:-gpu-out}}"
SIZE="${2:-512}"
REPS="${3:-10}"
mkdir -p "$OUT"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="$ROOT/build-gpu"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cmake --preset gpu -S "$ROOT" -B "$BUILD" -G Ninja >"$OUT/build.log" 2>&1 &&
  cmake --build "$BUILD" -j "$(nproc)" --target adi3d test_cuda_general >>"$OUT/build.log" 2>&1
rc=$?
[ $rc -ne 0 ] && { grep -E "error" "$OUT/build.log" | head -30; exit $rc; }
if [ "${SKIP_GPU_TESTS:-0}" != 1 ]; then
  ADI_REQUIRE_GPU=1 "$BUILD/tests/gpu/test_cuda_general" >"$OUT/general_tests.log" 2>&1
  echo "general tests rc=$?"
  grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]" "$OUT/general_tests.log" | head -20
  grep -E "rel [0-9.e+-]+ \(tol" "$OUT/general_tests.log" | awk '{for(i=1;i<=NF;i++) if($i=="rel") print $(i+1)}' |
    sort -g | tail -1 | sed 's/^/largest relative difference: /'
fi
B="$BUILD/app/adi3d"
bench() {
  local tag=$1
  shift
  "$B" bench --size "$SIZE" --precision both --reps "$REPS" "$@" >"$OUT/bench_$tag.txt" 2>&1
  echo "bench $tag rc=$?"
}
bench classic
bench field_mixed --material field --faces mixed
bench robin --material constant --faces robin
bench const_mixed --material constant --faces mixed
bench periodic --material constant --faces periodic
[ -n "${EXTRA_ENV:-}" ] && env $EXTRA_ENV "$B" bench --size "$SIZE" --precision both --reps "$REPS" \
  --material field --faces mixed >"$OUT/bench_field_mixed_extra.txt" 2>&1
echo "== summary (median ms, % of copy bandwidth)"
for f in "$OUT"/bench_*.txt; do
  echo "-- $(basename "$f" .txt)"
  grep -E "^case|^  (rhs|x|y|z\+update|step) |floor|rror" "$f" | sed -E 's/ +/ /g'
done
