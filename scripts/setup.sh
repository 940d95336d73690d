#!/usr/bin/env bash
# Shared set-up for ./run.sh and ./test.sh: install the Debian packages adi3d
# needs when they are missing, then configure and build in build/.
# Sourced, not executed: it leaves BUILD_DIR and JOBS set.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${ADI_BUILD_DIR:-$ROOT/build}"
JOBS="${ADI_JOBS:-$(nproc 2>/dev/null || echo 2)}"

# Build tools and C++ libraries, plus what tests and example scripts use.
ADI_PACKAGES=(
  cmake ninja-build g++ git
  libhdf5-dev libyaml-cpp-dev libcli11-dev libspdlog-dev libgtest-dev
  libopenmpi-dev openmpi-bin libhdf5-openmpi-dev
  python3-h5py python3-numpy python3-matplotlib
  # ./test.sh's python stage: a venv, Python's headers, pytest.
  python3-venv python3-dev python3-pytest
  # ./test.sh's fuzzing stage: clang, libFuzzer and the sanitizer runtimes,
  # and clang's OpenMP runtime.
  clang libclang-rt-14-dev libomp-dev
)
# ./test.sh only (ADI_SETUP_TESTS=1): ParaView's pvbatch and Xvfb, so that the
# user guide's ParaView commands and examples/render_slice.py are tested for
# real (user_guide_paraview, example_paraview_*; skipped without them). About
# 450 MB and 1-2 minutes to install once; the tests take about 2 minutes of
# the main stage (docs/TESTING.md). ./run.sh does not need them.
if [ "${ADI_SETUP_TESTS:-0}" = 1 ]; then
  ADI_PACKAGES+=(paraview python3-paraview xvfb)
fi

missing=()
for p in "${ADI_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "adi3d: installing missing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends "${missing[@]}" \
      || { apt-get update && apt-get install -y --no-install-recommends "${missing[@]}"; }
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
  else
    echo "adi3d: not root; please run:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
if [ -f "$BUILD_DIR/CMakeCache.txt" ]; then
  generator=()  # keep the generator the folder was configured with
fi
# The configuration is the "default" preset (CMakePresets.json); -B keeps
# ADI_BUILD_DIR, ADI_CMAKE_ARGS adds options.
cmake --preset default -S "$ROOT" -B "$BUILD_DIR" "${generator[@]}" ${ADI_CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
