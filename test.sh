#!/usr/bin/env bash
# Quick start, step 2: the same set-up as ./run.sh, then the whole test suite
# through ctest. GPU tests report "skipped" without a device
# (ADI_REQUIRE_GPU=1 makes that a failure).
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" "$@"
