#!/usr/bin/env bash
# The table on whatever card this is: build adi3d only, bench, one summary.
set -uo pipefail
O="${OUT:-/tmp/out}"; mkdir -p "$O/t"
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$O/t/machine.txt"
git log -1 --format=%H 2>/dev/null >> "$O/t/machine.txt"
cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=OFF >"$O/t/build.log" 2>&1 &&
  cmake --build build-gpu -j 16 --target adi3d >>"$O/t/build.log" 2>&1 || { tail -30 "$O/t/build.log"; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
B=build-gpu/app/adi3d
run() { local name=$1; shift; local t=$(date +%s); "$B" bench "$@" > "$O/t/bench_$name.txt" 2>&1 || echo "bench $name rc=$?"; echo "$name $(( $(date +%s) - t )) s"; }
run sizes --size 512 --size 257 --size 513 --size 500x384x260 --size 129 --size 193 --precision both --reps 20
run shapes --size 4096x256x256 --size 64x64x16384 --size 8192x8192x3 --precision float32 --reps 20
run shapes64 --size 4096x256x256 --size 64x64x16384 --size 8192x8192x3 --precision float64 --reps 20
run 1024 --size 1024 --precision float64 --reps 10
run 1025 --size 1025 --precision both --reps 10
run small2 --size 129 --size 193 --precision both --reps 20
echo "total $(( $(date +%s) - T0 )) s"
awk '/^adi3d bench:/{print} /^case /{c=$2" "$3" "$4" "$5" "$6" "$7; sub(/,$/,"",c)}
     /^  (rhs|x|y|z\+update|rhs\+x) /{p=p" "$1"="$2"("$NF")"} /^  step /{st=$2}
     /step \/ floor/{print c, "step", st, "x" $NF, p; p=""}' "$O"/t/bench_*.txt
cd "$O" && tar czf t.tgz t && rm -rf t
