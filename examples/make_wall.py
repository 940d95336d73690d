#!/usr/bin/python3
"""Writes the material of a layered wall with a heated inclusion for
examples/layered_wall.yaml: conductivity K [W/(m K)], volumetric heat
capacity c [J/(m^3 K)] and heat source q [W/m^3], one dataset each of shape
(nz, ny, nx), x fastest, float64, with origin/spacing attributes (x, y, z).

Along x (through the wall): plaster | brick | insulation | brick, and a small
block in the brick layer (a heating cable, say) with its own K, c and a
source q. Everything else has q = 0.

    /usr/bin/python3 examples/make_wall.py wall.h5
    adi3d run examples/layered_wall.yaml
"""

import argparse

import h5py
import numpy as np

from _safe_output import refuse_existing, write_new

# name, thickness [m], K [W/(m K)], c = rho c_p [J/(m^3 K)]
LAYERS = [("plaster", 0.02, 0.7, 1.4e6), ("brick", 0.10, 0.8, 1.6e6), ("insulation", 0.06, 0.035, 5.0e4),
          ("brick", 0.10, 0.8, 1.6e6)]
INCLUSION = dict(K=15.0, c=3.5e6, q=5.0e4)  # W/(m K), J/(m^3 K), W/m^3


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("output", help="HDF5 file to write")
    p.add_argument("--shape", type=int, nargs=3, default=[57, 21, 17], metavar=("NX", "NY", "NZ"),
                   help="nodes per axis (default 57 21 17; must match the config's grid)")
    p.add_argument("--length", type=float, nargs=2, default=[0.2, 0.16], metavar=("LY", "LZ"),
                   help="wall extent along y and z [m] (the x extent is the layers' sum, 0.28 m)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output file")
    a = p.parse_args()
    refuse_existing(a.output, a.overwrite)
    nx, ny, nz = a.shape
    lx = sum(t for _, t, _, _ in LAYERS)
    x = np.linspace(0.0, lx, nx)
    y = np.linspace(0.0, a.length[0], ny)
    z = np.linspace(0.0, a.length[1], nz)
    Z, Y, X = np.meshgrid(z, y, x, indexing="ij")  # dataset order (nz, ny, nx)
    K = np.empty_like(X)
    c = np.empty_like(X)
    q = np.zeros_like(X)
    edge = 0.0
    for _, t, k, cap in LAYERS:
        inside = X >= edge - 1e-12
        K[inside] = k
        c[inside] = cap
        edge += t
    # The inclusion: a block in the middle of the first brick layer.
    block = (np.abs(X - 0.07) <= 0.012) & (np.abs(Y - a.length[0] / 2) <= 0.03) & (np.abs(Z - a.length[1] / 2) <= 0.03)
    K[block], c[block], q[block] = INCLUSION["K"], INCLUSION["c"], INCLUSION["q"]
    spacing = [lx / (nx - 1), a.length[0] / (ny - 1), a.length[1] / (nz - 1)]

    def write(tmp):
        with h5py.File(tmp, "w") as f:
            for name, v, unit in (("K", K, "W/(m K)"), ("c", c, "J/(m^3 K)"), ("q", q, "W/m^3")):
                d = f.create_dataset(name, data=v)
                d.attrs["origin"] = [0.0, 0.0, 0.0]
                d.attrs["spacing"] = spacing
                d.attrs["units"] = unit

    write_new(a.output, a.overwrite, write)
    print("wrote %s: K, c, q of shape (nz, ny, nx) = %s, wall %.3f m thick, inclusion of %d nodes"
          % (a.output, K.shape, lx, int(block.sum())))


if __name__ == "__main__":
    main()
