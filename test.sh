#!/usr/bin/env bash
# Quick start, step 2: the same set-up as ./run.sh, then the test suite in
# three stages (each logged; any failure fails the script):
#   main      the main build (build/, CUDA when nvcc is there): ctest, every
#             label but fuzz (GPU tests report "skipped" without a device;
#             ADI_REQUIRE_GPU=1 makes that a failure);
#   python    `pip install .` into a virtual environment (build-python/),
#             then pytest python/tests (scripts/python_tests.sh);
#   sanitize  ASan + UBSan build of the CPU backend (build-asan/): the unit
#             and integration tests (scripts/sanitize.sh);
#   fuzz      clang/libFuzzer build of tests/fuzz (build-fuzz/): each target
#             for ADI_FUZZ_SECONDS (60) s (scripts/fuzz.sh).
# ADI_TEST_STAGES picks stages (default "main python sanitize fuzz"); arguments are
# passed to the main stage's ctest, and then only that stage runs unless
# ADI_TEST_STAGES says otherwise (./test.sh -R cli_ for a quick look).
set -euo pipefail
cd "$(dirname "$0")"
if [ $# -gt 0 ]; then
  STAGES="${ADI_TEST_STAGES:-main}"
else
  STAGES="${ADI_TEST_STAGES:-main python sanitize fuzz}"
fi
t0=$(date +%s)
stage() { echo; echo "==== test.sh: $* [$(date +%H:%M:%S), $(( $(date +%s) - t0 )) s so far]"; }

stage "setup and main build"
ADI_SETUP_TESTS=1  # also what only the tests use (ParaView: scripts/setup.sh)
source scripts/setup.sh
for s in $STAGES; do
  case "$s" in
    main)
      stage "main: ctest in $BUILD_DIR (all labels but fuzz)"
      ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" -LE fuzz "$@"
      ;;
    python)
      stage "python: pip install . into build-python/venv, pytest python/tests"
      BUILD_DIR="$BUILD_DIR" scripts/python_tests.sh
      ;;
    sanitize)
      stage "sanitize: ASan + UBSan build, unit and integration tests (build-asan/)"
      scripts/sanitize.sh
      ;;
    fuzz)
      stage "fuzz: libFuzzer, ${ADI_FUZZ_SECONDS:-60} s per target (build-fuzz/)"
      scripts/fuzz.sh
      ;;
    *) echo "test.sh: unknown stage '$s' in ADI_TEST_STAGES" >&2; exit 2 ;;
  esac
done
stage "all stages passed ($STAGES)"
