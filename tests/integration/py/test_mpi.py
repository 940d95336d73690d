"""`mpirun -np N adi3d run` end to end (label mpi), compared with the serial
run of the same case (h5py):

  outputs   Dirichlet and Neumann/mixed faces on a non-cubic grid whose sizes
            do not divide evenly: every output step agrees with the serial
            run to 1e-12 (relative, fp64), the .xmf is the serial one, the
            provenance records the ranks; an automatic and a given grid;
            parallel HDF5 builds write collectively (every rank its part),
            and ADI_PARALLEL_IO=0 (the gather to rank 0) writes the same;
  restart   a checkpointed run continued on the same rank count is bit for
            bit the uninterrupted distributed run, and one continued on
            another rank count agrees with the serial run to round-off;
  signal    SIGTERM to one rank only: all ranks stop at the same step, exit
            75 with a checkpoint; a restart on another rank count finishes;
  kill      kill -9 inside the collective writes of the output and the
            checkpoint (parallel HDF5; tests/integration/fault/kill_on_write.c
            at every N-th write of the job): after `adi3d recover` every step
            the .xmf lists reads back bit for bit, and the run continued from
            what is left ends bit for bit the uninterrupted run;
  materials K, c and q fields from HDF5 with periodic y and z cut across
            ranks (each rank reads its box and wrapped ghost planes; with
            parallel HDF5 one collective read a field): every output step
            agrees with the serial run to 1e-12, and the output's /material
            group and .xmf are the serial run's (collective writes: each rank
            its part; the gather; a restart that continues the file); a NaN in K that only the
            last rank reads stops every rank with one message naming the
            node (no rank left waiting in a collective read);
  errors    a process grid that does not match the rank count (exit 2) and
            an existing output (exit 3): one message, every rank ends cleanly;
  probes    probes (at nodes, between nodes whose corners lie on several
            ranks, across the periodic wrap) and the heat-flux field with
            a conductivity field: the probe series equal the serial run's
            to 1e-12 relative, a probe at a node is the written field bit
            for bit, the heat flux equals the serial run's (collective
            writes and the gather to rank 0);
  slurm     examples/slurm_mpi_job.sh outside Slurm (LAUNCHER=mpirun, a fake
            scontrol): SIGUSR1 to the job script (what --signal=B:USR1 does)
            reaches every rank, the job asks to be requeued, the requeued
            job finishes, and the result is the serial run's.
"""

import os
import re
import xml.etree.ElementTree as ET
import shlex
import shutil
import signal
import stat
import subprocess
import time

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


def outputs(a):
    for label, bc, grid, gzip in (("dirichlet", DIRICHLET, None, 0), ("mixed", MIXED, None, 4),
                                  ("mixed_slabs", MIXED, "[1, 1, %d]" % a.np, 0)):
        d = case(a, "outputs_" + label, bc=bc, gzip=gzip)
        serial(a, ["run", "case.yaml", "--set", "output.file=serial.h5", "--quiet"], cwd=d)
        grid_args = ["--set", "parallel.grid=" + grid] if grid else []
        out = mpirun(a, a.np, ["run", "case.yaml", "--set", "output.file=mpi.h5"] + grid_args, cwd=d,
                     match=[r"output +mpi\.h5 \(5 steps"])
        if a.np > 1:  # one rank runs the ordinary stepper
            T.check(re.search(r"MPI: %d ranks as 1 x " % a.np, out), "no decomposition in the log")
            T.check("reduced-system line solves" in out, "the distributed stepper did not run")
        collective = "parallel HDF5, each of the %d ranks writes its part" % a.np in out
        T.check(a.np == 1 or collective == a.parallel_hdf5,
                "collective writes: %s, expected %s" % (collective, a.parallel_hdf5))
        assert_close(os.path.join(d, "serial.h5"), os.path.join(d, "mpi.h5"), "%s, %d ranks" % (label, a.np))
        if a.np > 1 and a.parallel_hdf5:  # the other path: gathered to rank 0, same files
            os.environ["ADI_PARALLEL_IO"] = "0"
            try:
                out = mpirun(a, a.np, ["run", "case.yaml", "--set", "output.file=gathered.h5"] + grid_args, cwd=d,
                             match=[r"output +gathered\.h5 \(5 steps"])
            finally:
                del os.environ["ADI_PARALLEL_IO"]
            T.check("writes its part" not in out, "ADI_PARALLEL_IO=0 still wrote collectively")
            T.assert_same_fields(os.path.join(d, "gathered.h5"), os.path.join(d, "mpi.h5"),
                                 "%s: gathered vs collective" % label)
        T.check(xmf_without_name(os.path.join(d, "serial.xmf"), "serial.h5") ==
                xmf_without_name(os.path.join(d, "mpi.xmf"), "mpi.h5"), "the .xmf differs from the serial run's")
        with h5py.File(os.path.join(d, "mpi.h5"), "r") as f:
            T.check(f.attrs["status"] == "complete", "status %r" % f.attrs["status"])
            if a.np > 1:
                T.check("%d ranks as" % a.np in f["provenance"].attrs["device"], "provenance device: %r" %
                        f["provenance"].attrs["device"])
            if gzip:
                T.check(f["steps/000040/u"].compression == "gzip", "no compression")


MATERIAL_CASE = """grid: {nx: 37, ny: 29, nz: 23}
domain: {lx: 1.3, ly: 1.0, lz: 0.7}
material:
  conductivity: {file: %(k)s, dataset: /K}
  heat_capacity: {file: fields.h5, dataset: /c}
source:
  power_density: {file: fields.h5, dataset: /q}
boundary:
  x: {lo: {type: convective, h: 3, ambient: 1.5}, hi: dirichlet}
  y: periodic
  z: periodic
initial: {value: 1.0}
time: {dt: 2e-3, steps: 30}
backend: cpu
output: {file: out.h5, every: 10}
"""


def materials(a):
    d = os.path.join(a.work, "materials")
    os.makedirs(d, exist_ok=True)
    n = (37, 29, 23)
    length = (1.3, 1.0, 0.7)
    # Spacing: x has both end nodes, the periodic axes n cells of L / n.
    spacing = [length[0] / (n[0] - 1), length[1] / n[1], length[2] / n[2]]
    z, y, x = np.meshgrid(np.arange(n[2]), np.arange(n[1]), np.arange(n[0]), indexing="ij")
    smooth = np.sin(0.31 * x + 0.2) * np.cos(0.45 * y) * np.sin(0.53 * z + 1.0)
    values = {"K": 0.4 * (1.0 + 4.5 * (1.0 + smooth)), "c": 1.0 + 0.5 * np.cos(0.2 * x * y + z),
              "q": 2.0 * np.sin(0.17 * x) * np.cos(0.3 * z)}
    for name, bad in (("fields.h5", False), ("bad.h5", True)):
        with h5py.File(os.path.join(d, name), "w") as f:
            for key, v in values.items():
                v = v.copy()
                if bad and key == "K":
                    v[-1, -1, -1] = np.nan  # node (36, 28, 22): only the last rank's box holds it
                ds = f.create_dataset(key, data=v)
                ds.attrs["origin"] = [0.0, 0.0, 0.0]
                ds.attrs["spacing"] = spacing
    T.write(os.path.join(d, "case.yaml"), MATERIAL_CASE % dict(k="fields.h5"))
    serial(a, ["run", "case.yaml", "--set", "output.file=serial.h5", "--quiet"], cwd=d)
    for grid in (None, "[1, %d, 1]" % a.np, "[1, 1, %d]" % a.np):
        grid_args = ["--set", "parallel.grid=" + grid] if grid else []
        mpirun(a, a.np, ["run", "case.yaml", "--set", "output.file=mpi.h5", "--overwrite"] + grid_args, cwd=d,
               match=[r"output +mpi\.h5 \(4 steps"])
        assert_close(os.path.join(d, "serial.h5"), os.path.join(d, "mpi.h5"),
                     "material fields, periodic y and z, grid %s, %d ranks" % (grid or "auto", a.np))
        assert_same_material(d, "serial.h5", "mpi.h5", "grid %s, %d ranks" % (grid or "auto", a.np))
    # ADI_PARALLEL_IO=0: the fields read by independent hyperslab reads instead.
    os.environ["ADI_PARALLEL_IO"] = "0"
    try:
        mpirun(a, a.np, ["run", "case.yaml", "--set", "output.file=mpi.h5", "--overwrite"], cwd=d,
               match=[r"output +mpi\.h5 \(4 steps"])
    finally:
        del os.environ["ADI_PARALLEL_IO"]
    assert_close(os.path.join(d, "serial.h5"), os.path.join(d, "mpi.h5"),
                 "material fields read independently (ADI_PARALLEL_IO=0), %d ranks" % a.np)
    assert_same_material(d, "serial.h5", "mpi.h5", "ADI_PARALLEL_IO=0, %d ranks" % a.np)
    # A restart continues the output (collectively where it was written so):
    # the sidecar still lists the material the file holds.
    mpirun(a, a.np, ["run", "case.yaml", "--set", "output.file=cont.h5", "--set", "time.steps=20",
                     "--set", "checkpoint.file=ck.h5", "--set", "checkpoint.every=10", "-q"], cwd=d)
    mpirun(a, a.np, ["run", "case.yaml", "--set", "output.file=cont.h5", "--set", "checkpoint.file=ck.h5",
                     "--set", "checkpoint.every=10", "--restart", "ck.h5"], cwd=d,
           match=[r"restart +from ck\.h5 at step 20"])
    assert_close(os.path.join(d, "serial.h5"), os.path.join(d, "cont.h5"),
                 "material fields, restarted at step 20, %d ranks" % a.np)
    assert_same_material(d, "serial.h5", "cont.h5", "restarted at step 20, %d ranks" % a.np)
    T.write(os.path.join(d, "bad.yaml"), MATERIAL_CASE % dict(k="bad.h5"))
    out = mpirun(a, a.np, ["run", "bad.yaml", "--set", "output.file=bad_out.h5"], cwd=d, rc=3, timeout=60,
                 match=[r"conductivity field holds nan at node \(i, j, k\) = \(36, 28, 22\)"])
    T.check(not os.path.exists(os.path.join(d, "bad_out.h5")), "an output was written for a bad input")
    T.check(len(re.findall(r"holds nan at node", out)) == 1, "expected one message naming the node:\n" + out)


def restart(a):
    other = 2 if a.np != 2 else 3
    ref = case(a, "restart_ref", bc=MIXED, ck=20)
    serial(a, ["run", "case.yaml", "--set", "output.file=serial.h5", "--quiet"], cwd=ref)
    mpirun(a, a.np, ["run", "case.yaml", "-q"], cwd=ref)
    # The same rank count: bit for bit the uninterrupted distributed run.
    d = case(a, "restart_same", bc=MIXED, ck=20)
    mpirun(a, a.np, ["run", "case.yaml", "--set", "time.steps=20", "-q"], cwd=d)
    with h5py.File(os.path.join(d, "ck.h5"), "r") as f:
        T.check(f.attrs["step"] == 20, "checkpoint step %s" % f.attrs["step"])
    mpirun(a, a.np, ["run", "case.yaml", "--restart", "ck.h5"], cwd=d, match=[r"restart +from ck\.h5 at step 20"])
    T.assert_same_fields(os.path.join(d, "out.h5"), os.path.join(ref, "out.h5"),
                         "restart on %d ranks vs uninterrupted" % a.np)
    # Another rank count (and the checkpoint's own config): round-off.
    d2 = case(a, "restart_other", bc=MIXED, ck=20)
    mpirun(a, a.np, ["run", "case.yaml", "--set", "time.steps=20", "-q"], cwd=d2)
    mpirun(a, other, ["run", "--restart", "ck.h5", "--set", "time.steps=40", "-q"], cwd=d2)
    assert_close(os.path.join(ref, "serial.h5"), os.path.join(d2, "out.h5"),
                 "%d ranks, then %d ranks after the restart, vs serial" % (a.np, other))


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


def signal_one_rank(a):
    # Long enough to be stopped mid-run, short enough in simulated time that
    # the mode stays well above round-off (t = 0.06 s).
    ref = case(a, "signal_ref", bc=MIXED, dt="2e-5", steps=3000, every=500, log=100)
    d = case(a, "signal", bc=MIXED, dt="2e-5", steps=3000, every=500, log=100)
    tag = "signal-%d-%d" % (os.getpid(), a.np)
    env = mpi_env()
    env["ADI_TEST_TAG"] = tag
    cmd = mpi_cmd(a, a.np, ["run", "case.yaml"])  # ranks on this host inherit ADI_TEST_TAG
    print("$ (cd %s && %s) &" % (d, " ".join(cmd)), flush=True)
    p = subprocess.Popen(cmd, cwd=d, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    T.wait_for_line(p, r"\] step [0-9]+/3000", timeout=120)
    pids = rank_pids(tag)
    T.check(len(pids) == a.np, "found %d rank processes, expected %d" % (len(pids), a.np))
    victim = pids[-1]
    print("SIGTERM to one rank only (pid %d of %s)" % (victim, pids), flush=True)
    os.kill(victim, signal.SIGTERM)
    rc, out = T.finish(p, timeout=120)
    T.check(rc == 75, "expected exit 75, got %d" % rc)
    T.check("SIGTERM received: stopping after step" in out, "no stop message")
    with h5py.File(os.path.join(d, "ck.h5"), "r") as f:
        step = int(f.attrs["step"])
    T.check(0 < step < 3000, "checkpoint at step %d" % step)
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        T.check(f.attrs["status"] == "interrupted", "output status %r" % f.attrs["status"])
    other = 2 if a.np != 2 else 3
    mpirun(a, other, ["run", "--restart", "ck.h5", "-q"], cwd=d, timeout=300,
           match=[r"restart +from ck\.h5 at step %d" % step])
    serial(a, ["run", "case.yaml", "-q"], cwd=ref, timeout=300)
    assert_close(os.path.join(ref, "out.h5"), os.path.join(d, "out.h5"),
                 "stopped on %d ranks, finished on %d, vs serial" % (a.np, other))


KILL_CASE = dict(bc=MIXED, dt="2e-3", steps=12, every=1, ck=4, gzip=0)


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


def kill(a):
    T.check(a.parallel_hdf5, "the kill part tests collective writes: run it in a parallel HDF5 build")
    ref_dir = case(a, "kill_ref", **KILL_CASE)
    mpirun(a, a.np, ["run", "case.yaml", "-q"], cwd=ref_dir)
    ref = T.fields(os.path.join(ref_dir, "out.h5"))
    injected = lost = 0
    for suffix in ("out.h5", "ck.h5.tmp"):
        d = case(a, "kill_count_" + suffix, **KILL_CASE)
        counts = os.path.join(d, "counts")
        p = mpirun_env(a, a.np, ["run", "case.yaml", "-q"], d,
                       {"LD_PRELOAD": a.shim, "ADI_KILL_ON_WRITE": suffix + ":0", "ADI_WRITE_COUNT_FILE": counts})
        T.check(p.returncode == 0, "counting run failed: %s" % p.stderr)
        n = max(int(line.split()[1]) for line in open(counts).read().splitlines())
        T.check(n > 0, "no write to %s seen: the fault library is not active" % suffix)
        for k in range(1, n + 1, a.stride):
            mode = "torn" if (k // a.stride) % 2 else "clean"  # alternate: half the points torn
            spec = "%s:%d%s" % (suffix, k, ":torn" if mode == "torn" else "")
            d = case(a, "kill_%s_%d" % (suffix, k), **KILL_CASE)
            p = mpirun_env(a, a.np, ["run", "case.yaml", "-q"], d, {"LD_PRELOAD": a.shim, "ADI_KILL_ON_WRITE": spec})
            T.check(p.returncode != 0, "%s: expected the job to be killed, it ended normally" % spec)
            injected += 1
            out = os.path.join(d, "out.h5")
            problems = []
            if os.path.exists(out):
                r = subprocess.run([a.adi3d, "recover", "out.h5"], cwd=d, env=T.env(), capture_output=True, text=True,
                                   timeout=60)
                T.check(r.returncode == 0, "adi3d recover failed: %s" % r.stderr)
                try:
                    got = T.fields(out)
                    for s_ in xmf_steps(os.path.join(d, "out.xmf")):
                        if s_ not in got:
                            problems.append("step %d listed in out.xmf is missing" % s_)
                        elif not np.array_equal(got[s_], ref[s_]):
                            problems.append("step %d differs from the uninterrupted run" % s_)
                except Exception as e:  # noqa: BLE001 - any failure to read is a lost file
                    problems.append("out.h5 does not read back: %s" % e)
            if problems:
                lost += 1
                print("LOST after a kill at %s: %s" % (spec, "; ".join(problems)), flush=True)
            # Continue as a requeued job would: all of it bit for bit.
            cont = ["run", "case.yaml", "-q"] + (["--restart", "ck.h5"] if os.path.exists(os.path.join(d, "ck.h5"))
                                                 else ["--overwrite"])
            q = mpirun_env(a, a.np, cont, d, {})
            T.check(q.returncode == 0, "%s: continuing failed (exit %d): %s" % (spec, q.returncode, q.stderr))
            got = T.fields(out)
            T.check(sorted(got) == sorted(ref), "%s: steps %s after continuing" % (spec, sorted(got)))
            for s_ in ref:
                T.check(np.array_equal(got[s_], ref[s_]), "%s: step %d not bit-identical" % (spec, s_))
            T.check(not os.path.exists(out + ".journal"), "journal left after a clean run")
        print("%s: %d kill points, every %d-th tested" % (suffix, n, a.stride), flush=True)
    print("faults injected: %d, files lost: %d" % (injected, lost), flush=True)
    T.check(lost == 0, "%d files lost" % lost)


def errors(a):
    d = case(a, "errors")
    out = mpirun(a, a.np, ["run", "case.yaml", "--set", "parallel.grid=[1, 1, %d]" % (a.np + 1)], cwd=d, rc=2,
                 match=[r"parallel\.grid: process grid 1 x 1 x %d has %d ranks, the run has %d" %
                        (a.np + 1, a.np + 1, a.np)])
    T.check(out.count("adi3d: error:") == 1, "the error is printed %d times" % out.count("adi3d: error:"))
    T.write(os.path.join(d, "out.h5"), "not yours")
    out = mpirun(a, a.np, ["run", "case.yaml"], cwd=d, rc=3, match=[r"output file 'out\.h5' exists"])
    T.check(out.count("adi3d: error:") == 1, "the error is printed %d times" % out.count("adi3d: error:"))
    # Ranks that would not talk to each other refuse to run the case N times over.
    os.environ["ADI_MPI"] = "0"
    try:
        mpirun(a, a.np, ["run", "case.yaml", "--overwrite"], cwd=d, rc=6,
               match=[r"started as one of %d MPI ranks, but MPI was not started" % a.np])
    finally:
        del os.environ["ADI_MPI"]


def disagree_inputs(a):
    # Ranks started in different folders, or reading different field files
    # under the same names (issue #54): they hung, then failed with a
    # misleading message. Now refused at start-up, naming what differs.
    import h5py as h5
    for what in ("folder", "fields"):
        d = os.path.join(a.work, "inputs_" + what)
        dirs = [os.path.join(d, "r%d" % r) for r in range(a.np)]
        for r, sub in enumerate(dirs):
            os.makedirs(sub)
            T.write(os.path.join(sub, "case.yaml"),
                    "grid: {nx: 9, ny: 7, nz: 6}\nmaterial: {conductivity: {file: k.h5, dataset: /K}, heat_capacity: 1}\n"
                    "boundary: insulated\ninitial: {value: 1}\ntime: {dt: 0.01, steps: 4}\nbackend: cpu\n"
                    "output: {file: out.h5, every: 2}\n")
            with h5.File(os.path.join(sub, "k.h5"), "w") as f:
                f.create_dataset("K", data=np.full((6, 7, 9), 1.0 + r))
        flags = shlex.split(a.mpiflags)
        if what == "folder":  # every rank in its own folder: its own config and field file
            cmd = [a.mpiexec] + flags
            for r, sub in enumerate(dirs):
                cmd += ([":"] if r else []) + [a.npflag, "1", "-wdir", sub, a.adi3d, "run", "case.yaml"]
            cwd = d
            expect = r"differs in the working folder \(rank %d: \S+/r%d; rank 0: \S+/r0\)" % (a.np - 1, a.np - 1)
        else:  # one folder, each rank its own copy of the config and field (the same names inside)
            cmd = [a.mpiexec] + flags
            for r, sub in enumerate(dirs):
                cmd += ([":"] if r else []) + [a.npflag, "1", a.adi3d, "run", "r%d/case.yaml" % r]
            cwd = d
            expect = r"differs in the input file r%d/case\.yaml" % (a.np - 1)
        print("$ (cd %s && %s)" % (cwd, " ".join(cmd)), flush=True)
        p = subprocess.run(cmd, cwd=cwd, env=mpi_env(), capture_output=True, text=True, timeout=60)
        out = p.stdout + p.stderr
        print(out, flush=True)
        T.check(p.returncode == 2, "%s: expected exit code 2, got %d" % (what, p.returncode))
        T.check(re.search(r"adi3d: error: the MPI ranks were started with different runs: .*" + expect, out),
                "%s: no message naming the difference" % what)
        T.check(out.count("adi3d: error:") == 1, "%s: the error is printed %d times" % (what, out.count("adi3d: error:")))
        for sub in dirs:
            T.check(sorted(os.listdir(sub)) == ["case.yaml", "k.h5"], "%s: files written: %s" % (what, os.listdir(sub)))


def checks(a):
    # Under mpirun as in one process (issue #54): --dry-run makes the run's
    # checks (a NaN in a field: exit 3, as the run), and a restart of another
    # problem is refused (exit 2), each with one message and nothing written.
    import h5py as h5
    d = os.path.join(a.work, "checks")
    os.makedirs(d)
    k = np.full((6, 7, 9), 2.0)
    k[3, 2, 1] = np.nan
    with h5.File(os.path.join(d, "k.h5"), "w") as f:
        f.create_dataset("K", data=k)
        f.create_dataset("good", data=np.full((6, 7, 9), 2.0))
    base = ("grid: {nx: 9, ny: 7, nz: 6}\nmaterial: {conductivity: {file: k.h5, dataset: /%s}, heat_capacity: 3}\n"
            "boundary: insulated\ninitial: {value: 1}\ntime: {dt: 0.01, steps: 8}\nbackend: cpu\n"
            "output: {file: out.h5, every: 2}\ncheckpoint: {file: ck.h5, every: 4}\n")
    T.write(os.path.join(d, "nan.yaml"), base % "K")
    for dry in (["--dry-run"], []):
        out = mpirun(a, a.np, ["run", "nan.yaml"] + dry, cwd=d, rc=3,
                     match=[r"k\.h5:/K: the conductivity field holds nan at node \(i, j, k\) = \(1, 2, 3\)"])
        T.check(out.count("adi3d: ") == 1, "the error is printed %d times" % out.count("adi3d: "))
        T.check(sorted(os.listdir(d)) == ["k.h5", "nan.yaml"], "files written: %s" % os.listdir(d))
    T.write(os.path.join(d, "good.yaml"), base % "good")
    mpirun(a, a.np, ["run", "good.yaml", "-q", "--set", "time.steps=4"], cwd=d)
    with open(os.path.join(d, "out.h5"), "rb") as f:
        before = f.read()
    out = mpirun(a, a.np, ["run", "good.yaml", "--restart", "ck.h5", "--set", "material.heat_capacity=4"], cwd=d, rc=2,
                 match=[r"ck\.h5: cannot continue this run from the checkpoint: material\.heat_capacity differs: "
                        r"checkpoint 3, config 4"])
    T.check(out.count("adi3d: error:") == 1, "the error is printed %d times" % out.count("adi3d: error:"))
    with open(os.path.join(d, "out.h5"), "rb") as f:
        T.check(f.read() == before, "a refused restart changed the output")


def disagree(a):
    # Ranks started with different runs (issue #14): another grid, another
    # number of steps, another output, another ADI_* setting on one rank.
    # They hung until killed; now every rank stops at start-up with exit 2
    # and one message, before any file is written.
    variants = [
        ("grid", ["--set", "grid.nx=35"], []),
        ("steps", ["--set", "time.steps=41"], []),
        ("output", ["--set", "output.file=other.h5"], []),
        ("environment", [], ["-x", "ADI_PARALLEL_IO=0"]),
    ]
    for what, args, env in variants:
        d = case(a, "disagree_" + what)
        flags = shlex.split(a.mpiflags)
        cmd = [a.mpiexec] + flags + [a.npflag, "1", a.adi3d, "run", "case.yaml"]
        for _ in range(a.np - 1):
            cmd += [":", a.npflag, "1"] + env + [a.adi3d, "run", "case.yaml"] + args
        print("$ (cd %s && %s)" % (d, " ".join(cmd)), flush=True)
        p = subprocess.run(cmd, cwd=d, env=mpi_env(), capture_output=True, text=True, timeout=60)
        out = p.stdout + p.stderr
        print(out, flush=True)
        T.check(p.returncode == 2, "%s: expected exit code 2, got %d" % (what, p.returncode))
        T.check(re.search(r"adi3d: error: the MPI ranks were started with different runs: %d of %d ranks \(the "
                          r"highest: rank %d\) differ from rank 0" % (a.np - 1, a.np, a.np - 1), out),
                "%s: no message naming the ranks" % what)
        T.check(out.count("adi3d: error:") == 1, "%s: the error is printed %d times" % (what, out.count("adi3d: error:")))
        T.check(sorted(os.listdir(d)) == ["case.yaml"], "%s: files written: %s" % (what, os.listdir(d)))


def stuck_collective(a):
    # One rank hangs before a collective write (ADI_FAULT_STALL_RANK, as a
    # rank stuck on a full disk): the others waited for ever in the
    # collective call or the agreement around it. Now they stop after
    # ADI_COLLECTIVE_TIMEOUT with exit 3 and a message, and the output is
    # the last complete step (it opens).
    T.check(a.parallel_hdf5, "the stuck_collective part tests collective writes: run it in a parallel HDF5 build")
    d = case(a, "stuck")
    p = mpirun_env(a, a.np, ["run", "case.yaml"], d,
                   {"ADI_FAULT_STALL_RANK": str(a.np - 1), "ADI_COLLECTIVE_TIMEOUT": "3"}, timeout=120)
    out = p.stdout + p.stderr
    print(out, flush=True)
    T.check(p.returncode == 3, "expected exit code 3, got %d" % p.returncode)
    T.check(re.search(r"adi3d: \[rank [0-9]+\] error: the collective write of step 0 to out\.h5 did not complete on "
                      r"every rank within 3 s \(ADI_COLLECTIVE_TIMEOUT\)", out), "no timeout message")
    T.check(not os.path.exists(os.path.join(d, "out.h5")), "a file under the final name without a complete step")


def slurm(a):
    d = case(a, "slurm", bc=MIXED, dt="2e-5", steps=3000, every=500, log=100)
    job = os.path.join(a.source, "examples", "slurm_mpi_job.sh")
    bindir = os.path.join(d, "bin")
    os.makedirs(bindir)
    fake = os.path.join(bindir, "scontrol")  # records how it was called
    T.write(fake, '#!/bin/sh\necho "$@" >> "%s"\n' % os.path.join(d, "scontrol.log"))
    os.chmod(fake, stat.S_IRWXU)
    env = mpi_env()
    env.update(PATH=bindir + os.pathsep + env["PATH"], ADI3D=a.adi3d, LAUNCHER=a.mpiexec,
               MPIRUN_FLAGS="%s %d %s" % (a.npflag, a.np, a.mpiflags), SLURM_JOB_ID="4343", SLURM_SUBMIT_DIR=d,
               CKPT="job.ckpt.h5", SLURM_CPUS_PER_TASK="1")
    print("$ slurm_mpi_job.sh case.yaml &", flush=True)
    p = subprocess.Popen(["bash", job, "case.yaml"], cwd=d, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    T.wait_for_line(p, r"\] step [0-9]+/3000", timeout=120)
    os.kill(p.pid, signal.SIGUSR1)  # --signal=B:USR1 signals the batch script
    rc, out = T.finish(p)
    T.check(rc == 0, "the job script should exit 0 after requeueing, got %d" % rc)
    T.check("checkpointed to job.ckpt.h5, requeueing" in out, "no requeue message")
    T.check("SIGUSR1 received: stopping after step" in out, "the ranks did not stop on SIGUSR1")
    T.check(open(os.path.join(d, "scontrol.log")).read().strip() == "requeue 4343", "scontrol was not asked")
    env["SLURM_RESTART_COUNT"] = "1"
    p = subprocess.run(["bash", job, "case.yaml"], cwd=d, env=env, capture_output=True, text=True, timeout=300)
    print(p.stdout + p.stderr, flush=True)
    T.check(p.returncode == 0 and "continuing from job.ckpt.h5 (restart 1)" in p.stdout and "finished" in p.stdout,
            "the requeued job did not finish")
    ref = case(a, "slurm_ref", bc=MIXED, dt="2e-5", steps=3000, every=500, log=100)
    serial(a, ["run", "case.yaml", "-q"], cwd=ref, timeout=300)
    assert_close(os.path.join(ref, "out.h5"), os.path.join(d, "out.h5"), "requeued MPI job vs serial")


FULL_CASE = """grid: {nx: 48, ny: 40, nz: 36}
diffusivity: 1.0
boundary: dirichlet
time: {dt: 1.0e-5, steps: 20}
initial: %(initial)s
domain: {lx: 1, ly: 1, lz: 1}
backend: cpu
output: {file: %(out)s, every: 5, compression: %(gzip)d}
checkpoint: {file: %(ck)s, every: %(ck_every)d}
"""


def full_disk(a):
    """mpirun onto a full file system (issue #54): every rank ends within
    seconds (not ADI_COLLECTIVE_TIMEOUT's 600) with exit 3 and "No space
    left on device", collective and gathered output, at the first step, at a
    later one, at a checkpoint, and where the disk fills inside HDF5
    (incompressible data, compressed: the space check before the write lets
    it through); no rank crashes in MPI_Finalize (it did: exit 139). A real
    full disk: a small tmpfs, mounted in a private mount namespace (unshare:
    root, or a user namespace elsewhere); skipped (exit 77) where neither is
    allowed."""
    if os.environ.get("ADI_TEST_IN_MOUNT_NS") != "1":
        import sys
        env = dict(os.environ, ADI_TEST_IN_MOUNT_NS="1")
        me = [sys.executable] + sys.argv
        tries = [["unshare", "--mount", "--propagation", "private"],
                 ["unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"]]
        for pre in tries:
            if shutil.which("unshare") is None:
                break
            if subprocess.run(pre + ["true"], capture_output=True).returncode != 0:
                continue
            print("$ " + " ".join(pre + me), flush=True)
            p = subprocess.run(pre + me, env=env)
            raise SystemExit(p.returncode)
        print("SKIPPED: a full file system needs a private mount namespace (unshare --mount, or a user namespace), "
              "which this machine does not allow", flush=True)
        raise SystemExit(77)
    # A step is 48 x 40 x 36 float64 = 540 KiB; the space check asks for it
    # (plus 64 KiB) before each write, or for 320 KiB of a compressed one:
    # random data (a step compressed: about 460 KiB) in 900k leaves about 400 KiB after the first step, enough
    # for the check and not for the write, which then fails inside HDF5.
    scenarios = [
        # (name, tmpfs size, ADI_PARALLEL_IO, gzip, initial, output, checkpoint)
        ("collective, first step", "200k", "1", 0, "{value: 1}", "full/out.h5", ("ck.h5", 0)),
        ("collective, a later step", "1400k", "1", 0, "{value: 1}", "full/out.h5", ("ck.h5", 0)),
        ("gathered, a later step", "1400k", "0", 0, "{value: 1}", "full/out.h5", ("ck.h5", 0)),
        ("collective, the checkpoint", "300k", "1", 0, "{value: 1}", "out.h5", ("full/ck.h5", 5)),
        ("gathered, the checkpoint", "300k", "0", 0, "{value: 1}", "out.h5", ("full/ck.h5", 5)),
        ("collective, inside HDF5", "900k", "1", 1, "{file: rand.h5, dataset: /u}", "full/out.h5", ("ck.h5", 0)),
        ("gathered, inside HDF5", "900k", "0", 1, "{file: rand.h5, dataset: /u}", "full/out.h5", ("ck.h5", 0)),
    ]
    for name, size, pio, gzip, initial, out_file, (ck, ck_every) in scenarios:
        if pio == "1" and not a.parallel_hdf5:
            continue
        d = os.path.join(a.work, name.replace(",", "").replace(" ", "_"))
        os.makedirs(os.path.join(d, "full"))
        T.write(os.path.join(d, "case.yaml"), FULL_CASE % dict(initial=initial, gzip=gzip, out=out_file, ck=ck,
                                                                ck_every=ck_every))
        with h5py.File(os.path.join(d, "rand.h5"), "w") as f:
            f.create_dataset("u", data=np.random.default_rng(7).random((36, 40, 48)))
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", os.path.join(d, "full")],
                           capture_output=True, text=True)
        if m.returncode != 0:
            print("SKIPPED: cannot mount a tmpfs here: " + m.stderr.strip(), flush=True)
            raise SystemExit(77)
        try:
            start = time.time()
            p = mpirun_env(a, a.np, ["run", "case.yaml", "--force"], d, {"ADI_PARALLEL_IO": pio}, timeout=120)
            took = time.time() - start
            out = p.stdout + p.stderr
            print("--- %s (%s, ADI_PARALLEL_IO=%s): exit %d after %.1f s\n%s" % (name, size, pio, p.returncode, took,
                                                                              out), flush=True)
            T.check(p.returncode == 3, "%s: expected exit code 3, got %d" % (name, p.returncode))
            T.check(took < 30, "%s: the job took %.1f s to end" % (name, took))
            T.check(re.search(r"adi3d: (\[rank [0-9]+\] )?error: .*No space left on device", out),
                    "%s: no adi3d message naming 'No space left on device'" % name)
            T.check("Segmentation fault" not in out and "signal 11" not in out, "%s: a rank crashed" % name)
            left = os.listdir(os.path.join(d, "full"))
            print("left on the full file system: %s" % sorted(left), flush=True)
            if "out.h5.journal" in left:  # as a kill leaves it: recover undoes the unfinished write,
                # once there is room again (it works on a copy)
                subprocess.run(["mount", "-o", "remount,size=8m", os.path.join(d, "full")], check=True)
                T.run(a, ["recover", "full/out.h5"], cwd=d)
            if "out.h5" in left:
                T.fields(os.path.join(d, "full", "out.h5"))  # it opens and its steps read back
            if "inside HDF5" in name:  # past the space check: the failure is the library's
                T.check(re.search(r"HDF5: (file write failed|unable to|.*No space left)", out) or
                        "failed on this rank" in out, "%s: the write did not fail inside HDF5" % name)
            if "checkpoint" in name:
                T.check(re.search(r"checkpoint 'full/ck\.h5'", out), "%s: the checkpoint is not named" % name)
        finally:
            subprocess.run(["umount", "-l", os.path.join(d, "full")])


PROBE_CASE = """grid: {nx: 19, ny: 14, nz: 11}
domain: {lx: 1.8, ly: 1.4, lz: 1.0}
material: {conductivity: {file: k.h5, dataset: /K}, heat_capacity: 2.0}
source: {power_density: 3.0}
boundary: {x: {lo: dirichlet, hi: {type: convective, h: 4, ambient: 1}}, y: periodic, z: {lo: {type: neumann, flux: 2}, hi: insulated}}
time: {dt: 5e-3, steps: 24}
initial: {value: 0.5}
output: {file: out.h5, every: 8, fields: [u, heat_flux]}
probes:
  points: {node: [0.9, 0.7, 0.5], middle: [0.93, 0.65, 0.35], wrap: [0.3, 1.37, 0.8], face: [1.8, 0.0, 0.0]}
  every: 5
  csv: true
"""


def probes(a):
    d = os.path.join(a.work, "probes")
    os.makedirs(d, exist_ok=True)
    z, y, x = np.meshgrid(np.arange(11), np.arange(14), np.arange(19), indexing="ij")
    with h5py.File(os.path.join(d, "k.h5"), "w") as f:
        f["K"] = 1.0 + 5.0 * (x > 9) + np.cos(y) ** 2 + 0.1 * z
    T.write(os.path.join(d, "case.yaml"), PROBE_CASE)
    serial(a, ["run", "case.yaml", "--set", "output.file=serial.h5", "--quiet"], cwd=d)
    grids = [None, "[1, %d, 1]" % a.np, "[1, 1, %d]" % a.np]  # x lines are never split
    envs = [{}]
    if a.np > 1 and a.parallel_hdf5:
        envs.append({"ADI_PARALLEL_IO": "0"})
    for gi, grid in enumerate(grids):
        for e in envs:
            name = "mpi_%d_%d" % (gi, len(e))
            args = ["run", "case.yaml", "--set", "output.file=%s.h5" % name]
            args += ["--set", "parallel.grid=" + grid] if grid else []
            os.environ.update(e)
            try:
                mpirun(a, a.np, args, cwd=d, match=[r"4 probes recorded every 5 steps"])
            finally:
                for k in e:
                    del os.environ[k]
            what = "%d ranks, grid %s%s" % (a.np, grid or "auto", " (gathered)" if e else "")
            assert_close(os.path.join(d, "serial.h5"), os.path.join(d, name + ".h5"), what)
            with h5py.File(os.path.join(d, "serial.h5"), "r") as fs, h5py.File(os.path.join(d, name + ".h5"), "r") as fm:
                for p in ("node", "middle", "wrap", "face"):
                    rs, rm = fs["probes"][p][()], fm["probes"][p][()]
                    T.check(list(rs["step"]) == list(rm["step"]) == [0, 5, 10, 15, 20, 24],
                            "%s: %s steps %s" % (what, p, list(rm["step"])))
                    scale = np.max(np.abs(rs["value"]))
                    T.check(np.max(np.abs(rs["value"] - rm["value"])) <= 1e-12 * scale,
                            "%s: probe %s %s, serial %s" % (what, p, rm["value"], rs["value"]))
                for s in ("000000", "000008", "000016", "000024"):
                    qs, qm = fs["steps"][s]["heat_flux"][()], fm["steps"][s]["heat_flux"][()]
                    scale = np.max(np.abs(qs))
                    T.check(qs.shape == qm.shape and np.max(np.abs(qs - qm)) <= 1e-11 * scale,
                            "%s: heat flux of step %s differs from the serial run's by %.3e" %
                            (what, s, np.max(np.abs(qs - qm)) / scale))
                    # The probe at node (9, 7, 5) is the written field there, bit for bit.
                    row = fm["probes/node"][()]
                    hit = row[row["step"] == int(s)]
                    if len(hit):
                        T.check(hit["value"][0] == fm["steps"][s]["u"][5, 7, 9], "%s: node probe at step %s" % (what, s))
            with open(os.path.join(d, name + ".probes.csv")) as f:
                T.check(len(f.read().splitlines()) == 7, "%s: the CSV does not hold 6 rows" % what)


def heat_flows(a):
    """diagnostics.heat_flows (test_heat_flows.py's case: every face kind, a
    K field, a source table) on a.np ranks, split unevenly (y 9 -> 5 + 4 on
    two ranks; the periodic z 11 -> 4 + 4 + 3, a ring, on three): every row
    of /diagnostics/heat_flows and of the CSV equals the serial run's to
    1e-12 of the row's largest term, and balances to 1e-10."""
    import test_heat_flows as HF
    d = os.path.join(a.work, "heat_flows")
    HF.make_case(d)
    serial(a, ["run", "case.yaml", "--set", "output.file=serial.h5", "--set", "checkpoint.file=serial.ck.h5",
               "--quiet"], cwd=d)
    grid = {2: ["--set", "parallel.grid=[1, 2, 1]"], 3: ["--set", "parallel.grid=[1, 1, 3]"]}.get(a.np, [])
    mpirun(a, a.np, ["run", "case.yaml", "--set", "output.file=mpi.h5", "--set", "checkpoint.file=mpi.ck.h5"] + grid,
           cwd=d, match=[r"heat flows +at step 40", r"heat flows +CSV mpi\.heat_flows\.csv"])
    _, _, s_rows = HF.read_table(os.path.join(d, "serial.h5"))
    cols, _, m_rows = HF.read_table(os.path.join(d, "mpi.h5"))
    T.check(s_rows.shape == m_rows.shape and np.array_equal(s_rows[:, :2], m_rows[:, :2]),
            "steps and times differ: %s vs %s" % (m_rows[:, :2], s_rows[:, :2]))
    worst = 0.0
    for r, q in zip(m_rows, s_rows):
        scale = np.max(np.abs(q[2:10]))
        worst = max(worst, np.max(np.abs(r[2:10] - q[2:10])) / scale)
        T.check(abs(r[10]) <= 1e-10 * scale, "step %d: residual %.3e of %.3e" % (r[0], r[10], scale))
    T.check(worst <= 1e-12, "%d ranks: the flows differ from the serial run's by %.3e" % (a.np, worst))
    with open(os.path.join(d, "mpi.heat_flows.csv")) as f:
        csv_rows = np.array([[float(x) for x in l.split(",")] for l in f if l[0].isdigit()])
    T.check(np.array_equal(csv_rows, m_rows), "the CSV differs from the HDF5 table")
    print("heat flows, %d ranks: %d rows agree with the serial run to %.3e" % (a.np, len(m_rows), worst))
    if a.np > 1 and a.parallel_hdf5:  # the gathered output (rank 0 writes): the same rows
        os.environ["ADI_PARALLEL_IO"] = "0"
        try:
            mpirun(a, a.np, ["run", "case.yaml", "--set", "output.file=gathered.h5", "--set",
                             "checkpoint.file=gathered.ck.h5"] + grid, cwd=d)
        finally:
            del os.environ["ADI_PARALLEL_IO"]
        T.check(np.array_equal(HF.read_table(os.path.join(d, "gathered.h5"))[2], m_rows),
                "gathered output: the rows differ from the collective run's")


STEADY_CASE = """grid: {nx: 13, ny: 11, nz: 9}
domain: {lx: 0.04, ly: 0.035, lz: 0.012}
material: {conductivity: {file: k.h5, dataset: /K}, heat_capacity: 2.0e6}
source: {power_density: 3.0e6}
boundary: {z: {lo: {type: convective, h: 2000, ambient: 30}, hi: {type: convective, h: 15, ambient: 25}}, x: {lo: {type: neumann, flux: 500}, hi: insulated}, y: insulated}
diagnostics: {heat_flows: true}
"""


def steady(a):
    """solve: steady on a.np ranks (uneven splits) equals the serial solve to
    1e-9 of the range; time.stop_rate stops at the same step as serially
    (its checks fall on steps fixed by the schedule)."""
    d = os.path.join(a.work, "steady")
    os.makedirs(d, exist_ok=True)
    z, y, x = np.meshgrid(np.arange(9), np.arange(11), np.arange(13), indexing="ij")
    with h5py.File(os.path.join(d, "k.h5"), "w") as f:
        f["K"] = 20.0 + 180.0 * (z > 5) + 30.0 * np.cos(x) ** 2
    T.write(os.path.join(d, "s.yaml"), STEADY_CASE + "solve: steady\n")
    T.write(os.path.join(d, "m.yaml"), STEADY_CASE + "initial: {value: 25}\nscheme: {type: douglas, theta: 1}\n"
            "time: {dt: 20, steps: 100000, stop_rate: 1.0e-5}\n")
    serial(a, ["run", "s.yaml", "--set", "output.file=serial.h5", "--quiet"], cwd=d)
    p = serial(a, ["run", "m.yaml", "--set", "output.file=mserial.h5"], cwd=d)
    stop = re.search(r"stopped +at step ([0-9]+)", p.stdout)
    T.check(stop, "the serial march did not stop by time.stop_rate")
    grids = [None, "[1, %d, 1]" % a.np, "[1, 1, %d]" % a.np]
    for grid in grids:
        extra = ["--set", "parallel.grid=" + grid] if grid else []
        tag = (grid or "auto").replace(" ", "").replace("[", "").replace("]", "").replace(",", "x")
        out = mpirun(a, a.np, ["run", "s.yaml", "--set", "output.file=s_%s.h5" % tag] + extra, cwd=d,
                     match=[r"steady +converged in [0-9]+ sweeps", r"residual +[-+0-9.e]+ \([0-9.e+-]+ of the largest term\)"])
        with h5py.File(os.path.join(d, "serial.h5"), "r") as fs, h5py.File(os.path.join(d, "s_%s.h5" % tag), "r") as fm:
            us, um = fs["steps/000000/u"][()], fm["steps/000000/u"][()]
            rng = float(np.max(us) - np.min(us))
            T.check(np.max(np.abs(us - um)) <= 1e-9 * rng, "%d ranks, grid %s: steady differs by %.3e of the range" %
                    (a.np, grid, np.max(np.abs(us - um)) / rng))
            T.check(fm["steady"].attrs["converged"] == 1, "not converged")
        out = mpirun(a, a.np, ["run", "m.yaml", "--set", "output.file=m_%s.h5" % tag] + extra, cwd=d,
                     match=[r"stopped +at step %s " % stop.group(1)])
    print("steady and the stop rule agree with the serial run on %d ranks" % a.np)


PARTS = {"steady": steady, "heat_flows": heat_flows, "full_disk": full_disk, "checks": checks, "disagree_inputs": disagree_inputs, "materials": materials, "disagree": disagree, "stuck_collective": stuck_collective, "outputs": outputs, "restart": restart, "signal": signal_one_rank, "errors": errors, "slurm": slurm, "probes": probes,
         "kill": kill}


def body():
    def extra(p):
        p.add_argument("--part", required=True, choices=sorted(PARTS))
        p.add_argument("--np", type=int, required=True)
        p.add_argument("--mpiexec", required=True)
        p.add_argument("--npflag", default="-n")
        p.add_argument("--mpiflags", default="")
        p.add_argument("--parallel-hdf5", dest="parallel_hdf5", type=int, default=0,
                       help="1: the build writes collectively (parallel HDF5)")
        p.add_argument("--shim", help="the kill_on_write library (part kill)")
        p.add_argument("--stride", type=int, default=1, help="part kill: test every N-th write")
    a = T.parse_args(extra)
    PARTS[a.part](a)


T.main(body)
