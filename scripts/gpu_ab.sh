#!/usr/bin/env bash
# Before / after on one GPU in one go: build adi3d at a git ref (a worktree,
# default HEAD) beside the working tree, run the working tree's general-path
# tests (ADI_REQUIRE_GPU=1), then bench both, alternating, so that both
# numbers come from the same card and the same minutes:
#   BENCH_ARGS='--material field --faces mixed' scripts/gpu_ab.sh OUT_DIR [REF] [sizes...]
# Env: ROUNDS (alternations, default 2), TESTS (gtest filter, default all of
# test_cuda_general; "none" skips), VARIANTS (patch files against REF, each
# built in its own worktree and benched beside the others). Full logs under
# OUT_DIR; a table last.
set -uo pipefail
OUT="${1:-gpu-out}"
REF="${2:-HEAD}"
shift 2 || shift $#
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(512)
mkdir -p "$OUT"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BASE=/tmp/adi3d-base
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/machine.txt"
# A fresh worktree each time (a warm machine may keep the last call's).
fresh_worktree() {  # dir
  git -C "$ROOT" worktree remove --force "$1" >/dev/null 2>&1
  rm -rf "$1"
  git -C "$ROOT" worktree prune
  git -C "$ROOT" worktree add -f --detach "$1" "$REF" >>"$OUT/build.log" 2>&1
}
: >"$OUT/build.log"
fresh_worktree "$BASE" || { cat "$OUT/build.log"; exit 1; }
echo "base: $(git -C "$BASE" log --oneline -1)" | tee -a "$OUT/machine.txt"
build() {  # source dir, targets...
  local src=$1
  shift
  cmake --preset gpu -S "$src" -B "$src/build-gpu" -G Ninja >"$OUT/build_$(basename "$src").log" 2>&1 &&
    cmake --build "$src/build-gpu" -j 8 --target "$@" >>"$OUT/build_$(basename "$src").log" 2>&1
}
SIDES=(base new)
declare -A BIN=([base]="$BASE/build-gpu/app/adi3d" [new]="$ROOT/build-gpu/app/adi3d")
pids=()
build "$BASE" adi3d &
pids+=($!)
for v in ${VARIANTS:-}; do
  name=$(basename "$v" .patch)
  dir=/tmp/adi3d-$name
  fresh_worktree "$dir" && git -C "$dir" apply "$ROOT/$v" || { echo "variant $v does not apply"; exit 1; }
  SIDES+=("$name")
  BIN[$name]="$dir/build-gpu/app/adi3d"
  build "$dir" adi3d &
  pids+=($!)
done
build "$ROOT" adi3d test_cuda_general
rc=$?
for p in "${pids[@]}"; do wait "$p" || rc=1; done
[ $rc -ne 0 ] && { grep -hE "error" "$OUT"/build_*.log | head -30; exit 1; }
if [ "${TESTS:-}" != none ]; then
  ADI_REQUIRE_GPU=1 "$ROOT/build-gpu/tests/gpu/test_cuda_general" ${TESTS:+--gtest_filter="$TESTS"} \
    >"$OUT/general_tests.log" 2>&1
  echo "general tests rc=$?"
  grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]" "$OUT/general_tests.log" | head -20
fi
for s in "${SIZES[@]}"; do
  tag=$(echo "$s" | tr -c 'a-zA-Z0-9' '_')
  for r in $(seq "${ROUNDS:-2}"); do
    for side in "${SIDES[@]}"; do
      "${BIN[$side]}" bench --size "$s" --precision "${BENCH_PRECISION:-both}" ${BENCH_ARGS:-} \
        >"$OUT/bench_${tag}_${side}_$r.txt" 2>&1
      echo "bench $s $side round $r rc=$?"
    done
  done
done
echo "== summary (median ms, % of copy): rhs x y z+update step, float32 then float64"
for f in "$OUT"/bench_*.txt; do
  echo "$(basename "$f" .txt) $(grep -E '^  (rhs|x|y|z\+update|step) ' "$f" | awk '{printf "%s %s | ", $2, $NF}')"
done
