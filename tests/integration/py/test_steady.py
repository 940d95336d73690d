"""Steady states and the transient stop rule through the real CLI (issue #55):

  wall         solve: steady on a layered wall (K 1 | 1000 | 1, Dirichlet and
               convective faces): the exact piecewise-linear profile to 1e-10
               of the temperature scale; /steady holds the residual history
  transient    the steady state of a layered case with a source equals where
               a long theta = 1 Douglas march stops (time.stop_rate), to 1e-8
  refusals     what a steady solve cannot do is refused with exit 2 and one
               line naming the file, line, column and key: no face fixing the
               level, time: beside solve: steady, a source table, checkpoint:,
               --restart, float32 with a 1e-10 tolerance, unknown forms
  stop_rate    a transient run with time.stop_rate stops early with exit 0,
               writes the state it stopped at, and says so; a bad rate is exit 2
  unstable     a run with a source that goes unstable (douglas, an inclusion,
               a large dt) stops with exit 4 (energy guard with data)
  not_converged max_iterations too small: exit 4, the last iterate kept with
               status "failed: ..."
"""

import os
import re

import numpy as np
import h5py

import adi_testlib as T


WALL = """grid: {nx: 31, ny: 4, nz: 3}
domain: {lx: 0.3, ly: 0.03, lz: 0.02}
material: {conductivity: {file: wall_k.h5, dataset: /K}, heat_capacity: 1.0e6}
boundary:
  x_lo: {type: dirichlet, value: 100}
  x_hi: {type: convective, h: 25, ambient: 20}
  y: insulated
  z: insulated
solve: {steady: {tolerance: 1.0e-11}}
output: {file: wall.h5}
backend: cpu
"""


def _wall_k(w):
    # Layers of 10 cells: interfaces midway between nodes 9|10 and 19|20
    # (node values: 1 on 0..9, 1000 on 10..19, 1 on 20..30).
    K = np.ones((3, 4, 31))
    K[:, :, 10:20] = 1000.0
    with h5py.File(os.path.join(w, "wall_k.h5"), "w") as f:
        f["K"] = K
    return K


def wall(a):
    w = a.work
    K = _wall_k(w)
    T.write(os.path.join(w, "wall.yaml"), WALL)
    T.run(a, ["run", "wall.yaml"], cwd=w, match=[r"steady +converged in [0-9]+ sweeps: relative residual [0-9.]+e-1[1-9]"])
    # Without an output file: the summary alone (it crashed once).
    T.run(a, ["run", "wall.yaml", "--set", "output.file="], cwd=w, match=[r"steady +converged in [0-9]+ sweeps"])
    with h5py.File(os.path.join(w, "wall.h5"), "r") as f:
        T.check(list(f["steps"]) == ["000000"], "a steady output holds one step: %s" % list(f["steps"]))
        u = f["steps/000000/u"][...]
        T.check(f.attrs["status"] == "complete", "status %r" % f.attrs["status"])
        st = f["steady"]
        T.check(st.attrs["converged"] == 1 and st.attrs["relative_residual"] <= 1e-11, "steady attrs %s" % dict(st.attrs))
        hist = st["residual"][...]
        T.check(hist.shape[1] == 2 and hist[0, 1] == 1.0 and hist[-1, 0] == st.attrs["iterations"],
                "residual history %s" % hist)
    # The exact discrete steady state: series conductances between nodes
    # (harmonic face K), a Robin film, flux q through all of them.
    h = 0.01
    kf = 2.0 * K[0, 0, :-1] * K[0, 0, 1:] / (K[0, 0, :-1] + K[0, 0, 1:])
    q = (100.0 - 20.0) / (np.sum(h / kf) + 1.0 / 25.0)
    exact = 100.0 - np.concatenate([[0.0], np.cumsum(q * h / kf)])
    err = np.abs(u - exact[None, None, :]).max()
    print("max |u - exact| = %.3e (q = %.6g W/m^2)" % (err, q))
    T.check(err <= 1e-10 * 100.0, "steady wall differs from the exact profile by %.3e" % err)


LAYERED = """grid: {nx: 9, ny: 8, nz: 13}
domain: {lx: 0.04, ly: 0.035, lz: 0.012}
material: {conductivity: {file: lay.h5, dataset: /K}, heat_capacity: 2.0e6}
source: {power_density: {file: lay.h5, dataset: /q}}
boundary:
  z_lo: {type: convective, h: 2000, ambient: 30}
  z_hi: {type: convective, h: 15, ambient: 25}
  x_lo: {type: neumann, flux: 500}
  x_hi: insulated
  y: insulated
backend: cpu
"""


def _layered(w):
    # Layers along z only: the axis operators commute, so the Douglas step is
    # stable at any dt and its fixed point is the steady state exactly.
    K = np.ones((13, 8, 9)) * 200.0
    K[4:7] = 2.0
    K[9:] = 50.0
    q = np.zeros((13, 8, 9))
    q[10:] = 3.0e6
    with h5py.File(os.path.join(w, "lay.h5"), "w") as f:
        f["K"] = K
        f["q"] = q


def transient(a):
    w = a.work
    _layered(w)
    T.write(os.path.join(w, "steady.yaml"), LAYERED + "solve: steady\noutput: {file: steady.h5}\n")
    T.write(os.path.join(w, "march.yaml"), LAYERED + """initial: {value: 25}
scheme: {type: douglas, theta: 1}
time: {dt: 50, t_end: 1.0e7, stop_rate: 1.0e-12}
output: {file: march.h5, every: 100000}
""")
    T.run(a, ["run", "steady.yaml"], cwd=w, match=[r"steady +converged"])
    T.run(a, ["run", "march.yaml"], cwd=w,
          match=[r"stopped +at step [0-9]+ \(t = [0-9.e+]+ s\): max\|u\^\(n\+1\) - u\^n\| / dt = [0-9.]+e-1[0-9] K/s"])
    with h5py.File(os.path.join(w, "steady.h5"), "r") as f:
        us = f["steps/000000/u"][...]
    with h5py.File(os.path.join(w, "march.h5"), "r") as f:
        last = sorted(f["steps"])[-1]
        T.check(last != "000000", "the march wrote no step after the start")
        um = f["steps/%s/u" % last][...]
    d = np.abs(us - um).max() / np.abs(us).max()
    print("steady vs march: max relative difference %.3e (max u %.6g)" % (d, us.max()))
    T.check(d <= 1e-8, "the steady state and the long march differ by %.3e" % d)


def refusals(a):
    w = a.work
    _layered(w)
    base = LAYERED + "solve: steady\n"
    cases = [
        ("insulated.yaml", base.replace("{type: convective, h: 2000, ambient: 30}", "insulated")
                               .replace("{type: convective, h: 15, ambient: 25}", "insulated"),
         [], r"adi3d: error: insulated\.yaml:[0-9]+:[0-9]+: solve: no steady state: no face fixes the temperature"),
        ("withtime.yaml", base + "time: {dt: 1, steps: 3}\n", [],
         r"adi3d: error: withtime\.yaml:[0-9]+:[0-9]+: time: contradicts solve: steady \(withtime\.yaml:[0-9]+:[0-9]+\)"),
        ("table.yaml", base.replace("source: {power_density: {file: lay.h5, dataset: /q}}",
                                    "source: {power_density: 1.0e5, table: [[0, 1], [10, 2]]}"), [],
         r"adi3d: error: table\.yaml:[0-9]+:[0-9]+: solve: no steady state: the source has a time table"),
        ("ckpt.yaml", base + "checkpoint: {file: c.h5}\n", [],
         r"adi3d: error: ckpt\.yaml:[0-9]+:[0-9]+: checkpoint: contradicts solve: steady"),
        ("every.yaml", base + "output: {file: o.h5, every: 5}\n", [],
         r"adi3d: error: every\.yaml:[0-9]+:[0-9]+: output\.every: contradicts solve: steady"),
        ("f32.yaml", base + "precision: float32\n", [],
         r"adi3d: error: f32\.yaml:[0-9]+:[0-9]+: precision: float32 cannot reach a relative residual of 1e-10"),
        ("bogus.yaml", LAYERED + "solve: stationary\n", [],
         r"adi3d: error: bogus\.yaml:[0-9]+:[0-9]+: solve: expected transient, steady or \{steady:"),
        ("tol.yaml", LAYERED + "solve: {steady: {tolerance: 0}}\n", [],
         r"adi3d: error: tol\.yaml:[0-9]+:[0-9]+: solve\.steady\.tolerance: expected a relative residual 0 < tolerance < 1"),
        ("key.yaml", LAYERED + "solve: {steady: {tolerence: 1.0e-8}}\n", [],
         r"adi3d: error: key\.yaml:[0-9]+:[0-9]+: solve\.steady\.tolerence: unknown key 'tolerence' \(did you mean 'tolerance'\?\)"),
        ("analytic.yaml", base + "initial: analytic\n", [],
         r"adi3d: error: analytic\.yaml:[0-9]+:[0-9]+: initial: contradicts solve: steady"),
    ]
    for name, text, extra, pattern in cases:
        T.write(os.path.join(w, name), text)
        T.run(a, ["run", name] + extra, cwd=w, rc=2, match=[pattern])
        T.check(not any(os.path.exists(os.path.join(w, f)) for f in ("o.h5", "c.h5")), "a refused run wrote a file")
    # --restart of a steady solve: refused by name.
    T.write(os.path.join(w, "t.yaml"), LAYERED + "initial: {value: 25}\ntime: {dt: 1, steps: 2}\n"
            "checkpoint: {file: ck.h5, every: 1}\n")
    T.run(a, ["run", "t.yaml", "--quiet"], cwd=w)
    T.write(os.path.join(w, "s.yaml"), base)
    T.run(a, ["run", "s.yaml", "--restart", "ck.h5"], cwd=w, rc=2,
          match=[r"adi3d: error: --restart ck\.h5: solve: a steady solve is not restarted"])


def stop_rate(a):
    w = a.work
    _layered(w)
    T.write(os.path.join(w, "r.yaml"), LAYERED + """initial: {value: 25}
scheme: {type: douglas, theta: 1}
time: {dt: 50, steps: 100000, stop_rate: 1.0e-6}
output: {file: r.h5, every: 1000000}
""")
    p = T.run(a, ["run", "r.yaml"], cwd=w, match=[r"stopped +at step ([0-9]+)"])
    step = int(re.search(r"stopped +at step ([0-9]+)", p.stdout).group(1))
    T.check(step < 100000, "the run did not stop early")
    with h5py.File(os.path.join(w, "r.h5"), "r") as f:
        steps = sorted(int(s) for s in f["steps"])
        T.check(steps == [0, step], "the output should hold the start and the stop step %d: %s" % (step, steps))
        T.check(f.attrs["status"] == "complete", "status %r" % f.attrs["status"])
    # Not reached: the summary says so.
    T.run(a, ["run", "r.yaml", "--set", "time.steps=3", "--set", "output.file=r3.h5"], cwd=w,
          match=[r"stop rate +not reached: max\|u\^\(n\+1\) - u\^n\| / dt = [0-9.]+e[-+][0-9]+ K/s at the end"])
    T.write(os.path.join(w, "bad.yaml"), LAYERED + "time: {dt: 1, steps: 3, stop_rate: -1}\ninitial: {value: 1}\n")
    T.run(a, ["run", "bad.yaml"], cwd=w, rc=2, match=[r"adi3d: error: bad\.yaml:[0-9]+:[0-9]+: time\.stop_rate: expected a rate > 0"])


def unstable(a):
    w = a.work
    n = 15
    inside = np.zeros((n, n, n), bool)
    inside[5:10, 5:10, 5:10] = True
    with h5py.File(os.path.join(w, "inc.h5"), "w") as f:
        f["K"] = np.where(inside, 1000.0, 1.0)
        f["c"] = np.where(inside, 70.0, 1.0)
        f["q"] = np.where(inside, 1.0, 0.0)
    T.write(os.path.join(w, "inc.yaml"), """grid: {nx: 15, ny: 15, nz: 15}
material: {conductivity: {file: inc.h5, dataset: /K}, heat_capacity: {file: inc.h5, dataset: /c}}
source: {power_density: {file: inc.h5, dataset: /q}}
boundary: {x_lo: {type: dirichlet, value: 1}, x_hi: {type: convective, h: 1, ambient: 0}, y: insulated, z: insulated}
initial: {value: 0.5}
time: {dt: 1.0, steps: 300}
output: {file: inc.h5out, every: 100}
backend: cpu
""")
    T.run(a, ["run", "inc.yaml", "--set", "scheme.type=douglas"], cwd=w, rc=4,
          match=[r"adi3d: numerical error: the discrete energy sum w c u\^2 reached [0-9.e+]+ at step [0-9]+ .*above what "
                 r"the source and the faces' data can feed a stable run.*the Douglas scheme is not unconditionally stable"])
    # The default scheme (strang) completes.
    T.run(a, ["run", "inc.yaml", "--set", "output.file=ok.h5"], cwd=w, match=[r"max\|u\| +[0-9.]+e\+00"])


def not_converged(a):
    w = a.work
    _layered(w)
    T.write(os.path.join(w, "n.yaml"), LAYERED + "solve: {steady: {max_iterations: 3}}\noutput: {file: n.h5}\n")
    T.run(a, ["run", "n.yaml"], cwd=w, rc=4,
          match=[r"the steady solve did not converge: relative residual [0-9.]+e-[0-9]+ after 3 sweeps"])
    with h5py.File(os.path.join(w, "n.h5"), "r") as f:
        T.check(str(f.attrs["status"]).startswith("failed: "), "status %r" % f.attrs["status"])
        T.check(f["steady"].attrs["converged"] == 0, "converged attr")


PARTS = {f.__name__: f for f in (wall, transient, refusals, stop_rate, unstable, not_converged)}


def body():
    a = T.parse_args(lambda p: p.add_argument("--part", required=True, choices=sorted(PARTS)))
    PARTS[a.part](a)


T.main(body)
