#!/usr/bin/env bash
# GPU ranks under load: an MPI test program run ROUNDS times, J copies at once
# (2 ranks each, all on the GPUs there are), against a build at a git ref
# (default HEAD, in a worktree) and the working tree, alternating, so both
# counts come from the same card and minutes. Prints the failed runs of each:
#   scripts/gpu_mpi_stress.sh OUT_DIR [REF]
# Env: ROUNDS (default 20), J (default 5), TARGET (default test_mpi_stepper),
# FILTER (gtest filter, default *SingleProcess*), DEADLINE_S (default 540).
# Races between the host and the device (a copy not ordered before a
# kernel) show up here as occasional wrong results, not in a quiet ctest.
set -uo pipefail
OUT="$(realpath -m "${1:-gpu-out}")"
REF="${2:-HEAD}"
ROUNDS="${ROUNDS:-20}" J="${J:-5}" TARGET="${TARGET:-test_mpi_stepper}" FILTER="${FILTER:-*SingleProcess*}"
mkdir -p "$OUT/runs"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BASE=/tmp/adi3d-stress-base
S=$(date +%s)
git -C "$ROOT" worktree remove --force "$BASE" >/dev/null 2>&1
rm -rf "$BASE"; git -C "$ROOT" worktree prune
git -C "$ROOT" worktree add -f --detach "$BASE" "$REF" >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
for src in "$BASE" "$ROOT"; do
  (cmake --preset gpu -S "$src" -B "$src/build-gpu" -G Ninja >>"$OUT/build.log" 2>&1 &&
     cmake --build "$src/build-gpu" -j 8 --target "$TARGET" >>"$OUT/build.log" 2>&1) &
done
wait
BIN_base="$(find "$BASE/build-gpu/tests" -name "$TARGET" -type f | head -1)"
BIN_new="$(find "$ROOT/build-gpu/tests" -name "$TARGET" -type f | head -1)"
[ -x "$BIN_base" ] && [ -x "$BIN_new" ] || { tail -20 "$OUT/build.log"; exit 1; }
MPIRUN=(mpirun --oversubscribe -np 2 -x ADI_MPI_TEST_BACKEND=cuda)
[ "$(id -u)" = 0 ] && MPIRUN+=(--allow-run-as-root)
declare -A FAIL=([base]=0 [new]=0) RUNS=([base]=0 [new]=0)
for round in $(seq 1 "$ROUNDS"); do
  for side in base new; do
    bin="BIN_$side"
    for j in $(seq 1 "$J"); do
      ( "${MPIRUN[@]}" "${!bin}" --gtest_filter="$FILTER" >"$OUT/runs/${side}_${round}_$j.log" 2>&1
        echo $? >"$OUT/runs/${side}_${round}_$j.rc" ) &
    done
    wait
    for j in $(seq 1 "$J"); do
      RUNS[$side]=$((RUNS[$side] + 1))
      [ "$(cat "$OUT/runs/${side}_${round}_$j.rc")" = 0 ] || FAIL[$side]=$((FAIL[$side] + 1))
    done
  done
  [ $(($(date +%s) - S)) -gt "${DEADLINE_S:-540}" ] && break
done
echo "base: $(git -C "$BASE" log --oneline -1)"
for side in base new; do echo "$side: ${FAIL[$side]} of ${RUNS[$side]} runs failed"; done
