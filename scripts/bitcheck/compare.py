"""Bitwise comparison of two adi3d outputs: every float dataset of rank >= 2.
Usage: compare.py A.h5 B.h5  (prints "N datasets, M differ"; exit 1 if any differ)"""
import sys

import h5py
import numpy as np

bad = n = 0
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    def visit(path, obj):
        global bad, n
        if isinstance(obj, h5py.Dataset) and obj.dtype.kind == "f" and obj.ndim >= 2:
            x, y = obj[()], b[path][()]
            n += 1
            if x.shape != y.shape or x.tobytes() != y.tobytes():
                bad += 1
                print("  differs: %s (max abs %.3g)" % (path, np.max(np.abs(x - y)) if x.shape == y.shape else -1))
    a.visititems(visit)
print("%d datasets, %d differ" % (n, bad))
sys.exit(1 if bad or n == 0 else 0)
