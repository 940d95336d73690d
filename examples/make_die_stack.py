#!/usr/bin/python3
"""Writes the stack of examples/die_stack.yaml: a 20 x 20 mm copper base
3 mm thick, a 0.1 mm thermal interface (K = 3) and a 0.5 mm silicon die
whose top 0.1 mm dissipate 40 W in a 6 x 6 mm hot spot.

The z axis is stretched (grid.z: {coordinates: {file, dataset: /z}}): gaps of
0.025 mm through the interface (4 of them), growing by at most 1.25 per gap
into the copper below and the silicon above. Each material interface lies
midway between two nodes of different materials, where the discrete flux is
exact (docs/SCHEMES.md, "Stretched grids"). A uniform z axis would need
0.025 mm everywhere: 145 planes instead of the 39 here.

Datasets (shape (nz, ny, nx), x fastest): /region (int8: 1 copper, 2
interface, 3 silicon; the config names the materials), /q [W/m^3] (the
source, scaled so that the discrete power is exactly 40 W), and /z [m] (the
node coordinates). No spacing attributes: the config gives x, y (uniform)
and z (these coordinates).

    /usr/bin/python3 examples/make_die_stack.py die_stack.h5
    adi3d run examples/die_stack.yaml
"""

import argparse

import h5py
import numpy as np

from _safe_output import refuse_existing, write_new

NX = NY = 41
LX = LY = 0.020                          # [m]
COPPER, TIM, DIE = 0.003, 0.0001, 0.0005  # layer thicknesses [m]
FINE = 0.000025                          # the gaps through the interface [m]
POWER = 40.0                             # [W]
SPOT = 0.003                             # half width of the hot spot [m]
ACTIVE = 0.0001                          # the die's active layer at its top [m]


def geometric(total, first, count):
    """count gaps from `first` growing by a common ratio r, summing to total
    (r by bisection)."""
    lo, hi = 1.0, 2.0
    for _ in range(200):
        r = 0.5 * (lo + hi)
        if first * (r ** count - 1) / (r - 1) > total:
            hi = r
        else:
            lo = r
    g = first * r ** np.arange(count)
    return g * (total / g.sum()), r


def z_nodes(refine=1):
    # Interfaces at z = COPPER and COPPER + TIM, each the midpoint of a gap of
    # fine: the nodes beside them at +- fine / 2. `refine`: every gap of the
    # same map divided by it, the interfaces still at gap midpoints.
    z1, z2 = COPPER, COPPER + TIM
    fine = FINE / refine
    tim = z1 + fine / 2 + fine * np.arange(4 * refine)                   # 3.0125 .. 3.0875 mm
    below, r1 = geometric(z1 - fine / 2, fine, 17 * refine)              # copper: 17 gaps, fine at the top
    above, r2 = geometric(COPPER + TIM + DIE - (z2 + fine / 2), fine, 15 * refine)  # silicon: 15 gaps
    copper = (z1 - fine / 2) - np.concatenate(([0.0], np.cumsum(below)))[::-1]
    silicon = (z2 + fine / 2) + np.concatenate(([0.0], np.cumsum(above)))
    z = np.concatenate((copper, tim, silicon))
    z[0], z[-1] = 0.0, COPPER + TIM + DIE
    return z, max(r1, r2)


def fields(refine=1):
    z, ratio = z_nodes(refine)
    nz = len(z)
    x = np.linspace(0.0, LX, NX)
    y = np.linspace(0.0, LY, NY)
    zz = z[:, None, None]
    region = np.ones((nz, NY, NX), dtype=np.int8)
    region[np.broadcast_to((zz > COPPER) & (zz < COPPER + TIM), region.shape)] = 2
    region[np.broadcast_to(zz > COPPER + TIM, region.shape)] = 3
    spot = (np.abs(x - LX / 2) <= SPOT + 1e-12)[None, None, :] & (np.abs(y - LY / 2) <= SPOT + 1e-12)[None, :, None]
    hot = np.broadcast_to((zz >= COPPER + TIM + DIE - ACTIVE - 1e-12) & spot, region.shape)
    # Control volumes: half of each neighbouring gap (a face node: half of one).
    def cells(c):
        g = np.diff(c)
        return 0.5 * (np.concatenate(([0.0], g)) + np.concatenate((g, [0.0])))
    vol = cells(z)[:, None, None] * cells(y)[None, :, None] * cells(x)[None, None, :]
    q = np.zeros(region.shape)
    q[hot] = POWER / np.sum(vol[hot])
    return z, region, q, ratio


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("output", help="HDF5 file to write")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output file")
    p.add_argument("--refine", type=int, default=1, help="divide every z gap by this (a convergence check)")
    a = p.parse_args()
    refuse_existing(a.output, a.overwrite)
    z, region, q, ratio = fields(a.refine)

    def write(path):
        with h5py.File(path, "w") as f:
            f["region"] = region
            f["q"] = q
            f["z"] = z

    write_new(a.output, a.overwrite, write)
    g = np.diff(z)
    print("%s: region and q on %d x %d x %d nodes, z gaps %.4g .. %.4g mm (ratio <= %.3f), %.1f W"
          % (a.output, NX, NY, len(z), 1e3 * g.min(), 1e3 * g.max(), ratio, POWER))


if __name__ == "__main__":
    main()
