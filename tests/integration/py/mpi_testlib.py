"""What the `mpirun -np N adi3d run` tests share (test_mpi.py, mpi_faults.py):
the case, mpirun and the serial run, comparisons of outputs and materials,
the ranks' processes."""
import os
import re
import shlex
import subprocess
import xml.etree.ElementTree as ET

import h5py
import numpy as np

import adi_testlib as T


CASE = """grid: {nx: 37, ny: 29, nz: 23}
domain: {lx: 1.3, ly: 1.0, lz: 0.7}
diffusivity: {x: 1.0, y: 0.6, z: 1.7}
boundary: %(bc)s
time: {dt: %(dt)s, steps: %(steps)d}
backend: cpu
output: {file: %(out)s, every: %(every)d, compression: %(gzip)d}
checkpoint: {file: ck.h5, every: %(ck)d}
log: {every: %(log)d}
"""


DIRICHLET = "dirichlet"


MIXED = "{x: {lo: neumann, hi: dirichlet}, y: {lo: dirichlet, hi: neumann}, z: neumann}"


def case(a, name, **kw):
    p = dict(bc=DIRICHLET, dt="4e-4", steps=40, out="out.h5", every=10, gzip=0, ck=0, log=0)
    p.update(kw)
    d = os.path.join(a.work, name)
    os.makedirs(d, exist_ok=True)
    T.write(os.path.join(d, "case.yaml"), CASE % p)
    return d


def mpi_env():
    e = T.env()
    e.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_mpi_yield_when_idle="1")
    return e


def mpi_cmd(a, np_, args):
    return [a.mpiexec, a.npflag, str(np_)] + shlex.split(a.mpiflags) + [a.adi3d] + list(args)


def mpirun(a, np_, args, cwd, rc=0, match=(), timeout=180):
    cmd = mpi_cmd(a, np_, args)
    print("$ (cd %s && %s)" % (cwd, " ".join(cmd)), flush=True)
    p = subprocess.run(cmd, cwd=cwd, env=mpi_env(), capture_output=True, text=True, timeout=timeout)
    out = p.stdout + p.stderr
    print(out, flush=True)
    T.check(p.returncode == rc, "expected exit code %d, got %d" % (rc, p.returncode))
    for m in match:
        T.check(re.search(m, out), "output does not match %r" % m)
    return out


def serial(a, args, cwd, **kw):
    return T.run(a, args, cwd=cwd, **kw)


def assert_close(a_path, b_path, what, tol=1e-12):
    fa, fb = T.fields(a_path), T.fields(b_path)
    T.check(sorted(fa) == sorted(fb), "%s: steps differ: %s vs %s" % (what, sorted(fa), sorted(fb)))
    worst = 0.0
    for s in sorted(fa):
        x, y = fa[s], fb[s]
        T.check(x.dtype == y.dtype and x.shape == y.shape, "%s: step %d dtype/shape differ" % (what, s))
        scale = max(np.max(np.abs(x)), 1e-300)
        worst = max(worst, np.max(np.abs(x - y)) / scale)
    T.check(worst <= tol, "%s: max relative difference %.3e > %g" % (what, worst, tol))
    print("%s: %d steps agree, max relative difference %.3e" % (what, len(fa), worst))


def assert_same_material(serial_dir, serial_name, mpi_name, what):
    """The output's /material/ group and its sidecar's listing are the serial
    run's: every field bit for bit, its source and checksum attributes."""
    with h5py.File(os.path.join(serial_dir, serial_name), "r") as fs, \
            h5py.File(os.path.join(serial_dir, mpi_name), "r") as fm:
        T.check("material" in fm, "%s: no /material group in %s" % (what, mpi_name))
        T.check(sorted(fs["material"]) == sorted(fm["material"]),
                "%s: /material holds %s, the serial run's %s" % (what, sorted(fm["material"]), sorted(fs["material"])))
        for name in fs["material"]:
            x, y = fs["material"][name], fm["material"][name]
            T.check(x.dtype == y.dtype and x.shape == y.shape, "%s: /material/%s dtype or shape" % (what, name))
            T.check(np.array_equal(x[...], y[...]), "%s: /material/%s differs from the serial run's" % (what, name))
            for attr in ("source", "checksum"):
                T.check(x.attrs[attr] == y.attrs[attr], "%s: /material/%s attribute %s: %r vs %r" %
                        (what, name, attr, y.attrs[attr], x.attrs[attr]))
    base = lambda n: n[:-3]
    T.check(xmf_without_name(os.path.join(serial_dir, base(serial_name) + ".xmf"), serial_name) ==
            xmf_without_name(os.path.join(serial_dir, base(mpi_name) + ".xmf"), mpi_name),
            "%s: the .xmf differs from the serial run's" % what)
    print("%s: /material and the .xmf are the serial run's" % what)


def xmf_without_name(path, name):
    with open(path) as f:
        return f.read().replace(name, "NAME")


def rank_pids(parent):
    """adi3d processes started (through mpirun's daemon) for this test."""
    pids = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % p, "rb") as f:
                argv = f.read().split(b"\0")
            with open("/proc/%s/environ" % p, "rb") as f:
                env = f.read()
        except OSError:
            continue
        if argv and argv[0].endswith(b"adi3d") and b"ADI_TEST_TAG=" + parent.encode() in env:
            pids.append(int(p))
    return sorted(pids)


def mpirun_env(a, np_, args, cwd, extra, timeout=180):
    env = mpi_env()
    env.update(extra)
    cmd = mpi_cmd(a, np_, args)
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def xmf_steps(path):
    if not os.path.exists(path):
        return []
    root = ET.parse(path).getroot()
    return [int(g.find("Attribute/DataItem").text.split("/")[2]) for g in root.find("Domain/Grid").findall("Grid")]
