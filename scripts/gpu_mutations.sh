#!/usr/bin/env bash
# The GPU column of the mutation table (docs/TESTING.md): on a GPU machine,
# applies the mutations of scripts/mutations.sh that reach the CUDA backend
# (theta, the Neumann mirror: solver/core/scheme.cpp) and one in the CUDA
# segmented sweep (solver/cuda/segmented.cuh), rebuilds the CUDA stepper
# tests in BUILD (default build-gpu/, configured), runs the CUDA stepper
# contract and CudaStepper with ADI_REQUIRE_GPU=1, prints the failing tests
# per mutation and restores each file.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
B="${1:-$ROOT/build-gpu}"
FILES=(solver/core/scheme.cpp solver/cuda/segmented.cuh)
# The originals are kept aside and copied back (the device's copy of the tree
# may have no .git).
SAVE="$(mktemp -d)"
for f in "${FILES[@]}"; do cp "$f" "$SAVE/$(basename "$f")"; done
export ADI_REQUIRE_GPU=1
failed() { grep -E "^\[  FAILED  \].*\([0-9]+ ms\)$" | sed -E 's/\[  FAILED  \] //; s/, where TypeParam.*//; s/ \([0-9]+ ms\)$//' | sort -u | tr '\n' ' '; echo; }
run_all() {
  echo "### $1"
  cmake --build "$B" -j "$(nproc)" --target test_contract_cuda test_cuda_stepper >/dev/null || { echo "build failed"; return; }
  echo "contract cuda: $("$B/tests/contract/test_contract_cuda" --gtest_color=no 2>&1 | failed)"
  echo "test_cuda_stepper: $("$B/tests/gpu/test_cuda_stepper" --gtest_color=no 2>&1 | failed)"
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
restore() { for f in "${FILES[@]}"; do cp "$SAVE/$(basename "$f")" "$f"; done; }
trap restore EXIT
run_all baseline
mutate solver/core/scheme.cpp "const double r = p.theta * p.mesh_ratio(ax);" "const double r = p.mesh_ratio(ax);"
run_all "theta dropped from the implicit factors"; restore
mutate solver/core/scheme.cpp "    m.c[0] = -2.0 * r;" "    m.c[0] = -1.0 * r;"
run_all "low-face Neumann mirror coefficient halved"; restore
mutate solver/cuda/segmented.cuh "for (int j = 2; j < I; ++j) d[j] = v.fm[j] * d[j] - v.fs[j] * d[j - 1];" \
  "for (int j = 2; j < I; ++j) d[j] = v.fm[j] * d[j] + v.fs[j] * d[j - 1];"
run_all "sign flipped in the CUDA segmented forward sweep"; restore
cmake --build "$B" -j "$(nproc)" --target test_contract_cuda test_cuda_stepper >/dev/null
