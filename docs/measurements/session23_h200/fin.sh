#!/usr/bin/env bash
# last call: build adi3d only, then the other sizes on the final tree (each bench its own file in $OUT)
set -uo pipefail
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/machine.txt"; git log -1 --format=%H >> "$OUT/machine.txt"
cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=OFF -DADI_BUILD_PYTHON=OFF > /tmp/b.log 2>&1 &&
  cmake --build build-gpu -j 16 --target adi3d >> /tmp/b.log 2>&1 || { grep error /tmp/b.log | head; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
B=build-gpu/app/adi3d
$B bench --size 4096x256x256 --size 64x64x16384 --size 8192x8192x3 --precision float32 --reps 10 > "$OUT/bench_shapes32.txt" 2>&1; echo "shapes $(( $(date +%s) - T0 )) s"
$B bench --size 512 --size 500x384x260 --precision both --reps 10 > "$OUT/bench_512_500.txt" 2>&1; echo "512 $(( $(date +%s) - T0 )) s"
for f in "$OUT"/bench_*.txt; do awk '/^case /{c=$2" "$3" "$4" "$5" "$6" "$7; sub(/,$/,"",c)} /^  step /{st=$2} /step \/ floor =/{print c, "step", st, "x" $NF}' "$f"; done
