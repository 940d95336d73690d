#!/usr/bin/env bash
# Twenty-first session's device calls: s21.sh MODE (run as devrun/s20.sh)  (MODE: half1 | half2 | ab | half64 | subset)
set -uo pipefail
O="${OUT:-/tmp/out}"; M=$1; mkdir -p "$O/$M"; L="$O/$M"
T0=$(date +%s); BUDGET=${BUDGET:-570}
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$L/machine.txt"
git log -1 --format=%H 2>/dev/null >> "$L/machine.txt"; git status --short >> "$L/machine.txt"
cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=ON -DADI_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(command -v python3) \
  -Dnanobind_DIR=$PWD/build-python/pydeps/nanobind/cmake >"$L/build.log" 2>&1 &&
  cmake --build build-gpu -j 16 ${TARGETS:-} >>"$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head -20; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
B=build-gpu/app/adi3d
run() { local name=$1; shift; local t=$(date +%s); "$B" bench "$@" > "$L/bench_$name.txt" 2>&1 || echo "bench $name rc=$?"; echo "$name $(( $(date +%s) - t )) s"; }
summ() { for f in "$L"/bench_*.txt; do awk -v f=$(basename $f .txt) '/^case /{c=$2" "$3" "$4" "$5" "$6" "$7; sub(/,$/,"",c)}
     /^  (rhs|x|y|z\+update|rhs\+x) /{p=p" "$1"="$2"("$NF")"} /^  step /{st=$2}
     /step \/ floor =/{print f, c, "step", st, "x" $NF, p; p=""}' "$f"; done; }
ct() { local name=$1; shift; ADI_REQUIRE_GPU=1 timeout $(left) ctest --test-dir build-gpu -L gpu "$@" -j 16 > "$L/ctest_$name.txt" 2>&1
  echo "ctest $name rc=$? $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|Failed  |Total Test" "$L/ctest_$name.txt" | head -20; grep -c " Passed " "$L/ctest_$name.txt"; }
case $M in
half1|half2)
  I=${M#half}
  if [ $M = half1 ]; then
    SKIP_BUILD=1 SKIP_BENCH=1 scripts/gpu_python.sh "$L/py" > "$L/py.txt" 2>&1; echo "python rc=$?"; tail -3 "$L/py.txt"
  fi
  ct $M -I $I,,2
  ;;
ab)
  ADI_REQUIRE_GPU=1 ctest --test-dir build-gpu -R "LinePairs|LinePairTiles" --output-on-failure > "$L/ctest_pairs.txt" 2>&1; echo "pairs test rc=$? $(( $(date +%s) - T0 )) s"
  grep -E "tests passed|Failure|Expected|Which is|Test time" "$L/ctest_pairs.txt" | head -12
  SZ="--size 257 --size 193 --size 129 --size 512 --size 500x384x260 --precision float32 --reps 20"
  ADI_LANES_PAIRS=0 run p0_1 $SZ; run def_1 $SZ; ADI_LANES_PAIR_TILE=16 run t16_1 $SZ; ADI_LANES_PAIR_TILE=32 run t32_1 $SZ
  ADI_LANES_PAIRS=0 run p0_2 $SZ; run def_2 $SZ
  grep -h "kernels:" "$L"/bench_def_1.txt | grep -o "y: lanes[^;]*; z: lanes[^;]*" | head -8
  ;;
half64)
  SZ="--size 257 --size 193 --size 129 --size 160 --size 500x384x260 --size 512 --precision float64 --reps 20"
  run h1_1 $SZ; ADI_LANES_HALF_TILES=0 run h0_1 $SZ; run h1_2 $SZ; ADI_LANES_HALF_TILES=0 run h0_2 $SZ
  grep -h "kernels:" "$L"/bench_h1_1.txt | grep -o "y: lanes[^;]*; z: lanes[^;]*" | head -8
  summ; summ > "$L/summary.txt"
  ct subset64 -R "CudaLines|CudaLineKernels|CudaStepper|StepperContract|Ring|Periodic"
  ;;
subset)
  ct subset -R "CudaLines|CudaLineKernels|CudaStepper.*F32|StepperContract"
  ;;
esac
echo "total $(( $(date +%s) - T0 )) s"
summ
cd "$O" && tar czf $M.tgz $M && rm -rf $M
