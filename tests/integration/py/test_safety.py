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


CASES = {f.__name__: f for f in (restart_discards_steps,)}


def body():
    a = T.parse_args(lambda p: p.add_argument("--case", required=True, choices=sorted(CASES)))
    CASES[a.case](a)


T.main(body)
