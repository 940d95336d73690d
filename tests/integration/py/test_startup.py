"""A run's start-up (issue #54): what it checks before its first step, what
it cleans up, how it takes a signal, and inputs that are not what they seem.
Through the real CLI, one part per ctest test; files the run must not touch
are compared byte for byte.

  dry_run_checks     --dry-run fails where the run fails before its first step:
                     NaN in a conductivity, source or initial field (exit 3
                     naming the node), a journal whose output file is gone
                     (exit 3); it changes no file.
  temporaries        the temporaries of dead adi3d processes beside the output,
                     its .xmf and journal and the checkpoint (a killed run's
                     checkpoint temporary, made with the kill_on_write shim, and
                     named ones) are removed with one log line; a live
                     process', another file's, a misnamed one and a link are
                     kept; `adi3d recover` removes the output's.
  signal_at_startup  a signal raised while the shared libraries start up
                     (before main; the signal_at_start shim): exit 75, nothing
                     written (was: killed by the default action, 143).
  signal_field_read  a signal while a material field is read in its
                     read-check child: exit 75 naming the field (was: exit 3,
                     "reading it was interrupted").
  fifo_restart       --restart from a FIFO: exit 3 at once naming the FIFO (was:
                     a wait for the read time-out).
  truncated_input    a truncated initial or material field: "truncated or
                     damaged", not "locked by another program".
  flat_from_file     a flat axis taken from the initial file's shape is flat
                     like nz: 1 in the config: no faces needed there, and naming
                     one is an error.
"""

import os
import re
import shutil
import signal
import subprocess
import time

import h5py
import numpy as np

import adi_testlib as T

CASE = """grid: {nx: 9, ny: 7, nz: 6}
material: {conductivity: %(k)s, heat_capacity: 1.0}
source: {power_density: %(q)s}
boundary: insulated
time: {dt: 0.01, steps: 8}
initial: %(initial)s
output: {file: out.h5, every: 4}
checkpoint: {file: ck.h5, every: 4}
backend: cpu
"""


def digest(path):
    import hashlib
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def snapshot(d):
    return {n: digest(os.path.join(d, n)) for n in sorted(os.listdir(d))
            if os.path.isfile(os.path.join(d, n)) and not os.path.islink(os.path.join(d, n))}


def folder(a, name):
    d = os.path.join(a.work, name)
    os.makedirs(d)
    return d


def fields_file(d, nan_in=None, shape=(6, 7, 9)):
    with h5py.File(os.path.join(d, "f.h5"), "w") as f:
        for name, v in (("K", 2.0), ("q", 10.0), ("u", 1.0)):
            x = np.full(shape, v)
            if name == nan_in:
                x[2, 3, 4] = np.nan
            f.create_dataset(name, data=x)


def write_case(d, k="{file: f.h5, dataset: /K}", q="{file: f.h5, dataset: /q}", initial="{file: f.h5, dataset: /u}"):
    T.write(os.path.join(d, "case.yaml"), CASE % dict(k=k, q=q, initial=initial))


def dry_run_checks(a):
    for which, key in (("K", "conductivity"), ("q", "heat source"), ("u", "initial")):
        d = folder(a, "nan_" + which)
        fields_file(d, nan_in=which)
        write_case(d)
        before = snapshot(d)
        for dry in (["--dry-run"], []):
            T.run(a, ["run", "case.yaml"] + dry, cwd=d, rc=3,
                  match=[r"f\.h5:/%s: (the %s field holds nan|holds NaN) at node \(i, j, k\) = \(4, 3, 2\)" % (which, key)])
            T.check(snapshot(d) == before, "NaN in %s%s: files changed" % (which, " (dry run)" if dry else ""))
        print("NaN in %s: the dry run and the run both exit 3" % which)
    # A journal left beside an output file that is gone.
    d = folder(a, "journal")
    fields_file(d)
    write_case(d)
    T.write(os.path.join(d, "out.h5.journal"), "not much of a journal\n")
    before = snapshot(d)
    for dry in (["--dry-run"], []):
        T.run(a, ["run", "case.yaml"] + dry, cwd=d, rc=3,
              match=[r"its journal out\.h5\.journal exists but the file does not"])
        T.check(snapshot(d) == before, "a stale journal: files changed")


def dead_pid():
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def temporaries(a):
    d = folder(a, "tmps")
    fields_file(d)
    write_case(d)
    # A real one: a run killed at the first write of its checkpoint's
    # temporary (tests/integration/fault/kill_on_write.c).
    if a.shim:
        # (an ASan build: its runtime need not come first, as in test_faults.py)
        asan = (os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")
        e = {"LD_PRELOAD": a.shim, "ADI_KILL_ON_WRITE": "ck.h5.tmp:1", "ASAN_OPTIONS": asan}
        p = T.run(a, ["run", "case.yaml", "-q"], cwd=d, rc=None, extra_env=e)
        T.check(p.returncode == -9, "the kill_on_write shim did not kill the run (exit %d)" % p.returncode)
    left = [n for n in os.listdir(d) if n.startswith("adi3d.") and n.endswith(".tmp")]
    if a.shim:
        T.check(any(n.endswith(".ck.h5.tmp") for n in left), "the killed run left no checkpoint temporary: %s" % left)
    dead = dead_pid()
    mine = os.getpid()
    ours = ["adi3d.%d.0123abcd.out.h5.tmp" % dead, "adi3d.%d.89abcdef.out.xmf.tmp" % dead,
            "adi3d.%d.00000000.ck.h5.tmp" % dead, "adi3d.%d.ffffffff.out.h5.journal.tmp" % dead]
    kept = ["adi3d.%d.0123abcd.out.h5.tmp" % mine,          # a live process
            "adi3d.%d.0123abcd.other.h5.tmp" % dead,        # another file's
            "adi3d.%d.0123abc.out.h5.tmp" % dead,           # 7 hex digits: not adi3d's name
            "adi3d.%d.0123ABCD.out.h5.tmp" % dead,          # upper case: not adi3d's name
            "adi3d.x%d.0123abcd.out.h5.tmp" % dead]         # not a pid
    for n in ours + kept:
        T.write(os.path.join(d, n), "partial\n")
    os.symlink("f.h5", os.path.join(d, "adi3d.%d.01010101.out.h5.tmp" % dead))  # a link: never removed
    kept.append("adi3d.%d.01010101.out.h5.tmp" % dead)
    p = T.run(a, ["run", "case.yaml", "--overwrite"], cwd=d,
              match=[r"removed %d temporaries that killed adi3d runs left" % (len(ours) + len(left))])
    now = set(os.listdir(d))
    for n in ours + left:
        T.check(n not in now, "%s was not removed" % n)
    for n in kept:
        T.check(n in now, "%s was removed: it is not provably a dead run's" % n)
    T.check(os.path.islink(os.path.join(d, kept[-1])), "the link was replaced")
    # adi3d recover removes the output's.
    for n in ours[:2]:
        T.write(os.path.join(d, n), "partial\n")
    T.run(a, ["recover", "out.h5"], cwd=d, match=[r"removed 2 temporaries that killed adi3d runs left"])
    now = set(os.listdir(d))
    T.check(not any(n in now for n in ours[:2]), "recover did not remove the output's temporaries")
    # A dry run removes nothing.
    T.write(os.path.join(d, ours[2]), "partial\n")
    T.run(a, ["run", "case.yaml", "--overwrite", "--dry-run"], cwd=d)
    T.check(ours[2] in os.listdir(d), "a dry run removed a temporary")


def signal_at_startup(a):
    T.check(a.signal_shim, "give --signal-shim (tests/integration/fault/signal_at_start.c)")
    for sig in (signal.SIGTERM, signal.SIGUSR1, signal.SIGHUP, signal.SIGINT):
        d = folder(a, "start_" + sig.name)
        fields_file(d)
        write_case(d)
        before = snapshot(d)
        asan = (os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")
        p = T.run(a, ["run", "case.yaml"], cwd=d, rc=None,
                  extra_env={"LD_PRELOAD": a.signal_shim, "ADI_TEST_SIGNAL_AT_START": str(int(sig)),
                             "ASAN_OPTIONS": asan})
        T.check(p.returncode == 75, "%s while the libraries start: expected exit 75, got %d" % (sig.name, p.returncode))
        T.check(re.search(r"adi3d: stopped: %s received while reading .*: stopped before the first step; nothing was "
                          r"written" % sig.name, p.stderr), "no message naming %s" % sig.name)
        T.check(snapshot(d) == before, "%s at start-up: files changed" % sig.name)


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def signal_field_read(a):
    # A field large enough that its read-check child (the checksum reads every
    # plane) is there to be stopped; stopped, it waits for us.
    d = folder(a, "field_read")
    n = (120, 120, 120)
    fields_file(d, shape=n)
    T.write(os.path.join(d, "case.yaml"), (CASE % dict(k="{file: f.h5, dataset: /K}", q="1.0", initial="{value: 1}"))
            .replace("grid: {nx: 9, ny: 7, nz: 6}", "grid: {nx: 120, ny: 120, nz: 120}"))
    before = snapshot(d)
    cmd = [a.adi3d, "run", "case.yaml"]
    print("$ (cd %s && %s) &" % (d, " ".join(cmd)), flush=True)
    p = subprocess.Popen(cmd, cwd=d, env=T.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stopped = None
    end = time.time() + 60
    while stopped is None and time.time() < end and p.poll() is None:
        for c in children(p.pid):
            try:
                os.kill(c, signal.SIGSTOP)
                stopped = c
                break
            except ProcessLookupError:
                pass
        time.sleep(0.001)
    T.check(stopped is not None, "no read-check child to stop (exit %s)" % p.poll())
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    print(out + err, flush=True)
    T.check(p.returncode == 75, "SIGTERM during a field's read check: expected exit 75, got %d" % p.returncode)
    T.check(re.search(r"adi3d: stopped: SIGTERM received while reading f\.h5 \((the )?conductivity"
                      r" field\): stopped before the first step; nothing was written", err), "no message")
    T.check(snapshot(d) == before, "files changed")


def fifo_restart(a):
    d = folder(a, "fifo")
    os.mkfifo(os.path.join(d, "ck.h5"))
    start = time.time()
    p = T.run(a, ["run", "--restart", "ck.h5"], cwd=d, rc=3, timeout=30,
              match=[r"adi3d: error: ck\.h5: cannot read the checkpoint given to --restart: it is a FIFO \(named pipe\), "
                     r"not a file"])
    T.check(time.time() - start < 10, "it took %.1f s" % (time.time() - start))
    # An initial field and a material field likewise.
    os.mkfifo(os.path.join(d, "f.h5"))
    write_case(d)
    T.run(a, ["run", "case.yaml", "--dry-run"], cwd=d, rc=3, timeout=30,
          match=[r"f\.h5: cannot read the initial field: it is a FIFO \(named pipe\)"])
    write_case(d, initial="{value: 1}")
    T.run(a, ["run", "case.yaml", "--dry-run"], cwd=d, rc=3, timeout=30,
          match=[r"f\.h5: cannot read the conductivity field: it is a FIFO \(named pipe\)"])


def truncated_input(a):
    for what, initial, k in (("initial", "{file: f.h5, dataset: /u}", "2.0"),
                             ("conductivity", "{value: 1}", "{file: f.h5, dataset: /K}")):
        d = folder(a, "trunc_" + what)
        fields_file(d)
        size = os.path.getsize(os.path.join(d, "f.h5"))
        os.truncate(os.path.join(d, "f.h5"), size // 2)
        write_case(d, k=k, q="1.0", initial=initial)
        T.run(a, ["run", "case.yaml"], cwd=d, rc=3, match=[r"f\.h5: .*truncated or damaged"], nomatch=[r"locked"])


FLAT = """material: {conductivity: 2.0, heat_capacity: 1.0}
boundary: %(boundary)s
time: {dt: 0.01, steps: 3}
initial: {file: g.h5, dataset: /u}
backend: cpu
"""


def flat_from_file(a):
    d = folder(a, "flat")
    with h5py.File(os.path.join(d, "g.h5"), "w") as f:
        u = f.create_dataset("u", data=np.linspace(1.0, 2.0, 7 * 9).reshape(1, 7, 9))
        u.attrs["spacing"] = [0.1, 0.1, 0.1]
    # As with nz: 1 in the config: the z faces are not needed...
    T.write(os.path.join(d, "case.yaml"), FLAT % dict(boundary="{x: dirichlet, y: insulated}"))
    T.run(a, ["run", "case.yaml"], cwd=d, match=[r"grid +9 x 7 x 1 nodes"])
    # ... and naming one is an error, naming the key.
    T.write(os.path.join(d, "case.yaml"), FLAT % dict(boundary="{x: dirichlet, y: insulated, z: neumann}"))
    T.run(a, ["run", "case.yaml"], cwd=d, rc=2,
          match=[r"case\.yaml:2:[0-9]+: boundary\.z: the z axis is flat \(nz = 1 from g\.h5:/u: a 2D or 1D problem\) and "
                 r"has no faces; remove this key"])
    # A per-axis map likewise; and an axis that is not flat still needs its faces.
    T.write(os.path.join(d, "case.yaml"), FLAT.replace("conductivity: 2.0", "conductivity: {x: 2.0, y: 1.0}") %
            dict(boundary="{x: dirichlet, y: insulated}"))
    T.run(a, ["run", "case.yaml"], cwd=d)
    T.write(os.path.join(d, "case.yaml"), FLAT % dict(boundary="{x: dirichlet}"))
    T.run(a, ["run", "case.yaml"], cwd=d, rc=2, match=[r"boundary: missing face y_lo, y_hi"])


PARTS = {f.__name__: f for f in (dry_run_checks, temporaries, signal_at_startup, signal_field_read, fifo_restart,
                                 truncated_input, flat_from_file)}


def body():
    def extra(p):
        p.add_argument("--part", required=True, choices=sorted(PARTS))
        p.add_argument("--shim", default="", help="the kill_on_write library")
        p.add_argument("--signal-shim", default="", help="the signal_at_start library")
    a = T.parse_args(extra)
    PARTS[a.part](a)


T.main(body)
