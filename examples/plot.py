#!/usr/bin/python3
"""Plots for adi3d results (matplotlib with the Agg backend: no display needed).

  plot.py slices RUN.h5 [--step N] [--x X] [--y Y] [--z Z] [--unit K] [-o slices.png]
      one output step or a checkpoint, drawn for its dimensionality:
        3D  three panels, the planes z, y, x = const (default: the middle
            planes; --x/--y/--z pick the node nearest to a coordinate in m);
        2D  (one axis with nz/ny/nx = 1) one panel, the whole plane;
        1D  a line plot of u along the axis.
      In physical coordinates (the node coordinates of /grid), each cell
      centred on its node and the axes spanning the box exactly (the
      boundary nodes sit on its faces; a periodic axis spans n spacings).
      Orientation: x to the right and y up (z = const), x to the right and
      z up (y = const), y to the right and z up (x = const). Works on the
      file of a running job (opened without HDF5 file locking). Slabs
      thinner than 1 : --max-stretch are drawn stretched, and say so.
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


AXES = "xyz"


def node_coordinates(f, n):
    """The node coordinates of each axis (x, y, z): /grid/x, /grid/y, /grid/z
    where the file has them (so a stretched grid is drawn where its nodes
    are), else origin + i * spacing from /grid's attributes."""
    g = f["grid"]
    origin = np.array(g.attrs["origin"], dtype=float)
    spacing = np.array(g.attrs["spacing"], dtype=float)
    coords = []
    for a, name in enumerate(AXES):
        if name in g and g[name].shape == (n[a],):
            coords.append(np.array(g[name][()], dtype=float))
        else:
            coords.append(origin[a] + spacing[a] * np.arange(n[a]))
    return coords, spacing


def periodic_axes(f):
    """Which axes wrap around, from the run's resolved config (/provenance/config)."""
    try:
        text = f["provenance"]["config"][()]
    except (KeyError, TypeError):
        return set()
    text = text.decode() if isinstance(text, bytes) else str(text)
    import re
    return set(re.findall(r"\b([xyz])_lo: periodic", text))


def cell_edges(c):
    """Edges of the cells around the nodes c: half-way between neighbours,
    and the box's own ends, so that the picture covers the true extent of
    the axis: [first node, last node] where the boundary nodes sit on the
    faces; [x0, x0 + n h] on a periodic axis (whose node 0 is drawn again at
    its end, see extend_periodic)."""
    mid = 0.5 * (c[1:] + c[:-1])
    return np.concatenate(([c[0]], mid, [c[-1]]))


def extend_periodic(c, h, img, axis):
    """A periodic axis of n distinct nodes spans n h: node 0 is also the node
    at x0 + n h, so it is appended there (the picture then ends at the box's
    end, not half a cell short of it)."""
    c = np.append(c, c[0] + h * len(c))
    img = np.concatenate([img, np.take(img, [0], axis=axis)], axis=axis)
    return c, img


def plane_index(value, c, name):
    """Index of the node nearest to coordinate `value` (default: the middle)."""
    n = len(c)
    if value is None:
        return n // 2
    i = int(np.argmin(np.abs(c - value)))
    half = 0.5 * (c[1] - c[0]) if n > 1 else 0.0
    if not c[0] - half <= value <= c[-1] + half:
        raise SystemExit("--%s %g is outside the grid (%g .. %g m)" % (name, value, c[0], c[-1]))
    return i


def slices(a):
    with open_h5(a.file) as f:
        u, t, step = read_step(f, a.file, a.step)
        nz, ny, nx = u.shape  # datasets are (nz, ny, nx), x fastest
        n = [nx, ny, nz]
        coords, spacing = node_coordinates(f, n)
        periodic = periodic_axes(f)
    live = [ax for ax in range(3) if n[ax] > 1]  # axes with more than one node; the others are flat
    chosen = {0: a.x, 1: a.y, 2: a.z}
    flat = [AXES[ax] for ax in range(3) if n[ax] == 1]
    if len(live) < 3:
        asked = [AXES[ax] for ax in live if chosen[ax] is not None]
        if asked:
            raise SystemExit("--%s: %s is a %dD output (flat %s): it is drawn whole, there is no plane to choose"
                             % (asked[0], a.file, len(live), ", ".join(flat)))
    vmin, vmax = float(u.min()), float(u.max())
    plt = pyplot()
    label = "u [%s]" % a.unit if a.unit else "u"
    title = "%s: step %d, t = %.6g s" % (a.file, step, t)
    # u as a 3-D array indexed [x][y][z] (the dataset is [z][y][x]).
    uxyz = np.transpose(u, (2, 1, 0))

    if len(live) <= 1:
        # 1D (or a single node): u along the one axis that has nodes.
        ax_i = live[0] if live else 0
        c = coords[ax_i]
        line = uxyz.reshape(n[ax_i]) if live else uxyz.reshape(1)
        if AXES[ax_i] in periodic:
            c, line = extend_periodic(c, spacing[ax_i], line, 0)
        fig, ax = plt.subplots(figsize=(8, 4.5), constrained_layout=True)
        ax.plot(c, line, "-", marker="." if len(c) <= 200 else None, color="C3")
        ax.set_xlim(c[0], c[-1])
        ax.set_xlabel("%s [m]" % AXES[ax_i])
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        ax.set_title(title, fontsize=11)
        write_new(a.output, a.overwrite, lambda tmp: fig.savefig(tmp, dpi=100))
        print("wrote %s (step %d, t = %g s; 1D: u along %s, %d nodes; extent %s %.6g .. %.6g m)"
              % (a.output, step, t, AXES[ax_i], n[ax_i], AXES[ax_i], c[0], c[-1]))
        return

    # The panels: (horizontal axis, vertical axis, index of the plane along
    # the third axis). Conventional orientation: x to the right, y (or z) up;
    # in the x = const plane y to the right, z up.
    if len(live) == 2:
        h_ax, v_ax = live
        third = 3 - h_ax - v_ax
        panels = [(h_ax, v_ax, third, 0)]
    else:
        idx = [plane_index(chosen[ax], coords[ax], AXES[ax]) for ax in range(3)]
        panels = [(0, 1, 2, idx[2]), (0, 2, 1, idx[1]), (1, 2, 0, idx[0])]
    fig, axs = plt.subplots(1, len(panels), figsize=(5 * len(panels) + (2 if len(panels) == 1 else 0), 5),
                            constrained_layout=True, squeeze=False)
    stretched = []
    extent = {}  # axis -> (first, last) coordinate drawn
    for axis, (h_ax, v_ax, third, k) in zip(axs[0], panels):
        img = np.take(uxyz, k, axis=third)  # [h][v]
        if h_ax > v_ax:
            img = img.T
        ch, cv = coords[h_ax], coords[v_ax]
        if AXES[h_ax] in periodic:
            ch, img = extend_periodic(ch, spacing[h_ax], img, 0)
        if AXES[v_ax] in periodic:
            cv, img = extend_periodic(cv, spacing[v_ax], img, 1)
        eh, ev = cell_edges(ch), cell_edges(cv)
        width, height = eh[-1] - eh[0], ev[-1] - ev[0]
        extent[h_ax], extent[v_ax] = (eh[0], eh[-1]), (ev[0], ev[-1])
        where = "%s = %.4g m (%s = %d)" % (AXES[third], coords[third][k], "ijk"[third], k)
        name = where if len(live) == 3 else "%s-%s plane, %s = %.4g m" % (AXES[h_ax], AXES[v_ax], AXES[third],
                                                                         coords[third][k])
        # True proportions, unless the slab is so thin that it would be a
        # strip of a few pixels: then stretched, and the title says so.
        ratio = max(width, height) / max(min(width, height), 1e-300)
        aspect = "equal" if ratio <= a.max_stretch else "auto"
        if aspect == "auto":
            stretched.append(where.split(" (")[0])
            name += "\n(stretched: true aspect %.3g : 1)" % ratio
        im = axis.pcolormesh(eh, ev, img.T, vmin=vmin, vmax=vmax, cmap="inferno", shading="flat")
        axis.set_xlim(eh[0], eh[-1])
        axis.set_ylim(ev[0], ev[-1])
        axis.set_aspect(aspect)
        axis.set_xlabel("%s [m]" % AXES[h_ax])
        axis.set_ylabel("%s [m]" % AXES[v_ax])
        axis.set_title(name, fontsize=10)
    fig.colorbar(im, ax=axs[0].tolist(), shrink=0.9, label=label)
    # The file and time go in the window's title line above the panels
    # (constrained layout keeps it clear of the panel titles).
    fig.suptitle(title, fontsize=12)
    write_new(a.output, a.overwrite, lambda tmp: fig.savefig(tmp, dpi=100))
    drawn = ", ".join("%s %.6g .. %.6g m" % (AXES[q], extent[q][0], extent[q][1]) for q in sorted(extent))
    if len(live) == 2:
        h_ax, v_ax, third, _ = panels[0]
        print("wrote %s (step %d, t = %g s; 2D (flat %s): one panel, the %s-%s plane%s; extent %s)"
              % (a.output, step, t, AXES[third], AXES[h_ax], AXES[v_ax], "; stretched" if stretched else "", drawn))
    else:
        print("wrote %s (step %d, t = %g s; planes i = %d, j = %d, k = %d%s; extent %s)"
              % (a.output, step, t, idx[0], idx[1], idx[2], "; stretched: " + ", ".join(stretched) if stretched else "",
                 drawn))


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
