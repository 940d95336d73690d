"""Probes and the heat-flux field through `adi3d run` (h5py):

  values    probes at nodes equal the written field bit for bit, probes
            between nodes its trilinear interpolation to 1e-14 relative, at
            step 0, every N steps and the last step; the CSV holds the same
            numbers; a material field and a source make the field uneven;
  flux      a slab held at 0 and 1 (Dirichlet): q = (-K/L, 0, 0) at every
            node, boundary nodes too, in /steps/NNNNNN/heat_flux of shape
            (nz, ny, nx, 3) and as a Vector attribute in the .xmf;
  restart   a run stopped at a checkpoint and continued (--restart) ends
            with the probe rows of the uninterrupted run: none duplicated,
            none missing, in the HDF5 and the CSV;
  bad       a point outside the box: exit 2, one line file:line:column; an
            existing CSV is not replaced without --overwrite (exit 3).
"""

import csv
import os
import re
import xml.etree.ElementTree as ET

import h5py
import numpy as np

import adi_testlib as T

CASE = """grid: {nx: 13, ny: 11, nz: 9}
domain: {lx: 0.03, ly: 0.022, lz: 0.0075, origin: [0.0, 0.001, 0.0]}
material: {conductivity: {file: k.h5, dataset: /K}, heat_capacity: 1.0e3}
source: {power_density: 2.0e4}
boundary: {x: {lo: dirichlet, hi: {type: convective, h: 50, ambient: 0}}, y: periodic, z: insulated}
time: {dt: 2e-3, steps: %(steps)d}
initial: {value: 0}
output: {file: out.h5, every: 5, fields: [u, heat_flux]}
checkpoint: {file: ck.h5, every: %(ck)d}
probes:
  points:
    node: [0.0125, 0.009, 0.00375]
    between: [0.0151, 0.0137, 0.00211]
    wrap: [0.02, 0.0225, 0.0007]
    corner: [0.0, 0.001, 0.0]
  every: 3
  csv: true
"""

POINTS = {"node": (0.0125, 0.009, 0.00375), "between": (0.0151, 0.0137, 0.00211), "wrap": (0.02, 0.0225, 0.0007),
          "corner": (0.0, 0.001, 0.0)}
ORIGIN = (0.0, 0.001, 0.0)
LENGTH = (0.03, 0.022, 0.0075)
N = (13, 11, 9)
PERIODIC = (False, True, False)


def spacing(a):
    return LENGTH[a] / (N[a] if PERIODIC[a] else N[a] - 1)


def trilinear(u, x):
    """u of shape (nz, ny, nx); x = (x, y, z): scipy's RegularGridInterpolator, wrapping y."""
    idx, w = [], []
    for a in range(3):
        t = (x[a] - ORIGIN[a]) / spacing(a)
        i = int(np.floor(t))
        if not PERIODIC[a] and i >= N[a] - 1:
            i = N[a] - 2
        idx.append((i % N[a], (i + 1) % N[a]))
        w.append(t - i)
    s = 0.0
    for c in range(8):
        f, k = 1.0, []
        for a in range(3):
            up = (c >> a) & 1
            k.append(idx[a][up])
            f *= w[a] if up else 1 - w[a]
        s += f * u[k[2], k[1], k[0]]
    return s


def make_case(a, name, steps=30, ck=0):
    d = os.path.join(a.work, name)
    os.makedirs(d, exist_ok=True)
    z, y, x = np.meshgrid(np.arange(N[2]), np.arange(N[1]), np.arange(N[0]), indexing="ij")
    with h5py.File(os.path.join(d, "k.h5"), "w") as f:
        f["K"] = 1.0 + 40.0 * (x > 6) + 3.0 * np.sin(y) ** 2 + 0.5 * z
    T.write(os.path.join(d, "case.yaml"), CASE % dict(steps=steps, ck=ck))
    return d


def read_probes(path):
    with h5py.File(path, "r") as f:
        return {k: f["probes"][k][()] for k in f["probes"]}


def values(a):
    d = make_case(a, "values")
    T.run(a, ["run", "case.yaml"], cwd=d, match=[r"4 probes recorded every 3 steps into out\.h5:/probes, "
                                                   r"out\.probes\.csv"])
    fields = T.fields(os.path.join(d, "out.h5"))
    probes = read_probes(os.path.join(d, "out.h5"))
    T.check(sorted(probes) == sorted(POINTS), "series %s" % sorted(probes))
    want_steps = [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30]
    for name, rows in probes.items():
        T.check(list(rows["step"]) == want_steps, "%s: steps %s" % (name, list(rows["step"])))
        T.check(np.array_equal(rows["time"], np.array(want_steps) * 2e-3), "%s: times %s" % (name, rows["time"]))
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        T.check(np.allclose(f["probes/between"].attrs["position"], POINTS["between"], rtol=0, atol=0),
                "position attribute")
    checked = 0
    for name, rows in probes.items():
        for r in rows:
            s = int(r["step"])
            if s not in fields:
                continue
            u = fields[s]
            want = trilinear(u, POINTS[name])
            if name in ("node", "corner"):
                k = [int(round((POINTS[name][a] - ORIGIN[a]) / spacing(a))) for a in range(3)]
                want = u[k[2], k[1], k[0]]
                T.check(r["value"] == want, "%s at step %d: %r, the field has %r (bit for bit)" %
                        (name, s, r["value"], want))
            else:
                T.check(abs(r["value"] - want) <= 1e-14 * abs(want),
                        "%s at step %d: %r, trilinear of the written field %r" % (name, s, r["value"], want))
            checked += 1
    T.check(checked == 4 * 3, "compared %d rows with the field (steps 0, 15, 30)" % checked)
    T.check(probes["node"]["value"][-1] != 0.0, "the field did not change")
    # The CSV: the same numbers (17 digits read back exactly).
    with open(os.path.join(d, "out.probes.csv")) as f:
        rows = list(csv.reader(f))
    T.check(rows[0] == ["step", "time", "node", "between", "wrap", "corner"], "CSV header %s" % rows[0])
    T.check(len(rows) == 1 + len(want_steps), "CSV has %d lines" % len(rows))
    for i, row in enumerate(rows[1:]):
        T.check(int(row[0]) == want_steps[i], "CSV step %s" % row[0])
        for j, name in enumerate(["node", "between", "wrap", "corner"]):
            T.check(float(row[2 + j]) == probes[name]["value"][i], "CSV %s row %d: %s" % (name, i, row[2 + j]))


def flux(a):
    d = os.path.join(a.work, "flux")
    os.makedirs(d)
    n, L, K = (11, 5, 4), 0.4, 2.5
    x = np.arange(n[0]) * (L / (n[0] - 1))
    with h5py.File(os.path.join(d, "init.h5"), "w") as f:
        f["u"] = np.broadcast_to(x / L, (n[2], n[1], n[0])).copy()
    T.write(os.path.join(d, "case.yaml"), """grid: {nx: %d, ny: %d, nz: %d}
domain: {lx: %r, ly: 0.1, lz: 0.1}
material: {conductivity: %r, heat_capacity: 1}
boundary: {x: dirichlet, default: insulated}
time: {dt: 1e-3, steps: 4}
initial: {file: init.h5, dataset: /u}
output: {file: out.h5, every: 2, fields: [u, heat_flux]}
""" % (n + (L, K)))
    T.run(a, ["run", "case.yaml"], cwd=d)
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        steps = sorted(f["steps"])
        T.check(steps == ["000000", "000002", "000004"], "steps %s" % steps)
        for s in steps:
            q = f["steps/%s/heat_flux" % s][()]
            T.check(q.shape == (n[2], n[1], n[0], 3), "shape %s" % (q.shape,))
            T.check(np.max(np.abs(q[..., 0] + K / L)) <= 1e-12 * K / L, "step %s: qx %s, expected %r" %
                    (s, q[..., 0].ravel()[:12], -K / L))
            T.check(np.all(q[..., 1:] == 0), "step %s: qy, qz not 0" % s)
            T.check(f["steps/%s/heat_flux" % s].attrs["units"] == "W/m^2", "units")
    root = ET.parse(os.path.join(d, "out.xmf")).getroot()
    atts = root.findall(".//Attribute[@Name='heat_flux']")
    T.check(len(atts) == 3, "the .xmf lists %d heat_flux attributes" % len(atts))
    for att in atts:
        T.check(att.get("AttributeType") == "Vector" and att.get("Center") == "Node", "attribute %s" % att.attrib)
        item = att.find("DataItem")
        T.check(item.get("Dimensions") == "%d %d %d 3" % (n[2], n[1], n[0]), "dimensions %s" % item.get("Dimensions"))
        T.check(re.match(r"out\.h5:/steps/\d{6}/heat_flux$", item.text), "data item %s" % item.text)
    # Without the request: no heat flux.
    T.run(a, ["run", "case.yaml", "--set", "output.fields=[u]", "--set", "output.file=plain.h5"], cwd=d)
    with h5py.File(os.path.join(d, "plain.h5"), "r") as f:
        T.check("heat_flux" not in f["steps/000004"], "heat_flux written without being asked for")


def restart(a):
    every = ["--set", "probes.every=5"]
    ref = make_case(a, "restart_ref", steps=30)
    T.run(a, ["run", "case.yaml"] + every, cwd=ref)
    d = make_case(a, "restart", steps=30, ck=10)
    # Stopped after step 20 (a checkpoint at 20), as a job's time limit would.
    T.run(a, ["run", "case.yaml", "--set", "time.steps=20"] + every, cwd=d)
    T.run(a, ["run", "case.yaml", "--restart", "ck.h5"] + every, cwd=d, match=[r"restart +from ck\.h5 at step 20"])
    got, want = read_probes(os.path.join(d, "out.h5")), read_probes(os.path.join(ref, "out.h5"))
    for name in POINTS:
        T.check(list(got[name]["step"]) == list(want[name]["step"]),
                "%s: steps %s, the uninterrupted run %s" % (name, list(got[name]["step"]), list(want[name]["step"])))
        T.check(np.array_equal(got[name]["value"], want[name]["value"]), "%s: values differ" % name)
    with open(os.path.join(d, "out.probes.csv")) as f1, open(os.path.join(ref, "out.probes.csv")) as f2:
        T.check(f1.read() == f2.read(), "the CSV differs from the uninterrupted run's")
    # A run stopped off the probe schedule (its last step, 10, is recorded) and
    # continued: every row once, the stop step's too.
    T.run(a, ["run", "case.yaml", "--set", "time.steps=10", "--overwrite"] + every, cwd=d)
    T.run(a, ["run", "case.yaml", "--restart", "ck.h5", "--set", "probes.every=3"], cwd=d)
    got = read_probes(os.path.join(d, "out.h5"))
    for name in POINTS:
        T.check(list(got[name]["step"]) == [0, 5, 10, 12, 15, 18, 21, 24, 27, 30], "%s: steps after a restart %s" %
                (name, list(got[name]["step"])))
    with open(os.path.join(d, "out.probes.csv")) as f:
        steps = [int(line.split(",")[0]) for line in f.read().splitlines()[1:]]
    T.check(steps == [0, 5, 10, 12, 15, 18, 21, 24, 27, 30], "CSV steps after a restart %s" % steps)


def bad(a):
    d = make_case(a, "bad")
    text = open(os.path.join(d, "case.yaml")).read().replace("corner: [0.0, 0.001, 0.0]", "corner: [0.0, 0.0, 0.0]")
    T.write(os.path.join(d, "case.yaml"), text)
    p = T.run(a, ["run", "case.yaml"], cwd=d, rc=2,
              match=[r"adi3d: error: case\.yaml:15:5: probes\.points\.corner: the point \(0, 0, 0\) m is outside "
                     r"the box \[0, 0\.03\] x \[0\.001, 0\.023\] x \[0, 0\.0075\] m \(y = 0 is below the origin"])
    T.check(len((p.stdout + p.stderr).strip().splitlines()) == 1, "more than one line")
    T.check(not os.path.exists(os.path.join(d, "out.h5")), "an output was written")
    T.run(a, ["run", "case.yaml", "--dry-run"], cwd=d, rc=2, match=[r"case\.yaml:15:5: probes\.points\.corner"])
    d = make_case(a, "csv_exists")
    T.write(os.path.join(d, "out.probes.csv"), "my notes\n")
    T.run(a, ["run", "case.yaml"], cwd=d, rc=3, match=[r"probes CSV 'out\.probes\.csv' exists; pass --overwrite"])
    T.check(open(os.path.join(d, "out.probes.csv")).read() == "my notes\n", "the user's file changed")


PARTS = {"values": values, "flux": flux, "restart": restart, "bad": bad}


def body():
    a = T.parse_args(lambda p: p.add_argument("--part", required=True, choices=sorted(PARTS)))
    PARTS[a.part](a)


T.main(body)
