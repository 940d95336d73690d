"""diagnostics.heat_flows end to end (h5py, numpy):

  serial    a case with every face kind (Dirichlet with a table, flux with a
            table, convective, insulated, periodic), a K field with jumps and
            a source field with a table: /diagnostics/heat_flows has a row per
            output step with its column names and face kinds, the residual
            is <= 1e-10 of the largest term at every row, the flows of one
            step equal an independent numpy evaluation from the written field
            and /material (link by link, not node rows) to 1e-9, the CSV
            holds the same rows, the summary prints them; an existing CSV is
            refused without --overwrite;
  restart   a run continued from its checkpoint on the same output and CSV:
            every step once, the rows those of the uninterrupted run.

MPI: test_mpi.py's part heat_flows compares the rows of 1, 2 and 3 ranks.
"""

import csv
import os
import re

import h5py
import numpy as np

import adi_testlib as T

N = (13, 9, 11)
L = (0.13, 0.09, 0.11)
DT = 0.5
CASE = """grid: {nx: %d, ny: %d, nz: %d}
domain: {lx: %g, ly: %g, lz: %g}
material:
  conductivity: {file: fields.h5, dataset: /K}
  heat_capacity: 2.0e6
source:
  power_density: {file: fields.h5, dataset: /q}
  table: [[0, 0.2], [6, 1.5], [15, 0.7]]
boundary:
  x: {lo: {type: dirichlet, value: 30, table: [[0, 1], [10, 1.3]]}, hi: {type: convective, h: 40, ambient: 15}}
  y: {lo: {type: neumann, flux: 800, table: [[0, 0], [8, 1]]}, hi: insulated}
  z: periodic
initial: {value: 20}
time: {dt: %g, steps: 40}
backend: cpu
output: {file: run.h5, every: 10}
checkpoint: {file: ck.h5, every: 20}
diagnostics: {heat_flows: true, csv: true}
""" % (N + L + (DT,))

TABLES = {"source": ([0, 6, 15], [0.2, 1.5, 0.7]), "x-": ([0, 10], [1, 1.3]), "y-": ([0, 8], [0, 1])}


def make_case(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(7)
    shape = (N[2], N[1], N[0])
    K = np.where(rng.random(shape) < 0.3, 400.0, 1.5) * (1 + 0.2 * rng.random(shape))
    q = 2e6 * (rng.random(shape) - 0.2)
    with h5py.File(os.path.join(d, "fields.h5"), "w") as f:
        f["K"] = K
        f["q"] = q
    T.write(os.path.join(d, "case.yaml"), CASE)


def read_table(path):
    with h5py.File(path, "r", locking=False) as f:
        d = f["diagnostics/heat_flows"]
        cols = d.attrs["columns"]
        cols = cols.decode() if isinstance(cols, bytes) else cols
        kinds = d.attrs["face_kinds"]
        kinds = kinds.decode() if isinstance(kinds, bytes) else kinds
        return cols.split(","), kinds.split(","), d[()]


def harm(a, b):
    return np.where(a == b, a, 2 * a * b / (a + b))


def numpy_flows(path, step):
    """The flows of the definition (docs/USER_GUIDE.md, Heat flows), link by
    link from the written field: every link between two nodes carries
    K_f (u_a - u_b) / h times its cross-section into b."""
    with h5py.File(path, "r", locking=False) as f:
        ds = f["steps/%06d/u" % step]
        t = float(ds.attrs["time"])
        u = ds[()].transpose(2, 1, 0)  # [i, j, k]
        K = f["material/conductivity"][()].transpose(2, 1, 0)
        q = f["material/source"][()].transpose(2, 1, 0)
    h = (L[0] / (N[0] - 1), L[1] / (N[1] - 1), L[2] / N[2])
    vol = []
    for a, periodic in ((0, False), (1, False), (2, True)):
        v = np.full(N[a], h[a])
        if not periodic:
            v[0] = v[-1] = h[a] / 2
        vol.append(v)
    vx, vy, vz = np.meshgrid(vol[0], vol[1], vol[2], indexing="ij")
    w = vx * vy * vz
    body = np.ones(u.shape, bool)
    body[0, :, :] = False  # x- is Dirichlet
    inflow = np.zeros(u.shape)
    # x links (i, i+1), cross-section vy vz
    G = harm(K[:-1], K[1:]) * (u[:-1] - u[1:]) / h[0] * (vy * vz)[1:]
    inflow[1:] += G
    inflow[:-1] -= G
    # y links
    G = harm(K[:, :-1], K[:, 1:]) * (u[:, :-1] - u[:, 1:]) / h[1] * (vx * vz)[:, 1:]
    inflow[:, 1:] += G
    inflow[:, :-1] -= G
    # z links, periodic: (k, k+1 mod n)
    Kn, un = np.roll(K, -1, axis=2), np.roll(u, -1, axis=2)
    G = harm(K, Kn) * (u - un) / h[2] * (vx * vy)
    inflow += np.roll(G, 1, axis=2)
    inflow -= G
    f_src = np.interp(t, *TABLES["source"])
    faces = dict.fromkeys(["x-", "x+", "y-", "y+", "z-", "z+"], 0.0)
    faces["x-"] = float(np.sum((harm(K[0], K[1]) * (u[0] - u[1]) / h[0] * (vy * vz)[1])))
    conv = np.zeros(u.shape)
    conv[-1] = 40.0 * (15.0 - u[-1]) * (vy * vz)[-1]
    faces["x+"] = float(np.sum(conv[-1]))
    flux = np.zeros(u.shape)
    flux[:, 0] = 800.0 * np.interp(t, *TABLES["y-"]) * (vx * vz)[:, 0]
    faces["y-"] = float(np.sum(flux[1:, 0]))  # the node on x- is Dirichlet
    source = float(np.sum((w * q * f_src)[body]))
    dEdt = float(np.sum((inflow + conv + flux + w * q * f_src)[body]))
    return t, faces, source, dEdt


def serial(a):
    d = os.path.join(a.work, "serial")
    make_case(d)
    T.run(a, ["run", "case.yaml", "--dry-run"], cwd=d, match=[r"# resolved: heat flows CSV run\.heat_flows\.csv",
                                                             r"diagnostics: \{heat_flows: true, csv: true\}"])
    p = T.run(a, ["run", "case.yaml"], cwd=d,
                match=[r"heat flows +at step 40", r"x- +dirichlet", r"x\+ +convective", r"y- +flux",
                       r"y\+ +insulated", r"z- +periodic", r"residual .*of the largest term",
                       r"heat flows +CSV run\.heat_flows\.csv"])
    out = p.stdout + p.stderr
    cols, kinds, rows = read_table(os.path.join(d, "run.h5"))
    T.check(cols == ["step", "time", "x-", "x+", "y-", "y+", "z-", "z+", "source", "dE/dt", "residual"],
            "columns %s" % cols)
    T.check(kinds == ["dirichlet", "convective", "flux", "insulated", "periodic", "periodic"], "face kinds %s" % kinds)
    T.check(list(rows[:, 0]) == [0, 10, 20, 30, 40], "steps %s" % rows[:, 0])
    worst = 0.0
    for r in rows:
        scale = np.max(np.abs(r[2:10]))
        rel = abs(r[10]) / scale
        T.check(abs(r[9] - np.sum(r[2:9]) - r[10]) <= 1e-12 * scale, "row %d: residual column inconsistent" % r[0])
        T.check(rel <= 1e-10, "step %d: residual %.3e of %.3e" % (r[0], r[10], scale))
        worst = max(worst, rel)
    print("residual: at most %.3e of the largest term over %d rows" % (worst, len(rows)))
    # The summary's residual line matches the last row.
    m = re.search(r"residual +([-+0-9.e]+) \(([0-9.e+-]+) of the largest term\)", out)
    T.check(m and abs(float(m.group(1)) - rows[-1, 10]) <= 1e-3 * abs(rows[-1, 10]) + 1e-300, "summary residual")
    for step in (20, 30):
        t, faces, source, dEdt = numpy_flows(os.path.join(d, "run.h5"), step)
        r = rows[list(rows[:, 0]).index(step)]
        scale = np.max(np.abs(r[2:10]))
        T.check(abs(r[1] - t) <= 1e-12, "time of step %d" % step)
        got = dict(zip(cols, r))
        for name in faces:
            T.check(abs(got[name] - faces[name]) <= 1e-9 * scale,
                    "step %d face %s: %.12e, numpy %.12e" % (step, name, got[name], faces[name]))
        T.check(abs(got["source"] - source) <= 1e-9 * scale, "source %.12e vs %.12e" % (got["source"], source))
        T.check(abs(got["dE/dt"] - dEdt) <= 1e-9 * scale, "dE/dt %.12e vs %.12e" % (got["dE/dt"], dEdt))
        print("step %d: the flows equal numpy's (faces %s, source %.6g, dE/dt %.6g)" % (step, faces, source, dEdt))
    with open(os.path.join(d, "run.heat_flows.csv")) as f:
        lines = [l for l in f if not l.startswith("#")]
    table = list(csv.reader(lines))
    T.check(table[0] == cols, "CSV columns %s" % table[0])
    T.check(np.array_equal(np.array(table[1:], float), rows), "the CSV rows differ from the HDF5 rows")
    # An existing CSV is not replaced without --overwrite; with it, it is.
    T.run(a, ["run", "case.yaml", "--set", "output.file=other.h5", "--set", "diagnostics.csv=run.heat_flows.csv"],
          cwd=d, rc=3, match=[r"diagnostics\.csv 'run\.heat_flows\.csv' exists; pass --overwrite"])
    T.write(os.path.join(d, "mine.csv"), "a,b\n1,2\n")
    T.run(a, ["run", "case.yaml", "--set", "output.file=other.h5", "--set", "diagnostics.csv=mine.csv", "--overwrite"],
          cwd=d, rc=3, match=[r"not a heat-flow CSV adi3d wrote"])
    with open(os.path.join(d, "mine.csv")) as f:
        T.check(f.read() == "a,b\n1,2\n", "a user's file was changed")


def restart(a):
    d = os.path.join(a.work, "restart")
    make_case(d)
    T.run(a, ["run", "case.yaml", "--set", "output.file=full.h5", "--set", "checkpoint.file=full.ck.h5"], cwd=d)
    _, _, full = read_table(os.path.join(d, "full.h5"))
    # The same run, "killed" after its checkpoint at step 20 (its output and
    # CSV hold steps up to 40 already), continued from the checkpoint.
    T.run(a, ["run", "case.yaml"], cwd=d)
    T.run(a, ["run", "--restart", "ck.h5"], cwd=d, match=[r"heat flows +at step 40"])
    _, _, rows = read_table(os.path.join(d, "run.h5"))
    T.check(list(rows[:, 0]) == [0, 10, 20, 30, 40], "steps after the restart: %s" % rows[:, 0])
    T.check(np.array_equal(rows, full), "the restarted rows differ from the uninterrupted run's:\n%s\n%s" % (rows, full))
    with open(os.path.join(d, "run.heat_flows.csv")) as f:
        steps = [int(l.split(",")[0]) for l in f if l[0].isdigit()]
    T.check(steps == [0, 10, 20, 30, 40], "CSV steps after the restart: %s" % steps)
    print("restart: every step once, the rows of the uninterrupted run")


PARTS = {"serial": serial, "restart": restart}


def body():
    def extra(p):
        p.add_argument("--part", required=True, choices=sorted(PARTS))
    a = T.parse_args(extra)
    PARTS[a.part](a)


if __name__ == "__main__":
    T.main(body)
