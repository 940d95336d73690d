#!/usr/bin/env bash
# The fuzzing stage (issue #7): clang + libFuzzer + ASan/UBSan, the targets of
# tests/fuzz only, in build-fuzz/ (ADI_FUZZ_BUILD_DIR), each fuzzed for
# ADI_FUZZ_SECONDS (default 60) after replaying its saved inputs. Run by
# ./test.sh; longer runs: tests/fuzz/README.md.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${ADI_FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
JOBS="${ADI_JOBS:-$(nproc 2>/dev/null || echo 2)}"
SECONDS_PER_TARGET="${ADI_FUZZ_SECONDS:-60}"
generator=()
command -v ninja >/dev/null 2>&1 && [ ! -f "$BUILD/CMakeCache.txt" ] && generator=(-G Ninja)
# The "fuzz" preset (CMakePresets.json): clang, ASan + UBSan, fuzz targets only.
cmake --preset fuzz -S "$ROOT" -B "$BUILD" "${generator[@]}" -DADI_FUZZ_SECONDS="$SECONDS_PER_TARGET" >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target fuzz_config fuzz_hdf5_field fuzz_checkpoint
# The whole libFuzzer output goes to a log; the lines that matter are shown.
log="$BUILD/fuzz-ctest.log"
set +e
ctest --test-dir "$BUILD" -L fuzz -V -j "$JOBS" "$@" >"$log" 2>&1
rc=$?
set -e
grep -E "^[0-9]+: == |FINDING|tests passed|tests failed|\*\*\*Failed|Passed +[0-9.]+ sec" "$log" || true
[ "$rc" -eq 0 ] || { echo "fuzz: a target failed; the whole output is in $log"; tail -60 "$log"; }
exit "$rc"
