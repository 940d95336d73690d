#!/usr/bin/env bash
# Quick start, step 1: install what is missing, build, run the default case
# (configs/heat.yaml) and print its error against the analytic solution.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh
"$BUILD_DIR/app/adi3d" run configs/heat.yaml "$@"
