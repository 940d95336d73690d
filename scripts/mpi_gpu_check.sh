#!/usr/bin/env bash
# Distributed runs on one machine with two GPUs (issue #6), in one go:
#   scripts/mpi_gpu_check.sh [OUT_DIR]
#
#  1. configures and builds with CUDA (sm_90) and MPI in build-mpi-gpu/;
#  2. runs the GPU tests and the MPI tests (ADI_REQUIRE_GPU=1: a missing GPU
#     fails), among them mpi_gpu_stepper_np2: 2 ranks x 1 GPU against the
#     single-GPU stepper and the CPU oracle, <= 1e-12 in fp64;
#  3. runs one case with outputs on 1 GPU and with `mpirun -np 2` (z slabs,
#     then y slabs) and compares the files step by step;
#  4. times one step (adi3d bench) for strong scaling (1024^3 fp32 on 1 and
#     2 GPUs) and weak scaling (512^3 per GPU) with the communication share,
#     on 2 GPUs with and without overlap (ADI_MPI_OVERLAP=0);
#  5. prints a short table (everything else is under OUT_DIR).
#
# Environment: MPIRUN (default mpirun), MPIRUN_FLAGS (extra flags, e.g.
# "--mca pml ob1"), BENCH_REPS (default 20), SKIP_BUILD=1, SKIP_TESTS=1.
# The MPI need not be CUDA-aware: adi3d stages through pinned host memory.
# Never changes GPU settings.
set -uo pipefail
OUT="${1:-${OUT:-mpi-gpu-out}}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${BUILD:-$ROOT/build-mpi-gpu}"
REPS="${BENCH_REPS:-20}"
log() { echo "== $*"; }

MPIRUN=("${MPIRUN:-mpirun}" -n 2 --bind-to none)
if [ "$(id -u)" -eq 0 ]; then
  MPIRUN+=(--allow-run-as-root)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# shellcheck disable=SC2206
MPIRUN+=(${MPIRUN_FLAGS:-})

{
  nvidia-smi --query-gpu=index,name,memory.total,clocks.sm,clocks.mem,driver_version --format=csv
  nvidia-smi topo -m
  nvcc --version | tail -2
  cmake --version | head -1
  "${MPIRUN[0]}" --version | head -1
  command -v ompi_info >/dev/null && ompi_info --parsable --all 2>/dev/null | grep -i "mpi_built_with_cuda_support:value"
} >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  log "configure + build (CUDA sm_90, MPI)"
  gen=()
  command -v ninja >/dev/null && [ ! -f "$BUILD/CMakeCache.txt" ] && gen=(-G Ninja)
  cmake --preset mpi -S "$ROOT" -B "$BUILD" "${gen[@]}" >"$OUT/build.log" 2>&1 &&
    cmake --build "$BUILD" -j "$(nproc)" >>"$OUT/build.log" 2>&1
  rc=$?
  tail -3 "$OUT/build.log"
  [ $rc -ne 0 ] && { grep -E "error" "$OUT/build.log" | head -30; exit $rc; }
fi
B="$BUILD/app/adi3d"
"$B" info | tee "$OUT/info.txt"

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  log "GPU tests and MPI tests (ADI_REQUIRE_GPU=1)"
  ADI_REQUIRE_GPU=1 ctest --test-dir "$BUILD" -L "gpu|mpi" --output-on-failure -j 1 >"$OUT/tests.log" 2>&1
  echo "tests rc=$?"
  grep -E "tests passed|tests failed" "$OUT/tests.log"
  grep -E "^\s+[0-9]+ - .*(Failed|Not Run|Exception|Timeout)" "$OUT/tests.log" | head -20
  grep -E "mpi_gpu_stepper_np2|\[ compare  \]" "$OUT/tests.log" | head -12
fi

log "2 ranks x 1 GPU vs 1 GPU: the same case, outputs compared step by step"
CMP="$OUT/compare"
rm -rf "$CMP" && mkdir -p "$CMP"
cat >"$CMP/case.yaml" <<'EOF'
# Non-cubic, uneven sizes, mixed faces, fp64, 60 steps, 4 outputs.
grid: {nx: 193, ny: 161, nz: 131}
domain: {lx: 1.2, ly: 1.0, lz: 0.8}
diffusivity: {x: 1.0, y: 0.7, z: 1.3}
boundary: {x: {lo: neumann, hi: dirichlet}, y: {lo: dirichlet, hi: neumann}, z: neumann}
time: {dt: 5e-5, steps: 60}
precision: float64
backend: cuda
output: {file: out.h5, every: 20}
EOF
(
  cd "$CMP" || exit 1
  "$B" run case.yaml --set output.file=gpu1.h5 >gpu1.log 2>&1
  echo "1 GPU rc=$?"
  "${MPIRUN[@]}" "$B" run case.yaml --set output.file=gpu2_z.h5 >gpu2_z.log 2>&1
  echo "2 GPUs (auto grid) rc=$?"
  "${MPIRUN[@]}" "$B" run case.yaml --set output.file=gpu2_y.h5 --set "parallel.grid=[1, 2, 1]" >gpu2_y.log 2>&1
  echo "2 GPUs (y slabs) rc=$?"
  grep -h "MPI:" gpu2_*.log
)
compare_py='
import sys, h5py, numpy as np
a = h5py.File(sys.argv[1], "r")
for other in sys.argv[2:]:
    b = h5py.File(other, "r")
    worst = 0.0
    for k in a["steps"]:
        x, y = a["steps"][k]["u"][()], b["steps"][k]["u"][()]
        worst = max(worst, float(np.max(np.abs(x - y)) / max(np.max(np.abs(x)), 1e-300)))
    print("%s vs %s: %d steps, max relative difference %.3e -> %s" % (other, sys.argv[1], len(a["steps"]), worst,
          "ok" if worst <= 1e-12 else "TOO LARGE"))
'
CMP_RESULT="not compared"
if python3 -c "import h5py, numpy" 2>/dev/null; then
  CMP_RESULT=$(cd "$CMP" && python3 -c "$compare_py" gpu1.h5 gpu2_z.h5 gpu2_y.h5 2>&1)
elif command -v h5diff >/dev/null; then
  CMP_RESULT=$(cd "$CMP" && for f in gpu2_z.h5 gpu2_y.h5; do
    for s in 000000 000020 000040 000060; do
      h5diff -p 1e-12 gpu1.h5 "$f" "/steps/$s/u" "/steps/$s/u" >/dev/null && r=ok || r=DIFFERS
      echo "$f step $s (h5diff -p 1e-12): $r"
    done
  done)
else
  CMP_RESULT="neither h5py nor h5diff here: see mpi_gpu_stepper_np2 in tests.log (the same comparison in memory)"
fi
echo "$CMP_RESULT" | tee "$CMP/compare.txt"

log "scaling: one step (adi3d bench, median of $REPS)"
bench() {  # tag ranks size
  local tag=$1 ranks=$2 size=$3
  if [ "$ranks" = 1 ]; then
    "$B" bench --backend cuda --precision float32 --size "$size" --reps "$REPS" --json "$OUT/bench_$tag.json" \
      >"$OUT/bench_$tag.txt" 2>&1
  else
    "${MPIRUN[@]}" "$B" bench --backend cuda --precision float32 --size "$size" --reps "$REPS" \
      --json "$OUT/bench_$tag.json" >"$OUT/bench_$tag.txt" 2>&1
  fi
  echo "bench $tag ($ranks GPU, $size) rc=$?"
}
bench strong_1 1 1024
bench strong_2 2 1024
bench weak_1 1 512
bench weak_2 2 512x512x1024
# The same without overlap (whole RHS after the halo, one all-gather per axis).
ADI_MPI_OVERLAP=0 bench strong_2_plain 2 1024
ADI_MPI_OVERLAP=0 bench weak_2_plain 2 512x512x1024

step_ms() { awk '/^  step /{print $2; exit}' "$OUT/bench_$1.txt"; }
comm_of() { sed -nE 's/.*together ([0-9.]+) ms of a [0-9.]+ ms step = ([0-9.]+)%.*/\1 \2/p' "$OUT/bench_$1.txt" | head -1; }
row() {  # label gpus tag base_tag kind
  local s c share eff
  s=$(step_ms "$3")
  read -r c share <<<"$(comm_of "$3")"
  if [ -n "$s" ] && [ -n "$(step_ms "$4")" ]; then
    eff=$(awk -v a="$(step_ms "$4")" -v b="$s" -v g="$2" -v k="$5" \
      'BEGIN { if (k == "strong") printf "speed-up %.2f, efficiency %.0f%%", a / b, 100 * a / b / g;
               else printf "efficiency %.0f%%", 100 * a / b }')
  fi
  printf "  %-28s %4s %10s %10s %8s   %s\n" "$1" "$2" "${s:--}" "${c:--}" "${share:+$share%}" "${eff:-}"
}
{
  echo "== summary (fp32, one Douglas step, median of $REPS; comm = host time in the halo + reduced-system"
  echo "   exchanges, slowest rank; with overlap part of it is hidden behind GPU work: compare the step times)"
  printf "  %-28s %4s %10s %10s %8s   %s\n" "case" "GPUs" "step ms" "comm ms" "comm %" ""
  row "strong 1024^3" 1 strong_1 strong_1 strong
  row "strong 1024^3 (overlap)" 2 strong_2 strong_1 strong
  row "strong 1024^3 (no overlap)" 2 strong_2_plain strong_1 strong
  row "weak 512^3 per GPU" 1 weak_1 weak_1 weak
  row "weak 512x512x1024 (overlap)" 2 weak_2 weak_1 weak
  row "weak 512x512x1024 (no ovl.)" 2 weak_2_plain weak_1 weak
  echo "  2 ranks x 1 GPU vs 1 GPU (193x161x131 fp64, 60 steps):"
  echo "$CMP_RESULT" | sed 's/^/    /'
  grep -hE "^MPI:|kernels:" "$OUT/bench_strong_2.txt" | head -2 | sed 's/^/  /'
} | tee "$OUT/summary.txt"
