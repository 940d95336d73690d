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
import re
import shutil
import signal
import subprocess
import time

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
              match=[r"time\.steps x time\.dt = 10000000000 x 1e\+300 is not a finite time"])
    one_line_error(p)
    p = T.run(a, ["run", "case.yaml", "--set", "time.dt=1e307", "--set", "time.steps=100"], cwd=a.work, rc=2,
              match=[r"is not a finite time|the mesh ratio alpha dt / h\^2 along x is inf"])
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


# ---- class 5: signals outside the time loop -----------------------------------

HANG = os.path.join("tests", "integration", "data", "hdf5_hangs_reading_attribute.h5")


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def start_reading_forever(a, d, extra_env=None):
    """adi3d run --restart on a checkpoint whose read never ends (the HDF5
    library loops on it): the run sits in its input read-check (a child
    process) for as long as the test likes. Returns the process once the
    child runs."""
    shutil.copy(os.path.join(a.source, HANG), os.path.join(d, "ck.h5"))
    e = T.env()
    e.update(extra_env or {"ADI_READ_TIMEOUT": "100"})
    cmd = [a.adi3d, "run", "--restart", "ck.h5"]
    print("$ (cd %s && %s) &" % (d, " ".join(cmd)), flush=True)
    p = subprocess.Popen(cmd, cwd=d, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    end = time.time() + 60
    while not children(p.pid):
        T.check(p.poll() is None and time.time() < end, "the read-check child did not start (exit %s)" % p.poll())
        time.sleep(0.01)
    return p


def signal_during_input_read(a):
    # SIGTERM, SIGUSR1, SIGHUP and SIGINT while the inputs are read killed
    # adi3d by the default action (exit 143, 138, 129, 130: no requeue).
    for sig in (signal.SIGTERM, signal.SIGUSR1, signal.SIGHUP, signal.SIGINT):
        d = os.path.join(a.work, sig.name)
        os.makedirs(d)
        p = start_reading_forever(a, d)
        before = snapshot(d)
        os.kill(p.pid, sig)
        out, err = p.communicate(timeout=60)
        print(out + err, flush=True)
        T.check(p.returncode == 75, "%s during the input read: expected exit 75, got %d" % (sig.name, p.returncode))
        T.check(re.search(r"adi3d: stopped: %s received while reading ck\.h5 \(checkpoint\): stopped before "
                          r"the first step; nothing was written" % sig.name, err), "no message naming %s" % sig.name)
        unchanged(before, d, sig.name + " during the input read")


def sighup_mid_run(a):
    # SIGHUP (a closed terminal or ssh session) is a stop like SIGTERM: a
    # checkpoint, the output closed "interrupted", exit 75.
    d = case(os.path.join(a.work, "hup"), steps=100000)
    p = T.start(a, ["run", "case.yaml", "--set", "log.every=50", "--set", "grid.nx=41", "--set", "checkpoint.every=0",
                    "--set", "output.every=0"], cwd=d)
    T.wait_for_line(p, r"step [0-9]+/100000")
    p.send_signal(signal.SIGHUP)
    rc, out = T.finish(p)
    T.check(rc == 75, "expected exit 75 after SIGHUP, got %d" % rc)
    T.check("INTERRUPTED by SIGHUP" in out, "the summary does not name SIGHUP")
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        T.check(f.attrs["status"] == "interrupted", "output status %s" % f.attrs["status"])
    with h5py.File(os.path.join(d, "ck.h5"), "r") as f:
        print("checkpoint at step %d" % f.attrs["step"])


def closed_stdout(a):
    # A closed stdout pipe (adi3d run ... | head -0): SIGPIPE killed the
    # finished run (exit 141, no summary, no word). Now the write fails, is
    # reported, and the files are complete.
    d = case(os.path.join(a.work, "pipe"), steps=20)
    r, w = os.pipe()
    os.close(r)
    cmd = [a.adi3d, "run", "case.yaml"]
    print("$ (cd %s && %s | <closed>)" % (d, " ".join(cmd)), flush=True)
    p = subprocess.run(cmd, cwd=d, env=T.env(), stdout=w, stderr=subprocess.PIPE, text=True, timeout=120)
    os.close(w)
    print(p.stderr, flush=True)
    T.check(p.returncode == 3, "expected exit 3, got %d" % p.returncode)
    T.check(re.search(r"adi3d: error: the run is complete and its files are written, but its summary could not "
                      r"be written to stdout \(Broken pipe\)", p.stderr), "no message about the summary")
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        T.check(f.attrs["status"] == "complete", "output status %s" % f.attrs["status"])


def read_check_stopped(a):
    # The read-check child stopped (SIGSTOP) was reported as a damaged file
    # that hangs HDF5. Its limit is CPU time now; a child that is stopped
    # is reported as stopped, and the file is not called damaged.
    d = os.path.join(a.work, "stopped")
    os.makedirs(d)
    p = start_reading_forever(a, d, {"ADI_READ_TIMEOUT": "1"})
    for c in children(p.pid):
        os.kill(c, signal.SIGSTOP)
    out, err = p.communicate(timeout=120)
    print(out + err, flush=True)
    T.check(p.returncode == 3, "expected exit 3, got %d" % p.returncode)
    T.check(re.search(r"ck\.h5: checkpoint: the process reading it \(pid [0-9]+\) was stopped \(SIGSTOP or a "
                      r"suspend\)", err), "the message does not say the reader was stopped")
    T.check("damaged" not in err.replace("not known to be damaged", ""), "a stopped reader called the file damaged")
    # And the same file not stopped: a CPU-time limit, the file damaged.
    d = os.path.join(a.work, "running")
    os.makedirs(d)
    p = start_reading_forever(a, d, {"ADI_READ_TIMEOUT": "1"})
    out, err = p.communicate(timeout=120)
    print(out + err, flush=True)
    T.check(p.returncode == 3, "expected exit 3, got %d" % p.returncode)
    T.check(re.search(r"reading it did not finish within 1 s of CPU time \(the HDF5 library loops on it\)", err),
            "no CPU-time message")


# ---- class 2: paths that alias -------------------------------------------------

ALIAS_CASE = """initial: {file: grid.h5}
time: {dt: 1.0e-3, steps: 4}
backend: cpu
output: {file: out.h5, every: 2}
checkpoint: {file: ck.h5, every: 2}
"""


def alias_folder(a, name):
    d = os.path.join(a.work, name)
    os.makedirs(os.path.join(d, "sub"))
    with h5py.File(os.path.join(d, "grid.h5"), "w") as f:
        f.create_dataset("u", data=np.random.default_rng(3).uniform(0, 1, size=(7, 8, 9)))
    T.write(os.path.join(d, "case.yaml"), ALIAS_CASE)
    return d


def write_k_field(d):
    with h5py.File(os.path.join(d, "k.h5"), "w") as f:
        f.create_dataset("K", data=np.full((7, 8, 9), 2.0))


def path_aliases(a):
    # Each: (what, set-up in the folder, extra args, exit code, message). The
    # target was replaced before (inputs included), or the checkpoint lost.
    cases = [
        ("checkpoint is the initial field", None, ["--set", "checkpoint.file=grid.h5"], 2,
         r"checkpoint\.file: names the same file as the initial field"),
        ("checkpoint is the config", None, ["--set", "checkpoint.file=case.yaml"], 2,
         r"checkpoint\.file: names the same file as the config"),
        ("checkpoint is the output's .xmf", None, ["--set", "checkpoint.file=out.xmf"], 2,
         r"checkpoint\.file: names the same file as the output's \.xmf"),
        ("checkpoint is the output's journal", None, ["--set", "checkpoint.file=out.h5.journal"], 2,
         r"names the same file as the output's journal"),
        ("output through sub/..", None, ["--set", "output.file=sub/../grid.h5", "--overwrite"], 2,
         r"output\.file: names the same file as the initial field"),
        ("output a hard link of the initial field", lambda d: os.link(os.path.join(d, "grid.h5"),
                                                                    os.path.join(d, "hard.h5")),
         ["--set", "output.file=hard.h5", "--overwrite"], 2, r"output\.file: names the same file as the initial field"),
        ("checkpoint a symlink to the initial field", lambda d: os.symlink("grid.h5", os.path.join(d, "link.h5")),
         ["--set", "checkpoint.file=link.h5"], 3, r"checkpoint\.file 'link\.h5' exists and is a symbolic link"),
        ("checkpoint a pipe", lambda d: os.mkfifo(os.path.join(d, "fifo.h5")), ["--set", "checkpoint.file=fifo.h5"], 3,
         r"checkpoint\.file 'fifo\.h5' exists and is a pipe"),
        ("output a directory", lambda d: os.makedirs(os.path.join(d, "dir.h5")),
         ["--set", "output.file=dir.h5", "--overwrite"], 3, r"output\.file 'dir\.h5' exists and is a directory"),
        ("--overwrite of a file adi3d did not write", lambda d: T.write(os.path.join(d, "notes.h5"), "my notes\n"),
         ["--set", "output.file=notes.h5", "--overwrite"], 3, r"notes\.h5: not an HDF5 file|notes\.h5.*not a readable"),
        ("checkpoint over a file adi3d did not write", lambda d: T.write(os.path.join(d, "ck.h5"), "my notes\n"),
         [], 3, r"ck\.h5: not a checkpoint"),
        # A user's file under the name of a run's lock: it was taken over,
        # overwritten with a pid and removed at the end of the run.
        ("a user's file named like the output's lock", lambda d: T.write(os.path.join(d, "out.h5.lock"), "my notes\n"),
         [], 3, r"output file 'out\.h5': out\.h5\.lock exists and is not an adi3d lock file"),
        ("a user's file named like the checkpoint's lock", lambda d: T.write(os.path.join(d, "ck.h5.lock"), "42 43\n"),
         [], 3, r"ck\.h5\.lock exists and is not an adi3d lock file"),
        ("a pipe named like the output's lock", lambda d: os.mkfifo(os.path.join(d, "out.h5.lock")), [], 3,
         r"out\.h5\.lock exists and is not an adi3d lock file"),
        # Material fields are inputs like the initial field.
        ("output is the conductivity field", write_k_field,
         ["--set", "material={conductivity: {file: k.h5, dataset: /K}, heat_capacity: 1}", "--set", "output.file=k.h5",
          "--overwrite"], 2, r"output\.file: names the same file as the material\.conductivity field"),
        ("checkpoint is the conductivity field", write_k_field,
         ["--set", "material={conductivity: {file: k.h5, dataset: /K}, heat_capacity: 1}",
          "--set", "checkpoint.file=k.h5"], 2, r"checkpoint\.file: names the same file as the material\.conductivity"),
    ]
    for n, (what, setup, args, rc, msg) in enumerate(cases):
        d = alias_folder(a, "c%02d" % n)
        if setup:
            setup(d)
        before = snapshot(d)
        print("--- %s" % what, flush=True)
        p = T.run(a, ["run", "case.yaml"] + args, cwd=d, rc=rc, match=[msg], timeout=30)
        one_line_error(p)
        unchanged(before, d, what)
    # A checkpoint of another case under the configured name is not replaced
    # either; one of this case is (a second run, with --overwrite).
    d = alias_folder(a, "other")
    T.run(a, ["run", "case.yaml", "--set", "output.file=first.h5", "--precision", "float32"], cwd=d)
    before = snapshot(d)
    T.run(a, ["run", "case.yaml"], cwd=d, rc=3, match=[r"ck\.h5: checkpoint\.file exists and is a checkpoint of "
                                                        r"another run"])
    unchanged(before, d, "checkpoint of another run")
    T.run(a, ["run", "case.yaml", "--set", "output.file=first.h5", "--overwrite", "--precision", "float32"], cwd=d)
    # A lock a killed run left (its pid, or nothing yet) is taken over and removed.
    for n, stale in enumerate(("999999\n", "")):
        d = alias_folder(a, "stale%d" % n)
        T.write(os.path.join(d, "out.h5.lock"), stale)
        T.run(a, ["run", "case.yaml"], cwd=d)
        T.check(not os.path.exists(os.path.join(d, "out.h5.lock")), "the stale lock was not removed")
    print("%d aliasing cases refused, inputs modified: 0" % len(cases))


# ---- class 3: two runs on one output ---------------------------------------------

def two_runs_one_output(a):
    # 20 trials: two runs of one case started together on one output and
    # checkpoint. Exactly one may write them: the other fails (exit 3: "in
    # use by another adi3d run", or "exists" when the first had finished),
    # and what is under the final names is the winner's complete file, bit
    # for bit the reference; no temporary, no lock file is left.
    ref = case(os.path.join(a.work, "ref"), steps=60, extra="")
    T.run(a, ["run", "case.yaml", "--set", "grid.nx=33"], cwd=ref)
    lost = foreign = locked = 0
    for trial in range(20):
        d = case(os.path.join(a.work, "t%02d" % trial), steps=60)
        cmd = [a.adi3d, "run", "case.yaml", "--set", "grid.nx=33", "--quiet"]
        ps = [subprocess.Popen(cmd, cwd=d, env=T.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for _ in range(2)]
        res = [(p.wait(timeout=120), p.stderr.read()) for p in ps]
        for p in ps:
            p.stdout.close()
            p.stderr.close()
        codes = sorted(r[0] for r in res)
        errs = " | ".join(r[1].strip() for r in res if r[0] != 0)
        print("trial %d: exit codes %s %s" % (trial, codes, errs), flush=True)
        T.check(codes == [0, 3], "trial %d: exit codes %s (%s)" % (trial, codes, errs))
        T.check(re.search(r"is in use by another adi3d run \((pid [0-9]+, )?lock .*\.lock\); nothing was changed|"
                          r"output file 'out\.h5' exists", errs), "trial %d: the loser's message: %s" % (trial, errs))
        locked += "in use by another adi3d run" in errs
        names = sorted(os.listdir(d))
        T.check(names == ["case.yaml", "ck.h5", "out.h5", "out.xmf"], "trial %d: files %s" % (trial, names))
        try:
            T.assert_same_fields(os.path.join(d, "out.h5"), os.path.join(ref, "out.h5"), "trial %d" % trial)
            with h5py.File(os.path.join(d, "out.h5"), "r") as f:
                T.check(f.attrs["status"] == "complete", "status %s" % f.attrs["status"])
        except (OSError, T.TestFailure) as e:
            print("trial %d: %s" % (trial, e))
            foreign += 1
    print("20 trials, %d decided by the lock: files lost 0, foreign or partial files %d" % (locked, foreign))
    T.check(foreign == 0 and lost == 0, "%d trials left a foreign or partial file" % foreign)
    T.check(locked > 0, "no trial had the two runs overlap: the lock was not exercised")
    # Runs without an output and without configured checkpoints (written
    # only on a signal, to a default name runs of one config share) are not
    # refused: both run.
    d = os.path.join(a.work, "no_output")
    os.makedirs(d)
    T.write(os.path.join(d, "case.yaml"), "grid: {nx: 33, ny: 8, nz: 7}\ntime: {dt: 1.0e-3, steps: 300}\nbackend: cpu\n")
    ps = [subprocess.Popen([a.adi3d, "run", "case.yaml", "-q"], cwd=d, env=T.env(), stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True) for _ in range(2)]
    res = [(p.wait(timeout=120), p.stderr.read()) for p in ps]
    print("two runs without outputs: %s" % res, flush=True)
    T.check([r[0] for r in res] == [0, 0], "runs without outputs: exit codes %s" % [r[0] for r in res])


# ---- class 4: adi3d recover trusts nothing it finds ---------------------------------

def fnv(data, h=1469598103934665603):
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def journal_bytes(target, committed, records, ino=None):
    """A journal in adi3d's format (io/src/undo_vfd.cpp, version 2)."""
    import struct
    st = os.stat(target)
    head = b"adi3d-undo-v2\n".ljust(16, b"\0") + struct.pack("<QQQ", committed, st.st_dev,
                                                              st.st_ino if ino is None else ino)
    out = head + struct.pack("<Q", fnv(head))
    for addr, data, *bad in records:
        hs = struct.pack("<QQ", addr, len(data))
        out += hs + struct.pack("<Q", fnv(data, fnv(hs)) ^ (1 if bad else 0)) + data
    return out


def recover_refuses(a):
    d = case(os.path.join(a.work, "r"), steps=20)
    T.run(a, ["run", "case.yaml"], cwd=d)
    out = os.path.join(d, "out.h5")
    size = os.path.getsize(out)
    good = open(out, "rb").read()
    # Each: what, journal bytes (None: no journal), how out.h5 is spoiled first.
    at = size // 2
    spoil = (lambda b: b[:at] + b"\xff" * 8 + b[at + 8:])
    cases = [
        ("a directory", "dir", None, None, r"dir: is a directory"),
        ("a missing file", "missing.h5", None, None, r"missing\.h5: cannot recover it \(No such file"),
        ("a non-journal .journal", "out.h5", b"my own notes\n", None, r"is not an adi3d journal"),
        ("a journal of another file", "out.h5", lambda: journal_bytes(out, size, [], ino=1), None,
         r"belongs to another file"),
        ("a committed size of 0", "out.h5", lambda: journal_bytes(out, 0, []), None, r"committed size of 0"),
        ("a damaged record", "out.h5", lambda: journal_bytes(out, size, [(at, good[at:at + 8], "bad")]), spoil,
         r"a record's checksum does not match"),
        ("a journal that does not give a file that opens", "out.h5",
         lambda: journal_bytes(out, size, [(0, b"garbage!")]), None, r"does not give a file that opens"),
        ("a damaged output without its journal", "out.h5", None, lambda b: b[:len(b) // 3],
         r"there is no journal .* the file cannot be recovered"),
    ]
    os.makedirs(os.path.join(d, "dir"))
    for what, name, journal, damage, msg in cases:
        with open(out, "wb") as f:
            f.write(damage(good) if damage else good)
        if journal is not None:
            with open(out + ".journal", "wb") as f:
                f.write(journal() if callable(journal) else journal)
        before = snapshot(d)
        print("--- %s" % what, flush=True)
        p = T.run(a, ["recover", name], cwd=d, rc=3, match=[msg])
        one_line_error(p)
        unchanged(before, d, what)
        if os.path.exists(out + ".journal"):
            os.remove(out + ".journal")
    # A journal that belongs to the file and restores it: applied, checked,
    # removed; the file bit for bit what it was.
    with open(out, "wb") as f:
        f.write(spoil(good))
    with open(out + ".journal", "wb") as f:
        f.write(journal_bytes(out, size, [(at, good[at:at + 8])]))
    T.run(a, ["recover", "out.h5"], cwd=d, match=[r"the unfinished write of a killed run was undone"])
    T.check(open(out, "rb").read() == good, "the recovered file differs from the original")
    T.check(not os.path.exists(out + ".journal"), "the journal was kept")
    print("%d bad recoveries refused, files lost 0, inputs modified 0" % len(cases))


def recover_live_run(a):
    # adi3d recover on the output a run is still writing applied the live
    # run's journal and destroyed the output while the run exited 0.
    d = case(os.path.join(a.work, "live"), steps=3000)
    p = T.start(a, ["run", "case.yaml", "--set", "grid.nx=41", "--set", "output.every=100", "--set",
                    "log.every=100"], cwd=d)
    T.wait_for_line(p, r"step [0-9]+/3000")
    r = T.run(a, ["recover", "out.h5"], cwd=d, rc=3,
              match=[r"output file 'out\.h5' is in use by another adi3d run \(pid %d, lock out\.h5\.lock\); "
                     r"nothing was changed" % p.pid])
    one_line_error(r)
    rc, _ = T.finish(p, timeout=300)
    T.check(rc == 0, "the live run ended with exit %d" % rc)
    T.check(out_steps(os.path.join(d, "out.h5")) == list(range(0, 3001, 100)), "the output lost steps")
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        T.check(f.attrs["status"] == "complete", "status %s" % f.attrs["status"])


CASES = {f.__name__: f for f in (recover_refuses, recover_live_run, path_aliases, two_runs_one_output, restart_discards_steps, checkpoint_edited, checkpoint_without_checksum,
                                 config_empty_key, time_overflow, t_end_below_dt, signal_during_input_read,
                                 sighup_mid_run, closed_stdout, read_check_stopped)}


def body():
    a = T.parse_args(lambda p: p.add_argument("--case", required=True, choices=sorted(CASES)))
    CASES[a.case](a)


T.main(body)
