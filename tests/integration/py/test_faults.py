"""Fault injection through the real CLI (issue #7, item 5).

kill -9 inside a write. A random kill rarely lands inside a write, so the
LD_PRELOAD library tests/integration/fault/kill_on_write.c kills adi3d with
SIGKILL at a chosen write(2)/pwrite(2) to a chosen file (before it, or after
half of its bytes: a torn write), or just before a chosen rename(2). A first
run with the library counting gives the number of kill points; then, for
every kill point (or every --stride-th):

  1. adi3d is killed there (the test checks it was);
  2. `adi3d recover out.h5` undoes an interrupted output write (as a
     restart would; without it HDF5 1.10 leaves files that do not open:
     that is how this test found the problem);
  3. what exists must read back: out.h5 opens, every step its .xmf lists is
     bit-identical to an uninterrupted reference run, the checkpoint opens
     (Fletcher-32 checked) and holds the reference field of its step;
  4. the run is continued (--restart from the checkpoint, else started
     again with --overwrite) and its whole output must equal the reference.

A file that does not open, or a listed step or checkpoint that does not
read back, counts as a file lost; the test fails unless none was. The last
line gives the figures: faults injected, files lost.

disk full: a checkpoint that cannot be written (RLIMIT_FSIZE, as a full
disk) stops the run with exit 3 and leaves the previous checkpoint as it was.
"""

import os
import resource
import signal
import subprocess
import xml.etree.ElementTree as ET

import h5py
import numpy as np

import adi_testlib as T

CASE = """grid: {nx: 23, ny: 17, nz: 12}
domain: {lx: 1.0, ly: 0.8, lz: 0.6}
diffusivity: {x: 1.0, y: 0.5, z: 0.25}
boundary: {x: {lo: dirichlet, hi: neumann}, y: dirichlet, z: neumann}
time: {dt: 2.0e-3, steps: %(steps)d}
backend: cpu
output: {file: out.h5, every: 1}
checkpoint: {file: ck.h5, every: %(ck)d}
"""

# Which writes to kill in, per part: (kind, suffix of the file, torn variants too).
PARTS = {
    "output_writes": [("write", "out.h5", True)],
    "first_step": [("write", "out.h5.tmp", True), ("rename", "out.h5", False)],
    "checkpoint_writes": [("write", "ck.h5.tmp", True), ("rename", "ck.h5", False)],
    "sidecar_writes": [("write", "out.xmf.tmp", True), ("rename", "out.xmf", False)],
}


def env_with(a, extra):
    e = T.env()
    e.update(extra)
    # A preloaded library before the sanitizer runtime is fine here.
    e["ASAN_OPTIONS"] = (e.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")
    return e


def adi(a, cwd, args, extra=None, timeout=120):
    return subprocess.run([a.adi3d] + args, cwd=cwd, env=env_with(a, extra or {}), capture_output=True, text=True,
                          timeout=timeout)


def case_dir(a, name, steps, ck):
    d = os.path.join(a.work, name)
    os.makedirs(d)
    T.write(os.path.join(d, "case.yaml"), CASE % dict(steps=steps, ck=ck))
    return d


def fields(path):
    with h5py.File(path, "r") as f:
        return {int(k): f["steps"][k]["u"][()] for k in f["steps"]}


def xmf_steps(path):
    if not os.path.exists(path):
        return []
    root = ET.parse(path).getroot()
    return [int(g.find("Attribute/DataItem").text.split("/")[2]) for g in root.find("Domain/Grid").findall("Grid")]


def check_left_behind(d, ref):
    """What the kill left, after `adi3d recover`: problems (files lost)."""
    lost = []
    out = os.path.join(d, "out.h5")
    listed = xmf_steps(os.path.join(d, "out.xmf"))
    if os.path.exists(out):
        try:
            with h5py.File(out, "r") as f:
                present = sorted(int(k) for k in f["steps"])
                for s in listed:
                    if s not in present:
                        lost.append("out.h5: step %d listed in out.xmf is missing" % s)
                    elif not np.array_equal(f["steps"]["%06d" % s]["u"][()], ref[s]):
                        lost.append("out.h5: step %d differs from the reference" % s)
        except Exception as e:  # noqa: BLE001 - any failure to read is a lost file
            lost.append("out.h5 does not read back: %s" % e)
    elif listed:
        lost.append("out.xmf lists steps but out.h5 is gone")
    ck = os.path.join(d, "ck.h5")
    if os.path.exists(ck):
        try:
            with h5py.File(ck, "r") as f:
                step = int(f.attrs["step"])
                if not np.array_equal(f["u"][()], ref[step]):
                    lost.append("ck.h5 (step %d) differs from the reference" % step)
        except Exception as e:  # noqa: BLE001
            lost.append("ck.h5 does not read back: %s" % e)
    return lost


def kill_points(a, shim, kind, suffix, steps, ck):
    d = case_dir(a, "count_%s_%s" % (kind, suffix), steps, ck)
    counts = os.path.join(d, "counts")
    var = "ADI_KILL_ON_WRITE" if kind == "write" else "ADI_KILL_ON_RENAME"
    p = adi(a, d, ["run", "case.yaml", "-q"],
            {"LD_PRELOAD": shim, var: "%s:0" % suffix, "ADI_WRITE_COUNT_FILE": counts})
    T.check(p.returncode == 0, "counting run failed: %s" % p.stderr)
    return max(int(line.split()[1]) for line in open(counts).read().splitlines())


def kill_part(a):
    steps, ck = 12, 4
    ref_dir = case_dir(a, "reference", steps, ck)
    p = adi(a, ref_dir, ["run", "case.yaml", "-q"])
    T.check(p.returncode == 0, "reference run failed: %s" % p.stderr)
    ref = fields(os.path.join(ref_dir, "out.h5"))
    injected = lost_files = 0
    for kind, suffix, torn in PARTS[a.part]:
        n = kill_points(a, a.shim, kind, suffix, steps, ck)
        T.check(n > 0, "no %s to %s seen: the fault library is not active" % (kind, suffix))
        var = "ADI_KILL_ON_WRITE" if kind == "write" else "ADI_KILL_ON_RENAME"
        for k in range(1, n + 1, a.stride):
            for mode in (("clean", "torn") if torn else ("clean",)):
                d = case_dir(a, "%s_%s_%d_%s" % (kind, suffix, k, mode), steps, ck)
                spec = "%s:%d%s" % (suffix, k, ":torn" if mode == "torn" else "")
                p = adi(a, d, ["run", "case.yaml", "-q"], {"LD_PRELOAD": a.shim, var: spec})
                T.check(p.returncode == -signal.SIGKILL,
                        "%s %s: expected the run to be killed, exit %d\n%s" % (kind, spec, p.returncode, p.stderr))
                injected += 1
                if os.path.exists(os.path.join(d, "out.h5")):
                    r = adi(a, d, ["recover", "out.h5"])
                    T.check(r.returncode == 0, "adi3d recover failed: %s" % r.stderr)
                problems = check_left_behind(d, ref)
                if problems:
                    lost_files += 1
                    print("LOST after a kill at %s %s: %s" % (kind, spec, "; ".join(problems)), flush=True)
                # Continue the run as a requeued job would, then compare it all.
                if os.path.exists(os.path.join(d, "ck.h5")):
                    q = adi(a, d, ["run", "case.yaml", "-q", "--restart", "ck.h5"])
                else:
                    q = adi(a, d, ["run", "case.yaml", "-q", "--overwrite"])
                T.check(q.returncode == 0, "%s %s: continuing failed (exit %d): %s" %
                        (kind, spec, q.returncode, q.stderr))
                got = fields(os.path.join(d, "out.h5"))
                T.check(sorted(got) == sorted(ref), "%s %s: steps %s after continuing" % (kind, spec, sorted(got)))
                for s in ref:
                    T.check(np.array_equal(got[s], ref[s]), "%s %s: step %d not bit-identical" % (kind, spec, s))
                T.check(not os.path.exists(os.path.join(d, "out.h5.journal")), "journal left after a clean run")
        print("%s to %s: %d kill points%s" % (kind, suffix, n, " (every %d-th tested)" % a.stride
                                               if a.stride > 1 else ""), flush=True)
    print("faults injected: %d, files lost: %d" % (injected, lost_files), flush=True)
    T.check(lost_files == 0, "%d files lost" % lost_files)


def disk_full_checkpoint(a):
    # A first run leaves ck.h5; a second one, under a file-size limit its
    # checkpoint cannot fit in, fails with exit 3 and leaves ck.h5 alone.
    d = case_dir(a, "disk_full_checkpoint", 8, 4)
    T.run(a, ["run", "case.yaml", "-q"], cwd=d)
    ck = os.path.join(d, "ck.h5")
    before = open(ck, "rb").read()
    limit = len(before) // 2

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    T.run(a, ["run", "case.yaml", "--set", 'output.file=""', "--set", "time.steps=12"], cwd=d,
          rc=3, preexec_fn=small_files,
          match=[r"checkpoint 'ck\.h5': .*File too large.*; the previous checkpoint \(if any\) is unchanged"])
    T.check(open(ck, "rb").read() == before, "the previous checkpoint was modified")
    T.check(not os.path.exists(ck + ".tmp"), "a temporary checkpoint was left")
    with h5py.File(ck, "r") as f:
        T.check(int(f.attrs["step"]) == 8, "checkpoint step %s" % f.attrs["step"])
        f["u"][()]
    print("faults injected: 1, files lost: 0", flush=True)


def body():
    def extra(p):
        p.add_argument("--part", required=True, choices=sorted(PARTS) + ["disk_full_checkpoint"])
        p.add_argument("--shim", help="the kill_on_write library")
        p.add_argument("--stride", type=int, default=1, help="test every N-th kill point")
    a = T.parse_args(extra)
    if a.part == "disk_full_checkpoint":
        disk_full_checkpoint(a)
    else:
        kill_part(a)


T.main(body)
