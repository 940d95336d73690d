#!/usr/bin/env bash
# The Python package on a GPU machine with no network (the device tool):
# builds adi3d._core and the adi3d executable with CMake (no pip; nanobind
# and pytest come from build-python/pydeps, made on a networked machine with
#   pip install --target build-python/pydeps --no-deps nanobind==2.4.0 \
#     pytest==8.3.4 pluggy==1.5.0 iniconfig==2.0.0 packaging==24.2
# and carried along), runs python/tests with ADI_REQUIRE_GPU=1 and then
# `python -m adi3d.bench`:
#   scripts/gpu_python.sh OUT_DIR [bench arguments...]
# EXTRA_TARGETS: more CMake targets to build (e.g. test_cuda_solver);
# SKIP_BUILD=1, SKIP_TESTS=1, SKIP_BENCH=1: leave those steps out.
set -uo pipefail
OUT="${1:-gpu-out}"
shift || true
mkdir -p "$OUT"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="$ROOT/build-gpu"
DEPS="$ROOT/build-python/pydeps"
PY="$(command -v python3)"
"$PY" -c 'import sys, numpy; print("python", sys.version.split()[0], "numpy", numpy.__version__)'
for m in cupy torch jax h5py; do "$PY" -c "import $m; print('$m', $m.__version__)" 2>/dev/null || echo "$m: not importable"; done
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  cmake --preset gpu -S "$ROOT" -B "$BUILD" -G Ninja -DADI_BUILD_PYTHON=ON -DPython_EXECUTABLE="$PY" \
    -Dnanobind_DIR="$DEPS/nanobind/cmake" >"$OUT/py_build.log" 2>&1 &&
    cmake --build "$BUILD" -j "$(nproc)" --target _core adi3d ${EXTRA_TARGETS:-} >>"$OUT/py_build.log" 2>&1 ||
    { grep -E "error|Error" "$OUT/py_build.log" | head -30; exit 1; }
fi
# The machine's own pytest when it has one (its plugins may not load into
# another pytest version), else the carried one; no plugins either way.
"$PY" -c "import pytest" 2>/dev/null || DEPS_PATH=":$DEPS"
export PYTHONPATH="$BUILD/python${DEPS_PATH:-}${PYTHONPATH:+:$PYTHONPATH}"
export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
cd "$OUT"
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  ADI_REQUIRE_GPU=1 ADI_REQUIRE_CLI=1 ADI3D_EXE="$BUILD/app/adi3d" \
    "$PY" -m pytest -p no:cacheprovider -q -rs "$ROOT/python/tests" >"$OUT/pytest.log" 2>&1
  echo "pytest rc=$?"; tail -15 "$OUT/pytest.log"
fi
if [ "${SKIP_BENCH:-0}" != 1 ]; then
  "$PY" -m adi3d.bench --json "$OUT/pybench.json" "$@" 2>&1 | tee "$OUT/pybench.txt"
fi
