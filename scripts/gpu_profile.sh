#!/usr/bin/env bash
# ncu profile of the step's kernels at one size (never changes clocks):
#   scripts/gpu_profile.sh OUT_DIR [SIZE] [PRECISION]
# Needs build-gpu/ from scripts/gpu_check.sh. KERNELS (a regex of kernel
# names), COUNT (launches profiled) and BENCH_ARGS (e.g. "--material field
# --faces mixed" for the general path) choose what is profiled.
set -uo pipefail
OUT="${1:-gpu-out}"; SIZE="${2:-512}"; PREC="${3:-float32}"
mkdir -p "$OUT"
B="$(cd "$(dirname "$0")/.." && pwd)/build-gpu/app/adi3d"
ncu --clock-control none --target-processes all \
  -k regex:"${KERNELS:-rhs_vector_kernel|lanes_kernel|warp_kernel}" --launch-skip 0 --launch-count "${COUNT:-8}" \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  --section MemoryWorkloadAnalysis --section SchedulerStats \
  --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct \
  "$B" bench --size "$SIZE" --precision "$PREC" --reps 1 --warmup 0 ${BENCH_ARGS:-} >"$OUT/ncu_${SIZE}_${PREC}.txt" 2>&1
echo "ncu rc=$?"
grep -E "^  [a-zA-Z_:<>, ]+kernel|Duration|Executed Ipc|Issue Slots Busy|Compute \(SM\) Throughput|L1/TEX Hit|L2 Hit|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Dynamic Shared|dram__bytes|bank_conflicts|stalled_(long|barrier|lg|mio|short)" \
  "$OUT/ncu_${SIZE}_${PREC}.txt" | sed -E 's/ +/ /g' | head -150
