"""A restart continues the same problem or is refused; it may change dt and
the output cadence; a fresh run may start at time.start (issues #54, #59
item 5). Through the real CLI, one part per ctest test:

  problem         a run with a conductivity field, a source with a table,
                  convective and moving Dirichlet faces, and a checkpoint;
                  each problem-defining item changed (the field file's
                  contents, heat_capacity, power_density, the source table,
                  the source removed, a convective h, ambient and table, a
                  Dirichlet value and table, a flux, theta, a length,
                  time.start), with the config and without it: exit 2
                  naming the item and both values, nothing written; the
                  same restart with nothing changed: bit for bit the
                  uninterrupted run.
  foreign_output  a restart onto an output file written for another problem
                  on the same grid: exit 2 naming what differs; a fresh run
                  needs --overwrite as before.
  new_dt          a restart with another dt (and another output cadence): a
                  new segment of the time axis, output times t_ck + k dt_new
                  exactly, recorded in the provenance and the checkpoint; a
                  restart from that checkpoint with the same dt is bit for
                  bit the run that went on; t_end before the checkpoint is
                  refused; a checkpoint of format version 1 (no time axis)
                  still restarts.
  time_start      time: {start: T}: a fresh run from the field at T of a
                  reference run continues its tables (a moving face, a
                  source table) and ends on the reference's field; its
                  output times start at T.
"""

import os
import re
import shutil
import struct

import h5py
import numpy as np

import adi_testlib as T

CASE = """grid: {nx: 9, ny: 7, nz: 6}
domain: {lx: 0.09, ly: 0.07, lz: 0.06}
material: {conductivity: {file: k.h5, dataset: /K}, heat_capacity: 4.0e6}
source: {power_density: 5.0e4, table: [[0, 1], [40, 10]]}
boundary:
  x: {type: convective, h: 20, ambient: 293, table: [[0, 1], [50, 1.1]]}
  y: {type: dirichlet, value: 300, table: [[0, 1], [30, 1.05]]}
  z: insulated
time: {dt: 1.0, steps: %(steps)d}
initial: {value: 300}
output: {file: out.h5, every: 2}
checkpoint: {file: ck.h5, every: 4}
backend: cpu
"""


def digest(path):
    import hashlib
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def snapshot(d):
    return {n: digest(os.path.join(d, n)) for n in sorted(os.listdir(d)) if os.path.isfile(os.path.join(d, n))}


def write_k(d, scale=1.0):
    k = 15.0 * scale * (1.0 + 0.1 * np.arange(6 * 7 * 9, dtype=np.float64).reshape(6, 7, 9) / 378.0)
    with h5py.File(os.path.join(d, "k.h5"), "w") as f:
        f.create_dataset("K", data=k)


def case(a, name, steps=12):
    d = os.path.join(a.work, name)
    os.makedirs(d)
    T.write(os.path.join(d, "c.yaml"), CASE % dict(steps=steps))
    write_k(d)
    return d


def one_line(p):
    err = [l for l in p.stderr.splitlines() if l.startswith("adi3d:")]
    T.check(len(err) == 1, "expected one error line, got %d: %s" % (len(err), err))


def problem(a):
    ref = case(a, "ref")
    T.run(a, ["run", "c.yaml", "-q"], cwd=ref)
    d = case(a, "restart")
    T.run(a, ["run", "c.yaml", "-q", "--set", "time.steps=8"], cwd=d)
    # (what, how, the message: key and both values)
    changes = [
        ("the conductivity file's contents", lambda: write_k(d, 1.01), [],
         r"material\.conductivity\.x differs: checkpoint field fnv1a64:[0-9a-f]{16}, config field fnv1a64:[0-9a-f]{16} "
         r"\(k\.h5:/K\)"),
        ("heat_capacity", None, ["--set", "material.heat_capacity=4.1e6"],
         r"material\.heat_capacity differs: checkpoint 4000000, config 4100000"),
        ("power_density", None, ["--set", "source.power_density=6e4"],
         r"source\.power_density differs: checkpoint 50000, config 60000"),
        ("the source table", None, ["--set", "source.table=[[0, 1], [40, 20]]"],
         r"source\.table differs: checkpoint \[\[0, 1\], \[40, 10\]\], config \[\[0, 1\], \[40, 20\]\]"),
        ("the source removed", None, ["--set", "source=null"],
         r"source\.power_density differs: checkpoint 50000, config 0"),
        ("a convective h", None, ["--set", "boundary.x.h=25"], r"boundary\.x_lo\.h differs: checkpoint 20, config 25"),
        ("a convective ambient", None, ["--set", "boundary.x.ambient=290"],
         r"boundary\.x_lo\.ambient differs: checkpoint 293, config 290"),
        ("a convective table", None, ["--set", "boundary.x.table=[[0, 1], [50, 1.2]]"],
         r"boundary\.x_lo\.table differs: checkpoint \[\[0, 1\], \[50, 1\.1\]\], config \[\[0, 1\], \[50, 1\.2\]\]"),
        ("a Dirichlet table", None, ["--set", "boundary.y.table=[[0, 1], [30, 1.1]]"],
         r"boundary\.y_lo\.table differs: checkpoint \[\[0, 1\], \[30, 1\.05\]\], config \[\[0, 1\], \[30, 1\.1\]\]"),
        ("a Dirichlet value", None, ["--set", "boundary.y.value=310"],
         r"boundary\.y_lo\.value differs: checkpoint 300, config 310"),
        ("a face's type", None, ["--set", "boundary.z={type: neumann, flux: 5}"],
         r"boundary\.z_lo\.flux differs: checkpoint 0, config 5"),
        ("theta", None, ["--set", "scheme.theta=0.6"], r"scheme\.theta differs: checkpoint 0\.5, config 0\.6"),
        ("a length", None, ["--set", "domain.lx=0.1"], r"domain\.lx differs: checkpoint 0\.09, config 0\.1"),
        ("time.start", None, ["--set", "time.start=5"], r"time\.start differs: checkpoint 0, config 5"),
    ]
    for what, edit, args, message in changes:
        if edit:
            edit()
        before = snapshot(d)
        p = T.run(a, ["run", "c.yaml", "--restart", "ck.h5", "--set", "time.steps=12"] + args, cwd=d, rc=2,
                  match=[r"adi3d: error: ck\.h5: cannot continue this run from the checkpoint: " + message])
        one_line(p)
        T.check(snapshot(d) == before, "%s: a refused restart changed files" % what)
        if edit:
            write_k(d)  # back as it was
        print("refused: %s" % what)
    # Without a config the checkpoint's own is used: an override is still a change.
    p = T.run(a, ["run", "--restart", "ck.h5", "--set", "material.heat_capacity=4.1e6"], cwd=d, rc=2,
              match=[r"material\.heat_capacity differs: checkpoint 4000000, config 4100000"])
    # The same restart with nothing changed: the uninterrupted run, bit for bit.
    T.run(a, ["run", "c.yaml", "--restart", "ck.h5", "--set", "time.steps=12", "-q"], cwd=d)
    T.assert_same_fields(os.path.join(ref, "out.h5"), os.path.join(d, "out.h5"), "restart vs uninterrupted")
    with h5py.File(os.path.join(d, "out.h5"), "r") as f, h5py.File(os.path.join(d, "ck.h5"), "r") as c:
        T.check(f.attrs["problem_hash"] == c.attrs["problem_hash"], "output and checkpoint record other problems")
        T.check("material.conductivity.x = field fnv1a64:" in f.attrs["problem"], "the field is not in the problem")


def foreign_output(a):
    d = case(a, "mine", steps=8)
    T.run(a, ["run", "c.yaml", "-q"], cwd=d)
    other = case(a, "other", steps=8)
    T.run(a, ["run", "c.yaml", "-q", "--set", "material.heat_capacity=3e6"], cwd=other)
    shutil.copy(os.path.join(other, "out.h5"), os.path.join(d, "out.h5"))
    shutil.copy(os.path.join(other, "out.xmf"), os.path.join(d, "out.xmf"))
    before = snapshot(d)
    p = T.run(a, ["run", "c.yaml", "--restart", "ck.h5", "--set", "time.steps=12"], cwd=d, rc=2,
              match=[r"adi3d: error: out\.h5: output\.file: was written for another problem, and a run continues only "
                     r"its own output: material\.heat_capacity differs: the output file 3000000, this run 4000000"])
    one_line(p)
    T.check(snapshot(d) == before, "a refused restart changed files")
    # Also seen by --dry-run (the same checks, no work).
    T.run(a, ["run", "c.yaml", "--restart", "ck.h5", "--set", "time.steps=12", "--dry-run"], cwd=d, rc=2,
          match=[r"was written for another problem"])
    T.check(snapshot(d) == before, "a dry run changed files")


def times(path):
    with h5py.File(path, "r") as f:
        return {int(f["steps"][k]["u"].attrs["step"]): float(f["steps"][k]["u"].attrs["time"]) for k in f["steps"]}


def v1_checkpoint(path):
    """Rewrites a checkpoint as format version 1 wrote it (no time axis, no
    problem; its state_hash over step, time, steps_total, precision, config)."""
    with h5py.File(path, "r+") as f:
        for k in ("dt", "time_origin", "step_origin", "dt_before", "time_segments", "problem", "problem_hash"):
            del f.attrs[k]
        f.attrs.modify("format_version", 1)
        config = f["provenance/config"][()]
        config = config.decode() if isinstance(config, bytes) else str(config)
        head = "%d %s %d %s\n" % (int(f.attrs["step"]), repr_17g(float(f.attrs["time"])), int(f.attrs["steps_total"]),
                                   f.attrs["precision"])
        h = 1469598103934665603
        for byte in (head + config).encode():
            h = ((h ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
        del f.attrs["state_hash"]
        f.attrs.create("state_hash", "%016x" % h, dtype=h5py.string_dtype())


def repr_17g(x):
    return "%.17g" % x


def new_dt(a):
    d = case(a, "dt", steps=8)
    T.run(a, ["run", "c.yaml", "-q"], cwd=d)
    shutil.copy(os.path.join(d, "ck.h5"), os.path.join(d, "ck8.h5"))
    # dt 1 -> 0.5 from step 8 (t = 8) to t = 12, outputs every 3 steps now.
    p = T.run(a, ["run", "c.yaml", "--restart", "ck.h5", "--set", "time.dt=0.5", "--set", "time.t_end=12",
                  "--set", "output.every=3"], cwd=d,
              match=[r"time step changed on restart: dt = 0\.5 s from step 8 \(was 1 s\)"])
    t = times(os.path.join(d, "out.h5"))
    expect = {0: 0.0, 2: 2.0, 4: 4.0, 6: 6.0, 8: 8.0, 9: 8.5, 12: 10.0, 15: 11.5, 16: 12.0}
    T.check(t == expect, "output steps and times %s, expected %s" % (t, expect))
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        seg = f["provenance/restart_001"].attrs["time_segments"]
        T.check(seg == "step 0: t = 0 s, dt = 1 s; step 8: t = 8 s, dt = 0.5 s", "provenance segments: %r" % seg)
    with h5py.File(os.path.join(d, "ck.h5"), "r") as c:
        got = {k: c.attrs[k] for k in ("step", "time", "dt", "time_origin", "step_origin", "dt_before")}
        T.check(got == {"step": 16, "time": 12.0, "dt": 0.5, "time_origin": 8.0, "step_origin": 8, "dt_before": 1.0},
                "checkpoint time axis %s" % got)
    # A restart that keeps the new dt is the run that went on, bit for bit.
    e = case(a, "dt_split", steps=8)
    T.run(a, ["run", "c.yaml", "-q"], cwd=e)
    T.run(a, ["run", "c.yaml", "-q", "--restart", "ck.h5", "--set", "time.dt=0.5", "--set", "time.t_end=10",
              "--set", "output.every=3"], cwd=e)
    T.run(a, ["run", "c.yaml", "-q", "--restart", "ck.h5", "--set", "time.dt=0.5", "--set", "time.t_end=12",
              "--set", "output.every=3"], cwd=e)
    T.assert_same_fields(os.path.join(d, "out.h5"), os.path.join(e, "out.h5"), "dt changed once vs twice restarted")
    T.check(times(os.path.join(e, "out.h5")) == expect, "the split run's times differ")
    # An end before the checkpoint is refused, naming both times.
    T.run(a, ["run", "c.yaml", "--restart", "ck8.h5", "--set", "time.dt=0.5", "--set", "time.t_end=6"], cwd=d, rc=2,
          match=[r"time\.t_end: expected a time >= 8 s \(the time of step 8"])
    # A checkpoint of format version 1 (before the time axis): t = step x dt.
    f = case(a, "v1", steps=8)
    T.run(a, ["run", "c.yaml", "-q"], cwd=f)
    v1_checkpoint(os.path.join(f, "ck.h5"))
    g = case(a, "v1_ref", steps=12)
    T.run(a, ["run", "c.yaml", "-q"], cwd=g)
    T.run(a, ["run", "c.yaml", "-q", "--restart", "ck.h5", "--set", "time.steps=12"], cwd=f)
    T.assert_same_fields(os.path.join(g, "out.h5"), os.path.join(f, "out.h5"), "restart from a version 1 checkpoint")


START = """grid: {nx: 9, ny: 7, nz: 6}
domain: {lx: 0.09, ly: 0.07, lz: 0.06}
material: {conductivity: 15, heat_capacity: 4.0e6}
source: {power_density: 5.0e4, table: [[0, 1], [15, 3], [40, 10]]}
boundary:
  x: {type: dirichlet, value: 300, table: [[0, 1], [12, 1.2], [30, 1.05]]}
  default: insulated
time: {dt: 1.0, t_end: 30%(start)s}
initial: %(initial)s
output: {file: %(out)s, every: 2}
backend: cpu
"""


def time_start(a):
    d = os.path.join(a.work, "start")
    os.makedirs(d)
    T.write(os.path.join(d, "ref.yaml"), START % dict(start="", initial="{value: 300}", out="ref.h5"))
    T.run(a, ["run", "ref.yaml", "-q"], cwd=d)
    # From the reference's field at t = 10, starting the clock at 10.
    T.write(os.path.join(d, "late.yaml"),
            START % dict(start=", start: 10", initial="{file: ref.h5, dataset: /steps/000010/u}", out="late.h5"))
    p = T.run(a, ["run", "late.yaml", "--dry-run"], cwd=d, match=[r"time: \{dt: 1, steps: 20, start: 10\}"])
    T.run(a, ["run", "late.yaml", "-q"], cwd=d)
    ref, late = T.fields(os.path.join(d, "ref.h5")), T.fields(os.path.join(d, "late.h5"))
    worst = max(np.max(np.abs(late[s] - ref[s + 10])) / np.max(np.abs(ref[s + 10])) for s in late)
    T.check(sorted(late) == list(range(0, 21, 2)), "steps %s" % sorted(late))
    T.check(worst < 1e-13, "the run from time.start = 10 differs from the reference by %.3e" % worst)
    t = times(os.path.join(d, "late.h5"))
    T.check(t[0] == 10.0 and t[20] == 30.0, "output times %s" % t)
    print("time.start = 10: %d steps agree with the reference to %.2e" % (len(late), worst))
    # Without time.start the tables restart at 0: the result differs (so the
    # comparison above can fail).
    zero_case = START % dict(start="", initial="{file: ref.h5, dataset: /steps/000010/u}", out="zero.h5")
    T.write(os.path.join(d, "zero.yaml"), zero_case.replace("t_end: 30", "t_end: 20"))
    T.run(a, ["run", "zero.yaml", "-q"], cwd=d)
    zero = T.fields(os.path.join(d, "zero.h5"))
    T.check(np.max(np.abs(zero[20] - ref[30])) / np.max(np.abs(ref[30])) > 1e-6, "time.start made no difference")


PARTS = {f.__name__: f for f in (problem, foreign_output, new_dt, time_start)}


def body():
    a = T.parse_args(lambda p: p.add_argument("--part", required=True, choices=sorted(PARTS)))
    PARTS[a.part](a)


T.main(body)
