#!/usr/bin/env bash
# Twenty-third session's device calls: devrun/s23.sh MODE
set -uo pipefail
O="${OUT:-/tmp/out}"; M=$1; mkdir -p "$O/$M"; L="$O/$M"
T0=$(date +%s); BUDGET=${BUDGET:-570}
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$L/machine.txt"
git log -1 --format=%H 2>/dev/null >> "$L/machine.txt"
[ -n "${PATCHES:-}" ] && for p in $PATCHES; do git apply "$p" || { echo "patch $p failed"; exit 1; }; done
git status --short >> "$L/machine.txt"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=${TESTS:-ON} -DADI_BUILD_PYTHON=${PYB:-ON} -DPython_EXECUTABLE=$(command -v python3) \
  -Dnanobind_DIR=$PWD/build-python/pydeps/nanobind/cmake >"$L/build.log" 2>&1 &&
  cmake --build build-gpu -j 16 ${TARGETS:-} >>"$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head -20; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
fi
B=build-gpu/app/adi3d
run() { local name=$1; shift; local t=$(date +%s); timeout $(left) "$B" bench "$@" > "$L/bench_$name.txt" 2>&1 || echo "bench $name rc=$?"; echo "$name $(( $(date +%s) - t )) s"; }
summ() { for f in "$L"/bench_*.txt; do awk -v f=$(basename $f .txt) '/^case /{c=$2" "$3" "$4" "$5" "$6" "$7; sub(/,$/,"",c)}
     /^  (rhs|x|y|z\+update|rhs\+x) /{p=p" "$1"="$2"("$NF")"} /^  step /{st=$2}
     /step \/ floor =/{print f, c, "step", st, "x" $NF, p; p=""}' "$f"; done; }
ct() { local name=$1; shift; ADI_REQUIRE_GPU=1 timeout $(left) ctest --test-dir build-gpu -L gpu "$@" -j 16 > "$L/ctest_$name.txt" 2>&1
  echo "ctest $name rc=$? $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|Failed  |Total Test" "$L/ctest_$name.txt" | head -20; grep -c " Passed " "$L/ctest_$name.txt"; }
case $M in
exp1)
  S64="--size 257 --size 193 --size 129 --precision float64 --reps 20"
  for r in 1 2; do ADI_EXP_HALF_WHOLE=1 run hw1_$r $S64; run hw0_$r $S64; done
  grep -h "kernels:" "$L"/bench_hw1_1.txt "$L"/bench_hw0_1.txt | grep -o "z: lanes[^;]*" | head -6
  ncu --clock-control none -k regex:"fused_x_kernel|lanes_kernel" --launch-count 3 --set full --import-source yes \
    -o "$L/rep257" "$B" bench --size 257 --precision float32 --reps 1 --warmup 0 > "$L/ncu_run.txt" 2>&1; echo "ncu rc=$? $(( $(date +%s) - T0 )) s"
  ncu -i "$L/rep257.ncu-rep" --page details > "$L/ncu_details.txt" 2>&1
  ncu -i "$L/rep257.ncu-rep" --page source --csv --print-source sass -k regex:fused_x_kernel > "$L/ncu_sass_fused.csv" 2>&1; echo "sass rc=$? $(wc -c < "$L/ncu_sass_fused.csv")"
  ncu -i "$L/rep257.ncu-rep" --page raw --csv --metrics sass__inst_executed_per_opcode --print-metric-instances values > "$L/ncu_opcodes.csv" 2>&1
  run big64 --size 1025 --size 1024 --precision float64 --reps 10
  run big32 --size 1025 --precision float32 --reps 10
  ;;
exp2)
  ncu --clock-control none -k regex:"fused_x_kernel" --launch-count 1 --set full --import-source yes \
    -o "$L/rep257" "$B" bench --size 257 --precision float32 --reps 1 --warmup 0 > "$L/ncu_run.txt" 2>&1; echo "ncu rc=$? $(( $(date +%s) - T0 )) s"
  ncu -i "$L/rep257.ncu-rep" --page details > "$L/ncu_details.txt" 2>&1
  ncu -i "$L/rep257.ncu-rep" --page source --csv --print-source sass > "$L/ncu_sass_fused.csv" 2>&1; echo "sass rc=$? $(wc -c < "$L/ncu_sass_fused.csv")"
  rm -f "$L/rep257.ncu-rep"
  S64="--size 160 --size 225 --size 385x257x257 --size 4096x256x256 --precision float64 --reps 20"
  for r in 1 2; do ADI_EXP_HALF_WHOLE=1 run hv1_$r $S64; run hv0_$r $S64; done
  ;;
ab)
  # the scratch patch is applied (PATCHES): A/B in one binary, then revert and rebuild the landed code
  S32="--size 257 --size 193 --size 129 --size 513 --precision float32 --reps 20"
  S64="--size 257 --size 193 --size 129 --size 225 --precision float64 --reps 20"
  for r in 1 2; do run f1_$r $S32; ADI_EXP_FUSED_FAST=0 run f0_$r $S32; done
  run d64_1 $S64; ADI_EXP_FUSED_FAST=0 run g64_1 $S64; ADI_LANES_HALF_TILES=0 run h64_1 $S64
  run d64_2 $S64; ADI_EXP_FUSED_FAST=0 run g64_2 $S64; ADI_LANES_HALF_TILES=0 run h64_2 $S64
  grep -h "kernels:" "$L"/bench_d64_1.txt | grep -o "z: lanes[^;]*" | head -4
  ncu --clock-control none -k regex:"fused_x_kernel" --launch-count 1 --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section LaunchStats --section InstructionStats \
    "$B" bench --size 257 --precision float32 --reps 1 --warmup 0 > "$L/ncu_fused257.txt" 2>&1; echo "ncu rc=$?"
  grep -E "Duration|Executed Instructions  |Issue Slots Busy|Registers Per|Warp Cycles Per Issued" "$L/ncu_fused257.txt" | sed -E 's/ +/ /g'
  for p in $PATCHES; do git apply -R "$p"; done; git status --short
  cmake --build build-gpu -j 16 >>"$L/build2.log" 2>&1 || { grep -E "error" "$L/build2.log" | head; exit 1; }
  echo "rebuild $(( $(date +%s) - T0 )) s"
  ;;
half1)
  ct half1 -I 1,,2
  [ $(left) -gt 30 ] && { SKIP_BUILD=1 SKIP_BENCH=1 timeout $(( $(left) - 5 )) scripts/gpu_python.sh "$L/py" > "$L/py.txt" 2>&1; echo "python rc=$?"; tail -2 "$L/py.txt"; }
  ;;
half2)
  ct half2 -I 2,,2
  run fin32 --size 257 --size 193 --size 129 --size 513 --precision float32 --reps 20
  run fin64 --size 257 --size 193 --size 129 --size 513 --precision float64 --reps 20
  ;;
esac
echo "total $(( $(date +%s) - T0 )) s"
summ | sort -k7,7 -k2,2n -k1,1
cd "$O" && tar czf $M.tgz $M && rm -rf $M
