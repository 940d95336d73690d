#!/usr/bin/python3
"""Writes the material of a chip on a copper spreader for
examples/chip_steady.yaml: conductivity K [W/(m K)] and heat source q
[W/m^3], datasets of shape (nz, ny, nx), x fastest, float64, with
origin/spacing attributes (x, y, z); and for examples/chip_regions.yaml the
same geometry as an int8 region field /region (1 copper, 2 silicon, 3 the
interface), whose materials the config names.

A 32 x 28 x 4 mm copper spreader (K = 400); on top of it a 0.25 mm thermal
interface (K = 4) under an 8 x 10 mm silicon die, 0.75 mm thick (K = 150),
whose top 0.5 mm dissipate 50 W (q = 50 W / (8 mm x 10 mm x 0.5 mm)).

    /usr/bin/python3 examples/make_chip.py chip.h5
    adi3d run examples/chip_steady.yaml
"""

import argparse

import h5py
import numpy as np

from _safe_output import refuse_existing, write_new

N = (33, 29, 17)               # nodes along x, y, z
L = (0.032, 0.028, 0.004)      # [m]
POWER = 50.0                   # [W]


def fields():
    nx, ny, nz = N
    h = [L[a] / (N[a] - 1) for a in range(3)]
    x, y, z = (np.arange(N[a]) * h[a] for a in range(3))
    die = (np.abs(x - L[0] / 2) <= 0.004 + 1e-12)[None, None, :] & (np.abs(y - L[1] / 2) <= 0.005 + 1e-12)[None, :, None]
    K = np.full((nz, ny, nx), 400.0)
    q = np.zeros((nz, ny, nx))
    region = np.ones((nz, ny, nx), dtype=np.int8)                                         # copper
    top = z[:, None, None]
    silicon = np.broadcast_to((top >= L[2] - 0.00075 - 1e-12) & die, K.shape)
    interface = np.broadcast_to((np.abs(top - (L[2] - 0.001)) < 1e-12) & die, K.shape)
    K[silicon], region[silicon] = 150.0, 2
    K[interface], region[interface] = 4.0, 3
    hot = np.broadcast_to((top >= L[2] - 0.0005 - 1e-12) & die, q.shape)
    # Node volumes (half at the faces) so that the discrete power is POWER exactly.
    w = [np.where((np.arange(N[a]) == 0) | (np.arange(N[a]) == N[a] - 1), 0.5, 1.0) * h[a] for a in range(3)]
    vol = w[2][:, None, None] * w[1][None, :, None] * w[0][None, None, :]
    q[hot] = POWER / np.sum(vol[hot])
    return K, q, region, h


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("output", help="HDF5 file to write")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output file")
    a = p.parse_args()
    refuse_existing(a.output, a.overwrite)
    K, q, region, h = fields()

    def write(path):
        with h5py.File(path, "w") as f:
            for name, v in (("K", K), ("q", q), ("region", region)):
                d = f.create_dataset(name, data=v)
                d.attrs["origin"] = np.zeros(3)
                d.attrs["spacing"] = np.array(h)

    write_new(a.output, a.overwrite, write)
    print("%s: K, q and region on %d x %d x %d nodes, %.1f W" % (a.output, N[0], N[1], N[2], POWER))


if __name__ == "__main__":
    main()
