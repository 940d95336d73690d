"""Faults of `mpirun -np N adi3d run` (label mpi), compared with the serial run
where a run finishes; parts of test_mpi.py, which dispatches them:

  signal    SIGTERM to one rank only: all ranks stop at the same step, exit
            75 with a checkpoint; a restart on another rank count finishes;
  kill      kill -9 inside the collective writes of the output and the
            checkpoint (parallel HDF5; tests/integration/fault/kill_on_write.c
            at every N-th write of the job): after `adi3d recover` every step
            the .xmf lists reads back bit for bit, and the run continued from
            what is left ends bit for bit the uninterrupted run;
  errors    a process grid that does not match the rank count (exit 2) and
            an existing output (exit 3): one message, every rank ends cleanly;
  slurm     examples/slurm_mpi_job.sh outside Slurm (LAUNCHER=mpirun, a fake
            scontrol): SIGUSR1 to the job script (what --signal=B:USR1 does)
            reaches every rank, the job asks to be requeued, the requeued
            job finishes, and the result is the serial run's;
  disagree, disagree_inputs, checks, stuck_collective, full_disk: ranks
            started with different runs, folders or field files, the dry
            run's checks, a collective write that never returns, a disk
            that fills: one message and a documented exit on every rank.
"""
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import time

import h5py
import numpy as np

import adi_testlib as T
from mpi_testlib import MIXED, case, mpi_env, mpi_cmd, mpirun, serial, assert_close, rank_pids, mpirun_env, xmf_steps


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


PARTS = {"full_disk": full_disk, "checks": checks, "disagree_inputs": disagree_inputs, "disagree": disagree, "stuck_collective": stuck_collective, "signal": signal_one_rank, "errors": errors, "slurm": slurm, "kill": kill}
