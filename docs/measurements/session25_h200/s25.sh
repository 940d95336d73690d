#!/usr/bin/env bash
# Twenty-fifth session's device calls: devrun/s25.sh MODE
set -uo pipefail
O="${OUT:-/tmp/out}"; M=$1; mkdir -p "$O/$M"; L="$O/$M"
T0=$(date +%s); BUDGET=${BUDGET:-580}
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$L/machine.txt"
git status --short >> "$L/machine.txt"
B=build-gpu/app/adi3d
build_new() {
  cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=${TESTS:-ON} -DADI_BUILD_PYTHON=${PYB:-OFF} -DPython_EXECUTABLE=$(command -v python3) \
    -Dnanobind_DIR=$PWD/build-python/pydeps/nanobind/cmake >"$L/build.log" 2>&1 &&
    cmake --build build-gpu -j ${J:-16} ${TARGETS:-} >>"$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head -20; return 1; }
}
run() { local bin=$1 name=$2; shift 2; local t=$(date +%s); timeout $(left) "$bin" bench "$@" > "$L/bench_$name.txt" 2>&1 || echo "bench $name rc=$?"; echo "$name $(( $(date +%s) - t )) s"; }
summ() { for f in "$L"/bench_*.txt; do awk -v f=$(basename $f .txt) '/^case /{c=$2" "$3" "$4" "$5" "$6" "$7; sub(/,$/,"",c)}
     /rhs fused into x/{match($0,/[0-9]+ an SM, [0-9]+ KiB/); sh=substr($0,RSTART,RLENGTH); gsub(/ /,"",sh)}
     /^  (rhs|x|y|z\+update|rhs\+x) /{p=p" "$1"="$2"("$NF")"} /^  step /{st=$2}
     /step \/ floor =/{print f, c, "step", st, "x" $NF, sh, p; p=""; sh=""}' "$f"; done; }
ct() { local name=$1; shift; ADI_REQUIRE_GPU=1 timeout $(left) ctest --test-dir build-gpu -L gpu "$@" -j 16 > "$L/ctest_$name.txt" 2>&1
  echo "ctest $name rc=$? $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|Failed  |Total Test" "$L/ctest_$name.txt" | head -20; grep -c " Passed " "$L/ctest_$name.txt"; }
ncu_fused() {  # $1 tag, $2 binary, rest: bench args
  local tag=$1 bin=$2; shift 2
  ncu --clock-control none -k regex:"fused_x_kernel" --launch-count 1 --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section LaunchStats --section Occupancy --section InstructionStats --section MemoryWorkloadAnalysis_Tables \
    "$bin" bench "$@" --reps 1 --warmup 0 > "$L/ncu_$tag.txt" 2>&1; echo "ncu $tag rc=$?"
  grep -E "Duration|Executed Instructions  |Registers Per|Warp Cycles Per Issued|L1/TEX Cache Throughput|One or More|Dynamic Shared" "$L/ncu_$tag.txt" | sed -E 's/ +/ /g'
}
case $M in
fv)
  # scratch switch ADI_EXP_FV (fp32 I = 5, 8, 9): 0 landed, 1 __launch_bounds__(256, 4), 2 (224, 4) and at most 7 warps
  TARGETS="--target adi3d --target test_cuda_stepper" build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"
  for x in 0 1 2; do ( ADI_EXP_FV=$x ADI_REQUIRE_GPU=1 timeout 120 build-gpu/tests/gpu/test_cuda_stepper --gtest_filter='*Fused*' > "$L/gtest_fused_fv$x.txt" 2>&1; echo "fv$x gtest rc=$?" ) ; done
  grep -h "PASSED\|FAILED" "$L"/gtest_fused_fv*.txt
  S="--size 257 --size 193 --size 129 --size 225 --size 64x64x16384 --size 40x500x500 --precision float32 --reps 20"
  for r in 1 2 3; do for x in 0 1 2; do [ $(left) -gt 50 ] && ADI_EXP_FV=$x run $B fv${x}_$r $S; done; done
  for x in 0 2; do [ $(left) -gt 40 ] && ADI_EXP_FV=$x ncu_fused fv${x}_257 $B --size 257 --precision float32; done
  ;;
ct)
  # scratch switch ADI_EXP_CT=0: the fused kernel's full tables (the landed code's) instead of the compact ones
  TARGETS="--target adi3d --target test_cuda_stepper" build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"
  for x in 1 0; do ADI_EXP_CT=$x ADI_REQUIRE_GPU=1 timeout 120 build-gpu/tests/gpu/test_cuda_stepper --gtest_filter='*Fused*' > "$L/gtest_fused_ct$x.txt" 2>&1; echo "ct$x gtest rc=$?"; done
  grep -h "PASSED\|FAILED\|Failure" "$L"/gtest_fused_ct*.txt | sort | uniq -c | head
  SF="--size 257 --size 193 --size 129 --size 513 --size 512 --size 1025x256x256 --precision float32 --reps 20"
  SD="--size 257 --size 193 --size 129 --size 513 --size 512 --size 600x300x300 --size 1025x256x256 --precision float64 --reps 20"
  for r in 1 2; do for x in 1 0; do [ $(left) -gt 60 ] && ADI_EXP_CT=$x run $B f${x}_$r $SF; [ $(left) -gt 60 ] && ADI_EXP_CT=$x run $B d${x}_$r $SD; done; done
  for x in 1 0; do [ $(left) -gt 30 ] && ADI_EXP_CT=$x ncu_fused ct${x}_257d $B --size 257 --precision float64; done
  for x in 1 0; do [ $(left) -gt 30 ] && ADI_EXP_CT=$x ncu_fused ct${x}_257 $B --size 257 --precision float32; done
  ;;
half1)
  build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"
  ADI_REQUIRE_GPU=1 timeout 120 build-gpu/tests/gpu/test_cuda_stepper --gtest_filter='*Fused*' > "$L/gtest_fused.txt" 2>&1; echo "fused gtest rc=$?"; grep -h "PASSED\|FAILED" "$L/gtest_fused.txt"
  ct third1 -I 1,,3
  ;;
half2)
  ct third2 -I 2,,3
  ct third3 -I 3,,3
  [ $(left) -gt 100 ] && { SKIP_BUILD=1 SKIP_BENCH=1 timeout $(( $(left) - 60 )) scripts/gpu_python.sh "$L/py" > "$L/py.txt" 2>&1; echo "python rc=$?"; tail -2 "$L/py.txt"; }
  [ $(left) -gt 30 ] && run $B fin32 --size 129 --size 160 --size 257 --precision float32 --reps 20
  [ $(left) -gt 30 ] && run $B fin64 --size 600x300x300 --size 700x256x256 --size 257 --size 513 --precision float64 --reps 20
  ;;
src)
  # where the fused kernel's shared-memory bank conflicts come from (ncu source counters; -lineinfo is in the build)
  TESTS=OFF TARGETS="--target adi3d" build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"
  for pr in float64 float32; do [ $(left) -gt 25 ] && ncu --clock-control none -k regex:"fused_x_kernel" --launch-count 1 --section SourceCounters --section MemoryWorkloadAnalysis_Tables \
    $B bench --size 257 --precision $pr --reps 1 --warmup 0 > "$L/ncu_src_$pr.txt" 2>&1; echo "ncu $pr rc=$?"; done
  grep -n -i "conflict\|fused_x_kernel.cu:\|segmented.cuh:\|line_kernels.cuh:\|Location\|wavefront" "$L"/ncu_src_*.txt | cut -c1-220 | head -60
  ;;
esac
echo "total $(( $(date +%s) - T0 )) s"
summ | sort -k2,2 -k3,3 -k7,7 -k1,1 | cut -c1-170
cd "$O" && tar czf $M.tgz $M && rm -rf $M
