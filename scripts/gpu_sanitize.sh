#!/usr/bin/env bash
# compute-sanitizer over the GPU tests at small sizes (issue #7, item 3):
#   scripts/gpu_sanitize.sh [OUT_DIR]        (default OUT_DIR: gpu-sanitize-out/)
# Runs memcheck (with --leak-check full), racecheck and initcheck over
# tests/gpu's executables in build-gpu/ (as scripts/gpu_check.sh builds it;
# the four targets are built here if needed), each with a gtest filter of
# small cases that still reaches every kernel: the warp (x lines), lanes
# (y/z lines, segmented, reduced-system exchange) and generic line kernels,
# the RHS kernels, the stats kernel, the whole stepper, and WarpTranspose's
# scalar and 16-byte paths. racecheck is slow on shared memory, so it gets
# the fewest cases. Writes one log per tool and executable under OUT_DIR and
# prints a table: errors per tool and executable (0 everywhere is clean).
# Each run is bounded (SAN_TIMEOUT_MEMCHECK / _RACECHECK / _INITCHECK,
# seconds); the whole script is meant to take under ~6 minutes on an H100 or
# H200. Never changes GPU settings. Exit status: 0 when every run is clean.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:-${OUT:-gpu-sanitize-out}}"
BUILD="${ADI_GPU_BUILD_DIR:-$ROOT/build-gpu}"
mkdir -p "$OUT"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
[ -x "$CS" ] || { echo "compute-sanitizer not found (PATH or /usr/local/cuda/bin)"; exit 2; }

EXES=(test_cuda_solver test_cuda_stepper test_warp_transpose_f32 test_warp_transpose_f64)
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake --preset gpu -S "$ROOT" -B "$BUILD" -G Ninja >"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 2; }
fi
cmake --build "$BUILD" -j "$(nproc)" --target "${EXES[@]}" >>"$OUT/build.log" 2>&1 \
  || { grep -E "error" "$OUT/build.log" | head -20; exit 2; }

# Small cases per executable and tool (gtest filters).
lines_small='Lines/CudaLines.*/*_n3_*:Lines/CudaLines.*/*_n33_*:Lines/CudaLines.*/*_n97_*'
lines_small+=':Lines/CudaLines.*/*_n1000_*:Lines/CudaLines.*/*_n2100_packed'   # lanes I=64 S=16; generic
solver_mem="$lines_small:CudaLineKernels.*:CudaRhs.*:CudaGeneral.ReportsZeroPivot"
solver_race='Lines/CudaLines.ConstantIsEquivalentToRefF32/x_n97_packed:Lines/CudaLines.ConstantIsEquivalentToRefF64/y_n97_padded'
solver_race+=':Lines/CudaLines.ConstantIsEquivalentToRefF32/z_n1000_packed:Lines/CudaLines.ConstantIsEquivalentToRefF64/x_n33_padded'
solver_race+=':CudaRhs.IsEquivalentToRefF32'
stepper_mem='CudaStepper.FieldStatsSeeNaNAndMax:CudaStepper.PhasesComposeToAStep:CudaStepper.AnalyticRoundoff'
stepper_race='CudaStepper.FieldStatsSeeNaNAndMax:CudaStepper.PhasesComposeToAStep'
wt_mem='WarpTransposeGpu.*_I1_*:WarpTransposeGpu.*_I5_*:WarpTransposeGpu.*_I8_*:WarpTransposeGpu.*_I33_*'
wt_race='WarpTransposeGpu.*_giles_I5_*:WarpTransposeGpu.*_xor_I8_*:WarpTransposeGpu.*_giles_I33_*'

filter() {  # tool exe
  case "$1:$2" in
    racecheck:test_cuda_solver) echo "$solver_race" ;;
    racecheck:test_cuda_stepper) echo "$stepper_race" ;;
    racecheck:test_warp_transpose_*) echo "$wt_race" ;;
    *:test_cuda_solver) echo "$solver_mem" ;;
    *:test_cuda_stepper) echo "$stepper_mem" ;;
    *:test_warp_transpose_*) echo "$wt_mem" ;;
  esac
}
tool_args() {
  case "$1" in
    memcheck) echo "--tool memcheck --leak-check full" ;;
    racecheck) echo "--tool racecheck --racecheck-report all" ;;
    initcheck) echo "--tool initcheck" ;;
  esac
}
tool_timeout() {
  case "$1" in
    memcheck) echo "${SAN_TIMEOUT_MEMCHECK:-60}" ;;
    racecheck) echo "${SAN_TIMEOUT_RACECHECK:-75}" ;;
    initcheck) echo "${SAN_TIMEOUT_INITCHECK:-60}" ;;
  esac
}

{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null
  "$CS" --version | tail -1
} >"$OUT/machine.txt"
cat "$OUT/machine.txt"
: >"$OUT/commands.txt"
rows=()
status=0
t_start=$(date +%s)
for tool in memcheck racecheck initcheck; do
  for exe in "${EXES[@]}"; do
    log="$OUT/${tool}_${exe}.log"
    f="$(filter "$tool" "$exe")"
    cmd=(timeout "$(tool_timeout "$tool")" "$CS" $(tool_args "$tool") --error-exitcode 99 --print-limit 50
         "$BUILD/tests/gpu/$exe" "--gtest_filter=$f")
    echo "ADI_REQUIRE_GPU=1 ${cmd[*]}" >>"$OUT/commands.txt"
    t0=$(date +%s)
    ADI_REQUIRE_GPU=1 "${cmd[@]}" >"$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - t0 ))
    errs=$(grep -oE "ERROR SUMMARY: [0-9]+" "$log" | grep -oE "[0-9]+" | tail -1)
    race=$(grep -oE "RACECHECK SUMMARY: [0-9]+ hazards displayed \([0-9]+ errors?, [0-9]+ warnings?\)" "$log" | tail -1)
    if [ -z "$errs" ] && [ -n "$race" ]; then errs=$(echo "$race" | grep -oE "\([0-9]+" | tr -d '('); fi
    warns=$(echo "$race" | grep -oE "[0-9]+ warnings?" | grep -oE "[0-9]+")
    passed=$(grep -oE "\[  PASSED  \] [0-9]+ test" "$log" | grep -oE "[0-9]+" | tail -1)
    failed=$(grep -oE "\[  FAILED  \] [0-9]+ test" "$log" | grep -oE "[0-9]+" | tail -1)
    verdict=clean
    if [ "$rc" -eq 124 ]; then verdict="TIMEOUT"; fi
    if [ -z "$errs" ]; then errs="?"; [ "$verdict" = clean ] && verdict="NO SUMMARY"; fi
    if [ "$errs" != "?" ] && [ "$errs" != 0 ]; then verdict="ERRORS"; fi
    if [ -n "$failed" ] && [ "$failed" != 0 ]; then verdict="$verdict, tests failed"; fi
    if [ -z "$passed" ] && [ "$verdict" = clean ]; then verdict="no test ran"; fi
    [ "$verdict" = clean ] || status=1
    rows+=("$(printf "%-10s %-24s %7s %9s %7s %6ss  %s" "$tool" "$exe" "${errs}" "${warns:--}" "${passed:-0}" \
      "$secs" "$verdict")")
    echo "${rows[-1]}"
  done
done
{
  echo
  echo "compute-sanitizer, small cases ($(( $(date +%s) - t_start )) s in all; logs and commands in $OUT)"
  printf "%-10s %-24s %7s %9s %7s %7s  %s\n" tool executable errors warnings tests time verdict
  for r in "${rows[@]}"; do echo "$r"; done
} | tee "$OUT/summary.txt"
exit "$status"
