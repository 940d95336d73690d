#!/usr/bin/env bash
# The mutation table of docs/TESTING.md: applies mutations of the scheme and
# of the general path one at a time to a CPU-only build with MPI (build-mut/,
# ADI_MUT_BUILD_DIR), runs the stepper contract (cpu, mpi 1-4 ranks) and the
# older suites, prints the failing tests per mutation, and restores each file
# (git checkout) after its run and on exit. Run on a clean tree: it refuses if
# the mutated files have changes. A mutation whose text is not found exactly
# once (the code moved) is reported NOT APPLIED, never run as if it were.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
B="${ADI_MUT_BUILD_DIR:-$ROOT/build-mut}"
JOBS="${ADI_JOBS:-$(nproc 2>/dev/null || echo 2)}"
FILES=(solver/core/scheme.cpp solver/cpu/tridiag_cpu.cpp solver/core/include/adi/problem.hpp solver/cpu/line_rows.hpp
  solver/core/include/adi/discrete.hpp solver/cpu/stages_cpu.cpp solver/cpu/general_local_cpu.cpp)
TARGETS=(test_contract_cpu test_contract_mpi test_mpi_stepper test_mpi_general test_scheme test_verification)
git diff --quiet -- "${FILES[@]}" || { echo "mutations.sh: ${FILES[*]} have local changes" >&2; exit 2; }
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
MPIRUN=(mpiexec --oversubscribe)
[ -f "$B/CMakeCache.txt" ] || cmake --preset default -S "$ROOT" -B "$B" -DADI_ENABLE_CUDA=OFF -DADI_ENABLE_MPI=ON >/dev/null
failed() {
  grep -E "^\[  FAILED  \].*\([0-9]+ ms\)$" | sed -E 's/\[  FAILED  \] //; s/, where TypeParam.*//; s/ \([0-9]+ ms\)$//; s#/StepperContract(F64)?/0##' \
    | sort -u | tr '\n' ' '
}
# The failing tests of one gtest program; a time-out, or an exit without a
# failed test (a crash, an abort on some rank), is said so.
outcome() {
  local out rc list
  out=$(timeout 300 "$@" --gtest_color=no 2>&1)
  rc=$?
  list=$(echo "$out" | failed)
  if [ $rc -eq 124 ]; then echo "TIMED OUT; $list"
  elif [ $rc -ne 0 ] && [ -z "${list// /}" ]; then echo "exit $rc, no failed test: $(echo "$out" | tail -2 | tr '\n' ' ')"
  else echo "$list"; fi
}
run_all() {
  echo "### $1"
  cmake --build "$B" -j "$JOBS" --target "${TARGETS[@]}" >"$B/mutation_build.log" 2>&1 \
    || { echo "build failed (see $B/mutation_build.log)"; return; }
  echo "contract cpu: $(outcome "$B/tests/contract/test_contract_cpu")"
  for np in 1 2 3 4; do
    echo "contract mpi np$np: $(outcome "${MPIRUN[@]}" -n $np "$B/tests/contract/test_contract_mpi")"
    echo "mpi_stepper np$np: $(outcome "${MPIRUN[@]}" -n $np "$B/tests/mpi/test_mpi_stepper")"
    echo "mpi_general np$np: $(outcome "${MPIRUN[@]}" -n $np "$B/tests/mpi/test_mpi_general")"
  done
  echo "test_scheme: $(outcome "$B/tests/test_scheme")"
  echo "test_verification: $(outcome "$B/tests/test_verification")"
}
mutate() {  # file old new
  python3 - "$@" <<'PY'
import sys
f, old, new = sys.argv[1:]
s = open(f).read()
if s.count(old) != 1:
    sys.exit(f"{f}: {s.count(old)} matches of {old!r}")
open(f, "w").write(s.replace(old, new))
PY
}
# ADI_MUT_ONLY=TEXT: only the mutations whose title contains TEXT (and the baseline).
try_mutation() {  # title file old new
  local title=$1 file=$2
  if [ -n "${ADI_MUT_ONLY:-}" ] && [[ "$title" != *"$ADI_MUT_ONLY"* ]]; then return; fi
  if mutate "$file" "$3" "$4"; then
    run_all "$title"
  else
    echo "### $title"
    echo "NOT APPLIED"
  fi
  git checkout -- "$file"
}
trap 'git checkout -- "${FILES[@]}"' EXIT
run_all baseline
try_mutation "theta dropped from the implicit factors" solver/core/scheme.cpp \
  "const double r = p.theta * p.mesh_ratio(ax);" "const double r = p.mesh_ratio(ax);"
try_mutation "low-face Neumann mirror coefficient halved" solver/core/scheme.cpp \
  "    m.c[0] = -2.0 * r;" "    m.c[0] = -1.0 * r;"
try_mutation "sign flipped in the CPU Thomas forward sweep" solver/cpu/tridiag_cpu.cpp \
  "row[l * step_u] = (row[l * step_u] - ai * prev[l * step_u]) * mi;" \
  "row[l * step_u] = (row[l * step_u] + ai * prev[l * step_u]) * mi;"
# The general path (#52): each copy of a rule is its own mutation.
try_mutation "harmonic_mean (problem.hpp: discrete.hpp's rows, the ranks' box ends) -> arithmetic mean" \
  solver/core/include/adi/problem.hpp \
  "  return s > T(0) ? T(2) * a * b / s : T(0);" "  return s > T(0) ? s / T(2) : T(0);"
try_mutation "harmonic_mean_select (line_rows.hpp: the CPU's vectorised interior rows) -> arithmetic mean" \
  solver/cpu/line_rows.hpp "  const T h = T(2) * a * b / s;" "  const T h = s / T(2);"
# Both CPU copies at once: every face gets the same (wrong) mean, the
# operator stays symmetric and conservative, and only a jump in K can tell.
echo "### harmonic_mean and harmonic_mean_select both -> arithmetic mean"
if mutate solver/core/include/adi/problem.hpp "  return s > T(0) ? T(2) * a * b / s : T(0);" "  return s > T(0) ? s / T(2) : T(0);" &&
  mutate solver/cpu/line_rows.hpp "  const T h = T(2) * a * b / s;" "  const T h = s / T(2);"; then
  run_all "(both copies)" | tail -n +2
else
  echo "NOT APPLIED"
fi
git checkout -- solver/core/include/adi/problem.hpp solver/cpu/line_rows.hpp
try_mutation "Robin term's sign at a low face (discrete.hpp row_coupling)" solver/core/include/adi/discrete.hpp \
  "  if (mirror_lo) gr = gr + e.lo_robin * rho;" "  if (mirror_lo) gr = gr - e.lo_robin * rho;"
try_mutation "source table at t, not t + theta dt (CPU general stepper, Douglas rhs)" solver/cpu/stages_cpu.cpp \
  "  const T qf = static_cast<T>(p_.source_table.at(tstar));" "  const T qf = static_cast<T>(p_.source_table.at(t0));"
try_mutation "source table at t, not t + theta dt (MPI ranks' CPU box, Douglas rhs)" solver/cpu/general_local_cpu.cpp \
  "    const T qf = static_cast<T>(p_.source_table.at(tstar));" "    const T qf = static_cast<T>(p_.source_table.at(t0));"
try_mutation "periodic wrap dropped in the CPU general rhs (a Wrap low end read as a Mirror)" \
  solver/cpu/stages_cpu.cpp \
  "            index_t om = ia > 0 ? o - s : (e.lo == LineEnd::Wrap ? o + (na - 1) * s : o + s);" \
  "            index_t om = ia > 0 ? o - s : o + s;"
try_mutation "periodic wrap dropped on the MPI ranks' box (lower(): a Wrap end read as a Mirror)" \
  solver/cpu/general_local_cpu.cpp \
  "    return ends_[a].lo == LineEnd::Wrap ? o + (m - 1) * s : o + s;" "    return o + s;"
try_mutation "periodic ring dropped from the reduced system of a split axis (finish: ring = false)" \
  solver/cpu/general_local_cpu.cpp "    const bool ring = p_.periodic(a);" "    const bool ring = false;"
# Stretched grids (#56): the rows' scales and the face terms' end gap.
try_mutation "stretched: a node's control volume taken as its upper gap (discrete.hpp stretch_scales)" \
  solver/core/include/adi/discrete.hpp "    const double v = 0.5 * (dm + dp);" "    const double v = dp;"
try_mutation "stretched: the lower face scaled by sp (discrete.hpp row_coupling)" \
  solver/core/include/adi/discrete.hpp "  T gm = mirror_lo ? T(0) : harmonic_mean(km, kc) * sm;" \
  "  T gm = mirror_lo ? T(0) : harmonic_mean(km, kc) * sp;"
try_mutation "stretched: the lower face scaled by sp in the vectorised interior rows (line_rows.hpp)" \
  solver/cpu/line_rows.hpp "  gm = harmonic_mean_select(km, kc) * smr;" "  gm = harmonic_mean_select(km, kc) * spr;"
try_mutation "stretched: the flux and convective data over the mean gap, not the end gap (discrete.hpp face_betas)" \
  solver/core/include/adi/discrete.hpp "      const double h = p.end_gap(a, side);" "      const double h = p.spacing(a);"
# Leave the build folder unmutated.
git checkout -- "${FILES[@]}"
cmake --build "$B" -j "$JOBS" --target "${TARGETS[@]}" >/dev/null
