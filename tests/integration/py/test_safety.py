"""Never lose a user's data (issue #14), through the real CLI, one case per
ctest test. Every case snapshots the files it did not mean adi3d to change
(sha256) and checks them afterwards: "inputs modified: 0".

  restart_discards_steps   a restart from a checkpoint older than the
                           output's last step, whose run would not write the
                           later steps again: exit 2 naming them and
                           --discard-after-checkpoint; the output unchanged.
"""

import hashlib
import os
import shutil

import h5py
import numpy as np

import adi_testlib as T

CASE = """grid: {nx: 9, ny: 8, nz: 7}
time: {dt: 1.0e-3, steps: %(steps)d}
backend: cpu
output: {file: out.h5, every: 5}
checkpoint: {file: ck.h5, every: 20}
log: {every: 0}
"""


def case(d, steps=30, extra=""):
    os.makedirs(d, exist_ok=True)
    T.write(os.path.join(d, "case.yaml"), CASE % dict(steps=steps) + extra)
    return d


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def snapshot(folder):
    """{relative path: sha256} of every regular file under folder."""
    out = {}
    for root, _, files in os.walk(folder):
        for n in files:
            p = os.path.join(root, n)
            if os.path.isfile(p) and not os.path.islink(p):
                out[os.path.relpath(p, folder)] = digest(p)
    return out


def unchanged(before, folder, what):
    after = snapshot(folder)
    changed = [p for p in before if after.get(p) != before[p]]
    added = [p for p in after if p not in before]
    T.check(not changed and not added, "%s: files changed %s, files added %s" % (what, changed, added))
    print("%s: %d files unchanged, none added" % (what, len(before)))


def out_steps(path):
    with h5py.File(path, "r") as f:
        return sorted(int(f["steps"][k]["u"].attrs["step"]) for k in f["steps"])


def one_line_error(p):
    lines = [l for l in p.stderr.splitlines() if l.startswith("adi3d:")]
    T.check(len(lines) == 1, "expected one 'adi3d:' error line, got %s" % lines)


# ---- class 1: a restart never deletes steps it will not write again ----------

def restart_discards_steps(a):
    d = case(os.path.join(a.work, "r"), steps=20)
    T.run(a, ["run", "case.yaml"], cwd=d)
    shutil.copy(os.path.join(d, "ck.h5"), os.path.join(d, "ck20.h5"))
    T.run(a, ["run", "case.yaml", "--restart", "ck.h5", "--set", "time.steps=30"], cwd=d)
    T.check(out_steps(os.path.join(d, "out.h5")) == [0, 5, 10, 15, 20, 25, 30], "setup: steps 0..30 expected")
    before = snapshot(d)
    # Fewer steps than the output holds: 25 and 30 would be lost.
    p = T.run(a, ["run", "case.yaml", "--restart", "ck20.h5", "--set", "time.steps=24", "--set",
                  "checkpoint.file=ck2.h5"], cwd=d, rc=2,
              match=[r"would delete the steps 25, 30 of out\.h5", r"--discard-after-checkpoint"])
    one_line_error(p)
    unchanged(before, d, "fewer steps")
    # Another output schedule: 25 would be lost (30 is written again).
    p = T.run(a, ["run", "case.yaml", "--restart", "ck20.h5", "--set", "output.every=10", "--set", "time.steps=30", "--set",
                  "checkpoint.file=ck2.h5"], cwd=d, rc=2, match=[r"would delete the steps 25 of out\.h5"])
    one_line_error(p)
    unchanged(before, d, "another schedule")
    # The restart that writes them all again is allowed (and is what a
    # requeued job does), and so is the explicit discard.
    T.run(a, ["run", "case.yaml", "--restart", "ck20.h5", "--set", "time.steps=24", "--set",
              "checkpoint.file=ck2.h5", "--discard-after-checkpoint"], cwd=d, match=[r"discarding the steps 25, 30"])
    T.check(out_steps(os.path.join(d, "out.h5")) == [0, 5, 10, 15, 20, 24], "after the explicit discard")


# ---- class 7: what a restart trusts is verified; derived quantities checked --

def checkpoint_pair(a, name):
    d = case(os.path.join(a.work, name), steps=20)
    T.run(a, ["run", "case.yaml", "--set", "time.steps=10", "--set", "checkpoint.every=10"], cwd=d)
    return d


def checkpoint_edited(a):
    # The step edited alone (time then disagrees with step x dt), step and
    # time edited together (the state hash disagrees), the state hash
    # removed: each is refused before anything is written.
    edits = {
        "step": lambda f: f.attrs.modify("step", 4),
        "step_and_time": lambda f: (f.attrs.modify("step", 4), f.attrs.modify("time", 4e-3)),
        "steps_total": lambda f: f.attrs.modify("steps_total", 15),
        "no_state_hash": lambda f: f.attrs.__delitem__("state_hash"),
    }
    for what, edit in edits.items():
        d = checkpoint_pair(a, what)
        with h5py.File(os.path.join(d, "ck.h5"), "r+") as f:
            edit(f)
        before = snapshot(d)
        p = T.run(a, ["run", "case.yaml", "--restart", "ck.h5"], cwd=d, rc=3,
                  match=[r"ck\.h5: .*(edited or damaged|cannot be trusted)"])
        one_line_error(p)
        unchanged(before, d, "checkpoint with an edited " + what)


def checkpoint_without_checksum(a):
    # The field rewritten without its Fletcher-32 checksum and one bit
    # flipped: without the checksum the flip cannot be seen, so the
    # checkpoint is refused.
    d = checkpoint_pair(a, "nosum")
    with h5py.File(os.path.join(d, "ck.h5"), "r+") as f:
        u = f["u"][()]
        bits = u.view(np.uint64)
        bits[3, 4, 5] ^= np.uint64(1 << 40)
        del f["u"]
        f.create_dataset("u", data=u, chunks=True)
    before = snapshot(d)
    p = T.run(a, ["run", "case.yaml", "--restart", "ck.h5"], cwd=d, rc=3,
              match=[r"ck\.h5: dataset /u has no Fletcher-32 checksum"])
    one_line_error(p)
    unchanged(before, d, "checkpoint without checksum")


def config_empty_key(a):
    # `grid:` with no value ran a 3 x 3 x 3 grid; any key without a value
    # is now an error naming it.
    for text, key in (("grid:\ntime: {dt: 1.0e-3, steps: 2}\n", "grid"),
                      ("grid: {nx: 9, ny: 8, nz: 7}\ntime: {dt: 1.0e-3, steps: 2}\noutput:\n", "output"),
                      ("grid: {nx: 9, ny: 8, nz: 7}\ntime: {dt: 1.0e-3, steps: 2}\noutput: {file: }\n",
                       "output.file")):
        T.write(os.path.join(a.work, "case.yaml"), text + "backend: cpu\n")
        p = T.run(a, ["run", "case.yaml"], cwd=a.work, rc=2,
                  match=[r"case\.yaml:[0-9]+:[0-9]+: %s: has no value" % key.replace(".", r"\.")])
        one_line_error(p)
    T.check(sorted(os.listdir(a.work)) == ["case.yaml"], "files written: %s" % os.listdir(a.work))


def time_overflow(a):
    # steps x dt overflowing to infinity (time = inf in every file) is
    # refused; so is t_end / dt beyond 1e12 steps.
    case(a.work, steps=20)
    p = T.run(a, ["run", "case.yaml", "--set", "time.dt=1e300", "--set", "time.steps=10000000000"], cwd=a.work, rc=2,
              match=[r"time\.steps x time\.dt = 10000000000 x 1e300 overflows"])
    one_line_error(p)
    p = T.run(a, ["run", "case.yaml", "--set", "time.dt=1e307", "--set", "time.steps=100"], cwd=a.work, rc=2,
              match=[r"overflows"])
    T.check(sorted(os.listdir(a.work)) == ["case.yaml"], "files written: %s" % os.listdir(a.work))


def t_end_below_dt(a):
    # The steps are rounded up: any t_end > 0 takes at least one step, also
    # far below dt; an exact multiple takes exactly its steps.
    T.write(os.path.join(a.work, "case.yaml"), "grid: {nx: 9, ny: 8, nz: 7}\ntime: {dt: 1.0e-3, t_end: 1.0e-13}\n"
            "backend: cpu\n")
    T.run(a, ["run", "case.yaml", "--dry-run"], cwd=a.work, match=[r"time: {dt: 1e-13, steps: 1}"])
    T.run(a, ["run", "case.yaml", "--dry-run", "--set", "time.t_end=0.0005"], cwd=a.work,
          match=[r"time: {dt: 0.0005[0-9]*, steps: 1}"])
    T.run(a, ["run", "case.yaml", "--dry-run", "--set", "time.t_end=0.3"], cwd=a.work,
          match=[r"time: {dt: 0.001[0-9]*, steps: 300}"])
    T.run(a, ["run", "case.yaml", "--set", "time.t_end=1e-13"], cwd=a.work, match=[r"time +1 steps of dt = 1e-13 s"])


CASES = {f.__name__: f for f in (restart_discards_steps, checkpoint_edited, checkpoint_without_checksum,
                                 config_empty_key, time_overflow, t_end_below_dt)}


def body():
    a = T.parse_args(lambda p: p.add_argument("--case", required=True, choices=sorted(CASES)))
    CASES[a.case](a)


T.main(body)
