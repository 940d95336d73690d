"""Checkpoint / restart through the CLI, compared bit for bit (h5py) with an
uninterrupted run of the same case:

  planned    a run of 40 steps checkpoints at its end; `--restart` with
             time.steps = 100 continues it (float32, deterministic split);
  killed     a run is killed with SIGKILL once its first checkpoint exists
             (outputs written after that checkpoint are then dropped and
             written again by the restart);
  sigterm    SIGTERM after stepping started: exit 75, a checkpoint, the
             output marked "interrupted" and its .xmf listing only steps in
             the file; `--restart` (config taken from the checkpoint) finishes it;
  sigusr1 / sigint   the same stop (exit 75);
  second     SIGTERM then SIGINT at once: exit 130 without a damaged file.
"""

import os
import signal
import time
import xml.etree.ElementTree as ET

import h5py
import numpy as np

import adi_testlib as T

CASE = """grid: {nx: %(n)s}
domain: {lx: 1.0, ly: 0.8, lz: 0.6}
diffusivity: {x: 1.0, y: 0.5, z: 0.25}
boundary: {x: {lo: dirichlet, hi: neumann}, y: dirichlet, z: neumann}
time: {dt: %(dt)s, steps: %(steps)d}
precision: %(prec)s
backend: cpu
output: {file: %(out)s, every: %(every)d}
checkpoint: {file: %(ckpt)s, every: %(ck)d}
log: {every: %(log)d}
"""


def case(w, name, **kw):
    p = dict(n="{nx: 23, ny: 17, nz: 12}", dt=2e-3, steps=100, prec="float64", out="out.h5", every=20,
             ckpt="ck.h5", ck=0, log=0)
    p.update(kw)
    d = os.path.join(w, name)
    os.makedirs(d)
    T.write(os.path.join(d, "case.yaml"), CASE.replace("grid: {nx: %(n)s}", "grid: %(n)s") % p)
    return d


def xmf_datasets(path):
    root = ET.parse(path).getroot()
    return [g.find("Attribute/DataItem").text.split(":", 1)[1] for g in root.find("Domain/Grid").findall("Grid")]


def check_xmf_matches_file(folder):
    listed = xmf_datasets(os.path.join(folder, "out.xmf"))
    with h5py.File(os.path.join(folder, "out.h5"), "r") as f:
        present = ["/steps/%s/u" % k for k in sorted(f["steps"])]
    T.check(listed == present, "the .xmf lists %s, the file holds %s" % (listed, present))


def check_xmf_readable(folder):
    """After a kill: every step the .xmf lists is in the .h5 and reads back
    (the file may hold one more step, flushed just before the kill)."""
    listed = xmf_datasets(os.path.join(folder, "out.xmf"))
    with h5py.File(os.path.join(folder, "out.h5"), "r") as f:
        for ds in listed:
            T.check(ds in f, "the .xmf lists %s, which is not in the file" % ds)
            f[ds][()]
    print("after the kill the .xmf lists %d steps, all readable" % len(listed))


def planned(a):
    ref = case(a.work, "planned_ref", prec="float32", ck=40)
    T.run(a, ["run", "case.yaml"], cwd=ref)
    d = case(a.work, "planned", prec="float32", ck=40)
    T.run(a, ["run", "case.yaml", "--set", "time.steps=40"], cwd=d)
    with h5py.File(os.path.join(d, "ck.h5"), "r") as f:
        T.check(f.attrs["step"] == 40, "checkpoint step %s" % f.attrs["step"])
    T.run(a, ["run", "case.yaml", "--restart", "ck.h5"], cwd=d, match=[r"restart +from ck\.h5 at step 40"])
    T.assert_same_fields(os.path.join(d, "out.h5"), os.path.join(ref, "out.h5"), "planned split, float32")
    check_xmf_matches_file(d)


def slow_case(a, name, **kw):
    # About 1 ms per step on one core: long enough to be stopped mid-run.
    p = dict(n="{nx: 45, ny: 37, nz: 29}", dt=1e-4, steps=1500, every=250, log=50)
    p.update(kw)
    return case(a.work, name, **p)


def reference(a):
    ref = slow_case(a, "slow_ref")
    T.run(a, ["run", "case.yaml", "--quiet"], cwd=ref, timeout=300)
    return os.path.join(ref, "out.h5")


def killed(a):
    ref = slow_case(a, "killed_ref", ck=100, every=10, steps=600)
    T.run(a, ["run", "case.yaml", "--quiet"], cwd=ref, timeout=300)
    d = slow_case(a, "killed", ck=100, every=10, steps=600)
    p = T.start(a, ["run", "case.yaml"], cwd=d)
    # Kill it once the output holds a step after a checkpoint (the .xmf is
    # replaced atomically, so it can be read while the run goes on).
    end = time.time() + 60
    while time.time() < end and p.poll() is None:
        try:
            steps = [int(x.split("/")[2]) for x in xmf_datasets(os.path.join(d, "out.xmf"))]
        except (OSError, ET.ParseError):
            steps = []
        if os.path.exists(os.path.join(d, "ck.h5")) and steps and steps[-1] % 100 != 0:
            break
        time.sleep(0.002)
    os.kill(p.pid, signal.SIGKILL)
    rc, _ = T.finish(p)
    T.check(rc == -signal.SIGKILL, "the run ended by itself (exit %s) before it could be killed" % rc)
    with h5py.File(os.path.join(d, "ck.h5"), "r") as f:
        ck_step = int(f.attrs["step"])
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        out_steps = [int(k) for k in f["steps"]]
    print("killed; the checkpoint is at step %d, the output holds steps %s" % (ck_step, out_steps))
    check_xmf_readable(d)
    if max(out_steps) <= ck_step:
        print("note: no output step after the checkpoint this time (a race with the next checkpoint)")
    T.run(a, ["run", "case.yaml", "--restart", "ck.h5", "--quiet"], cwd=d, timeout=300)
    T.assert_same_fields(os.path.join(d, "out.h5"), os.path.join(ref, "out.h5"), "SIGKILL + restart")
    check_xmf_matches_file(d)


def stop_with(a, name, signals, expect_rc):
    d = slow_case(a, name)
    p = T.start(a, ["run", "case.yaml"], cwd=d)
    T.wait_for_line(p, r"\] step [0-9]+/1500")
    for s in signals:
        os.kill(p.pid, s)
    rc, out = T.finish(p)
    T.check(rc == expect_rc, "%s: expected exit %d, got %d" % (name, expect_rc, rc))
    return d, out


def sigterm(a):
    ref_out = reference(a)
    d, out = stop_with(a, "sigterm", [signal.SIGTERM], 75)
    T.check("SIGTERM received" in out and "--restart" in out, "no stop message:\n" + out)
    with h5py.File(os.path.join(d, "ck.h5"), "r") as f:
        step = int(f.attrs["step"])
    T.check(0 < step < 1500, "checkpoint at step %d" % step)
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        T.check(f.attrs["status"] == "interrupted", "output status %r" % f.attrs["status"])
        T.check(f["provenance"].attrs["end_time"] != "", "end_time not set")
    check_xmf_matches_file(d)
    T.check(not [x for x in os.listdir(d) if x.endswith(".tmp")], "temporary files left: %s" % os.listdir(d))
    # No config on the command line: the checkpoint's is used.
    T.run(a, ["run", "--restart", "ck.h5", "--quiet"], cwd=d, timeout=300,
          match=[r"restart +from ck\.h5 at step %d" % step])
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        T.check(f.attrs["status"] == "complete", "status after the restart %r" % f.attrs["status"])
        T.check("restart_001" in f["provenance"], "no provenance of the restart")
    T.assert_same_fields(os.path.join(d, "out.h5"), ref_out, "SIGTERM + restart")


def other_signals(a):
    for name, s in (("sigusr1", signal.SIGUSR1), ("sigint", signal.SIGINT)):
        d, out = stop_with(a, name, [s], 75)
        T.check("%s received" % signal.Signals(s).name in out, "%s: no stop message" % name)
        with h5py.File(os.path.join(d, "ck.h5"), "r") as f:
            T.check(0 < int(f.attrs["step"]) < 1500, "%s: checkpoint step" % name)


def second_signal(a):
    d, out = stop_with(a, "second", [signal.SIGTERM, signal.SIGINT], 130)
    T.check("second signal" in out, "no abort message:\n" + out)
    # Whatever exists under a final name opens and is consistent.
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        for k in f["steps"]:
            f["steps"][k]["u"][()]
    check_xmf_matches_file(d)
    if os.path.exists(os.path.join(d, "ck.h5")):
        with h5py.File(os.path.join(d, "ck.h5"), "r") as f:
            f["u"][()]


PARTS = {"planned": planned, "killed": killed, "sigterm": sigterm, "usr1_int": other_signals,
         "second": second_signal}


def body():
    a = T.parse_args(lambda p: p.add_argument("--part", required=True, choices=sorted(PARTS)))
    PARTS[a.part](a)


T.main(body)
