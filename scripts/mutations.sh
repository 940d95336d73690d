#!/usr/bin/env bash
# The mutation table of docs/TESTING.md: applies three mutations of the scheme
# one at a time to a CPU-only build with MPI (build-mut/, ADI_MUT_BUILD_DIR),
# runs the stepper contract (cpu, mpi 1-4 ranks) and the older suites, prints
# the failing tests per mutation, and restores each file (git checkout) after
# its run. Run on a clean tree: it refuses if the mutated files have changes.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
B="${ADI_MUT_BUILD_DIR:-$ROOT/build-mut}"
JOBS="${ADI_JOBS:-$(nproc 2>/dev/null || echo 2)}"
FILES=(solver/core/scheme.cpp solver/cpu/tridiag_cpu.cpp)
git diff --quiet -- "${FILES[@]}" || { echo "mutations.sh: ${FILES[*]} have local changes" >&2; exit 2; }
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
MPIRUN=(mpiexec --oversubscribe)
[ -f "$B/CMakeCache.txt" ] || cmake --preset default -S "$ROOT" -B "$B" -DADI_ENABLE_CUDA=OFF -DADI_ENABLE_MPI=ON >/dev/null
failed() { grep -E "^\[  FAILED  \].*\([0-9]+ ms\)$" | sed -E 's/\[  FAILED  \] //; s/, where TypeParam.*//; s/ \([0-9]+ ms\)$//; s#/StepperContract/0##' | sort -u | tr '\n' ' '; echo; }
run_all() {
  echo "### $1"
  cmake --build "$B" -j "$JOBS" --target test_contract_cpu test_contract_mpi test_mpi_stepper test_scheme >/dev/null \
    || { echo "build failed"; return; }
  echo "contract cpu: $("$B/tests/contract/test_contract_cpu" --gtest_color=no 2>&1 | failed)"
  for np in 1 2 3 4; do
    echo "contract mpi np$np: $("${MPIRUN[@]}" -n $np "$B/tests/contract/test_contract_mpi" --gtest_color=no 2>&1 | failed)"
    echo "mpi_stepper np$np: $("${MPIRUN[@]}" -n $np "$B/tests/mpi/test_mpi_stepper" --gtest_color=no 2>&1 | failed)"
  done
  echo "test_scheme: $("$B/tests/test_scheme" --gtest_color=no 2>&1 | failed)"
}
mutate() {  # file old new
  python3 - "$@" <<'PY'
import sys
f, old, new = sys.argv[1:]
s = open(f).read()
assert s.count(old) == 1, (f, old)
open(f, "w").write(s.replace(old, new))
PY
}
trap 'git checkout -- "${FILES[@]}"' EXIT
run_all baseline
mutate solver/core/scheme.cpp "const double r = p.theta * p.mesh_ratio(ax);" "const double r = p.mesh_ratio(ax);"
run_all "theta dropped from the implicit factors"; git checkout -- solver/core/scheme.cpp
mutate solver/core/scheme.cpp "    m.c[0] = -2.0 * r;" "    m.c[0] = -1.0 * r;"
run_all "low-face Neumann mirror coefficient halved"; git checkout -- solver/core/scheme.cpp
mutate solver/cpu/tridiag_cpu.cpp "row[l * step_u] = (row[l * step_u] - ai * prev[l * step_u]) * mi;" \
  "row[l * step_u] = (row[l * step_u] + ai * prev[l * step_u]) * mi;"
run_all "sign flipped in the CPU Thomas forward sweep"; git checkout -- solver/cpu/tridiag_cpu.cpp
# Leave the build folder unmutated.
cmake --build "$B" -j "$JOBS" --target test_contract_cpu test_contract_mpi test_mpi_stepper test_scheme >/dev/null
