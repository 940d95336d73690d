"""The scripts in examples/, run as a user would:

  grid_and_plot   make_initial_grid.py -> adi3d run examples/initial_from_file.yaml
                  -> plot.py slices (a PNG); the scripts refuse an existing
                  output (the grid, the PNG, adi3d's output) unless
                  --overwrite, and leave no temporary behind
  convergence     adi3d validate --json -> plot.py convergence (a PNG)
  slurm           slurm_job.sh with stand-in srun and scontrol: SIGUSR1 to the script ->
                  exit 75 -> "scontrol requeue <job id>"; the requeued script
                  continues with --restart to the end; the output equals an
                  uninterrupted run's bit for bit; array tasks name their
                  files with %a
  plot_dims       plot.py on 1D, 2D (each flat axis) and periodic 3D outputs: a
                  line plot, one panel, three panels; the axes span the box;
                  the images are not blank (pixel statistics)
  paraview_dims   render_slice.py under pvbatch: each view of a 3D ramp in the
                  conventional orientation (read from the pixels), 2D outputs
                  drawn whole, renders back to back that never abort
  user_guide      every sh block of docs/USER_GUIDE.md and its Slurm console
                  blocks (stand-in sbatch), as written, in order
  user_guide_mpi  the guide's mpirun blocks (after the sh blocks before them)
  user_guide_paraview  the guide's pvbatch blocks (likewise)
  readme          the command lines of README.md: run as written, or listed with
                  the test or script that runs them

(examples/python_demo.py needs the Python extension: python/tests/test_python_demo.py
runs it, in the pytest stage of test.sh.)
"""

import os
import shutil
import signal
import stat
import subprocess
import sys

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


def image_stats(path):
    """(fraction of pixels that differ from the most common colour, the
    background; number of distinct colours among them) of a PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    img = mpimg.imread(path)[:, :, :3]
    q = np.round(img * 255).astype(np.int32)
    codes = (q[:, :, 0] << 16) | (q[:, :, 1] << 8) | q[:, :, 2]
    values, counts = np.unique(codes, return_counts=True)
    background = values[np.argmax(counts)]
    fg = codes != background
    return float(fg.mean()), int(len(np.unique(codes[fg]))), q, fg


def check_not_blank(path, min_fraction=0.1, min_colours=50):
    """A picture, not an empty canvas: enough pixels differ from the
    background and they hold many colours (a colour map, not a frame)."""
    check_png(path, min_bytes=2000)
    frac, colours, _, _ = image_stats(path)
    print("%s: %.1f %% of the pixels drawn, %d colours" % (os.path.basename(path), 100 * frac, colours))
    T.check(frac >= min_fraction and colours >= min_colours,
            "%s looks blank: %.1f %% of its pixels differ from the background, %d colours"
            % (path, 100 * frac, colours))


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


def die_stack(a):
    """make_die_stack.py -> die_stack.yaml (#56, the guide's stretched z): the
    nodes are the script's, the material interfaces midway between nodes of
    different materials, the source exactly 40 W, the heat flows balanced; the
    same stack with every z gap halved agrees at the junction to the
    discretisation error the guide states (about 0.02 K), not bit for bit."""
    w = a.work
    ex = os.path.join(a.source, "examples")
    shutil.copy(os.path.join(ex, "die_stack.yaml"), w)
    junction = {}
    for refine in (1, 2):
        name = "die_stack.h5" if refine == 1 else "die_stack_fine.h5"
        sh([PY, os.path.join(ex, "make_die_stack.py"), os.path.join(w, name), "--refine", str(refine)], w)
        out = "die_out_%d.h5" % refine
        p = T.run(a, ["run", "die_stack.yaml", "--backend", "cpu", "--set", "output.file=" + out,
                      "--set", "grid.z.coordinates.file=" + name, "--set", "material.regions.file=" + name,
                      "--set", "source.power_density.file=" + name],
                  cwd=w, match=[r"\(stretched\)", r"source +\+4\.000000e\+01", r"residual +[-+][0-9.]+e-1[0-9]"])
        with h5py.File(os.path.join(w, out), "r") as f, h5py.File(os.path.join(w, name), "r") as g:
            z = f["grid/z"][()]
            T.check(np.array_equal(z, g["z"][()]) and len(z) == (38 if refine == 1 else 74), "/grid/z: %s" % z)
            region = g["region"][:, 0, 0]
            for lo_id, hi_id, at in ((1, 2, 0.003), (2, 3, 0.0031)):
                k = int(np.argmax(region == hi_id))
                T.check(region[k - 1] == lo_id and abs(0.5 * (z[k - 1] + z[k]) - at) < 1e-15,
                        "the interface at %g m is not midway between nodes %d and %d" % (at, k - 1, k))
            junction[refine] = f["probes/junction"]["value"][-1]
    d = abs(junction[2] - junction[1])
    print("junction: %.4f C (38 z nodes), %.4f C (74): difference %.4f K" % (junction[1], junction[2], d))
    T.check(66.0 < junction[1] < 70.0 and 0.0 < d < 0.05, "junction temperatures %s" % junction)


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
    # An array task names its output with %a (the task's index) and runs
    # beside the finished case.
    arr = dict(env, SLURM_ARRAY_TASK_ID="3", SLURM_ARRAY_TASK_COUNT="4", SLURM_RESTART_COUNT="0")
    p = sh(["bash", job, "case.yaml", "--set", "output.file=task%a.h5", "--set", "time.steps=5"], w, env=arr)
    T.check("finished" in p.stdout and os.path.exists(os.path.join(w, "task3.h5")), "array task run")
    T.check(not os.path.exists(os.path.join(w, "case.ckpt.h5")), "the array task used the case's checkpoint")
    # An array whose tasks would all run the same case into the same files
    # (${SLURM_ARRAY_TASK_ID} expanded, empty, by the submitting shell) is
    # refused before it runs; %a outside an array too.
    for args, e, text in ((["--set", "output.file=case_.h5"], arr, "no '%a' in the arguments, so every task of the array"),
                          (["--set", "output.file=case_%a.h5"], dict(env, SLURM_RESTART_COUNT="0"),
                           "'%a' in the arguments stands for the array task, but this job is not a job array")):
        p = sh(["bash", job, "case.yaml"] + args, w, env=e, rc=2)
        T.check(text in p.stderr, "no refusal: %s" % p.stderr)
    T.check(not os.path.exists(os.path.join(w, "case_.h5")), "a refused array task ran")
    # An array of one task may run a case without %a.
    one = dict(arr, SLURM_ARRAY_TASK_COUNT="1")
    sh(["bash", job, "case.yaml", "--set", "output.file=single.h5", "--set", "time.steps=5"], w, env=one)
    # The templates run as they are on CPU nodes: no GPU asked for by an
    # #SBATCH line (sbatch --gpus=1 ... asks for one).
    for script in (job, os.path.join(a.source, "examples", "slurm_mpi_job.sh")):
        gpu = [l for l in open(script).read().splitlines() if l.startswith("#SBATCH") and "gpu" in l.lower()]
        T.check(not gpu, "%s asks for a GPU: %s" % (script, gpu))
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
    T.check(_array_rule(mpi_job) == _array_rule(job), "the two job scripts expand %a differently")
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


def _array_rule(job):
    """The lines that expand %a (from 'task=' to the 'set --' that applies it)."""
    lines = open(job).read().splitlines()
    a = next(i for i, l in enumerate(lines) if l.startswith("task=${SLURM_ARRAY_TASK_ID"))
    b = next(i for i, l in enumerate(lines) if l.startswith('set -- "${@//'))
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
    T.check("extent x 0 .. 1 m, y 0 .. 0.75 m, z 0 .. 0.01 m" in p.stdout, "axes drawn: %s" % p.stdout)
    T.check("stretched: y = 0.375 m, x = 0.25 m" in p.stdout, "thin slab panels not stretched: %s" % p.stdout)
    p = sh([PY, plot, "slices", "slab.ckpt.h5", "-o", "ck.png", "--unit", "degC"], w)
    check_png(os.path.join(w, "ck.png"))
    T.check("step 4," in p.stdout, "checkpoint step: %s" % p.stdout)
    p = sh([PY, plot, "slices", "slab.h5", "--z", "5"], w, rc=1)
    T.check("--z 5 is outside the grid" in p.stderr, "out-of-grid plane: %s" % p.stderr)


def paraview(a):
    """examples/render_slice.py under pvbatch, headless (no DISPLAY: the script
    starts an Xvfb of its own), as the user guide's section 6 runs it. Without
    pvbatch the test cannot run: exit 77, which ctest reports as skipped, not
    passed."""
    pvbatch = shutil.which("pvbatch")
    if not pvbatch:
        print("SKIPPED: pvbatch is not installed (Debian: apt-get install paraview python3-paraview xvfb); the "
              "ParaView recipe is untested here")
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
    env = T.env()
    env.pop("DISPLAY", None)
    p = sh(cmd, w, env=env)
    T.check("wrote slice.png (z = 0.5 m, t = 0.002 s; seen from +z: x to the right, y up)" in p.stdout,
            "render_slice.py: %s" % p.stdout)
    check_not_blank(os.path.join(w, "slice.png"))
    sh(cmd[:-2] + ["--step", "10", "-o", "slice10.png"], w, env=env)
    check_not_blank(os.path.join(w, "slice10.png"))


def plot_dims(a):
    """plot.py draws what each dimensionality asks for (issue #59): a line
    plot for 1D, one panel for 2D (whichever axis is flat), three panels for
    3D; the axes span the box exactly (boundary nodes on the faces, a
    periodic axis n spacings long); no image is blank."""
    w = a.work
    plot = os.path.join(a.source, "examples", "plot.py")
    cases = {
        "rod": ("grid: {nx: 101, ny: 1, nz: 1}\ndomain: {lx: 0.5, ly: 0.01, lz: 0.01}\n"
                "boundary: {x: {lo: {type: dirichlet, value: 373.15}, hi: insulated}}\n",
                r"1D: u along x, 101 nodes; extent x 0 \.\. 0\.5 m\)", (600, 1000)),
        "sheet_z": ("grid: {nx: 41, ny: 21, nz: 1}\ndomain: {lx: 0.2, ly: 0.1, lz: 0.002}\n"
                    "boundary: {x: {lo: {type: dirichlet, value: 373.15}, hi: insulated}, y: insulated}\n",
                    r"2D \(flat z\): one panel, the x-y plane; extent x 0 \.\. 0\.2 m, y 0 \.\. 0\.1 m\)",
                    (500, 1000)),
        "sheet_y": ("grid: {nx: 41, ny: 1, nz: 21}\ndomain: {lx: 0.2, ly: 0.002, lz: 0.1}\n"
                    "boundary: {x: {lo: {type: dirichlet, value: 373.15}, hi: insulated}, z: insulated}\n",
                    r"2D \(flat y\): one panel, the x-z plane; extent x 0 \.\. 0\.2 m, z 0 \.\. 0\.1 m\)",
                    (500, 1000)),
        "sheet_x": ("grid: {nx: 1, ny: 41, nz: 21}\ndomain: {lx: 0.002, ly: 0.2, lz: 0.1}\n"
                    "boundary: {y: {lo: {type: dirichlet, value: 373.15}, hi: insulated}, z: insulated}\n",
                    r"2D \(flat x\): one panel, the y-z plane; extent y 0 \.\. 0\.2 m, z 0 \.\. 0\.1 m\)",
                    (500, 1000)),
        "channel": ("grid: {nx: 40, ny: 16, nz: 9}\ndomain: {lx: 0.1, ly: 0.04, lz: 0.02}\n"
                    "source: {power_density: 5.0e4}\n"
                    "boundary: {x: periodic, y: periodic, z: {lo: {type: dirichlet, value: 293.15}, hi: insulated}}\n",
                    r"planes i = 20, j = 8, k = 4; extent x 0 \.\. 0\.1 m, y 0 \.\. 0\.04 m, z 0 \.\. 0\.02 m\)",
                    (1400, 1600)),
    }
    import re
    for name, (geometry, message, width) in cases.items():
        T.write(os.path.join(w, name + ".yaml"), geometry + "material: {conductivity: 50, heat_capacity: 3.6e6}\n"
                "initial: {value: 293.15}\ntime: {dt: 10, steps: 30}\nbackend: cpu\n"
                "output: {file: %s.h5, every: 10}\n" % name)
        T.run(a, ["run", name + ".yaml", "--quiet"], cwd=w)
        p = sh([PY, plot, "slices", name + ".h5", "-o", name + ".png"], w)
        T.check(re.search(message, p.stdout), "%s: plot.py said %r, expected %r" % (name, p.stdout, message))
        png = os.path.join(w, name + ".png")
        if name == "rod":
            # A line plot: mostly white, the line (matplotlib's C3, red) drawn.
            _, _, q, _ = image_stats(png)
            red = (q[:, :, 0] > 180) & (q[:, :, 1] < 80) & (q[:, :, 2] < 80)
            print("rod.png: %d red pixels" % red.sum())
            T.check(red.sum() > 2000, "rod.png: no line drawn (%d red pixels)" % red.sum())
        else:
            check_not_blank(png)
        import matplotlib.image as mpimg
        cols = mpimg.imread(png).shape[1]
        T.check(width[0] <= cols <= width[1], "%s.png is %d pixels wide, expected %s (panels)" % (name, cols, width))
    # Choosing a plane of a 2D output is refused, naming why.
    p = sh([PY, plot, "slices", "sheet_z.h5", "--x", "0.1", "-o", "no.png"], w, rc=1)
    T.check("--x: sheet_z.h5 is a 2D output (flat z): it is drawn whole" in p.stderr, p.stderr)


def _ramp_field(w, name, n, lengths):
    """A field u = x/lx + y/ly + z/lz (harmonic: Dirichlet faces that keep
    it make it steady), written as an initial field."""
    nx, ny, nz = n
    x = np.linspace(0, 1, nx) if nx > 1 else np.zeros(1)
    y = np.linspace(0, 1, ny) if ny > 1 else np.zeros(1)
    z = np.linspace(0, 1, nz) if nz > 1 else np.zeros(1)
    u = x[None, None, :] + y[None, :, None] + z[:, None, None]
    with h5py.File(os.path.join(w, name + "_init.h5"), "w") as f:
        f.create_dataset("u", data=u)
    faces = {"x": nx > 1, "y": ny > 1, "z": nz > 1}
    T.write(os.path.join(w, name + ".yaml"), """grid: {nx: %d, ny: %d, nz: %d}
domain: {lx: %g, ly: %g, lz: %g}
boundary: {%s}
initial: {file: %s_init.h5, dataset: /u}
time: {dt: 1.0e-4, steps: 2}
backend: cpu
output: {file: %s.h5, every: 1}
""" % (nx, ny, nz, lengths[0], lengths[1], lengths[2], ", ".join("%s: dirichlet" % k for k, v in faces.items() if v),
       name, name))


def _warmth(q, fg, axis, line):
    """Mean (red - blue) of the first and last fifth of the drawn pixels of
    the image's middle row (axis 'h') or column ('v', bottom first)."""
    H, W = fg.shape
    if axis == "h":
        idx = np.nonzero(fg[H // 2, :])[0]
        px = q[H // 2, idx]
    else:
        idx = np.nonzero(fg[:, W // 2])[0][::-1]  # bottom to top
        px = q[idx, W // 2]
    T.check(len(idx) > 50, "%s: the slice covers %d pixels of the middle %s" % (line, len(idx),
                                                                              "row" if axis == "h" else "column"))
    k = max(len(idx) // 5, 1)
    warm = px[:, 0] - px[:, 2]
    return float(warm[:k].mean()), float(warm[-k:].mean())


def paraview_dims(a):
    """render_slice.py under pvbatch (issue #59): each view of a 3D ramp
    u = x/lx + y/ly + z/lz is seen in the conventional orientation (ParaView's
    cool-to-warm map: the warm side is where u is high: right and up); 2D
    outputs (each flat axis) are drawn whole, not a blank cut; a 1D output is
    refused; ten renders back to back never abort. Skipped (exit 77) without
    pvbatch."""
    pvbatch = shutil.which("pvbatch")
    if not pvbatch:
        print("SKIPPED: pvbatch is not installed (Debian: apt-get install paraview python3-paraview xvfb)")
        sys.exit(77)
    w = a.work
    script = os.path.join(a.source, "examples", "render_slice.py")
    env = T.env()
    env.pop("DISPLAY", None)  # the script starts its own X server
    cases = [("ramp3d", (21, 17, 13), (1.0, 0.8, 0.6), ["z", "y", "x"]),
             ("ramp_flat_z", (21, 17, 1), (1.0, 0.8, 0.01), [None]),
             ("ramp_flat_y", (21, 1, 13), (1.0, 0.01, 0.6), [None]),
             ("ramp_flat_x", (1, 17, 13), (0.01, 0.8, 0.6), [None])]
    # Which coordinates lie along the picture's right and up, per view.
    right_up = {"z": "xy", "y": "xz", "x": "yz"}
    for name, n, lengths, axes in cases:
        _ramp_field(w, name, n, lengths)
        T.run(a, ["run", name + ".yaml", "--quiet"], cwd=w)
        for axis in axes:
            png = "%s_%s.png" % (name, axis or "default")
            p = sh([pvbatch, script, name + ".xmf", "-o", png] + (["--axis", axis] if axis else []), w, env=env)
            view = axis or "xyz"[[i for i in range(3) if n[i] == 1][0]]
            T.check("seen from %s" % {"z": "+z", "y": "-y", "x": "+x"}[view] in p.stdout, p.stdout)
            if axis is None:
                T.check("the 2D sheet" in p.stdout, "a 2D output is drawn whole: %s" % p.stdout)
            check_not_blank(os.path.join(w, png))
            _, _, q, fg = image_stats(os.path.join(w, png))
            for direction, label in (("h", "right"), ("v", "up")):
                lo, hi = _warmth(q, fg, direction, png)
                coord = right_up[view][0 if direction == "h" else 1]
                print("%s: warmth %.0f -> %.0f going %s (%s grows)" % (png, lo, hi, label, coord))
                T.check(hi > lo + 60, "%s: u should grow going %s (%s to the %s), the pixels say %.0f -> %.0f"
                        % (png, label, coord, label, lo, hi))
    # A cut of a 2D output along a live axis, and a 1D output: refused.
    p = sh([pvbatch, script, "ramp_flat_z.xmf", "-o", "no.png", "--axis", "x"], w, env=env, rc=1)
    T.check("is a 2D output (flat z): it is drawn whole with --axis z" in p.stderr, p.stderr)
    T.write(os.path.join(w, "rod.yaml"), "grid: {nx: 31, ny: 1, nz: 1}\ninitial: {value: 1}\n"
            "boundary: {x: insulated}\ntime: {dt: 1.0e-3, steps: 2}\nbackend: cpu\noutput: {file: rod.h5, every: 1}\n")
    T.run(a, ["run", "rod.yaml", "--quiet"], cwd=w)
    p = sh([pvbatch, script, "rod.xmf", "-o", "no.png"], w, env=env, rc=1)
    T.check("is a 1D output (flat y, z)" in p.stderr, p.stderr)
    T.check(not os.path.exists(os.path.join(w, "no.png")), "a refused render wrote no.png")
    # Back to back, with the script's own Xvfb and under xvfb-run -a: an Xvfb
    # that resets when its last client leaves made about one in five abort.
    runs = [[pvbatch, script, "ramp_flat_z.xmf", "-o", "again.png", "--overwrite"]] * 5
    if shutil.which("xvfb-run"):
        runs += [["xvfb-run", "-a", pvbatch, script, "ramp3d.xmf", "-o", "again.png", "--overwrite", "--axis", "y"]] * 5
    for cmd in runs:
        sh(cmd, w, env=env)


# ---- the user guide ----------------------------------------------------------

def guide_blocks(source):
    """The guide's fenced blocks in order: (language, text)."""
    import re
    guide = open(os.path.join(source, "docs", "USER_GUIDE.md")).read()
    return re.findall(r"^```(\w*)\n(.*?)^```", guide, flags=re.S | re.M)


def console_tool(text):
    """The program a console block's commands call (sbatch, mpirun, pvbatch):
    every line of a block calls the same one, and the test knows how to run it."""
    tools = {line.split()[0] for line in text.splitlines() if line.strip() and not line.startswith("#")}
    T.check(len(tools) == 1 and tools <= {"sbatch", "mpirun", "pvbatch"},
            "a console block of the guide that no test runs (one of sbatch, mpirun, pvbatch per block): %s" % text)
    return tools.pop()


def run_guide(a, tools):
    """Runs the guide's sh blocks and its console blocks of `tools`, in the
    guide's order, in a scratch copy of examples/ and configs/; returns
    [(language, text, completed process)]."""
    w = a.work
    for d in ("examples", "configs"):
        shutil.copytree(os.path.join(a.source, d), os.path.join(w, d))
    env = T.env()
    env["PATH"] = os.pathsep.join([os.path.dirname(a.adi3d), os.path.join(a.source, "tests", "integration", "bin"),
                                   env["PATH"]])
    env.pop("DISPLAY", None)
    # mpirun as root and with more ranks than this machine's cores (CI).
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_mpi_yield_when_idle="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", PRTE_MCA_rmaps_default_mapping_policy=":oversubscribe")
    done = []
    blocks = guide_blocks(a.source)
    T.check(sum(1 for lang, _ in blocks if lang == "sh") >= 6, "only a few sh blocks in the guide")
    for lang, text in blocks:
        if lang == "console":
            tool = console_tool(text)
            if tool not in tools:
                continue
        elif lang != "sh":
            continue
        p = sh(["bash", "-e", "-c", text], w, env=env)
        T.check("error" not in p.stderr.lower(), "a guide command printed an error:\n" + text)
        done.append((lang, text, p))
    return done


def _complete(path):
    with h5py.File(path, "r") as f:
        return f.attrs["status"], sorted(f["steps"])


def user_guide(a):
    """Every ```sh block of docs/USER_GUIDE.md and its Slurm ```console blocks
    (a stand-in sbatch: tests/integration/bin/sbatch), in order, as written,
    in a scratch copy of the source tree's examples/ and configs/ (adi3d on
    PATH); then what they should have made."""
    import re
    w = a.work
    done = run_guide(a, {"sbatch"})
    first = next(p for lang, text, p in done if "adi3d run block.yaml\n" in text)
    # The first example reads right: the error is a small fraction of the
    # solution, which has not decayed to nothing.
    m = re.search(r"error vs exact solution +max \S+ +rms \S+ +\(max relative ([0-9.e+-]+)\)", first.stdout)
    T.check(m and float(m.group(1)) < 1e-2, "the first example's summary: %s" % first.stdout)
    for f in ("block.h5", "block.xmf", "block.png", "block30.png", "from_checkpoint.png", "from_file.h5",
              "plate_2d.png"):
        T.check(os.path.exists(os.path.join(w, f)), "the guide's commands did not make %s" % f)
    for f in ("block.png", "block30.png", "from_checkpoint.png", "plate_2d.png", "cooling.png", "chip_regions.png",
              "power_device.png", "die_stack.png"):
        check_not_blank(os.path.join(w, f))
    # The die stack on its stretched z: the numbers the guide quotes.
    with h5py.File(os.path.join(w, "die_stack_out.h5"), "r") as f:
        j, b = f["probes/junction"]["value"][-1], f["probes/base"]["value"][-1]
        T.check(len(f["grid/z"]) == 38 and abs(j - 68.11) < 0.01 and abs(b - 39.89) < 0.01,
                "die stack: junction %.4f C, base %.4f C, %d z nodes" % (j, b, len(f["grid/z"])))
    # The power device with K(T), c(T): complete, heating at the junction
    # step after step, its hottest node in the die's top plane.
    status, steps = _complete(os.path.join(w, "power_device.h5"))
    T.check(status == "complete" and "000200" in steps, "power_device.h5: %s, steps %s" % (status, steps))
    with h5py.File(os.path.join(w, "power_device.h5"), "r") as f:
        junction = f["probes/junction"]["value"][()]
        top = f["steps/000200/u"][()]
    T.check(len(junction) >= 20 and np.all(np.diff(junction) > 0), "the junction does not heat up: %s" % junction)
    T.check(np.unravel_index(np.argmax(top), top.shape)[0] == top.shape[0] - 1, "the hottest node is not on top")
    # The extrapolated and predictor-corrector runs: the iteration's to the
    # scheme's error (measured 4.2e-5 K and 1.3e-6 K after 10 s).
    for name, tol in (("power_device_ex.h5", 2e-4), ("power_device_pc.h5", 1e-5)):
        with h5py.File(os.path.join(w, name), "r") as f:
            other = f["steps/000200/u"][()]
            T.check(np.abs(other - top).max() < tol and not np.array_equal(other, top),
                    "%s against the iteration: %g" % (name, np.abs(other - top).max()))
    # The chip by region is the chip by fields (the steady state does not
    # depend on c, the one property they give differently).
    with h5py.File(os.path.join(w, "chip_steady.h5"), "r") as fs, h5py.File(os.path.join(w, "chip_regions.h5"), "r") as fr:
        us, ur = fs["steps/000000/u"][()], fr["steps/000000/u"][()]
        T.check(np.abs(us - ur).max() <= 1e-9 * np.abs(us).max(),
                "chip_regions differs from chip_steady by %g" % np.abs(us - ur).max())
        T.check(np.array_equal(fs["material/conductivity"][()], fr["material/conductivity"][()]),
                "the conductivity by region is not make_chip.py's K field")
    status, steps = _complete(os.path.join(w, "block.h5"))
    T.check(status == "complete" and "000120" in steps, "the extended run did not reach 240 s: %s" % steps)
    # The Slurm lines: one job, an array over four configs, an array over
    # four outputs; each task its own files, all complete; the checkpoints
    # retired; the four cases differ (alpha 1e-5 .. 4e-5).
    T.check(any("sbatch --array" in text for _, text, _ in done), "no Slurm array line ran")
    finals = []
    for k in range(1, 5):
        for out in ("case_%d.h5" % k, "block_%d.h5" % k):
            status, steps = _complete(os.path.join(w, out))
            T.check(status == "complete" and steps[-1] == "000060", "%s: %s, steps %s" % (out, status, steps))
        with h5py.File(os.path.join(w, "case_%d.h5" % k), "r") as f:
            finals.append(float(f["steps/000060/u"][()].max()))
        T.check(os.path.exists(os.path.join(w, "case_%d.task%d.final.ckpt.h5" % (k, k))),
                "case %d's checkpoint was not retired: %s" % (k, sorted(os.listdir(w))))
    T.check(all(x > y for x, y in zip(finals, finals[1:])), "a larger alpha should cool faster: %s" % finals)
    T.check(_complete(os.path.join(w, "block_job.h5"))[0] == "complete", "the single Slurm job")
    T.check(not os.path.exists(os.path.join(w, "block_.h5")), "an array task wrote block_.h5")
    logs = [f for f in os.listdir(w) if re.match(r"adi3d-[0-9]+\.log$", f)]
    T.check(len(logs) == 9, "job logs (one a job and array task, #SBATCH --output): %s" % logs)


def user_guide_mpi(a):
    """The guide's mpirun blocks, after the sh blocks before them; the MPI run
    equals the single-process run of the same case to round-off."""
    w = a.work
    done = run_guide(a, {"mpirun"})
    T.check(any(lang == "console" for lang, _, _ in done), "no mpirun block in the guide")
    mpi, serial = T.fields(os.path.join(w, "block_mpi.h5")), T.fields(os.path.join(w, "block.h5"))
    T.check(sorted(mpi) == [0, 10, 20, 30, 40, 50, 60], "block_mpi.h5 steps %s" % sorted(mpi))
    for s in sorted(mpi):
        diff = float(np.max(np.abs(mpi[s] - serial[s])))
        T.check(diff <= 1e-12 * float(np.max(np.abs(serial[0]))), "step %d: MPI and serial differ by %g" % (s, diff))
    print("block_mpi.h5 equals block.h5 to round-off at steps %s" % sorted(mpi))


# README.md's command lines that this test does not run, and where they run.
# Every other command line of the README's blocks runs in `readme` as written.
README_ELSEWHERE = {
    "./run.sh": "CI: ./test.sh runs the same set-up (scripts/setup.sh) and the default case (cli_run_default)",
    "./test.sh": "CI runs it",
    "pip install -v .": "scripts/python_tests.sh (./test.sh's python stage), with --no-build-isolation",
    "pip install -v . --config-settings=cmake.define.ADI_ENABLE_CUDA=OFF": "first_day_cuda_off_message (the option and its message)",
    "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$HOME/opt/adi3d": "install_consumer",
    "cmake --build build -j && cmake --install build": "install_consumer",
    "mpirun -np 2 adi3d run case.yaml --backend cuda": "needs GPUs: scripts/mpi_gpu_check.sh",
    "mpirun -np 2 adi3d bench --size 1024 --precision float32 --backend cuda": "needs GPUs: scripts/mpi_gpu_check.sh",
    "adi3d bench --size 257 --size 513 --size 500x384x260 --precision both": "needs a GPU: scripts/gpu_sizes.sh",
}


def readme(a):
    """The command lines of README.md's blocks (adi3d, mpirun, sbatch, pip,
    cmake, ./...): each runs here as written (case.yaml: a small case of
    the test's own; sbatch: the stand-in) or is listed in README_ELSEWHERE
    with the test or script that runs it; a new command line that is neither
    fails the test."""
    import re
    w = a.work
    text = open(os.path.join(a.source, "README.md")).read()
    lines = []
    for lang, block in re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M):
        if lang not in ("", "sh", "console"):
            continue
        for line in block.splitlines():
            cmd = line.split("  #")[0].rstrip()
            if re.match(r"((adi3d|mpirun|sbatch|pip|cmake)\s|\./)", cmd + " ") and not cmd.startswith("adi3d:"):
                lines.append(cmd)
    T.check(len(lines) >= 10, "README command lines: %s" % lines)
    for d in ("examples", "configs"):
        shutil.copytree(os.path.join(a.source, d), os.path.join(w, d))
    T.write(os.path.join(w, "case.yaml"), "grid: {nx: 33, ny: 25, nz: 21}\ntime: {dt: 1.0e-4, steps: 10}\nbackend: cpu\n")
    env = T.env()
    env["PATH"] = os.pathsep.join([os.path.dirname(a.adi3d), os.path.join(a.source, "tests", "integration", "bin"),
                                   env["PATH"]])
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_mpi_yield_when_idle="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    ran = 0
    for cmd in lines:
        if cmd in README_ELSEWHERE:
            print("not run here: %s  (%s)" % (cmd, README_ELSEWHERE[cmd]))
            continue
        p = sh(["bash", "-e", "-c", cmd], w, env=env)
        T.check("error" not in p.stderr.lower(), "a README command printed an error: " + cmd)
        ran += 1
    T.check(ran >= 4, "only %d README command lines ran" % ran)
    stale = [c for c in README_ELSEWHERE if c not in lines]
    T.check(not stale, "README_ELSEWHERE lists lines the README no longer has: %s" % stale)


def user_guide_paraview(a):
    """The guide's pvbatch blocks, after the sh blocks before them: the
    pictures are written and not blank. Skipped (exit 77) without pvbatch."""
    if not shutil.which("pvbatch"):
        print("SKIPPED: pvbatch is not installed (Debian: apt-get install paraview python3-paraview xvfb); the "
              "guide's ParaView commands are untested here")
        sys.exit(77)
    w = a.work
    done = run_guide(a, {"pvbatch"})
    T.check(sum(1 for lang, _, _ in done if lang == "console") >= 2, "the guide's pvbatch blocks did not run")
    for f in ("slice.png", "slice_y.png", "slice_x.png", "plate_2d_paraview.png"):
        check_not_blank(os.path.join(w, f))


PARTS = {"readme": readme, "user_guide": user_guide, "user_guide_mpi": user_guide_mpi, "user_guide_paraview": user_guide_paraview,
         "paraview": paraview, "paraview_dims": paraview_dims, "plot_edges": plot_edges, "plot_dims": plot_dims,
         "grid_and_plot": grid_and_plot, "convergence": convergence, "slurm": slurm, "physics": physics,
         "die_stack": die_stack}


def body():
    a = T.parse_args(lambda p: p.add_argument("--part", required=True, choices=sorted(PARTS)))
    PARTS[a.part](a)


T.main(body)
