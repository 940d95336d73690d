#!/usr/bin/env bash
# fp32 y / z line pairs in 32-line tiles: build, the pair test, A/B (ADI_LANES_PAIRS=1 / 0), the tests they touch.
set -uo pipefail
O="${OUT:-/tmp/out}"; L="$O/pairs"; mkdir -p "$L"
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/machine.txt"
cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=ON >"$L/build.log" 2>&1 &&
  cmake --build build-gpu -j 16 >>"$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head -20; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
ADI_REQUIRE_GPU=1 ctest --test-dir build-gpu -R "LinePairs" --output-on-failure > "$L/ctest_pairs.txt" 2>&1; echo "pairs test rc=$?"
grep -E "tests passed|Failure|Expected|Which is" "$L/ctest_pairs.txt" | head -12
B=build-gpu/app/adi3d
for r in 1 2; do for k in 1 0; do
  ADI_LANES_PAIRS=$k $B bench --size 512 --size 513 --size 500x384x260 --size 257 --size 193 --size 129 --size 4096x256x256 --precision float32 --reps 20 > "$L/bench_p${k}_$r.txt" 2>&1 || echo "bench $k rc=$?"
done; done
echo "bench $(( $(date +%s) - T0 )) s"
for f in "$L"/bench_p1_1.txt "$L"/bench_p0_1.txt "$L"/bench_p1_2.txt "$L"/bench_p0_2.txt; do
  awk -v f=$(basename $f .txt) '/^adi3d bench:/{print f, $0} /^case /{c=$2" "$3" "$4" "$5" "$6; sub(/,$/,"",c)}
     /^  (rhs|x|y|z\+update|rhs\+x) /{p=p" "$1"="$2} /^  step /{st=$2}
     /step \/ floor =/{print f, c, "step", st, "x" $NF, p; p=""}' "$f"
done
grep -h "kernels:" "$L"/bench_p1_1.txt | grep -o "y: lanes[^;]*; z: lanes[^;]*" | head -8
ADI_REQUIRE_GPU=1 timeout 170 ctest --test-dir build-gpu -R "CudaLines|CudaLineKernels|CudaStepper.*F32|StepperContract" -j 16 > "$L/ctest_subset.txt" 2>&1
echo "subset rc=$? $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|Failed  |Total Test" "$L/ctest_subset.txt" | head -12
grep -cE "Passed" "$L/ctest_subset.txt"
cd "$O" && tar czf pairs.tgz pairs && rm -rf pairs
