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
  materials K, c and q fields from HDF5 with periodic y and z cut across
            ranks (each rank reads its box and wrapped ghost planes; with
            parallel HDF5 one collective read a field): every output step
            agrees with the serial run to 1e-12, and the output's /material
            group and .xmf are the serial run's (collective writes: each rank
            its part; the gather; a restart that continues the file); a NaN in K that only the
            last rank reads stops every rank with one message naming the
            node (no rank left waiting in a collective read);
  probes    probes (at nodes, between nodes whose corners lie on several
            ranks, across the periodic wrap) and the heat-flux field with
            a conductivity field: the probe series equal the serial run's
            to 1e-12 relative, a probe at a node is the written field bit
            for bit, the heat flux equals the serial run's (collective
            writes and the gather to rank 0);
  heat_flows, steady: the heat-flow log and the steady solve on several
            ranks against the serial run's.

(The fault parts, ranks that are signalled, killed, disagree or meet a full
disk, are mpi_faults.py's; the driver is this file.)
"""
import os
import re
import subprocess

import h5py
import numpy as np

import adi_testlib as T
import mpi_faults
from mpi_testlib import DIRICHLET, MIXED, case, mpi_env, mpirun, serial, assert_close, assert_same_material, xmf_without_name


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


def every_grid_like_serial(a, d, config, steps, what):
    """`config` on a.np ranks, the automatic grid and the y and z splits,
    into mpi.h5: its steps and its /material/ are serial.h5's."""
    for grid in (None, "[1, %d, 1]" % a.np, "[1, 1, %d]" % a.np):
        grid_args = ["--set", "parallel.grid=" + grid] if grid else []
        mpirun(a, a.np, ["run", config, "--set", "output.file=mpi.h5", "--overwrite"] + grid_args, cwd=d,
               match=[r"output +mpi\.h5 \(%d steps" % steps])
        where = "%s, grid %s, %d ranks" % (what, grid or "auto", a.np)
        assert_close(os.path.join(d, "serial.h5"), os.path.join(d, "mpi.h5"), where)
        assert_same_material(d, "serial.h5", "mpi.h5", where)


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
    every_grid_like_serial(a, d, "case.yaml", 4, "material fields, periodic y and z")
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
        mpirun(a, a.np, ["run", "s.yaml", "--set", "output.file=s_%s.h5" % tag] + extra, cwd=d,
                     match=[r"steady +converged in [0-9]+ sweeps", r"residual +[-+0-9.e]+ \([0-9.e+-]+ of the largest term\)"])
        with h5py.File(os.path.join(d, "serial.h5"), "r") as fs, h5py.File(os.path.join(d, "s_%s.h5" % tag), "r") as fm:
            us, um = fs["steps/000000/u"][()], fm["steps/000000/u"][()]
            rng = float(np.max(us) - np.min(us))
            T.check(np.max(np.abs(us - um)) <= 1e-9 * rng, "%d ranks, grid %s: steady differs by %.3e of the range" %
                    (a.np, grid, np.max(np.abs(us - um)) / rng))
            T.check(fm["steady"].attrs["converged"] == 1, "not converged")
        mpirun(a, a.np, ["run", "m.yaml", "--set", "output.file=m_%s.h5" % tag] + extra, cwd=d,
                     match=[r"stopped +at step %s " % stop.group(1)])
    print("steady and the stop rule agree with the serial run on %d ranks" % a.np)


REGIONS_CASE = """grid: {nx: 23, ny: 19, nz: 13}
domain: {lx: 0.023, ly: 0.019, lz: 0.013}
material:
%(material)s
boundary:
  x: {lo: {type: convective, h: 800, ambient: 300}, hi: dirichlet}
  y: insulated
  z: {lo: {type: neumann, flux: 2e5}, hi: dirichlet}
initial: {value: 300}
time: {dt: 0.02, steps: 12}
backend: %(backend)s
output: {file: out.h5, every: 6}
"""


def require_backend(a, d, config="regions.yaml"):
    """--backend cuda: the ranks run on GPUs, the serial references on the
    CPU. Without a usable GPU (exit 6 of a dry run) the test is skipped (77)
    unless ADI_REQUIRE_GPU=1."""
    if a.backend == "cpu":
        return
    p = subprocess.run([a.adi3d, "run", config, "--dry-run"], cwd=d, env=mpi_env(), capture_output=True,
                       text=True, timeout=120)
    if p.returncode == 6 and os.environ.get("ADI_REQUIRE_GPU") != "1":
        print("skipped: no usable GPU: " + (p.stdout + p.stderr).strip())
        raise SystemExit(77)
    T.check(p.returncode == 0, "dry run with backend %s: exit %d\n%s" % (a.backend, p.returncode, p.stdout + p.stderr))


def regions(a):
    """Materials by region (a spreader, a die, an anisotropic interface):
    bit for bit the run given the same K and c as field files, serial; on
    N ranks the serial run's to 1e-12 on every process grid; a node whose id
    no material has stops the run on N ranks with one message naming it,
    before an output is written (exit 3). --backend cuda: the ranks on GPUs
    against the same serial CPU runs."""
    d = os.path.join(a.work, "regions")
    os.makedirs(d, exist_ok=True)
    n = (23, 19, 13)
    z, y, x = np.meshgrid(np.arange(n[2]), np.arange(n[1]), np.arange(n[0]), indexing="ij")
    region = np.where(z < 6, 1, 2).astype("i2")                                    # spreader below, die above
    region[(z >= 6) & (z <= 7) & (x >= 4) & (x <= 17) & (y >= 3) & (y <= 15)] = 40   # the interface
    props = {1: (390.0, 390.0, 390.0, 3.44e6), 2: (148.0, 148.0, 148.0, 1.66e6), 40: (4.0, 4.0, 1.2, 2.1e6)}
    pick = lambda q: np.choose(np.searchsorted([1, 2, 40], region), [props[i][q] for i in (1, 2, 40)])
    with h5py.File(os.path.join(d, "package.h5"), "w") as f:
        f["region"] = region
        f["Kxy"], f["Kz"], f["c"] = pick(0), pick(2), pick(3)
        bad = region.copy()
        bad[-1, -1, -1] = 3  # node (22, 18, 12): the last rank's box
        f["bad"] = bad
    mats = ("  materials:\n    spreader: {id: 1, conductivity: 390, heat_capacity: 3.44e6}\n"
            "    die: {id: 2, conductivity: 148, heat_capacity: 1.66e6}\n"
            "    interface: {id: 40, conductivity: {x: 4, y: 4, z: 1.2}, heat_capacity: 2.1e6}")
    T.write(os.path.join(d, "regions.yaml"),
            REGIONS_CASE % dict(material="  regions: {file: package.h5, dataset: /region}\n" + mats, backend=a.backend))
    T.write(os.path.join(d, "bad.yaml"),
            REGIONS_CASE % dict(material="  regions: {file: package.h5, dataset: /bad}\n" + mats, backend=a.backend))
    T.write(os.path.join(d, "fields.yaml"), REGIONS_CASE % dict(material=(
        "  conductivity: {x: {file: package.h5, dataset: /Kxy}, y: {file: package.h5, dataset: /Kxy}, "
        "z: {file: package.h5, dataset: /Kz}}\n  heat_capacity: {file: package.h5, dataset: /c}"), backend="cpu"))
    require_backend(a, d)
    serial(a, ["run", "regions.yaml", "--set", "output.file=serial.h5", "--set", "backend=cpu", "--quiet"], cwd=d)
    serial(a, ["run", "fields.yaml", "--set", "output.file=fields.h5", "--quiet"], cwd=d)
    T.assert_same_fields(os.path.join(d, "serial.h5"), os.path.join(d, "fields.h5"), "regions against field files")
    with h5py.File(os.path.join(d, "serial.h5"), "r") as fr, h5py.File(os.path.join(d, "fields.h5"), "r") as ff:
        for k in ("conductivity_x", "conductivity_z", "heat_capacity"):
            T.check(np.array_equal(fr["material"][k][()], ff["material"][k][()]), "material/%s differs" % k)
    every_grid_like_serial(a, d, "regions.yaml", 3, "materials by region")
    # The region file is an input: no output or checkpoint may replace it, --overwrite or not.
    before = open(os.path.join(d, "package.h5"), "rb").read()
    for key in ("output.file=package.h5", "checkpoint.file=package.h5"):
        mpirun(a, a.np, ["run", "regions.yaml", "--set", key, "--set", "checkpoint.every=6", "--overwrite"], cwd=d,
               rc=2, match=[r"names the same file as the material\.regions field"])
    T.check(open(os.path.join(d, "package.h5"), "rb").read() == before, "package.h5 changed")
    out = mpirun(a, a.np, ["run", "bad.yaml", "--set", "output.file=bad_out.h5"], cwd=d, rc=3, timeout=60,
                 match=[r"the region field holds 3 at node \(i, j, k\) = \(22, 18, 12\).*no material of "
                        r"material\.materials has that id \(ids: 1 2 40\)"])
    T.check(not os.path.exists(os.path.join(d, "bad_out.h5")), "an output was written for a bad region field")
    T.check(len(re.findall(r"region field holds 3", out)) == 1, "expected one message naming the node:\n" + out)
    # A step that fails on the rank that owns the interface (K = 1e308: a
    # non-finite pivot) and on no other: every rank stops in that step, one
    # message, the job ends with the error's code, not by MPI_Abort, and the
    # output says failed (it said running when the ranks were aborted).
    out = mpirun(a, a.np, ["run", "regions.yaml", "--set", "output.file=pivot.h5", "--set", "time.dt=1",
                           "--set", "material.materials.interface.conductivity=1e308"], cwd=d, rc=5, timeout=60,
                 match=[r"numerical error: line solve along [xyz]: zero or non-finite pivot" if a.backend == "cpu"
                        else r"numerical error: "])
    T.check(out.count("adi3d:") == 1, "expected one message:\n" + out)
    T.check("MPI_ABORT" not in out, "the job was aborted:\n" + out)
    with h5py.File(os.path.join(d, "pivot.h5"), "r") as f:
        status = f.attrs["status"]
        status = status.decode() if isinstance(status, bytes) else status
        T.check(status.startswith("failed: line solve along" if a.backend == "cpu" else "failed: "),
                "pivot.h5's status: %s" % status)
        T.check(sorted(f["steps"]) == ["000000"], "pivot.h5's steps: %s" % sorted(f["steps"]))
    print("materials by region: the field files' run bit for bit, %d %s ranks to 1e-12" % (a.np, a.backend))


TEMPERATURE_CASE = """grid: {nx: 17, ny: 14, nz: 11}
domain: {lx: 0.017, ly: 0.014, lz: 0.011}
material:
  regions: {file: package.h5, dataset: /region}
  materials:
    metal: {id: 1, conductivity: [[280, 60], [330, 52], [450, 45]], heat_capacity: [[280, 3.4e6], [450, 3.9e6]]}
    polymer: {id: 7, conductivity: {x: 0.4, y: 0.4, z: [[280, 0.2], [450, 0.3]]}, heat_capacity: 1.8e6}
source: {power_density: 3.0e7}
boundary:
  x: {lo: {type: convective, h: 400, ambient: 290}, hi: insulated}
  y: periodic
  z: {lo: {type: dirichlet, value: 290}, hi: insulated}
initial: {value: 290}
time: {dt: 0.5, steps: 6}
backend: cpu
output: {file: out.h5, every: 3}
"""


def temperature(a):
    """Properties that vary with temperature (tables by region, one of them
    per axis, a periodic axis): on N ranks the serial run's to 1e-12 on every
    process grid; a temperature outside a table stops every rank with one
    message (exit 5) and the output says failed; a region id no material has
    stops it before anything is written (exit 3); a steady solve is refused
    on several ranks (exit 2). --backend cuda: GPU ranks against the serial
    CPU run."""
    d = os.path.join(a.work, "temperature")
    os.makedirs(d, exist_ok=True)
    z, y, x = np.meshgrid(np.arange(11), np.arange(14), np.arange(17), indexing="ij")
    with h5py.File(os.path.join(d, "package.h5"), "w") as f:
        f["region"] = np.where((x > 5) & (x < 12) & (z > 3) & (y > 2), 7, 1).astype("i4")
        f["u0"] = 300.0 + 15.0 * np.sin(0.5 * x + 0.8 * y) * np.cos(0.4 * z)
    T.write(os.path.join(d, "case.yaml"), TEMPERATURE_CASE.replace("backend: cpu", "backend: " + a.backend))
    require_backend(a, d, "case.yaml")
    serial(a, ["run", "case.yaml", "--set", "output.file=serial.h5", "--set", "backend=cpu", "--quiet"], cwd=d)
    with h5py.File(os.path.join(d, "serial.h5"), "r") as f:
        T.check(f["steps/000006/u"][()].max() > 330.0, "the case does not cross the tables' points")
    every_grid_like_serial(a, d, "case.yaml", 3, "tables of temperature")
    # The output holds the region ids (K and c follow the temperature).
    with h5py.File(os.path.join(d, "mpi.h5"), "r") as f, h5py.File(os.path.join(d, "package.h5"), "r") as g:
        T.check(sorted(f["material"]) == ["region"], "/material holds %s" % sorted(f["material"]))
        T.check(np.array_equal(f["material/region"][()], g["region"][()]), "/material/region is not the input's")
    # Douglas with a moving Dirichlet face that keeps the initial field's
    # values: its terms are made of the material, which changes every step.
    T.write(os.path.join(d, "moving.yaml"), TEMPERATURE_CASE.replace("backend: cpu", "backend: " + a.backend)
            .replace("z: {lo: {type: dirichlet, value: 290}", "z: {lo: {type: dirichlet, table: [[0, 1], [3, 1.04]]}")
            .replace("initial: {value: 290}", "initial: {file: package.h5, dataset: /u0}\nscheme: {type: douglas}"))
    serial(a, ["run", "moving.yaml", "--set", "output.file=serial.h5", "--set", "backend=cpu", "--overwrite", "--quiet"],
           cwd=d)
    every_grid_like_serial(a, d, "moving.yaml", 3, "tables of temperature, douglas, a moving face")
    # Radiating faces (one beside a convective exchange) with the tables.
    T.write(os.path.join(d, "radiating.yaml"), TEMPERATURE_CASE.replace("backend: cpu", "backend: " + a.backend)
            .replace("lo: {type: convective, h: 400, ambient: 290}",
                     "lo: {type: convective, h: 400, ambient: 290, radiation: {emissivity: 0.8, ambient: 280}}")
            .replace("z: {lo: {type: dirichlet, value: 290}, hi: insulated}",
                     "z: {lo: {type: dirichlet, value: 290}, hi: {type: radiation, emissivity: 0.9, ambient: 250}}")
            .replace("output: {file: out.h5, every: 3}", "output: {file: out.h5, every: 3, fields: [u, heat_flux]}")
            + "diagnostics: {heat_flows: true}\n")
    serial(a, ["run", "radiating.yaml", "--set", "output.file=serial.h5", "--set", "backend=cpu", "--overwrite",
               "--quiet"], cwd=d)
    every_grid_like_serial(a, d, "radiating.yaml", 3, "tables of temperature, radiating faces")
    # Their heat flows (K at each node's temperature, the radiation in its
    # face's column) balance, and the ranks' sums are the serial run's.
    with h5py.File(os.path.join(d, "serial.h5"), "r") as fs, h5py.File(os.path.join(d, "mpi.h5"), "r") as fm:
        hs, hm = fs["diagnostics/heat_flows"][()], fm["diagnostics/heat_flows"][()]
        kinds = fs["diagnostics/heat_flows"].attrs["face_kinds"]
        kinds = kinds.decode() if isinstance(kinds, bytes) else kinds
    T.check(kinds.split(",")[0] == "convective+radiation" and kinds.split(",")[5] == "radiation", "face kinds " + kinds)
    scale = np.abs(hs[:, 2:10]).max()
    T.check(hs.shape == hm.shape and np.abs(hs - hm).max() <= 1e-9 * scale, "heat flows differ from the serial run's")
    T.check(np.abs(hs[:, 10]).max() <= 1e-10 * scale, "the heat flows do not balance: %s" % hs[:, 10])
    # The heat-flux field (K at each node's temperature, the radiation in
    # the faces' nodes) is the serial run's.
    with h5py.File(os.path.join(d, "serial.h5"), "r") as fs, h5py.File(os.path.join(d, "mpi.h5"), "r") as fm:
        for step in sorted(fs["steps"]):
            qs, qm = fs["steps"][step]["heat_flux"][()], fm["steps"][step]["heat_flux"][()]
            T.check(np.abs(qs - qm).max() <= 1e-9 * max(np.abs(qs).max(), 1e-300),
                    "heat flux of step %s differs from the serial run's" % step)
    # The predictor-corrector (two linear steps a step, no convergence test
    # to agree on) on one process grid.
    T.write(os.path.join(d, "pc.yaml"), TEMPERATURE_CASE.replace("backend: cpu", "backend: " + a.backend)
            + "scheme: {nonlinear: predictor-corrector}\n")
    serial(a, ["run", "pc.yaml", "--set", "output.file=serial.h5", "--set", "backend=cpu", "--overwrite", "--quiet"],
           cwd=d)
    mpirun(a, a.np, ["run", "pc.yaml", "--set", "output.file=mpi.h5", "--overwrite"], cwd=d,
           match=[r"nonlinear step \(predictor-corrector\): 2\.00 linear steps a step on average, at most 2, over 6 "
                  r"steps"])
    assert_close(os.path.join(d, "serial.h5"), os.path.join(d, "mpi.h5"), "predictor-corrector, %d ranks" % a.np)
    # The extrapolated step (one linear step a step after its first, u^(n-1)
    # kept): N ranks = serial; checkpointed at step 3 with /u_previous and
    # continued, serially and on N ranks: the uninterrupted run bit for bit,
    # one linear step a step after the restart.
    T.write(os.path.join(d, "ex.yaml"), TEMPERATURE_CASE.replace("backend: cpu", "backend: " + a.backend)
            + "scheme: {nonlinear: extrapolated}\n")
    serial(a, ["run", "ex.yaml", "--set", "output.file=ex_serial.h5", "--set", "backend=cpu", "--overwrite",
               "--quiet"], cwd=d)
    mpirun(a, a.np, ["run", "ex.yaml", "--set", "output.file=ex_mpi.h5", "--overwrite"], cwd=d,
           match=[r"nonlinear step \(extrapolated\): 1\.17 linear steps a step on average, at most 2, over 6 steps"])
    assert_close(os.path.join(d, "ex_serial.h5"), os.path.join(d, "ex_mpi.h5"), "extrapolated, %d ranks" % a.np)
    for where, ranks, ref in (("serial", None, "ex_serial.h5"), ("mpi", a.np, "ex_mpi.h5")):
        ck = ["--set", "checkpoint.file=ex_ck_%s.h5" % where, "--set", "checkpoint.every=3"]
        first = ["run", "ex.yaml", "--set", "output.file=ex_cont_%s.h5" % where, "--set", "time.steps=3"] + ck
        again = ["run", "ex.yaml", "--set", "output.file=ex_cont_%s.h5" % where, "--restart",
                 "ex_ck_%s.h5" % where] + ck
        once = [r"nonlinear step \(extrapolated\): 1\.00 linear steps a step on average, at most 1, over 3 steps"]
        if ranks is None:
            serial(a, first + ["--set", "backend=cpu", "--quiet"], cwd=d)
            serial(a, again + ["--set", "backend=cpu"], cwd=d, match=once)
        else:
            mpirun(a, ranks, first + ["-q"], cwd=d)
            mpirun(a, ranks, again, cwd=d, match=once)
        with h5py.File(os.path.join(d, "ex_ck_%s.h5" % where), "r") as f:
            T.check("u_previous" in f and f["u_previous"].shape == f["u"].shape, "no /u_previous in the checkpoint")
        T.assert_same_fields(os.path.join(d, ref), os.path.join(d, "ex_cont_%s.h5" % where),
                             "extrapolated, restarted at step 3 (%s)" % where)
    out = mpirun(a, a.np, ["run", "case.yaml", "--set", "output.file=hot.h5", "--set", "source.power_density=3.0e8"],
                 cwd=d, rc=5, timeout=60,
                 match=[r"adi3d: numerical error: temperature 4\d\d\.?\d* at node \(i, j, k\) = \(\d+, \d+, \d+\) is "
                        r"outside the (conductivity|heat capacity|conductivity z) table of material '(metal|polymer)', "
                        r"\[280, 450\]"])
    T.check(out.count("adi3d:") == 1, "expected one message:\n" + out)
    T.check("MPI_ABORT" not in out, "the job was aborted:\n" + out)
    with h5py.File(os.path.join(d, "hot.h5"), "r") as f:
        status = f.attrs["status"]
        status = status.decode() if isinstance(status, bytes) else status
        T.check(status.startswith("failed: temperature "), "hot.h5's status: %s" % status)
    # A region id no material has: exit 3 before anything is written, one message.
    with h5py.File(os.path.join(d, "package.h5"), "r") as f, h5py.File(os.path.join(d, "bad.h5"), "w") as g:
        bad = f["region"][()].copy()
        bad[-1, -1, -1] = 5
        g["region"] = bad
    T.write(os.path.join(d, "bad.yaml"), TEMPERATURE_CASE.replace("package.h5", "bad.h5"))
    out = mpirun(a, a.np, ["run", "bad.yaml", "--set", "output.file=bad_out.h5"], cwd=d, rc=3, timeout=60,
                 match=[r"bad\.h5:/region: the region field holds 5 at node \(i, j, k\) = \(16, 13, 10\)"])
    T.check(out.count("adi3d:") == 1 and not os.path.exists(os.path.join(d, "bad_out.h5")), "bad ids:\n" + out)
    # solve: steady with tables (a milder polymer than the transient's: the
    # linear solves of a 300x contrast do not reach 1e-10 in 2000 sweeps)
    # and with a radiating face: every process grid is the serial solve's.
    T.write(os.path.join(d, "steady.yaml"), TEMPERATURE_CASE.replace("time: {dt: 0.5, steps: 6}\n", "solve: steady\n")
            .replace("conductivity: {x: 0.4, y: 0.4, z: [[280, 0.2], [450, 0.3]]}",
                     "conductivity: {x: 4, y: 4, z: [[280, 2], [450, 3]]}")
            .replace("source: {power_density: 3.0e7}", "source: {power_density: 1.0e7}")
            .replace("output: {file: out.h5, every: 3}", "output: {file: steady.h5}")
            .replace("backend: cpu", "backend: " + a.backend))
    T.write(os.path.join(d, "steady_rad.yaml"), "grid: {nx: 17, ny: 14, nz: 11}\n"
            "domain: {lx: 0.017, ly: 0.014, lz: 0.011}\nmaterial: {conductivity: 50, heat_capacity: 3e6}\n"
            "source: {power_density: 3.0e7}\n"
            "boundary: {x: {lo: {type: dirichlet, value: 290}, hi: insulated}, y: periodic,\n"
            "           z: {lo: insulated, hi: {type: radiation, emissivity: 0.9, ambient: 250}}}\n"
            "initial: {value: 290}\nsolve: steady\nbackend: %s\noutput: {file: steady_rad.h5}\n" % a.backend)
    for name in ("steady", "steady_rad"):
        serial(a, ["run", name + ".yaml", "--set", "output.file=%s_serial.h5" % name, "--set", "backend=cpu",
                   "--overwrite", "--quiet"], cwd=d)
        with h5py.File(os.path.join(d, name + "_serial.h5"), "r") as f:
            ref = f["steps/000000/u"][()]
        for grid in (None, "[1, %d, 1]" % a.np, "[1, 1, %d]" % a.np):
            grid_args = ["--set", "parallel.grid=" + grid] if grid else []
            mpirun(a, a.np, ["run", name + ".yaml", "--set", "output.file=%s_mpi.h5" % name, "--overwrite"] + grid_args,
                   cwd=d, match=[r"steady: \d+ linear solves about the last iterate", r"steady +converged in"])
            with h5py.File(os.path.join(d, name + "_mpi.h5"), "r") as f:
                u = f["steps/000000/u"][()]
            # The same solves to round-off of the sweeps (10 x the tolerance).
            T.check(np.abs(u - ref).max() <= 1e-9 * np.abs(ref).max(),
                    "%s, grid %s: %.3g from the serial steady state" % (name, grid, np.abs(u - ref).max()))
    print("tables of temperature: %d %s ranks like the serial run to 1e-12" % (a.np, a.backend))


STRETCHED_CASE = """grid:
  x: {coordinates: %(x)s}
  y: {n: 19, stretch: {from: both, ratio: 1.15}}
  z: {coordinates: %(z)s, period: 0.9}
domain: {origin: [0.1, 0, -0.2]}
material: {conductivity: {file: k.h5, dataset: K}, heat_capacity: 2.0}
source: {power_density: {file: k.h5, dataset: q}}
boundary: {x: {lo: {type: convective, h: 3.0, ambient: 1.5}, hi: {type: dirichlet, value: 0.5}},
           y: {lo: {type: neumann, flux: 2.0}, hi: insulated}, z: periodic}
initial: {value: 1.0}
time: {dt: 2e-3, steps: 12}
output: {file: serial.h5, every: 4}
checkpoint: {file: ck.h5, every: 6}
backend: cpu
"""


def stretched(a):
    """A stretched grid (#56): x geometric from its lo face (given as a list),
    y clustered at both faces (a rule), z periodic with coordinates and a
    period, a K field and a source: N ranks (y and z split unevenly) equal to
    the serial run to 1e-12, and a restart from the checkpoint bit for bit."""
    d = os.path.join(a.work, "stretched")
    os.makedirs(d, exist_ok=True)
    x = 0.1 + np.cumsum(np.r_[0.0, 0.02 * 1.08 ** np.arange(20)])
    z = -0.2 + np.cumsum(np.r_[0.0, 0.02 + 0.03 * np.sin(np.arange(16)) ** 2])
    n = (len(x), 19, len(z))
    kk, jj, ii = np.meshgrid(np.arange(n[2]), np.arange(n[1]), np.arange(n[0]), indexing="ij")
    with h5py.File(os.path.join(d, "k.h5"), "w") as f:
        f["K"] = 1.0 + 0.5 * np.sin(0.3 * ii + 0.2 * jj) * np.cos(0.4 * kk)
        f["q"] = 3.0 * np.cos(0.2 * ii) * np.sin(0.5 * kk + 0.3)
    fmt = lambda v: "[" + ", ".join(repr(float(t)) for t in v) + "]"
    T.write(os.path.join(d, "case.yaml"), STRETCHED_CASE % dict(x=fmt(x), z=fmt(z)))
    serial(a, ["run", "case.yaml", "--quiet"], cwd=d)
    mpirun(a, a.np, ["run", "case.yaml", "--set", "output.file=mpi.h5", "--set", "checkpoint.file=ck_mpi.h5"],
           cwd=d, match=[r"\(stretched\)"])
    assert_close(os.path.join(d, "serial.h5"), os.path.join(d, "mpi.h5"), "stretched grid, %d ranks" % a.np)
    with h5py.File(os.path.join(d, "mpi.h5")) as f:
        T.check(np.array_equal(f["grid/x"][:], x) and np.array_equal(f["grid/z"][:], z),
                "the output's /grid/x and /grid/z are not the config's coordinates")
    # A serial run to step 6 continued on N ranks from its checkpoint.
    serial(a, ["run", "case.yaml", "--set", "time.steps=6", "--set", "output.file=half.h5",
               "--set", "checkpoint.file=ck6.h5", "--quiet"], cwd=d)
    mpirun(a, a.np, ["run", "case.yaml", "--set", "output.file=half.h5", "--set", "checkpoint.file=ck6.h5",
                     "--restart", "ck6.h5"], cwd=d, match=[r"restart +from ck6\.h5 at step 6"])
    full, cont = T.fields(os.path.join(d, "serial.h5")), T.fields(os.path.join(d, "half.h5"))
    for s in (8, 12):
        worst = np.max(np.abs(full[s] - cont[s])) / np.max(np.abs(full[s]))
        T.check(worst <= 1e-12, "stretched grid restarted at step 6 on %d ranks: step %d differs by %.3e from the "
                                "uninterrupted serial run" % (a.np, s, worst))
    print("stretched grid: a restart at step 6 on %d ranks agrees with the serial run at steps 8 and 12" % a.np)
    if a.np > 1:  # CUDA ranks refuse a stretched grid, naming CPU ranks (one process runs it on a GPU)
        mpirun(a, a.np, ["run", "case.yaml", "--backend", "cuda", "--set", "output.file=gpu.h5"], cwd=d, rc=6,
               match=[r"backend 'cuda' under MPI: a stretched grid \(grid coordinates\) runs on CPU ranks"])
        T.check(not os.path.exists(os.path.join(d, "gpu.h5")), "the refused run wrote an output")


PARTS = {"outputs": outputs, "temperature": temperature, "materials": materials, "regions": regions, "restart": restart, "probes": probes, "heat_flows": heat_flows, "steady": steady, "stretched": stretched, **mpi_faults.PARTS}


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
        p.add_argument("--backend", default="cpu", choices=["cpu", "cuda"],
                       help="parts regions and temperature: the ranks' backend")
    a = T.parse_args(extra)
    PARTS[a.part](a)


T.main(body)
