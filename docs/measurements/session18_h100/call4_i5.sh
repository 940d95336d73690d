#!/usr/bin/env bash
# I = 5 for x lines of 129-160 rows: A/B on one binary (ADI_X_SEG=8 is the old plan), then the tests it touches.
set -uo pipefail
O="${OUT:-/tmp/out}"; mkdir -p "$O/i5"
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/i5/machine.txt"
cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=ON >"$O/i5/build.log" 2>&1 &&
  cmake --build build-gpu -j 16 >>"$O/i5/build.log" 2>&1 || { grep -E "error" "$O/i5/build.log" | head; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
B=build-gpu/app/adi3d
for r in 1 2; do
  for k in new old; do
    if [ $k = old ]; then E="ADI_X_SEG=8"; else E="ADI_X_SEG=0"; fi
    env $E $B bench --size 129 --size 150x130x140 --precision both --reps 20 > "$O/i5/bench_129_${k}_$r.txt" 2>&1 || echo "bench $k rc=$?"
  done
done
echo "bench done $(( $(date +%s) - T0 )) s"
ADI_REQUIRE_GPU=1 timeout 300 ctest --test-dir build-gpu -R "LineKernelPlan|CudaLineKernels|CudaLines|CudaStepper|StepperContract|contract_mpi_cuda|mpi_gpu_stepper" -j 16 > "$O/i5/ctest.txt" 2>&1
echo "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*" "$O/i5/ctest.txt" | head -20
echo "total $(( $(date +%s) - T0 )) s"
for f in "$O"/i5/bench_*.txt; do
  awk -v f=$(basename $f .txt) '/^case /{c=$2" "$3" "$4" "$5" "$6" "$7; sub(/,$/,"",c)} /kernels:/{match($0,/x: warp kernel[^;]*/); k=substr($0,RSTART+15,RLENGTH-15)}
     /^  (rhs\+x|y|z\+update) /{p=p" "$1"="$2} /^  step /{st=$2}
     /step \/ floor =/{print f, c, k, "step", st, "x" $NF, p; p=""}' "$f"
done
cd "$O" && tar czf i5.tgz i5 && rm -rf i5
