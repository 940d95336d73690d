"""Shared helpers of the Python integration tests: they run the real adi3d
executable in a scratch folder and read its HDF5 files back with h5py.

Run with Debian's /usr/bin/python3 (h5py, numpy). Every test prints what it
ran and fails with a message naming what differed.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np


class TestFailure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise TestFailure(msg)


def parse_args(extra=None):
    p = argparse.ArgumentParser()
    p.add_argument("--adi3d", required=True, help="the adi3d executable")
    p.add_argument("--work", required=True, help="scratch folder (emptied first)")
    p.add_argument("--source", default=os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    if extra:
        extra(p)
    a = p.parse_args()
    a.adi3d = os.path.abspath(a.adi3d)
    a.source = os.path.abspath(a.source)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    return a


def env(threads=1):
    """Environment for adi3d: one OpenMP thread keeps timings stable when
    ctest runs tests side by side on a small machine (results do not depend
    on the thread count: the CPU backend uses static schedules)."""
    e = dict(os.environ)
    e["OMP_NUM_THREADS"] = str(threads)
    e.pop("SLURM_JOB_ID", None)
    return e


def run(a, args, cwd, rc=0, match=(), nomatch=(), timeout=120, preexec_fn=None, extra_env=None):
    cmd = [a.adi3d] + list(args)
    e = env()
    if extra_env:
        e.update(extra_env)
    print("$ (cd %s && %s%s)" % (cwd, "".join("%s=%s " % kv for kv in (extra_env or {}).items()), " ".join(cmd)),
          flush=True)
    p = subprocess.run(cmd, cwd=cwd, env=e, capture_output=True, text=True, timeout=timeout,
                       preexec_fn=preexec_fn)
    out = p.stdout + p.stderr
    print(out, flush=True)
    check(rc is None or p.returncode == rc, "expected exit code %s, got %d" % (rc, p.returncode))
    import re
    for m in match:
        check(re.search(m, out), "output does not match %r" % m)
    for m in nomatch:
        check(not re.search(m, out), "output matches %r, it must not" % m)
    return p


def start(a, args, cwd):
    """Starts adi3d in the background with stderr piped (for the log lines)."""
    cmd = [a.adi3d] + list(args)
    print("$ (cd %s && %s) &" % (cwd, " ".join(cmd)), flush=True)
    return subprocess.Popen(cmd, cwd=cwd, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_line(proc, pattern, timeout=60):
    """Reads the process' stderr until a line matches; returns the lines read."""
    import re
    import select
    lines = []
    end = time.time() + timeout
    buf = ""
    while time.time() < end:
        r, _, _ = select.select([proc.stderr], [], [], 0.2)
        if r:
            chunk = os.read(proc.stderr.fileno(), 4096).decode(errors="replace")
            if not chunk:
                break
            buf += chunk
            while "\n" in buf:
                line, buf = buf.split("\n", 1)
                lines.append(line)
                print("  | " + line, flush=True)
                if re.search(pattern, line):
                    return lines
        elif proc.poll() is not None:
            break
    raise TestFailure("no line matching %r within %gs (process %s)" % (pattern, timeout, proc.poll()))


def finish(proc, timeout=120):
    out, err = proc.communicate(timeout=timeout)
    print(out + err, flush=True)
    return proc.returncode, out + err


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def fields(path):
    """{step: array} of an adi3d output file."""
    import h5py
    with h5py.File(path, "r") as f:
        return {int(f["steps"][k]["u"].attrs["step"]): f["steps"][k]["u"][()] for k in f["steps"]}


def assert_same_fields(a_path, b_path, what):
    a, b = fields(a_path), fields(b_path)
    check(sorted(a) == sorted(b), "%s: steps differ: %s vs %s" % (what, sorted(a), sorted(b)))
    for s in sorted(a):
        check(a[s].dtype == b[s].dtype and a[s].shape == b[s].shape, "%s: step %d dtype/shape differ" % (what, s))
        same = np.array_equal(a[s].view(np.uint8), b[s].view(np.uint8))
        check(same, "%s: step %d is not bit-identical (max |diff| %g)" % (what, s, np.max(np.abs(a[s] - b[s]))))
    print("%s: %d steps bit-identical (%s)" % (what, len(a), ", ".join(str(s) for s in sorted(a))))


# ---- an independent reference of the Douglas step (numpy) ----------------------------

def _thomas_along_last(a, b, c, d):
    """Solves the constant tridiagonal system (a, b, c per row) along the last axis of d."""
    n = d.shape[-1]
    cp = np.zeros(n)
    dp = np.zeros_like(d)
    cp[0] = c[0] / b[0]
    dp[..., 0] = d[..., 0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[..., i] = (d[..., i] - a[i] * dp[..., i - 1]) / m
    x = np.zeros_like(d)
    x[..., n - 1] = dp[..., n - 1]
    for i in range(n - 2, -1, -1):
        x[..., i] = dp[..., i] - cp[i] * x[..., i + 1]
    return x


def douglas_reference(u, steps, spacing, alpha, dt, theta, lo, hi):
    """`steps` Douglas steps of u (shape (nz, ny, nx), float64). spacing, alpha,
    lo, hi are in x, y, z order; lo/hi entries are 'dirichlet' or 'neumann'."""
    u = np.array(u, dtype=np.float64)
    dims_axis = {0: 2, 1: 1, 2: 0}  # x, y, z -> numpy axis
    for _ in range(steps):
        w = np.zeros_like(u)
        for ax in range(3):
            na = dims_axis[ax]
            r = alpha[ax] * dt / spacing[ax] ** 2
            v = np.moveaxis(u, na, -1)
            lower = np.concatenate([v[..., 1:2], v[..., :-1]], axis=-1)   # u[-1] mirrored to u[1]
            upper = np.concatenate([v[..., 1:], v[..., -2:-1]], axis=-1)  # u[n] mirrored to u[n-2]
            w += np.moveaxis(r * ((lower - v) + (upper - v)), -1, na)
        fixed = np.zeros(u.shape, dtype=bool)
        for ax in range(3):
            na = dims_axis[ax]
            idx = [slice(None)] * 3
            if lo[ax] == "dirichlet":
                idx[na] = 0
                fixed[tuple(idx)] = True
            if hi[ax] == "dirichlet":
                idx[na] = -1
                fixed[tuple(idx)] = True
        w[fixed] = 0.0
        for ax in range(3):
            na = dims_axis[ax]
            n = u.shape[na]
            r = theta * alpha[ax] * dt / spacing[ax] ** 2
            a = np.full(n, -r)
            b = np.full(n, 1 + 2 * r)
            c = np.full(n, -r)
            a[0] = 0.0
            c[-1] = 0.0
            if lo[ax] == "dirichlet":
                b[0], c[0] = 1.0, 0.0
            else:
                c[0] = -2 * r
            if hi[ax] == "dirichlet":
                a[-1], b[-1] = 0.0, 1.0
            else:
                a[-1] = -2 * r
            w = np.moveaxis(_thomas_along_last(a, b, c, np.moveaxis(w, na, -1)), -1, na)
        u = u + w
    return u


def main(body):
    try:
        body()
    except TestFailure as e:
        print("FAILED: %s" % e, flush=True)
        sys.exit(1)
    print("passed", flush=True)
