#!/usr/bin/python3
"""Plots for adi3d results (matplotlib with the Agg backend: no display needed).

  plot.py slices RUN.h5 [--step N] [-o slices.png]
      mid-plane slices (z = const, y = const, x = const) of one output step,
      in physical coordinates from /grid (origin, spacing).
  plot.py convergence VALIDATE.json [-o convergence.png]
      error against the exact solution versus h, log-log, with a slope-2
      guide, from `adi3d validate --json VALIDATE.json`.

Uses Debian's python3-h5py, python3-numpy and python3-matplotlib.
"""

import argparse
import json

import numpy as np


def pyplot():
    """matplotlib with the Agg backend, imported only when something is drawn."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def slices(a):
    import h5py
    with h5py.File(a.file, "r") as f:
        steps = sorted(f["steps"], key=int)
        if not steps:
            raise SystemExit("%s holds no steps" % a.file)
        key = steps[-1] if a.step is None else "%06d" % a.step
        if key not in f["steps"]:
            raise SystemExit("%s has no step %s (it has %s)" % (a.file, a.step, ", ".join(steps)))
        d = f["steps"][key]["u"]
        u = d[()]
        t = float(d.attrs["time"])
        origin = np.array(f["grid"].attrs["origin"], dtype=float)   # x, y, z
        spacing = np.array(f["grid"].attrs["spacing"], dtype=float)  # x, y, z
    nz, ny, nx = u.shape  # datasets are (nz, ny, nx), x fastest
    lo = origin
    hi = origin + spacing * (np.array([nx, ny, nz]) - 1)
    vmin, vmax = float(u.min()), float(u.max())
    plt = pyplot()
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.5), constrained_layout=True)
    views = [
        (u[nz // 2, :, :], (lo[0], hi[0], lo[1], hi[1]), "x [m]", "y [m]", "z = %.4g m" % (lo[2] + spacing[2] * (nz // 2))),
        (u[:, ny // 2, :], (lo[0], hi[0], lo[2], hi[2]), "x [m]", "z [m]", "y = %.4g m" % (lo[1] + spacing[1] * (ny // 2))),
        (u[:, :, nx // 2], (lo[1], hi[1], lo[2], hi[2]), "y [m]", "z [m]", "x = %.4g m" % (lo[0] + spacing[0] * (nx // 2))),
    ]
    for axis, (img, extent, xl, yl, title) in zip(ax, views):
        im = axis.imshow(img, origin="lower", extent=extent, vmin=vmin, vmax=vmax, cmap="inferno", aspect="equal")
        axis.set_xlabel(xl)
        axis.set_ylabel(yl)
        axis.set_title(title)
    fig.colorbar(im, ax=ax, shrink=0.9, label="u")
    fig.suptitle("%s, step %d, t = %.6g s" % (a.file, int(key), t))
    fig.savefig(a.output, dpi=100)
    print("wrote %s (step %d, t = %g s)" % (a.output, int(key), t))


def convergence(a):
    with open(a.file) as f:
        v = json.load(f)
    rows = v["convergence"]["rows"]
    if len(rows) < 2:
        raise SystemExit("%s: need at least two refinement levels" % a.file)
    h = np.array([r["h"] for r in rows])
    emax = np.array([r["max_error"] for r in rows])
    erms = np.array([r["rms_error"] for r in rows])
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.5), constrained_layout=True)
    ax.loglog(h, emax, "o-", label="max error")
    ax.loglog(h, erms, "s-", label="rms error")
    guide = emax[-1] * (h / h[-1]) ** 2  # through the finest point
    ax.loglog(h, guide, "k--", label="slope 2")
    ax.set_xlabel("h [m]")
    ax.set_ylabel("error vs exact solution")
    ax.set_title("adi3d validate (%s): observed order %.3f" % (v.get("backend", "?"), rows[-1]["order_max"]))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.savefig(a.output, dpi=100)
    print("wrote %s (%d levels, finest order %.3f)" % (a.output, len(rows), rows[-1]["order_max"]))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    s = sub.add_parser("slices", help="mid-plane slices of an output step")
    s.add_argument("file")
    s.add_argument("--step", type=int, help="step to plot (default: the last one)")
    s.add_argument("-o", "--output", default="slices.png")
    c = sub.add_parser("convergence", help="error vs h from adi3d validate --json")
    c.add_argument("file")
    c.add_argument("-o", "--output", default="convergence.png")
    a = p.parse_args()
    slices(a) if a.what == "slices" else convergence(a)


if __name__ == "__main__":
    main()
