#!/usr/bin/env bash
# The sanitizer build (issue #7): AddressSanitizer + UndefinedBehaviorSanitizer
# over the unit and integration tests, CPU backend (no CUDA, no MPI), in
# build-asan/ (ADI_ASAN_BUILD_DIR). Run by ./test.sh; by hand:
#   scripts/sanitize.sh [ctest arguments, e.g. -R io_]
# Any sanitizer report fails the test that triggered it (halt_on_error; the
# report is in that test's output). -O1 -g: quick to build, readable stacks,
# assertions on (no NDEBUG).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${ADI_ASAN_BUILD_DIR:-$ROOT/build-asan}"
JOBS="${ADI_JOBS:-$(nproc 2>/dev/null || echo 2)}"
generator=()
command -v ninja >/dev/null 2>&1 && [ ! -f "$BUILD/CMakeCache.txt" ] && generator=(-G Ninja)
# The "asan" preset (CMakePresets.json): RelWithDebInfo at -O1 -g,
# ADI_SANITIZE=address,undefined, no CUDA, no MPI.
cmake --preset asan -S "$ROOT" -B "$BUILD" "${generator[@]}" >/dev/null
# Everything this configuration builds is what the unit and integration
# tests run (no CUDA, no MPI, no benchmarks).
cmake --build "$BUILD" -j "$JOBS"
# detect_leaks: every adi3d process and test executable is leak-checked at
# exit. detect_stack_use_after_return and check_initialization_order add the
# checks ASan leaves off by default. allocator_may_return_null: a failed
# allocation returns NULL as it does without ASan (ASan's default aborts the
# process), so the code that handles it is what runs: the capped read of a
# damaged file (io/src/probe.cpp) must see HDF5 report "memory allocation
# failed", as in the release build, not an ASan abort.
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
# install_consumer builds a project against the installed package: a
# packaging test, run by the main build; not a memory check.
ctest --test-dir "$BUILD" -L 'unit|integration' -E '^install_consumer$' --output-on-failure -j "$JOBS" "$@"
