#!/usr/bin/env bash
# Nineteenth session's device calls: s19.sh table | half1 | half2
set -uo pipefail
O="${OUT:-/tmp/out}"; M=$1; mkdir -p "$O/$M"; L="$O/$M"
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$L/machine.txt"
git log -1 --format=%H 2>/dev/null >> "$L/machine.txt"
cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=ON -DADI_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(command -v python3) \
  -Dnanobind_DIR=$PWD/build-python/pydeps/nanobind/cmake >"$L/build.log" 2>&1 &&
  cmake --build build-gpu -j 16 >>"$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head -20; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
B=build-gpu/app/adi3d
run() { local name=$1; shift; local t=$(date +%s); "$B" bench "$@" > "$L/bench_$name.txt" 2>&1 || echo "bench $name rc=$?"; echo "$name $(( $(date +%s) - t )) s"; }
summ() { awk '/^adi3d bench:/{print} /^case /{c=$2" "$3" "$4" "$5" "$6" "$7; sub(/,$/,"",c)}
     /^  (rhs|x|y|z\+update|rhs\+x) /{p=p" "$1"="$2"("$NF")"} /^  step /{st=$2}
     /step \/ floor/{print c, "step", st, "x" $NF, p; p=""}' "$L"/bench_*.txt; }
case $M in
table)
  run sizes --size 512 --size 257 --size 513 --size 500x384x260 --size 129 --size 193 --precision both --reps 20
  run shapes --size 4096x256x256 --size 64x64x16384 --size 8192x8192x3 --precision float32 --reps 20
  run shapes64 --size 4096x256x256 --size 64x64x16384 --size 8192x8192x3 --precision float64 --reps 20
  run 1024 --size 1024 --precision float64 --reps 10
  run 1025 --size 1025 --precision both --reps 10
  SKIP_BUILD=1 SKIP_BENCH=1 scripts/gpu_python.sh "$L/py" > "$L/py.txt" 2>&1; echo "python rc=$?"; tail -4 "$L/py.txt"
  ;;
half1|half2)
  I=${M#half}
  ADI_REQUIRE_GPU=1 timeout 520 ctest --test-dir build-gpu -L gpu -I $I,,2 -j 16 > "$L/ctest.txt" 2>&1
  echo "ctest rc=$?"; grep -E "tests passed|\*\*\*|Failed  |Total Test" "$L/ctest.txt" | head -20
  if [ $M = half1 ]; then
    for sp in "512 float32" "257 float32" "512 float64"; do set -- $sp
      KERNELS="fused_x_kernel|lanes_kernel" COUNT=3 scripts/gpu_profile.sh "$L/ncu" $1 $2 > "$L/ncu_sum_$1_$2.txt" 2>&1
      echo "ncu $1 $2 $(( $(date +%s) - T0 )) s"
    done
  else
    run def --size 512 --size 257 --size 513 --precision both --reps 20
    for e in ADI_YZ_SEG=16 ADI_YZ_SEG=8 ADI_LANES_PAIRS=0 ADI_FUSED_PLANES=16 ADI_FUSED_PLANES=48 ADI_LANES_CONST=0; do
      t=$(date +%s); env $e $B bench --size 512 --size 257 --size 513 --precision both --reps 20 > "$L/knob_$e.txt" 2>&1 || echo "$e rc=$?"
      echo "$e $(( $(date +%s) - t )) s"
    done
    for f in "$L"/knob_*.txt; do echo "== $(basename $f)"; L2=$L; L=$(dirname $f); awk '/^case /{c=$2" "$3" "$4" "$5" "$6" "$7; sub(/,$/,"",c)}
     /^  (rhs|x|y|z\+update|rhs\+x) /{p=p" "$1"="$2} /^  step /{st=$2}
     /step \/ floor =/{print c, "step", st, "x" $NF, p; p=""}' "$f"; L=$L2; done
  fi
  ;;
esac
echo "total $(( $(date +%s) - T0 )) s"
summ
cd "$O" && tar czf $M.tgz $M && rm -rf $M
