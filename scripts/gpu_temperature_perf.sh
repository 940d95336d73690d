#!/usr/bin/env bash
# The temperature-dependent step at 512^3 on the GPU against the same case
# with constant properties (issue #57's speed target), fp64: the tables with
# the nonlinear step's material evaluated on the device (the default) and,
# at 1 step, through the host (ADI_DEVICE_MATERIAL=0) when HOST=1.
# NONLINEAR: the tables' scheme.nonlinear values to run (default "iterate").
set -uo pipefail
O=${OUT:-/tmp/out}/tperf; mkdir -p "$O"; B=$PWD/build-gpu/app/adi3d
[ -x $B ] || { cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=OFF > "$O/build.log" 2>&1 && cmake --build build-gpu -j 16 --target adi3d >> "$O/build.log" 2>&1; echo "build rc=$?"; }
nvidia-smi --query-gpu=name --format=csv,noheader
cd "$O" && /usr/bin/env python3 - <<'PY'
import numpy as np, h5py
n = 512
z = np.arange(n)[:, None, None] * np.ones((1, n, n), dtype=np.int32)
with h5py.File("reg.h5", "w") as f:
    f["region"] = np.where(z < n // 2, 1, 2).astype("i4")
base = """grid: {nx: 512, ny: 512, nz: 512}
domain: {lx: 0.05, ly: 0.05, lz: 0.05}
material:
  regions: {file: reg.h5, dataset: /region}
  materials:
%s
source: {power_density: 1.0e9}
boundary: {z_lo: {type: convective, h: 5000, ambient: 300}, default: insulated}
initial: {value: 300}
time: {dt: 0.01, steps: %d}
backend: cuda
output: {file: %s, initial: false}
"""
tab = """    cu: {id: 1, conductivity: [[250, 406], [400, 393], [600, 379]], heat_capacity: 3.45e6}
    si: {id: 2, conductivity: [[250, 191], [300, 148], [350, 119], [400, 98.9], [500, 76.2], [600, 61.9]], heat_capacity: [[250, 1.55e6], [300, 1.66e6], [400, 1.79e6], [600, 1.93e6]]}"""
con = """    cu: {id: 1, conductivity: 401.7, heat_capacity: 3.45e6}
    si: {id: 2, conductivity: 148, heat_capacity: 1.66e6}"""
for name, m, steps in (("tables", tab, (1, 2, 12)), ("const", con, (2, 12))):
    for s in steps:
        open("%s%d.yaml" % (name, s), "w").write(base % (m, s, "%s%d.h5" % (name, s)))
PY
CASES="const2 const12"
for nl in ${NONLINEAR:-iterate}; do for s in 2 12; do
  { cat tables$s.yaml; echo "scheme: {nonlinear: $nl}"; } | sed "s/tables$s.h5/tables_$nl$s.h5/" > tables_$nl$s.yaml
  CASES="$CASES tables_$nl$s"; done; done
for c in $CASES; do timeout 240 $B run $c.yaml --overwrite > $c.txt 2>&1
  echo "$c rc=$? $(grep -E 'wall time' $c.txt) $(grep -o 'nonlinear step ([a-z-]*): [0-9.]* linear steps' $c.txt)"; done
grep -m1 -o "nonlinear step's material evaluated on the device" tables_${NONLINEAR%% *}2.txt
[ "${HOST:-0}" = 1 ] && { ADI_DEVICE_MATERIAL=0 timeout 240 $B run tables1.yaml --overwrite > host1.txt 2>&1; echo "host tables1 rc=$? $(grep -E 'wall time' host1.txt)"; }
