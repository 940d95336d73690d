#!/usr/bin/env bash
# Build, test and benchmark on a GPU machine in one go (see shared GPU.md):
#   scripts/gpu_check.sh [OUT_DIR] [bench sizes...]
# Writes full logs and JSON under OUT_DIR (default: gpu-out/) and prints a
# short table last. Never changes GPU settings.
set -uo pipefail
OUT="${1:-${OUT:-gpu-out}}"
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(512)
mkdir -p "$OUT"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="$ROOT/build-gpu"
log() { echo "== $*"; }

{
  nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,driver_version --format=csv
  nvcc --version | tail -2
  cmake --version | head -1
} >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

log "configure + build"
cmake --preset gpu -S "$ROOT" -B "$BUILD" -G Ninja >"$OUT/build.log" 2>&1 && cmake --build "$BUILD" -j "$(nproc)" >>"$OUT/build.log" 2>&1
rc=$?
tail -3 "$OUT/build.log"
[ $rc -ne 0 ] && { grep -E "error" "$OUT/build.log" | head -30; exit $rc; }

if [ "${SKIP_GPU_TESTS:-0}" != 1 ]; then
log "gpu tests (ADI_REQUIRE_GPU=1)"
ADI_REQUIRE_GPU=1 ctest --test-dir "$BUILD" -L gpu --output-on-failure -j 4 >"$OUT/gpu_tests.log" 2>&1
echo "gpu tests rc=$?"; grep -E "tests passed|tests failed" "$OUT/gpu_tests.log"
grep -E "^\s+[0-9]+ - .*(Failed|Not Run|Exception)" "$OUT/gpu_tests.log" | head -20
fi

B="$BUILD/app/adi3d"
"$B" info | tee "$OUT/info.txt"
for s in "${SIZES[@]}"; do
  tag=$(echo "$s" | tr -c 'a-zA-Z0-9' '_')
  "$B" bench --size "$s" --precision "${BENCH_PRECISION:-both}" ${BENCH_ARGS:-} --json "$OUT/bench_$tag.json" \
    >"$OUT/bench_$tag.txt" 2>&1
  echo "bench $s rc=$?"
done
echo "== summary (median ms, % of copy bandwidth)"
for f in "$OUT"/bench_*.txt; do
  grep -E "^case|^  (rhs|x|y|z\+update|step) |floor|cuSPARSE" "$f" | sed -E 's/ +/ /g'
done
