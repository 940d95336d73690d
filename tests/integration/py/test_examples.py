"""The scripts in examples/, run as a user would:

  grid_and_plot   make_initial_grid.py -> adi3d run examples/initial_from_file.yaml
                  -> plot.py slices (a PNG); the scripts refuse an existing
                  output (the grid, the PNG, adi3d's output) unless
                  --overwrite, and leave no temporary behind
  convergence     adi3d validate --json -> plot.py convergence (a PNG)
  slurm           slurm_job.sh with stand-in srun and scontrol: SIGUSR1 to the script ->
                  exit 75 -> "scontrol requeue <job id>"; the requeued script
                  continues with --restart to the end; the output equals an
                  uninterrupted run's bit for bit
"""

import os
import shutil
import signal
import stat
import subprocess
import sys
import time

import h5py
import numpy as np

import adi_testlib as T

PY = "/usr/bin/python3"


def sh(cmd, cwd, env=None, rc=0):
    print("$ (cd %s && %s)" % (cwd, " ".join(cmd)), flush=True)
    p = subprocess.run(cmd, cwd=cwd, env=env or T.env(), capture_output=True, text=True, timeout=300)
    print(p.stdout + p.stderr, flush=True)
    T.check(p.returncode == rc, "%s: exit %d, expected %d" % (cmd[0], p.returncode, rc))
    return p


def children(pid):
    """Process ids whose parent is pid (from /proc, no procps needed)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    stat_line = f.read()
            except OSError:
                continue
            # "pid (comm) state ppid ...": comm may hold spaces, so split after the last ')'.
            if int(stat_line.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(d)
    return out


def check_png(path, min_bytes=5000):
    T.check(os.path.exists(path), "%s was not written" % path)
    with open(path, "rb") as f:
        head = f.read(8)
    T.check(head == b"\x89PNG\r\n\x1a\n", "%s is not a PNG" % path)
    T.check(os.path.getsize(path) > min_bytes, "%s is suspiciously small" % path)


def grid_and_plot(a):
    w = a.work
    ex = os.path.join(a.source, "examples")
    shutil.copy(os.path.join(ex, "initial_from_file.yaml"), w)
    sh([PY, os.path.join(ex, "make_initial_grid.py"), os.path.join(w, "grid.h5"), "--shape", "33", "25", "17"], w)
    with h5py.File(os.path.join(w, "grid.h5"), "r") as f:
        T.check(f["u"].shape == (17, 25, 33), "make_initial_grid.py wrote shape %s" % (f["u"].shape,))
    T.run(a, ["run", "initial_from_file.yaml", "--backend", "cpu", "--set", "time.t_end=1.0", "--quiet"], cwd=w,
          match=[r"grid +33 x 25 x 17 nodes, h = \(0\.0625, 0\.0625, 0\.0625\) m"])
    with h5py.File(os.path.join(w, "from_file.h5"), "r") as f:
        steps = sorted(f["steps"])
        T.check(steps == ["000000", "000010", "000020"], "output steps %s (every_time 0.5 s, dt 0.05 s)" % steps)
        u0, u1 = f["steps/000000/u"][()], f["steps/000020/u"][()]
        T.check(u1.max() < u0.max() and abs(u1[0, 0, 0] - 1.0) == 0, "the hot spot should decay, faces stay 1")
    sh([PY, os.path.join(ex, "plot.py"), "slices", "from_file.h5", "-o", "slices.png"], w)
    check_png(os.path.join(w, "slices.png"))
    sh([PY, os.path.join(ex, "plot.py"), "slices", "from_file.h5", "--step", "3"], w, rc=1)

    # What exists is not replaced without --overwrite: the grid, the PNG, an
    # adi3d output named as a script's output by mistake.
    def content(name):
        with open(os.path.join(w, name), "rb") as f:
            return f.read()
    for cmd, name in (([PY, os.path.join(ex, "make_initial_grid.py"), "grid.h5", "--shape", "9", "9", "9"], "grid.h5"),
                      ([PY, os.path.join(ex, "make_wall.py"), "from_file.h5"], "from_file.h5"),
                      ([PY, os.path.join(ex, "plot.py"), "slices", "from_file.h5", "-o", "slices.png"], "slices.png"),
                      ([PY, os.path.join(ex, "plot.py"), "slices", "from_file.h5", "-o", "grid.h5"], "grid.h5")):
        before = content(name)
        p = sh(cmd, w, rc=1)
        T.check("%s exists: pass --overwrite to replace it" % name in p.stderr, "no refusal: " + p.stderr)
        T.check(content(name) == before, name + " changed")
    before = content("slices.png")
    sh([PY, os.path.join(ex, "plot.py"), "slices", "from_file.h5", "--step", "0", "-o", "slices.png", "--overwrite"], w)
    check_png(os.path.join(w, "slices.png"))
    T.check(content("slices.png") != before, "--overwrite did not replace slices.png (step 0, not 20)")
    sh([PY, os.path.join(ex, "make_initial_grid.py"), "grid.h5", "--shape", "9", "9", "9", "--overwrite"], w)
    with h5py.File(os.path.join(w, "grid.h5"), "r") as f:
        T.check(f["u"].shape == (9, 9, 9), "--overwrite did not replace grid.h5")
    left = [f for f in os.listdir(w) if f.startswith(".tmp.")]
    T.check(not left, "temporaries left: %s" % left)


def physics(a):
    """The material and boundary examples: make_wall.py -> layered_wall.yaml
    (fields in the output and the .xmf), convective_cooling.yaml (against
    the lumped-capacitance law), periodic.yaml, plate_2d.yaml (2D output)."""
    w = a.work
    ex = os.path.join(a.source, "examples")
    for f in ("layered_wall.yaml", "convective_cooling.yaml", "periodic.yaml", "plate_2d.yaml"):
        shutil.copy(os.path.join(ex, f), w)
    sh([PY, os.path.join(ex, "make_wall.py"), os.path.join(w, "wall.h5")], w)
    T.run(a, ["run", "layered_wall.yaml", "--backend", "cpu", "--set", "time.t_end=1800", "--quiet"], cwd=w)
    with h5py.File(os.path.join(w, "wall_run.h5"), "r") as f:
        T.check(sorted(f["material"]) == ["conductivity", "heat_capacity", "source"],
                "material fields in the output: %s" % list(f["material"]))
        K = f["material/conductivity"][()]
        T.check(K.shape == (17, 21, 57) and K.min() == 0.035 and K.max() == 15.0, "conductivity field as written")
        u = f["steps/%s/u" % sorted(f["steps"])[-1]][()]
        T.check(u.max() > 283.15, "the heated block warms the wall")
    xmf = open(os.path.join(w, "wall_run.xmf")).read()
    for name in ("conductivity", "heat_capacity", "source"):
        T.check('Attribute Name="%s"' % name in xmf, "the .xmf lists %s" % name)

    T.run(a, ["run", "convective_cooling.yaml", "--backend", "cpu", "--set", "time.t_end=1200", "--quiet"], cwd=w)
    with h5py.File(os.path.join(w, "cooling.h5"), "r") as f:
        u = f["steps/%s/u" % sorted(f["steps"])[-1]][()]
    # Lumped capacitance (Biot number 0.01): u - u_inf = (u0 - u_inf) exp(-h (A / V) t / c).
    lumped = 293.15 + 280.0 * np.exp(-20.0 * 80.0 * 1200.0 / 3.6e6)
    print("convective cooling at t = 1200 s: mean %.3f K, lumped capacitance %.3f K" % (u.mean(), lumped))
    T.check(abs(u.mean() - lumped) < 0.01 * (lumped - 293.15), "mean temperature far from the lumped law")

    T.run(a, ["run", "periodic.yaml", "--backend", "cpu", "--set", "time.t_end=100", "--quiet"], cwd=w)
    with h5py.File(os.path.join(w, "periodic.h5"), "r") as f:
        u = f["steps/%s/u" % sorted(f["steps"])[-1]][()]
    T.check(u.shape == (9, 16, 40), "periodic output shape %s" % (u.shape,))
    T.check(np.allclose(u, u[:, :1, :1], rtol=0, atol=1e-9), "a uniform source keeps x and y uniform")
    T.check(np.all(u[0] == 293.15) and u[-1].max() > 293.15, "z_lo fixed, the interior heated")

    T.run(a, ["run", "plate_2d.yaml", "--backend", "cpu", "--set", "time.t_end=300", "--quiet"], cwd=w)
    with h5py.File(os.path.join(w, "plate_2d.h5"), "r") as f:
        u = f["steps/%s/u" % sorted(f["steps"])[-1]][()]
    T.check(u.shape == (1, 41, 81), "2D output shape %s" % (u.shape,))
    T.check(u[0, :, 0].min() > u[0, :, 40].max() > 293.15 and np.all(u[0, :, -1] == 293.15),
            "the flux heats the x = 0 edge, the x = Lx edge stays at 293.15")
    T.check('Dimensions="1 41 81"' in open(os.path.join(w, "plate_2d.xmf")).read(), "the .xmf states the 2D grid")


def convergence(a):
    w = a.work
    T.run(a, ["validate", "--backend", "cpu", "--levels", "8,16,32", "--json", "v.json"], cwd=w)
    sh([PY, os.path.join(a.source, "examples", "plot.py"), "convergence", "v.json", "-o", "conv.png"], w)
    check_png(os.path.join(w, "conv.png"))


def slurm(a):
    """slurm_job.sh with stand-in srun and scontrol on PATH: Slurm's
    --signal=B:USR1 signals the batch script, which passes it on; the
    checkpoint is named after the config; only a requeue continues it; a
    complete run retires it; a fresh submission that finds one stops."""
    w = a.work
    job = os.path.join(a.source, "examples", "slurm_job.sh")
    T.write(os.path.join(w, "case.yaml"), """grid: {nx: 45, ny: 37, nz: 29}
time: {dt: 1.0e-4, steps: 1200}
backend: cpu
output: {file: out.h5, every: 250}
log: {every: 50}
""")
    bindir = os.path.join(w, "bin")
    os.makedirs(bindir)
    fake = os.path.join(bindir, "scontrol")  # records how it was called
    T.write(fake, '#!/bin/sh\necho "$@" >> "%s"\n' % os.path.join(w, "scontrol.log"))
    os.chmod(fake, stat.S_IRWXU)
    srun = os.path.join(bindir, "srun")  # drops its options, becomes the task (exec: same pid)
    T.write(srun, '#!/bin/bash\necho "srun $*" >> "%s"\nwhile [[ "$1" == --* ]]; do shift; done\nexec "$@"\n'
            % os.path.join(w, "srun.log"))
    os.chmod(srun, stat.S_IRWXU)
    env = T.env()
    env.update(PATH=bindir + os.pathsep + env["PATH"], ADI3D=a.adi3d, SLURM_JOB_ID="4242",
               SLURM_SUBMIT_DIR=w, SLURM_CPUS_PER_TASK="1")
    print("$ slurm_job.sh case.yaml &", flush=True)
    p = subprocess.Popen(["bash", job, "case.yaml"], cwd=w, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    T.wait_for_line(p, r"\] step [0-9]+/1200")
    os.kill(p.pid, signal.SIGUSR1)  # --signal=B:USR1@600 signals the batch script
    rc, out = T.finish(p)
    T.check(rc == 0, "the job script should exit 0 after requeueing, got %d" % rc)
    T.check("checkpointed to case.ckpt.h5, requeueing" in out, "no requeue message (checkpoint named after the config)")
    T.check("SIGUSR1" in out, "adi3d did not see the signal")
    T.check(open(os.path.join(w, "scontrol.log")).read().strip() == "requeue 4242", "scontrol was not asked to requeue")
    T.check(open(os.path.join(w, "srun.log")).read().startswith("srun --ntasks=1"), "not launched through srun")
    T.check(os.path.exists(os.path.join(w, "case.ckpt.h5")), "no checkpoint")
    # A new submission (not a requeue) that finds the checkpoint stops and says why.
    fresh = dict(env, SLURM_JOB_ID="5000")
    p = sh(["bash", job, "case.yaml"], w, env=fresh, rc=2)
    T.check("case.ckpt.h5 exists from an earlier job and this job is not a requeue" in p.stderr, "no stale warning")
    # The requeued job: same script, same arguments.
    env["SLURM_RESTART_COUNT"] = "1"
    p = sh(["bash", job, "case.yaml"], w, env=env)
    T.check("continuing from case.ckpt.h5 (restart 1)" in p.stdout and "finished" in p.stdout, "no restart")
    T.check("checkpoint retired to case.final.ckpt.h5" in p.stdout, "the checkpoint was not retired")
    T.check(not os.path.exists(os.path.join(w, "case.ckpt.h5")) and os.path.exists(os.path.join(w, "case.final.ckpt.h5")),
            "checkpoint files after a complete run")
    with h5py.File(os.path.join(w, "out.h5"), "r") as f:
        T.check(f.attrs["status"] == "complete", "status %r" % f.attrs["status"])
        T.check(f["provenance"].attrs["slurm_job_id"] == "4242", "slurm job id %r" % f["provenance"].attrs["slurm_job_id"])
        T.check(f["provenance/restart_001"].attrs["slurm_job_id"] == "4242 restart 1", "restart provenance")
    ref = os.path.join(w, "ref")
    os.makedirs(ref)
    T.run(a, ["run", "../case.yaml", "--quiet"], cwd=ref, timeout=300)
    T.assert_same_fields(os.path.join(w, "out.h5"), os.path.join(ref, "out.h5"), "requeued job")
    # The case run again (a new job, --overwrite of its output): the first
    # retired checkpoint is kept, the new one takes the next free name.
    with open(os.path.join(w, "case.final.ckpt.h5"), "rb") as f:
        first = f.read()
    again = dict(env, SLURM_JOB_ID="6000", SLURM_RESTART_COUNT="0")
    p = sh(["bash", job, "case.yaml", "--overwrite", "--set", "checkpoint.every=600"], w, env=again)
    T.check("checkpoint retired to case.final.1.ckpt.h5" in p.stdout, "the second checkpoint: %s" % p.stdout)
    with open(os.path.join(w, "case.final.ckpt.h5"), "rb") as f:
        T.check(f.read() == first, "the first retired checkpoint was overwritten")
    # An array task with its own output runs beside the finished case.
    arr = dict(env, SLURM_ARRAY_TASK_ID="3", SLURM_RESTART_COUNT="0")
    p = sh(["bash", job, "case.yaml", "--set", "output.file=task3.h5", "--set", "time.steps=5"], w, env=arr)
    T.check("finished" in p.stdout, "array task run")
    T.check(not os.path.exists(os.path.join(w, "case.ckpt.h5")), "the array task used the case's checkpoint")
    # The naming rule itself: the script's lines, run on an array task's arguments.
    p = subprocess.run(["bash", "-c", 'set -- case.yaml --set output.file=res/a.h5; CONFIG=$1; shift; '
                        + _ckpt_rule(job) + '; echo "CKPT=$CKPT"'], cwd=w, env=dict(arr), capture_output=True,
                       text=True)
    T.check("CKPT=res/a.task3.ckpt.h5" in p.stdout, "naming rule gave %r" % p.stdout)
    # The MPI script (run by mpi_cli_slurm_np2) names, continues and retires
    # checkpoints with the same lines.
    mpi_job = os.path.join(a.source, "examples", "slurm_mpi_job.sh")
    T.check(_ckpt_rule(mpi_job) == _ckpt_rule(job), "the two job scripts name checkpoints differently")
    T.check(_retire_rule(mpi_job) == _retire_rule(job), "the two job scripts retire checkpoints differently")
    for text in ('if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]', 'mv -n "$CKPT" "$final"',
                 "#SBATCH --signal=B:USR1@600", "trap forward USR1 TERM"):
        T.check(text in open(mpi_job).read() and text in open(job).read(), "not in both job scripts: " + text)


def _retire_rule(job):
    """The lines that retire a finished checkpoint (from 'final=' to the
    message that it stays): the same in both job scripts."""
    lines = open(job).read().splitlines()
    a = next(i for i, l in enumerate(lines) if l.strip().startswith("final=${CKPT%.ckpt.h5}"))
    b = next(i for i, l in enumerate(lines) if "it stays $CKPT" in l)
    return "\n".join(lines[a:b + 1])


def _ckpt_rule(job):
    """The checkpoint naming lines of a job script (from 'stem=' to 'CKPT=')."""
    lines = open(job).read().splitlines()
    a = next(i for i, l in enumerate(lines) if l.startswith("stem=$(basename"))
    b = next(i for i, l in enumerate(lines) if l.startswith("CKPT=${CKPT:-"))
    return "\n".join(lines[a:b + 1])


def plot_edges(a):
    """plot.py on what users point it at (issue #15): a running job's file
    (held open for writing, HDF5 file locking on), a checkpoint, a thin slab,
    chosen planes; headless (Agg)."""
    w = a.work
    plot = os.path.join(a.source, "examples", "plot.py")
    T.write(os.path.join(w, "slab.yaml"), """grid: {nx: 41, ny: 31, nz: 3}
domain: {lx: 1.0, ly: 0.75, lz: 0.01}
time: {dt: 1.0e-4, steps: 4}
backend: cpu
output: {file: slab.h5, every: 2}
checkpoint: {file: slab.ckpt.h5, every: 4}
""")
    T.run(a, ["run", "slab.yaml", "--quiet"], cwd=w)
    # A writer holds the file open, as a running job does.
    with h5py.File(os.path.join(w, "slab.h5"), "a"):
        p = sh([PY, plot, "slices", "slab.h5", "--z", "0.01", "--x", "0.26", "-o", "slab.png"], w)
    check_png(os.path.join(w, "slab.png"))
    T.check("planes i = 10, j = 15, k = 2" in p.stdout, "planes chosen: %s" % p.stdout)
    T.check("stretched: y = 0.375 m, x = 0.25 m" in p.stdout, "thin slab panels not stretched: %s" % p.stdout)
    p = sh([PY, plot, "slices", "slab.ckpt.h5", "-o", "ck.png", "--unit", "degC"], w)
    check_png(os.path.join(w, "ck.png"))
    T.check("step 4," in p.stdout, "checkpoint step: %s" % p.stdout)
    p = sh([PY, plot, "slices", "slab.h5", "--z", "5"], w, rc=1)
    T.check("--z 5 is outside the grid" in p.stderr, "out-of-grid plane: %s" % p.stderr)


def paraview(a):
    """examples/render_slice.py under pvbatch (headless: xvfb-run where it is
    installed, else pvbatch's offscreen rendering). Without pvbatch the test
    cannot run: exit 77, which ctest reports as skipped, not passed."""
    pvbatch = shutil.which("pvbatch")
    if not pvbatch:
        print("SKIPPED: pvbatch is not installed (Debian: python3-paraview, paraview); the ParaView recipe is untested here")
        sys.exit(77)
    w = a.work
    T.write(os.path.join(w, "case.yaml"), """grid: {nx: 33, ny: 25, nz: 17}
time: {dt: 1.0e-4, steps: 20}
backend: cpu
output: {file: run.h5, every: 10}
""")
    T.run(a, ["run", "case.yaml", "--quiet"], cwd=w)
    script = os.path.join(a.source, "examples", "render_slice.py")
    cmd = [pvbatch, script, "run.xmf", "-o", "slice.png", "--axis", "z"]
    if shutil.which("xvfb-run"):
        cmd = ["xvfb-run", "-a"] + cmd
    else:
        cmd.insert(1, "--force-offscreen-rendering")
    p = sh(cmd, w)
    T.check("wrote slice.png (z = 0.5 m, t = 0.002 s)" in p.stdout, "render_slice.py: %s" % p.stdout)
    check_png(os.path.join(w, "slice.png"))
    sh(cmd[:-2] + ["--step", "10", "-o", "slice10.png"], w)
    check_png(os.path.join(w, "slice10.png"))


def user_guide(a):
    """Every ```sh block of docs/USER_GUIDE.md, in order, as written, in a
    scratch copy of the source tree's examples/ and configs/ (adi3d on PATH)."""
    import re
    w = a.work
    for d in ("examples", "configs"):
        shutil.copytree(os.path.join(a.source, d), os.path.join(w, d))
    guide = open(os.path.join(a.source, "docs", "USER_GUIDE.md")).read()
    blocks = re.findall(r"^```sh\n(.*?)^```", guide, flags=re.S | re.M)
    T.check(len(blocks) >= 6, "only %d sh blocks in the guide" % len(blocks))
    env = T.env()
    env["PATH"] = os.path.dirname(a.adi3d) + os.pathsep + env["PATH"]
    for b in blocks:
        p = sh(["bash", "-e", "-c", b], w, env=env)
        T.check("error" not in p.stderr.lower(), "a guide command printed an error:\n" + b)
    for f in ("block.h5", "block.xmf", "block.png", "block300.png", "from_checkpoint.png", "from_file.h5"):
        T.check(os.path.exists(os.path.join(w, f)), "the guide's commands did not make %s" % f)
    with h5py.File(os.path.join(w, "block.h5"), "r") as f:
        T.check(f.attrs["status"] == "complete" and "001200" in f["steps"], "the extended run did not reach 1200 s")


PARTS = {"user_guide": user_guide, "paraview": paraview, "plot_edges": plot_edges, "grid_and_plot": grid_and_plot, "convergence": convergence, "slurm": slurm, "physics": physics}


def body():
    a = T.parse_args(lambda p: p.add_argument("--part", required=True, choices=sorted(PARTS)))
    PARTS[a.part](a)


T.main(body)
