"""The stable scheme and the energy guard through the real CLI (issue #51):
the issue's inclusion — an insulated 15^3 box on [0, 1]^3, a 5^3 cube in the
middle with K 1000x and c 70x, u0 uniform random in [0, 1], dt = 1, 100 steps,
theta = 1/2 — as a user would run it.

  inclusion_default   the default scheme for material fields (strang): exit 0,
                      the energy sum w c u^2 of every output no larger than
                      the one before, the field stays within [0, 1] up to
                      a few per cent (Crank-Nicolson overshoot)
  inclusion_douglas   scheme.type: douglas (chosen by hand): the start-up
                      warning, then the energy guard stops the run with exit 4
                      and one line naming the steps and the growth; the
                      output's status says failed and holds no blown-up step
  guard_quiet         a problem with data (a hot Dirichlet face) and the
                      Douglas step on constants: the guard is off and the run
                      completes (no false alarm from heating)
  scheme_key          scheme.type is echoed by --dry-run (auto resolved), and
                      a bad value is a one-line config error (exit 2)
"""

import os

import h5py
import numpy as np

import adi_testlib as T


def folder(a, name):
    d = os.path.join(a.work, name)
    os.makedirs(d, exist_ok=True)
    return d


CASE = """grid: {nx: 15, ny: 15, nz: 15}
domain: {lx: 1, ly: 1, lz: 1}
material: {conductivity: {file: inc.h5, dataset: /K}, heat_capacity: {file: inc.h5, dataset: /c}}
boundary: insulated
initial: {file: inc.h5, dataset: /u}
time: {dt: 1.0, steps: 100}
backend: cpu
output: {file: out.h5, every: 10}
"""


def inclusion(d):
    n = 15
    inside = np.zeros((n, n, n), bool)
    inside[5:10, 5:10, 5:10] = True
    rng = np.random.default_rng(20261205)
    with h5py.File(os.path.join(d, "inc.h5"), "w") as f:
        f["K"] = np.where(inside, 1000.0, 1.0)
        f["c"] = np.where(inside, 70.0, 1.0)
        f["u"] = rng.uniform(0.0, 1.0, (n, n, n))
    return np.where(inside, 70.0, 1.0)


def energy(u, c):
    w = np.ones(u.shape)
    for ax in range(3):
        s = [slice(None)] * 3
        for end in (0, -1):
            s[ax] = end
            w[tuple(s)] *= 0.5
    h = 1.0 / 14
    return float(np.sum(w * c * u * u) * h ** 3)


def inclusion_default(a):
    d = folder(a, "default")
    c = inclusion(d)
    T.write(os.path.join(d, "case.yaml"), CASE)
    T.run(a, ["run", "case.yaml"], cwd=d)
    steps = T.fields(os.path.join(d, "out.h5"))
    prev = None
    for s in sorted(steps):
        e = energy(steps[s], c)
        print("step %3d: energy %.12e, u in [%.4f, %.4f]" % (s, e, steps[s].min(), steps[s].max()))
        T.check(prev is None or e <= prev * (1 + 1e-12), "the energy grew at step %d: %s -> %g" % (s, prev, e))
        T.check(steps[s].min() > -0.1 and steps[s].max() < 1.1, "step %d left [0, 1] by more than 0.1" % s)
        prev = e
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        status = f.attrs["status"]
        status = status.decode() if isinstance(status, bytes) else status
        T.check(status == "complete", "status %r" % status)
        prov = f["provenance/config"][()]
        prov = prov.decode() if isinstance(prov, bytes) else prov
        T.check("type: strang" in prov, "the resolved config records the scheme: %s" % prov)


def inclusion_douglas(a):
    d = folder(a, "douglas")
    inclusion(d)
    T.write(os.path.join(d, "case.yaml"), CASE + "scheme: {type: douglas}\n")
    p = T.run(a, ["run", "case.yaml"], cwd=d, rc=4,
              match=[r"scheme\.type: douglas with a material field in 3D",
                     r"adi3d: numerical error: the discrete energy sum w c u\^2 grew from \S+ \(step \d+\) to \S+ at step \d+ "
                     r"\(t = \S+ s\), \S+ times, in a problem with no source and no inflow, whose energy cannot grow: "
                     r"the run is unstable; the Douglas scheme is not unconditionally stable with material fields"])
    lines = [l for l in p.stderr.splitlines() if l.startswith("adi3d:")]
    T.check(len(lines) == 1, "one 'adi3d:' line, got %s" % lines)
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        status = f.attrs["status"]
        status = status.decode() if isinstance(status, bytes) else status
        T.check(status.startswith("failed"), "status %r" % status)
    for s, u in T.fields(os.path.join(d, "out.h5")).items():
        T.check(np.all(np.isfinite(u)) and np.abs(u).max() < 10, "step %d written after the blow-up began" % s)


def guard_quiet(a):
    d = folder(a, "quiet")
    T.write(os.path.join(d, "hot.yaml"), """grid: {nx: 12, ny: 10, nz: 9}
material: {conductivity: 2.0, heat_capacity: 1.0}
boundary: {x: {lo: {type: dirichlet, value: 100}, hi: insulated}, y: insulated, z: insulated}
initial: {value: 0}
time: {dt: 0.01, steps: 50}
backend: cpu
log: {every: 1}
""")
    T.run(a, ["run", "hot.yaml"], cwd=d, nomatch=[r"grew from"])


def scheme_key(a):
    d = folder(a, "key")
    inclusion(d)
    T.write(os.path.join(d, "case.yaml"), CASE)
    T.run(a, ["run", "case.yaml", "--dry-run"], cwd=d, match=[r"scheme: \{type: strang, theta: 0\.5\}"])
    T.run(a, ["run", "case.yaml", "--dry-run", "--set", "scheme.type=douglas"], cwd=d,
          match=[r"scheme: \{type: douglas, theta: 0\.5\}"])
    T.run(a, ["run", "case.yaml", "--dry-run", "--set", "scheme.type=lod"], cwd=d, rc=2,
          match=[r"adi3d: error: --set scheme\.type=lod: scheme\.type: "])


PARTS = {f.__name__: f for f in (inclusion_default, inclusion_douglas, guard_quiet, scheme_key)}

if __name__ == "__main__":
    args = T.parse_args(lambda p: p.add_argument("--part", required=True, choices=sorted(PARTS)))
    T.main(lambda: PARTS[args.part](args))
