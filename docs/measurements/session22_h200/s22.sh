#!/usr/bin/env bash
# Twenty-second session's device calls: s22.sh MODE (run as devrun/s22.sh)  (MODE: half1 | half2 | lane | lane3; lane2 unused)
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
lane)
  ADI_REQUIRE_GPU=1 ctest --test-dir build-gpu -R "FaceLane" --output-on-failure > "$L/ctest_facelane.txt" 2>&1; echo "facelane rc=$? $(( $(date +%s) - T0 )) s"
  grep -E "tests passed|Failure|Expected|Which is|Test time" "$L/ctest_facelane.txt" | head -12
  S32="--size 257 --size 193 --size 129 --size 513 --precision float32 --reps 20"
  S64="--size 257 --size 193 --size 129 --size 513 --precision float64 --reps 20"
  run d32_1 $S32; ADI_SKIP_FACE_LANE=0 run k32_1 $S32; ADI_LANES_PAIRS=0 run p32_1 $S32
  run d64_1 $S64; ADI_SKIP_FACE_LANE=0 run k64_1 $S64
  run d32_2 $S32; ADI_SKIP_FACE_LANE=0 run k32_2 $S32; ADI_LANES_PAIRS=0 run p32_2 $S32
  run d64_2 $S64; ADI_SKIP_FACE_LANE=0 run k64_2 $S64
  grep -h "kernels:" "$L"/bench_d32_1.txt "$L"/bench_d64_1.txt | grep -o "y: lanes[^;]*; z: lanes[^;]*" | head -8
  summ > "$L/summary.txt"
  ct half1 -I 1,,2
  ;;
lane2)
  SKIP_BUILD=1 SKIP_BENCH=1 scripts/gpu_python.sh "$L/py" > "$L/py.txt" 2>&1; echo "python rc=$?"; tail -3 "$L/py.txt"
  ct half2 -I 2,,2
  ;;
lane3)
  ADI_REQUIRE_GPU=1 ctest --test-dir build-gpu -R "FaceLane|LinePairs" --output-on-failure > "$L/ctest_changed.txt" 2>&1; echo "changed rc=$? $(( $(date +%s) - T0 )) s"
  grep -E "tests passed|Failure|Expected|Which is|Test time" "$L/ctest_changed.txt" | head -12
  run f32 --size 257 --size 193 --size 129 --precision float32 --reps 20
  grep -h "kernels:" "$L"/bench_f32.txt | grep -o "y: lanes[^;]*; z: lanes[^;]*" | head -3
  ct half2 -I 2,,2
  [ $(left) -gt 30 ] && { SKIP_BUILD=1 SKIP_BENCH=1 timeout $(( $(left) - 5 )) scripts/gpu_python.sh "$L/py" > "$L/py.txt" 2>&1; echo "python rc=$?"; tail -2 "$L/py.txt"; }
  ;;
half1)
  SKIP_BUILD=1 SKIP_BENCH=1 scripts/gpu_python.sh "$L/py" > "$L/py.txt" 2>&1; echo "python rc=$?"; tail -3 "$L/py.txt"
  ct half1 -I 1,,2
  ;;
half2)
  ct half2 -I 2,,2
  S64="--size 257 --size 193 --size 129 --precision float64 --reps 20"
  S32="--size 257 --size 193 --size 129 --precision float32 --reps 20"
  run h1_1 $S64; ADI_LANES_HALF_TILES=0 run h0_1 $S64; run h1_2 $S64; ADI_LANES_HALF_TILES=0 run h0_2 $S64
  run f32_1 $S32
  grep -h "kernels:" "$L"/bench_h1_1.txt | grep -o "y: lanes[^;]*; z: lanes[^;]*" | head -4
  ;;
esac
echo "total $(( $(date +%s) - T0 )) s"
summ | sort -k7,7 -k2,2n -k1,1
cd "$O" && tar czf $M.tgz $M && rm -rf $M
