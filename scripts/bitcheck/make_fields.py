"""Input fields of the bit-identity cases (scripts/cpu_bitcheck.sh): rough K,
c, q fields and initial fields, from a fixed seed.
Usage: make_fields.py FOLDER"""
import os
import sys

import h5py
import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(7)
with h5py.File(os.path.join(out, "f.h5"), "w") as f:
    shape = (19, 23, 37)  # (nz, ny, nx)
    for name, lo, hi in (("Kx", 0.5, 5.0), ("Ky", 0.1, 10.0), ("Kz", 1.0, 3.0), ("c", 1e5, 3e6), ("q", -1e4, 5e4)):
        f[name] = rng.uniform(lo, hi, size=shape)
    f["u0"] = 290 + 10 * rng.random(shape)
with h5py.File(os.path.join(out, "f2.h5"), "w") as f:
    f["K"] = rng.uniform(0.2, 20.0, size=(25, 20, 33))
with h5py.File(os.path.join(out, "f3.h5"), "w") as f:
    f["u0p"] = 290 + 10 * rng.random((23, 64, 37))
    f["u0r"] = 290 + 10 * rng.random((19, 41, 29))
