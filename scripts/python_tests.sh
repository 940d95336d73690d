#!/usr/bin/env bash
# ./test.sh's python stage: `pip install .` into a virtual environment and
# pytest on the installed package, as a user would:
#   build-python/venv   Debian's python3 with its numpy, h5py and pytest
#                       (--system-site-packages), plus python/requirements.txt
#                       (scikit-build-core, nanobind: pinned, from PyPI)
#   pip install .       the package built by this repository's CMake
#                       (pyproject.toml; CUDA when nvcc is there)
#   pytest python/tests from outside the source tree, against the adi3d
#                       executable of the main build (ADI3D_EXE) for the
#                       bit-for-bit comparison with `adi3d run`.
# GPU tests skip without a device (ADI_REQUIRE_GPU=1: fail). Arguments go to pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-${ADI_BUILD_DIR:-$ROOT/build}}"
VENV="${ADI_PYTHON_VENV:-$ROOT/build-python/venv}"
LOG="$ROOT/build-python/pip-install.log"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3  # Debian's, whose numpy/h5py/pytest packages setup.sh installs
mkdir -p "$ROOT/build-python"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv --system-site-packages "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$ROOT/python/requirements.txt"
# ccache, when it is there, for rebuilds (the CMake build folder is kept:
# pyproject.toml's build-dir).
if command -v ccache >/dev/null 2>&1 && [ -z "${CMAKE_ARGS:-}" ]; then
  export CMAKE_ARGS="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"
fi
echo "python: pip install . (log: $LOG)"
t0=$(date +%s)
if ! "$VENV/bin/python" -m pip install --no-build-isolation --disable-pip-version-check -v "$ROOT" >"$LOG" 2>&1; then
  tail -40 "$LOG"
  echo "python: pip install . failed (full log: $LOG)" >&2
  exit 1
fi
echo "python: installed in $(( $(date +%s) - t0 )) s: $("$VENV/bin/python" -c 'import adi3d; print(adi3d.__file__)')"
cd "$VENV"  # not the source tree: the tests import the installed package
ADI3D_EXE="${ADI3D_EXE:-$BUILD_DIR/app/adi3d}" ADI_REQUIRE_CLI=1 \
  "$VENV/bin/python" -m pytest -p no:cacheprovider -q -rs "$ROOT/python/tests" "$@"
