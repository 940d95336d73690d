#!/usr/bin/env bash
# Twenty-sixth session's device calls: devrun/s26.sh MODE
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
summ() { for f in "$L"/bench_*.txt; do [ -f "$f" ] || continue; awk -v f=$(basename $f .txt) '/^case /{c=$2" "$3" "$4" "$5" "$6" "$7; sub(/,$/,"",c)}
     /rhs fused into x/{match($0,/[0-9]+ an SM, [0-9]+ KiB/); sh=substr($0,RSTART,RLENGTH); gsub(/ /,"",sh)}
     /^  (rhs|x|y|z\+update|rhs\+x) /{p=p" "$1"="$2"("$NF")"} /^  step /{st=$2}
     /step \/ floor =/{print f, c, "step", st, "x" $NF, sh, p; p=""; sh=""}' "$f"; done; }
ct() { local name=$1; shift; ADI_REQUIRE_GPU=1 timeout $(left) ctest --test-dir build-gpu -L gpu "$@" -j 16 > "$L/ctest_$name.txt" 2>&1
  echo "ctest $name rc=$? $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|Failed  |Total Test" "$L/ctest_$name.txt" | head -20; grep -c " Passed " "$L/ctest_$name.txt"; }
gfused() { ADI_REQUIRE_GPU=1 timeout 150 build-gpu/tests/gpu/test_cuda_stepper --gtest_filter='*Fused*' > "$L/gtest_fused$1.txt" 2>&1; echo "fused gtest$1 rc=$?"; grep -h "PASSED\|FAILED" "$L/gtest_fused$1.txt"; }
ncu_src() {  # $1 tag, rest: bench args; per-SASS-instruction source counters
  local tag=$1; shift
  ncu --clock-control none -k regex:"fused_x_kernel" --launch-count 1 --section SourceCounters --section MemoryWorkloadAnalysis_Tables \
    --import-source yes -o "$L/rep_$tag" -f $B bench "$@" --reps 1 --warmup 0 > "$L/ncu_$tag.log" 2>&1; echo "ncu $tag rc=$?"
  ncu -i "$L/rep_$tag.ncu-rep" --page details --print-details all > "$L/ncu_$tag.txt" 2>&1
  ncu -i "$L/rep_$tag.ncu-rep" --page source --csv --print-source sass > "$L/sass_$tag.csv" 2>&1; echo "sass csv rc=$? $(wc -l < $L/sass_$tag.csv) lines"
}
case $M in
final3)
  TARGETS="--target adi3d --target test_cuda_stepper" build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"
  ADI_REQUIRE_GPU=1 timeout 60 build-gpu/tests/gpu/test_cuda_stepper --gtest_filter='*Fused*:*GraphStep*' > "$L/gtest_fused_graph.txt" 2>&1; echo "fused+graph gtest rc=$? $(( $(date +%s) - T0 )) s"; grep -h "PASSED\|FAILED" "$L/gtest_fused_graph.txt"
  [ $(left) -gt 25 ] && run $B f --size 512 --size 500x384x260 --size 257 --size 513 --precision float32 --reps 20
  [ $(left) -gt 25 ] && run $B d --size 512 --size 500x384x260 --size 257 --size 513 --precision float64 --reps 20
  ;;
bis)
  bb() { cmake --preset gpu -S "$1" -B "$2" -G Ninja -DADI_BUILD_TESTS=OFF > "$L/build_$3.log" 2>&1 && cmake --build "$2" -j 16 --target adi3d >> "$L/build_$3.log" 2>&1; echo "build $3 rc=$? $(( $(date +%s) - T0 )) s"; }
  bb . build-gpu H; bb devrun/bis/Q build-Q Q; bb devrun/bis/P build-P P
  S="--size 500x384x260 --size 512 --size 257 --precision float32 --reps 20"
  for r in 1 2; do for v in H Q P; do b=build-gpu/app/adi3d; [ $v = Q ] && b=build-Q/app/adi3d; [ $v = P ] && b=build-P/app/adi3d; [ $(left) -gt 30 ] && [ -x $b ] && run $b ${v}_$r $S; done; done
  ;;
final1)
  PYB=ON build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"
  gfused ""
  ct half1 -I 1,,2
  SKIP_BUILD=1 SKIP_BENCH=1 timeout $(left) scripts/gpu_python.sh "$L/py" > "$L/pytest_run.txt" 2>&1; echo "pytest call rc=$? $(( $(date +%s) - T0 )) s"; tail -4 "$L/pytest_run.txt"
  ;;
final2)
  [ -x build-gpu/tests/gpu/test_cuda_stepper ] || { build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"; }
  ct half2 -I 2,,2
  SF="--size 129 --size 193 --size 257 --size 513 --size 500x384x260 --size 1025x256x256 --precision float32 --reps 20"
  SD="--size 129 --size 193 --size 257 --size 513 --size 500x384x260 --size 1025x256x256 --precision float64 --reps 20"
  [ $(left) -gt 60 ] && run $B f $SF; [ $(left) -gt 60 ] && run $B d $SD
  ;;
pdl)
  TARGETS="--target adi3d --target test_cuda_stepper" build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"
  ADI_REQUIRE_GPU=1 timeout 200 build-gpu/tests/gpu/test_cuda_stepper --gtest_filter='*GraphStep*:*Fused*' > "$L/gtest_graph.txt" 2>&1; echo "graph+fused gtest rc=$?"; grep -h "PASSED\|FAILED\|Failure" "$L/gtest_graph.txt" | head
  SF="--size 129 --size 193 --size 257 --size 513 --size 64x64x16384 --size 40x500x500 --precision float32 --reps 20"
  SD="--size 129 --size 193 --size 257 --size 513 --precision float64 --reps 20"
  for r in 1 2; do for x in 1 0; do [ $(left) -gt 60 ] && ADI_CUDA_PDL=$x run $B f${x}_$r $SF; [ $(left) -gt 60 ] && ADI_CUDA_PDL=$x run $B d${x}_$r $SD; done; done
  ;;
row)
  TARGETS="--target adi3d --target test_cuda_stepper" build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"
  gfused ""
  ADI_EXP_ROW=0 gfused "_row0"
  SF="--size 257 --size 193 --size 129 --size 513 --size 1025x256x256 --size 500x384x260 --size 64x64x16384 --size 40x500x500 --precision float32 --reps 20"
  SD="--size 257 --size 193 --size 129 --size 513 --size 600x300x300 --size 700x256x256 --size 1025x256x256 --precision float64 --reps 20"
  for r in 1 2; do for x in 1 0; do [ $(left) -gt 120 ] && ADI_EXP_ROW=$x run $B f${x}_$r $SF; [ $(left) -gt 120 ] && ADI_EXP_ROW=$x run $B d${x}_$r $SD; done; done
  ncu_src f257 --size 257 --precision float32
  ncu_src d257 --size 257 --precision float64
  [ $(left) -gt 40 ] && ncu --clock-control none --launch-skip 0 --launch-count 8 --section SourceCounters $B bench --size 257 --precision float32 --reps 1 --warmup 0 > "$L/ncu_all_f257.txt" 2>&1; echo "ncu all rc=$?"
  grep -E "^  [a-z_:<>(), 0-9A-Za-z]+\(|excessive (sectors|wavefronts)" "$L/ncu_all_f257.txt" | cut -c1-160 | head -40
  ;;
src)
  TARGETS="--target adi3d --target test_cuda_stepper" build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"
  gfused ""
  ncu --help > "$L/ncu_help.txt" 2>&1
  ncu_src f257 --size 257 --precision float32
  ncu_src d257 --size 257 --precision float64
  ncu_src f512 --size 512 --precision float32
  grep -n -i "excessive\|conflict" "$L"/ncu_f257.txt | cut -c1-200 | head -30
  head -3 "$L/sass_f257.csv" | cut -c1-600
  ;;
esac
echo "total $(( $(date +%s) - T0 )) s"
summ | sort -k2,2 -k3,3 -k7,7 -k1,1 | cut -c1-170
rm -f "$L"/*.ncu-rep.tmp 2>/dev/null
cd "$O" && tar czf $M.tgz $M && rm -rf $M
