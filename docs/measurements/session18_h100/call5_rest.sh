#!/usr/bin/env bash
set -uo pipefail
O="${OUT:-/tmp/out}"; mkdir -p "$O/r"
T0=$(date +%s)
cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=ON >"$O/r/build.log" 2>&1 &&
  cmake --build build-gpu -j 16 >>"$O/r/build.log" 2>&1 || { grep -E "error" "$O/r/build.log" | head; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
ADI_REQUIRE_GPU=1 ctest --test-dir build-gpu -R "EverySegmentLength" --output-on-failure > "$O/r/every.txt" 2>&1; echo "every rc=$?"
ADI_REQUIRE_GPU=1 timeout 230 ctest --test-dir build-gpu -L gpu -E "LineKernelPlan|CudaLineKernels|CudaLines|CudaStepper|StepperContract|contract_mpi_cuda|mpi_gpu_stepper" -j 16 > "$O/r/rest.txt" 2>&1
echo "rest rc=$?"; grep -E "tests passed|\*\*\*|Total Test" "$O/r/rest.txt" | head
echo "total $(( $(date +%s) - T0 )) s"
tail -3 "$O/r/every.txt"
