#!/usr/bin/env bash
# Twenty-seventh session's device calls: devrun/s27.sh MODE
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
     /^  (rhs|x|y|z\+update|rhs\+x) /{p=p" "$1"="$2} /^  step /{st=$2}
     /step \/ floor =/{print f, c, "step", st, "x" $NF, p; p=""}' "$f"; done; }
ct() { local name=$1; shift; ADI_REQUIRE_GPU=1 timeout $(left) ctest --test-dir build-gpu -L gpu "$@" -j 16 > "$L/ctest_$name.txt" 2>&1
  echo "ctest $name rc=$? $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|Failed  |Total Test" "$L/ctest_$name.txt" | head -20; grep -c " Passed " "$L/ctest_$name.txt"; }
ncu_dram() {  # $1 tag, rest: bench args; DRAM bytes and L2 hit rate of each kernel of a step, caches kept between kernels
  local tag=$1; shift
  ADI_CUDA_GRAPH=0 timeout $(left) ncu --clock-control none --cache-control none --launch-skip 30 --launch-count 6 \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum \
    $B bench "$@" --reps 3 --warmup 3 > "$L/ncu_$tag.txt" 2>&1; echo "ncu $tag rc=$?"
  grep -E "^  [a-z_]+.*\(|dram__bytes|hit_rate|duration" "$L/ncu_$tag.txt" | sed 's/  */ /g' | cut -c1-120 | head -40
}
case $M in
l2)
  TARGETS="--target adi3d --target test_cuda_stepper" build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"
  SF="--size 257 --size 193 --size 129 --size 513 --size 500x384x260 --precision float32 --reps 20"
  SD="--size 257 --size 193 --size 129 --size 513 --precision float64 --reps 20"
  for r in 1 2; do for x in 0 1 2; do [ $(left) -gt 150 ] && ADI_L2_PERSIST=$x run $B f${x}_$r $SF; [ $(left) -gt 150 ] && ADI_L2_PERSIST=$x run $B d${x}_$r $SD; done; done
  grep -h "L2 window" "$L"/bench_f1_1.txt | head -2 | grep -o "L2 window[^)]*)"
  for x in 0 1; do [ $(left) -gt 60 ] && ADI_L2_PERSIST=$x ncu_dram f257_$x --size 257 --precision float32; done
  ;;
l2b)
  [ -x $B ] || { TARGETS="--target adi3d" build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"; }
  SF="--size 257 --size 193 --size 513 --precision float32 --reps 20"
  SD="--size 257 --size 193 --precision float64 --reps 20"
  for r in 1 2; do for x in 0 3 4; do [ $(left) -gt 100 ] && ADI_L2_PERSIST=$x run $B f${x}_$r $SF; [ $(left) -gt 100 ] && ADI_L2_PERSIST=$x run $B d${x}_$r $SD; done; done
  grep -h "L2 window" "$L"/bench_f3_1.txt "$L"/bench_f4_1.txt | grep -o "L2 window[^)]*)[^)]*"
  for x in 3; do [ $(left) -gt 60 ] && ADI_L2_PERSIST=$x ncu_dram f257_$x --size 257 --precision float32; done
  ;;
grp)
  bb() { cmake --preset gpu -S "$1" -B "$2" -G Ninja -DADI_BUILD_TESTS=OFF > "$L/build_$3.log" 2>&1 && cmake --build "$2" -j ${J:-16} --target adi3d >> "$L/build_$3.log" 2>&1; echo "build $3 rc=$? $(( $(date +%s) - T0 )) s"; }
  J=8 bb . build-gpu E & J=8 bb devrun/base build-base B & wait
  SF="--size 257 --size 193 --size 500x384x260 --size 513 --precision float32 --reps 20"
  SD="--size 257 --size 193 --size 513 --precision float64 --reps 20"
  for r in 1 2; do for v in B E0 E64 E128; do b=$B; x=${v#E}; [ $v = B ] && { b=build-base/app/adi3d; x=0; }
    [ $(left) -gt 40 ] && ADI_LANES_GROUP=$x run $b f${v}_$r $SF; [ $(left) -gt 40 ] && ADI_LANES_GROUP=$x run $b d${v}_$r $SD; done; done
  ;;
fin1)
  PYB=ON build_new; echo "build rc=$? $(( $(date +%s) - T0 )) s"
  ct half1 -I 1,,2
  SKIP_BUILD=1 SKIP_BENCH=1 timeout 120 scripts/gpu_python.sh "$L/py" > "$L/pytest_run.txt" 2>&1; echo "pytest call rc=$? $(( $(date +%s) - T0 )) s"; tail -3 "$L/pytest_run.txt"
  [ $(left) -gt 50 ] && run $B f --size 129 --size 193 --size 257 --size 512 --size 513 --size 500x384x260 --size 1025x256x256 --precision float32 --reps 20
  ;;
fin2)
  ct half2 -I 2,,2
  [ $(left) -gt 50 ] && run $B d --size 129 --size 193 --size 257 --size 512 --size 513 --size 500x384x260 --size 1025x256x256 --precision float64 --reps 20
  [ $(left) -gt 60 ] && run $B big_f --size 4096x256x256 --size 64x64x16384 --size 8192x8192x3 --size 1025 --precision float32 --reps 10
  [ $(left) -gt 60 ] && run $B big_d --size 1025 --size 1024 --precision float64 --reps 10
  ;;
esac
echo "total $(( $(date +%s) - T0 )) s"
summ | sort -k2,2 -k3,3 -k7,7 -k1,1 | cut -c1-170
rm -f "$L"/*.ncu-rep.tmp 2>/dev/null
cd "$O" && tar czf $M.tgz $M && rm -rf $M
