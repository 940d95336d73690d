#!/usr/bin/python3
"""Plots for adi3d results (matplotlib with the Agg backend: no display needed).

  plot.py slices RUN.h5 [--step N] [--x X] [--y Y] [--z Z] [--unit K] [-o slices.png]
      slices z = const, y = const, x = const (default: the middle planes;
      --x/--y/--z pick the node nearest to a coordinate in m) of one output
      step or of a checkpoint, in physical coordinates from /grid (origin,
      spacing), each pixel centred on its node. Works on the file of a
      running job (opened without HDF5 file locking). Slabs thinner than
      1 : --max-stretch are drawn stretched, and say so.
  plot.py convergence VALIDATE.json [-o convergence.png]
      error against the exact solution versus h, log-log, with a slope-2
      guide, from `adi3d validate --json VALIDATE.json`.

Uses Debian's python3-h5py, python3-numpy and python3-matplotlib.
"""

import argparse
import json
import os

import numpy as np

from _safe_output import refuse_existing, write_new

# Before h5py loads HDF5: read files that a running job holds open (older
# h5py has no locking= argument; this does the same).
os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")


def pyplot():
    """matplotlib with the Agg backend, imported only when something is drawn."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def open_h5(path):
    """Opens an output or checkpoint read-only without HDF5's file locking: a
    running job holds its output open for writing, and a locked open would
    fail ("unable to lock file"). adi3d flushes each step before it lists it,
    so what is read is a complete step."""
    import h5py
    try:
        return h5py.File(path, "r", locking=False)
    except TypeError:  # h5py < 3.5: the environment variable (set below) does it
        return h5py.File(path, "r")


def read_step(f, path, step):
    """(u, t, step) of an output file's step (default: the last) or of a
    checkpoint (one field, /u, with step and time on the file)."""
    if "steps" in f:
        steps = sorted(f["steps"], key=int)
        if not steps:
            raise SystemExit("%s holds no steps" % path)
        key = steps[-1] if step is None else "%06d" % step
        if key not in f["steps"]:
            raise SystemExit("%s has no step %s (it has %s)" % (path, step, ", ".join(steps)))
        d = f["steps"][key]["u"]
        return d[()], float(d.attrs["time"]), int(key)
    if "u" in f and f.attrs.get("format") in ("adi3d-checkpoint", b"adi3d-checkpoint"):
        if step is not None and step != int(f.attrs["step"]):
            raise SystemExit("%s is a checkpoint of step %d, not %d" % (path, int(f.attrs["step"]), step))
        return f["u"][()], float(f.attrs["time"]), int(f.attrs["step"])
    raise SystemExit("%s is neither an adi3d output (/steps) nor a checkpoint (/u)" % path)


def plane_index(value, origin, h, n, name):
    """Index of the node nearest to coordinate `value` (default: the middle)."""
    if value is None:
        return n // 2
    i = int(round((value - origin) / h)) if h > 0 else 0
    if not 0 <= i < n:
        raise SystemExit("--%s %g is outside the grid (%g .. %g m)" % (name, value, origin, origin + h * (n - 1)))
    return i


def slices(a):
    with open_h5(a.file) as f:
        u, t, step = read_step(f, a.file, a.step)
        origin = np.array(f["grid"].attrs["origin"], dtype=float)   # x, y, z
        spacing = np.array(f["grid"].attrs["spacing"], dtype=float)  # x, y, z
    nz, ny, nx = u.shape  # datasets are (nz, ny, nx), x fastest
    n = np.array([nx, ny, nz])
    k = plane_index(a.z, origin[2], spacing[2], nz, "z")
    j = plane_index(a.y, origin[1], spacing[1], ny, "y")
    i = plane_index(a.x, origin[0], spacing[0], nx, "x")
    # Values live on nodes: each pixel is centred on its node, so the image
    # reaches half a spacing beyond the first and last node.
    lo = origin - 0.5 * spacing
    hi = origin + spacing * (n - 1) + 0.5 * spacing
    vmin, vmax = float(u.min()), float(u.max())
    plt = pyplot()
    fig, ax = plt.subplots(1, 3, figsize=(15, 5), constrained_layout=True)
    views = [
        (u[k, :, :], (lo[0], hi[0], lo[1], hi[1]), "x [m]", "y [m]", "z = %.4g m (k = %d)" % (origin[2] + spacing[2] * k, k)),
        (u[:, j, :], (lo[0], hi[0], lo[2], hi[2]), "x [m]", "z [m]", "y = %.4g m (j = %d)" % (origin[1] + spacing[1] * j, j)),
        (u[:, :, i], (lo[1], hi[1], lo[2], hi[2]), "y [m]", "z [m]", "x = %.4g m (i = %d)" % (origin[0] + spacing[0] * i, i)),
    ]
    stretched = []
    for axis, (img, extent, xl, yl, title) in zip(ax, views):
        width, height = extent[1] - extent[0], extent[3] - extent[2]
        # True proportions, unless the slab is so thin that it would be a
        # strip of a few pixels: then stretched, and the title says so.
        ratio = max(width, height) / max(min(width, height), 1e-300)
        aspect = "equal" if ratio <= a.max_stretch else "auto"
        if aspect == "auto":
            stretched.append(title.split(" (")[0])
            title += "\n(stretched: true aspect %.3g : 1)" % ratio
        im = axis.imshow(img, origin="lower", extent=extent, vmin=vmin, vmax=vmax, cmap="inferno", aspect=aspect,
                         interpolation="nearest")
        axis.set_xlabel(xl)
        axis.set_ylabel(yl)
        axis.set_title(title, fontsize=10)
    fig.colorbar(im, ax=ax, shrink=0.9, label="u [%s]" % a.unit if a.unit else "u")
    # The file and time go in the window's title line above the panels
    # (constrained layout keeps it clear of the panel titles).
    fig.suptitle("%s: step %d, t = %.6g s" % (a.file, step, t), fontsize=12)
    write_new(a.output, a.overwrite, lambda tmp: fig.savefig(tmp, dpi=100))
    print("wrote %s (step %d, t = %g s; planes i = %d, j = %d, k = %d%s)"
          % (a.output, step, t, i, j, k, "; stretched: " + ", ".join(stretched) if stretched else ""))


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
    write_new(a.output, a.overwrite, lambda tmp: fig.savefig(tmp, dpi=100))
    print("wrote %s (%d levels, finest order %.3f)" % (a.output, len(rows), rows[-1]["order_max"]))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    s = sub.add_parser("slices", help="mid-plane slices of an output step")
    s.add_argument("file")
    s.add_argument("--step", type=int, help="step to plot (default: the last one)")
    s.add_argument("--x", type=float, help="the x = const plane: the node nearest this x [m] (default: the middle)")
    s.add_argument("--y", type=float, help="the y = const plane (default: the middle)")
    s.add_argument("--z", type=float, help="the z = const plane (default: the middle)")
    s.add_argument("--unit", default="K", help="unit of u for the colour bar (default K; '' for none)")
    s.add_argument("--max-stretch", dest="max_stretch", type=float, default=8.0,
                   help="draw true proportions up to this aspect ratio, stretched beyond (default 8)")
    s.add_argument("-o", "--output", default="slices.png")
    s.add_argument("--overwrite", action="store_true", help="replace an existing output file")
    c = sub.add_parser("convergence", help="error vs h from adi3d validate --json")
    c.add_argument("file")
    c.add_argument("-o", "--output", default="convergence.png")
    c.add_argument("--overwrite", action="store_true", help="replace an existing output file")
    a = p.parse_args()
    refuse_existing(a.output, a.overwrite)
    slices(a) if a.what == "slices" else convergence(a)


if __name__ == "__main__":
    main()
