#!/usr/bin/env bash
# Twenty-fourth session's device calls: devrun/s24.sh MODE
set -uo pipefail
O="${OUT:-/tmp/out}"; M=$1; mkdir -p "$O/$M"; L="$O/$M"
T0=$(date +%s); BUDGET=${BUDGET:-580}
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$L/machine.txt"
git status --short >> "$L/machine.txt"
B=build-gpu/app/adi3d
BB=/tmp/base/build-gpu/app/adi3d
build_new() {
  cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=${TESTS:-ON} -DADI_BUILD_PYTHON=${PYB:-OFF} -DPython_EXECUTABLE=$(command -v python3) \
    -Dnanobind_DIR=$PWD/build-python/pydeps/nanobind/cmake >"$L/build.log" 2>&1 &&
    cmake --build build-gpu -j ${J:-16} ${TARGETS:-} >>"$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head -20; return 1; }
}
build_base() {
  mkdir -p /tmp/base && tar xzf devrun/base.tgz -C /tmp/base && cd /tmp/base &&
  cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=OFF -DADI_BUILD_PYTHON=OFF >"$L/build_base.log" 2>&1 &&
    cmake --build build-gpu -j 8 --target adi3d >>"$L/build_base.log" 2>&1 || { grep -E "error" "$L/build_base.log" | head -20; return 1; }
}
run() { local bin=$1 name=$2; shift 2; local t=$(date +%s); timeout $(left) "$bin" bench "$@" > "$L/bench_$name.txt" 2>&1 || echo "bench $name rc=$?"; echo "$name $(( $(date +%s) - t )) s"; }
summ() { for f in "$L"/bench_*.txt; do awk -v f=$(basename $f .txt) '/^case /{c=$2" "$3" "$4" "$5" "$6" "$7; sub(/,$/,"",c)}
     /^  (rhs|x|y|z\+update|rhs\+x) /{p=p" "$1"="$2"("$NF")"} /^  step /{st=$2}
     /step \/ floor =/{print f, c, "step", st, "x" $NF, p; p=""}' "$f"; done; }
ct() { local name=$1; shift; ADI_REQUIRE_GPU=1 timeout $(left) ctest --test-dir build-gpu -L gpu "$@" -j 16 > "$L/ctest_$name.txt" 2>&1
  echo "ctest $name rc=$? $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|Failed  |Total Test" "$L/ctest_$name.txt" | head -20; grep -c " Passed " "$L/ctest_$name.txt"; }
ncu_fused() {  # $1 tag, $2 binary, rest: bench args
  local tag=$1 bin=$2; shift 2
  ncu --clock-control none -k regex:"fused_x_kernel" --launch-count 1 --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis_Tables \
    "$bin" bench "$@" --reps 1 --warmup 0 > "$L/ncu_$tag.txt" 2>&1; echo "ncu $tag rc=$?"
  grep -E "Duration|Executed Instructions  |Issue Slots Busy|Registers Per|Warp Cycles Per Issued|Achieved Occ" "$L/ncu_$tag.txt" | sed -E 's/ +/ /g'
}
case $M in
ab)
  ( build_base; echo "base build rc=$? $(( $(date +%s) - T0 )) s" ) &
  BP=$!
  J=12 build_new; echo "new build rc=$? $(( $(date +%s) - T0 )) s"
  ct fused -R "Fused|HalfTiles"
  wait $BP
  S1="--size 257 --size 193 --size 129 --size 513 --precision both --reps 20"
  for r in 1 2; do run $B n1_$r $S1; run $BB b1_$r $S1; done
  S2="--size 1025 --size 500x384x260 --size 512 --precision both --reps 10"
  run $B n2_1 $S2; run $BB b2_1 $S2
  S3="--size 64x64x16384 --precision float32 --reps 10"
  run $B n3_1 $S3; run $BB b3_1 $S3
  ncu_fused new257 $B --size 257 --precision float32
  ncu_fused base257 $BB --size 257 --precision float32
  ncu_fused new257d $B --size 257 --precision float64
  ncu_fused base257d $BB --size 257 --precision float64
  ;;
var)
  # scratch switch ADI_EXP_FUSED (0 neither, 1 the 16-byte row phase, 2 the unrolled slab copies, 3 both)
  TARGETS="--target adi3d --target test_cuda_stepper" build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"
  for x in 0 1 2 3; do ( ADI_EXP_FUSED=$x ADI_REQUIRE_GPU=1 build-gpu/tests/test_cuda_stepper --gtest_filter='*Fused*' > "$L/gtest_fused_x$x.txt" 2>&1; echo "x$x gtest rc=$?" ) & done; wait
  grep -h "PASSED\|FAILED" "$L"/gtest_fused_x*.txt
  SF="--size 193 --size 257 --size 513 --size 512 --size 1025x256x256 --precision float32 --reps 20"
  SD="--size 257 --size 129 --size 193 --size 513 --size 1025x256x256 --precision float64 --reps 20"
  for r in 1 2; do for x in 0 1 2 3; do [ $(left) -gt 60 ] && ADI_EXP_FUSED=$x run $B f${x}_$r $SF; done
    for x in 0 1 2 3; do [ $(left) -gt 60 ] && ADI_EXP_FUSED=$x run $B d${x}_$r $SD; done; done
  ;;
fin)
  # the landed code: unrolled slab copies for fp64 I = 17 only
  TARGETS="--target adi3d --target test_cuda_stepper --target test_cuda_solver" build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"
  ADI_REQUIRE_GPU=1 timeout 120 build-gpu/tests/gpu/test_cuda_stepper --gtest_filter='*Fused*' > "$L/gtest_fused.txt" 2>&1; echo "fused gtest rc=$?"; grep -h "PASSED\|FAILED" "$L/gtest_fused.txt"
  for r in 1 2; do run $B fin64_$r --size 513 --precision float64 --reps 20; done
  run $B fin513both --size 513 --size 512 --precision both --reps 10
  ct stepper -R "CudaStepper|CudaLineKernels"
  ;;
t544)
  TARGETS="--target test_cuda_stepper" build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"
  ADI_REQUIRE_GPU=1 timeout $(left) build-gpu/tests/gpu/test_cuda_stepper --gtest_filter='*Fused*' > "$L/gtest_fused544.txt" 2>&1; echo "fused gtest rc=$?"; grep -h "PASSED\|FAILED\|OK \]" "$L/gtest_fused544.txt"
  grep -h "544 x 6 x 5" "$L/gtest_fused544.txt" | head -3
  ;;
half1)
  SKIP=${SKIP_BUILD:-0}; [ "$SKIP" = 1 ] || { build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"; }
  ct half1 -I 1,,2
  ;;
half2)
  ct half2 -I 2,,2
  ;;
esac
echo "total $(( $(date +%s) - T0 )) s"
summ | sort -k2,2 -k3,3 -k7,7 -k1,1 | cut -c1-140
cd "$O" && tar czf $M.tgz $M && rm -rf $M
