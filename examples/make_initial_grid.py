#!/usr/bin/python3
"""Writes an initial field for `adi3d run` in the layout adi3d reads:
a dataset of shape (nz, ny, nx), C order (x fastest), float64 or float32,
with attributes origin = [x0, y0, z0] and spacing = [hx, hy, hz] in metres
(x, y, z order).

The field is a Gaussian hot spot on a warm plate: u = 1 + A exp(-|r - c|^2 / w^2),
so Dirichlet faces hold u = 1 (boundary_from_file: true keeps the file's
boundary values) and the interior diffuses towards it.

Uses Debian's python3-h5py and python3-numpy:
    /usr/bin/python3 examples/make_initial_grid.py grid.h5 --shape 65 49 33
    adi3d run examples/initial_from_file.yaml
"""

import argparse

import h5py
import numpy as np

from _safe_output import refuse_existing, write_new


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("output", help="HDF5 file to write")
    p.add_argument("--shape", type=int, nargs=3, default=[65, 49, 33], metavar=("NX", "NY", "NZ"),
                   help="nodes per axis, boundary nodes included (default 65 49 33)")
    p.add_argument("--length", type=float, nargs=3, default=[2.0, 1.5, 1.0], metavar=("LX", "LY", "LZ"),
                   help="box edge lengths [m] (default 2 1.5 1)")
    p.add_argument("--origin", type=float, nargs=3, default=[0.0, 0.0, 0.0], metavar=("X0", "Y0", "Z0"),
                   help="coordinates of node (0, 0, 0) [m] (default 0 0 0)")
    p.add_argument("--amplitude", type=float, default=10.0, help="height of the hot spot (default 10)")
    p.add_argument("--width", type=float, default=0.2, help="width w of the hot spot [m] (default 0.2)")
    p.add_argument("--dataset", default="/u", help="dataset path (default /u)")
    p.add_argument("--float32", action="store_true", help="store float32 instead of float64")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output file")
    a = p.parse_args()

    nx, ny, nz = a.shape
    if min(a.shape) < 3:
        p.error("every axis needs at least 3 nodes")
    refuse_existing(a.output, a.overwrite)
    spacing = [a.length[0] / (nx - 1), a.length[1] / (ny - 1), a.length[2] / (nz - 1)]
    x = a.origin[0] + spacing[0] * np.arange(nx)
    y = a.origin[1] + spacing[1] * np.arange(ny)
    z = a.origin[2] + spacing[2] * np.arange(nz)
    # indexing="ij" on (z, y, x) gives arrays of shape (nz, ny, nx): x fastest.
    Z, Y, X = np.meshgrid(z, y, x, indexing="ij")
    c = [a.origin[q] + 0.4 * a.length[q] for q in range(3)]  # off-centre, so the axes are told apart
    r2 = (X - c[0]) ** 2 + (Y - c[1]) ** 2 + (Z - c[2]) ** 2
    u = 1.0 + a.amplitude * np.exp(-r2 / a.width ** 2)
    u[0, :, :] = u[-1, :, :] = 1.0
    u[:, 0, :] = u[:, -1, :] = 1.0
    u[:, :, 0] = u[:, :, -1] = 1.0

    def write(tmp):
        with h5py.File(tmp, "w") as f:
            d = f.create_dataset(a.dataset, data=u.astype(np.float32 if a.float32 else np.float64))
            d.attrs["origin"] = np.array(a.origin, dtype=np.float64)
            d.attrs["spacing"] = np.array(spacing, dtype=np.float64)
            d.attrs["units"] = "m"

    write_new(a.output, a.overwrite, write)
    print("wrote %s:%s, shape (nz, ny, nx) = %s, spacing %s m" % (a.output, a.dataset, u.shape, spacing))


if __name__ == "__main__":
    main()
