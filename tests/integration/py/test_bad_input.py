"""Bad input through the real CLI, one case per ctest test: each must give
one clear line naming the file and what was expected, a documented non-zero
exit code, and leave no output file behind (neither the .h5, nor its .xmf,
nor a temporary)."""

import os
import resource
import shutil

import h5py
import numpy as np

import adi_testlib as T

GOOD = """initial: {file: %(file)s, dataset: %(dataset)s}
time: {dt: 1.0e-3, steps: %(steps)d}
backend: cpu
output: {file: %(out)s, every: 5}
"""


def setup(a, file="grid.h5", dataset="/u", steps=10, out="out.h5", extra=""):
    T.write(os.path.join(a.work, "case.yaml"), GOOD % dict(file=file, dataset=dataset, steps=steps, out=out) + extra)


def good_grid(a, name="grid.h5", shape=(16, 20, 24), dtype=np.float64):
    rng = np.random.default_rng(7)
    with h5py.File(os.path.join(a.work, name), "w") as f:
        f.create_dataset("u", data=rng.uniform(0, 1, size=shape).astype(dtype))


def no_output_left(a, out="out.h5"):
    base = os.path.join(a.work, out)
    left = [p for p in (base, base + ".tmp", base[:-3] + ".xmf", base[:-3] + ".xmf.tmp") if os.path.exists(p)]
    T.check(not left, "files left behind: %s" % left)


def one_line_error(p):
    lines = [l for l in p.stderr.splitlines() if l.startswith("adi3d:")]
    T.check(len(lines) == 1, "expected one 'adi3d:' error line, got %s" % lines)


def run_bad(a, rc, match, args=("run", "case.yaml"), **kw):
    p = T.run(a, list(args), cwd=a.work, rc=rc, match=match, **kw)
    one_line_error(p)
    return p


def missing_file(a):
    setup(a, file="missing.h5")
    run_bad(a, 3, [r"adi3d: error: \./missing\.h5: cannot open the initial field \(No such file or directory\)|"
                   r"adi3d: error: missing\.h5: cannot open the initial field \(No such file or directory\)"])
    no_output_left(a)


def not_hdf5(a):
    T.write(os.path.join(a.work, "grid.h5"), "this is not HDF5\n" * 100)
    setup(a)
    run_bad(a, 3, [r"grid\.h5: not an HDF5 file"])
    no_output_left(a)


def dataset_missing(a):
    good_grid(a)
    setup(a, dataset="/temperature")
    run_bad(a, 3, [r"grid\.h5: dataset '/temperature' not found \(datasets in the file: /u\)"])
    no_output_left(a)


def wrong_rank(a):
    with h5py.File(os.path.join(a.work, "grid.h5"), "w") as f:
        f.create_dataset("u", data=np.zeros((20, 24)))
    setup(a)
    run_bad(a, 3, [r"grid\.h5:/u: expected a 3-D dataset of shape \(nz, ny, nx\), got rank 2 \(shape \(20, 24\)\)"])
    no_output_left(a)


def wrong_shape(a):
    good_grid(a)
    setup(a, extra="grid: {nx: 24, ny: 20, nz: 17}\n")
    run_bad(a, 2, [r"case\.yaml: grid: the config says nx, ny, nz = 24, 20, 17 but .*grid\.h5:/u has shape "
                   r"\(nz, ny, nx\) = \(16, 20, 24\)"])
    no_output_left(a)


def integer_dtype(a):
    with h5py.File(os.path.join(a.work, "grid.h5"), "w") as f:
        f.create_dataset("u", data=np.ones((16, 20, 24), dtype=np.int16))
    setup(a)
    run_bad(a, 3, [r"grid\.h5:/u: expected float32 or float64 values, got 16-bit integers"])
    no_output_left(a)


def nan_inf(a):
    for bad, word in ((np.nan, "NaN"), (np.inf, "Inf")):
        u = np.ones((16, 20, 24))
        u[3, 5, 7] = bad  # node (i, j, k) = (7, 5, 3)
        with h5py.File(os.path.join(a.work, "grid.h5"), "w") as f:
            f.create_dataset("u", data=u)
        setup(a)
        run_bad(a, 3, [r"grid\.h5:/u: holds %s at node \(i, j, k\) = \(7, 5, 3\)" % word])
        no_output_left(a)


def never_written(a):
    # A dataset created and never written (h5py: create_dataset(name, shape,
    # dtype)) read as zeros everywhere, without a word; contiguous and chunked.
    for chunks in (None, (4, 5, 6)):
        with h5py.File(os.path.join(a.work, "grid.h5"), "w") as f:
            f.create_dataset("u", shape=(16, 20, 24), dtype="f8", chunks=chunks)
        setup(a)
        run_bad(a, 3, [r"grid\.h5:/u: the dataset was created but never written"])
        no_output_left(a)
    # A fill value chosen on purpose is a uniform field: read.
    with h5py.File(os.path.join(a.work, "grid.h5"), "w") as f:
        f.create_dataset("u", shape=(16, 20, 24), dtype="f8", fillvalue=2.5)
    T.run(a, ["run", "case.yaml", "--set", "time.steps=1"], cwd=a.work)
    with h5py.File(os.path.join(a.work, "out.h5"), "r") as f:
        T.check(f["steps/000000/u"][3, 4, 5] == 2.5, "the fill value was not the initial field")


def unwritable_output(a):
    good_grid(a)
    T.write(os.path.join(a.work, "plainfile"), "x")
    # A folder that is a regular file: fails for root too (root ignores permission bits).
    setup(a, out="plainfile/out.h5")
    run_bad(a, 3, [r"output file 'plainfile/out\.h5': cannot create plainfile/\S*out\.h5\.(tmp|lock) \(Not a directory\)"])
    # A folder where nobody may create files.
    setup(a, out="/proc/adi3d_test_out.h5")
    run_bad(a, 3, [r"output file '/proc/adi3d_test_out\.h5': cannot create /proc/\S*adi3d_test_out\.h5\.(tmp|lock)"])
    # A folder that does not exist.
    setup(a, out="no/such/folder/out.h5")
    run_bad(a, 3, [r"cannot create no/such/folder/\S*out\.h5\.(tmp|lock) \(No such file or directory\)"])
    if os.geteuid() != 0:  # permission bits only mean something without root
        os.makedirs(os.path.join(a.work, "ro"))
        os.chmod(os.path.join(a.work, "ro"), 0o555)
        setup(a, out="ro/out.h5")
        run_bad(a, 3, [r"cannot create ro/\S*out\.h5\.(tmp|lock) \(Permission denied\)"])
    else:
        print("running as root: the chmod 555 variant is covered by the two above")


def fsize_limit(limit):
    def f():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return f


def disk_full_first_step(a):
    # 24 x 20 x 16 float64 = 61 KiB per step; at most 32 KiB per file: the
    # first step cannot be written (EFBIG, as on a full disk).
    good_grid(a)
    setup(a)
    run_bad(a, 3, [r"output file 'out\.h5', step 0: .*File too large.*; no output file was left"],
            preexec_fn=fsize_limit(32 * 1024))
    no_output_left(a)


def disk_full_later_step(a):
    # Room for step 0 but not for step 5: the file is moved aside, not left
    # half-written under its name, and the sidecar goes with it.
    good_grid(a)
    setup(a)
    run_bad(a, 3, [r"output file 'out\.h5', step 5: .*File too large.*; the file, back at its last complete step, "
                   r"was moved to out\.h5\.failed"], preexec_fn=fsize_limit(100 * 1024))
    no_output_left(a)
    # Not a corrupt file: what the failed write had changed was undone (the
    # journal), so it opens and holds step 0 intact.
    with h5py.File(os.path.join(a.work, "out.h5.failed"), "r") as f:
        T.check(sorted(f["steps"]) == ["000000"], "steps in out.h5.failed: %s" % sorted(f["steps"]))
        f["steps/000000/u"][()]
    T.check(not os.path.exists(os.path.join(a.work, "out.h5.journal")), "journal left behind")


def existing_output(a):
    good_grid(a)
    setup(a)
    T.run(a, ["run", "case.yaml", "--quiet"], cwd=a.work)
    out = os.path.join(a.work, "out.h5")
    before = open(out, "rb").read()
    run_bad(a, 3, [r"output file 'out\.h5' exists; pass --overwrite to replace it, or --restart CHECKPOINT"])
    T.check(open(out, "rb").read() == before, "the existing output was modified")
    T.run(a, ["run", "case.yaml", "--overwrite", "--set", "time.steps=5"], cwd=a.work)
    with h5py.File(out, "r") as f:
        T.check(sorted(f["steps"]) == ["000000", "000005"], "not replaced: %s" % sorted(f["steps"]))


def truncated_checkpoint(a):
    good_grid(a)
    setup(a, extra="checkpoint: {file: ck.h5, every: 5}\n")
    T.run(a, ["run", "case.yaml", "--quiet"], cwd=a.work)
    ck = os.path.join(a.work, "ck.h5")
    out = os.path.join(a.work, "out.h5")
    before = open(out, "rb").read()
    size = os.path.getsize(ck)
    with open(ck, "r+b") as f:
        f.truncate(size // 2)
    run_bad(a, 3, [r"ck\.h5: cannot open checkpoint: the file is truncated or damaged"],
            args=("run", "case.yaml", "--restart", "ck.h5"))
    T.check(open(out, "rb").read() == before, "the output was modified by a refused restart")
    # Not a checkpoint at all.
    run_bad(a, 3, [r"grid\.h5: not an adi3d checkpoint"], args=("run", "case.yaml", "--restart", "grid.h5"))
    run_bad(a, 3, [r"nothere\.h5: cannot open checkpoint \(No such file or directory\)"],
            args=("run", "case.yaml", "--restart", "nothere.h5"))


def restart_mismatch(a):
    good_grid(a)
    setup(a, extra="checkpoint: {file: ck.h5, every: 5}\n")
    T.run(a, ["run", "case.yaml", "--quiet"], cwd=a.work)
    out = os.path.join(a.work, "out.h5")
    before = open(out, "rb").read()
    # (Another dt is allowed: a new segment of the time axis, test_restart.py.)
    run_bad(a, 2, [r"adi3d: error: ck\.h5: cannot continue this run from the checkpoint: scheme\.theta differs: "
                   r"checkpoint 0\.5, config 0\.75"],
            args=("run", "case.yaml", "--restart", "ck.h5", "--set", "scheme.theta=0.75"))
    run_bad(a, 2, [r"ck\.h5: cannot continue this run from the checkpoint: precision differs"],
            args=("run", "case.yaml", "--restart", "ck.h5", "--precision", "float32"))
    run_bad(a, 2, [r"ck\.h5: cannot continue this run from the checkpoint: grid differs: checkpoint \[24, 20, 16\], "
                   r"config \[24, 20, 15\]"],
            args=("run", "case.yaml", "--restart", "ck.h5", "--set", "grid={nx: 24, ny: 20, nz: 15}"))
    T.check(open(out, "rb").read() == before, "the output was modified by a refused restart")


def too_big(a):
    T.write(os.path.join(a.work, "case.yaml"), """grid: {nx: 200000, ny: 200000, nz: 100000}
time: {dt: 1.0e-3, steps: 10}
backend: cpu
output: {file: out.h5, every: 5}
""")
    p = T.run(a, ["run", "case.yaml", "--dry-run"], cwd=a.work, rc=7,
              match=[r"# memory: one field .*TiB; host .* needed", r"DOES NOT FIT",
                     r"adi3d: not enough memory: the run needs .* of host memory .*nothing was allocated"])
    T.check("grid: {nx: 200000" in p.stdout, "dry run did not print the resolved config")
    run_bad(a, 7, [r"not enough memory: the run needs"], timeout=20)
    no_output_left(a)
    # And a run that fits says so.
    T.run(a, ["run", "case.yaml", "--dry-run", "--set", "grid={nx: 30, ny: 20, nz: 10}"], cwd=a.work,
          match=[r"# memory: one field 46\.88 KiB; host [0-9.]+ MiB needed \(estimate for the whole run, with a 32 MiB allowance\), .* available", r"# memory: fits"])


def fuzz_input(a, target, name):
    return os.path.join(a.source, "tests", "fuzz", "regressions", target, name)


def hdf5_crash_initial(a):
    # A file found by tests/fuzz that makes HDF5 1.10 read out of bounds
    # (h5py dies on it with SIGSEGV too): adi3d reads it in a child process
    # first, so the run stops with a message and exit 3. The fuzzed file's
    # float type had a damaged exponent position, which adi3d now refuses
    # before reading; this copy has the IEEE type back and still crashes HDF5.
    shutil.copy(fuzz_input(a, "hdf5_field", "hdf5_dread_segv_huge_chunk_ieee_type"), os.path.join(a.work, "grid.h5"))
    setup(a)
    # (In the sanitizer build the child's ASan reports the bad read and exits 1.)
    run_bad(a, 3, [r"grid\.h5: initial field: the HDF5 library crashed reading it \((Segmentation fault|exit status "
                   r"1)\); the file is damaged"])
    no_output_left(a)


def hdf5_crash_checkpoint(a):
    shutil.copy(fuzz_input(a, "checkpoint", "hdf5_global_heap_read_overflow"), os.path.join(a.work, "ck.h5"))
    run_bad(a, 3, [r"ck\.h5: checkpoint: the HDF5 library crashed reading it"], args=("run", "--restart", "ck.h5"))


def hdf5_huge_allocation(a):
    # A checkpoint whose damaged sizes make HDF5 allocate and fill gigabytes
    # (found by tests/fuzz; without the probe adi3d grew to 4 GB before
    # failing): the child's capped address space makes the allocation fail,
    # and that error is the run's, without a second, uncapped read.
    shutil.copy(fuzz_input(a, "checkpoint", "hdf5_huge_allocation_reading_config"), os.path.join(a.work, "ck.h5"))
    run_bad(a, 3, [r"ck\.h5: cannot read dataset /provenance/config \(HDF5: memory allocation failed"],
            args=("run", "--restart", "ck.h5"))


def hdf5_hang(a):
    # A file on which HDF5 1.10 loops for ever reading a string attribute:
    # the read is stopped after ADI_READ_TIMEOUT seconds (default 60).
    shutil.copy(os.path.join(a.source, "tests", "integration", "data", "hdf5_hangs_reading_attribute.h5"),
                os.path.join(a.work, "ck.h5"))
    import time
    t0 = time.time()
    run_bad(a, 3, [r"ck\.h5: checkpoint: reading it did not finish within 3 s"], args=("run", "--restart", "ck.h5"),
            extra_env={"ADI_READ_TIMEOUT": "3"})
    T.check(time.time() - t0 < 30, "took %.0f s" % (time.time() - t0))


CASES = {f.__name__: f for f in (missing_file, not_hdf5, dataset_missing, wrong_rank, wrong_shape, integer_dtype,
                                 nan_inf, never_written, unwritable_output, disk_full_first_step, disk_full_later_step,
                                 existing_output, truncated_checkpoint, restart_mismatch, too_big,
                                 hdf5_crash_initial, hdf5_crash_checkpoint, hdf5_huge_allocation, hdf5_hang)}


def body():
    a = T.parse_args(lambda p: p.add_argument("--case", required=True, choices=sorted(CASES)))
    CASES[a.case](a)


T.main(body)
