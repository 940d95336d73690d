"""Numerical guards through the CLI (issue #7, item 4).

  overflow        a valid float32 initial field near the largest float
                  (a +-3e38 checkerboard) overflows in the first step: exit 5,
                  "numerical error", nothing written from the bad field, an
                  older checkpoint of the same name untouched;
  nan_injected    no valid input makes the (unconditionally stable) scheme
                  produce NaN after good steps, so ADI_FAULT_NAN_AT_STEP puts
                  one in: the run stops at the next check with exit 5, the
                  last checkpoint is the last good state, the output holds
                  the good steps (status "failed: ..."), and --restart from
                  that checkpoint finishes the run bit-identical to one that
                  never failed;
  lambda_warning  a large lambda = alpha dt / h^2 with a non-smooth initial
                  field: a warning naming lambda, |g| and a dt that avoids it;
                  none at a small dt;
  big_grid        2048^3 float32 is accepted by --dry-run with the right
                  memory estimate (nothing allocated); 2^72 nodes are refused.
  temperature     properties that vary with temperature (tables by region):
                  a run stopped at a checkpoint and restarted ends bit for bit
                  as the run that was not; an output or checkpoint named as
                  the region file is refused; a run that heats past a table's
                  last temperature stops with exit 5 naming the node, the
                  material and the range, its output says failed and holds
                  the steps before; solve: steady of a K(T) slab against
                  the Kirchhoff transform, order 2.
"""

import os

import h5py
import numpy as np

import adi_testlib as T


def write_field(path, u):
    with h5py.File(path, "w") as f:
        f.create_dataset("u", data=u)


def checkerboard(shape, amplitude, dtype):
    k, j, i = np.meshgrid(*(np.arange(n) for n in shape), indexing="ij")
    return np.where((i + j + k) % 2 == 0, amplitude, -amplitude).astype(dtype)


def overflow(a):
    write_field(os.path.join(a.work, "big.h5"), checkerboard((12, 17, 23), 3.0e38, np.float32))
    T.write(os.path.join(a.work, "case.yaml"), """initial: {file: big.h5}
boundary: neumann
time: {dt: 1.0e-4, steps: 5}
precision: float32
backend: cpu
output: {file: out.h5, every: 1}
checkpoint: {file: ck.h5, every: 1}
""")
    # (A file of that name that is not a checkpoint of this case is refused
    # before the run: io_bad_path_aliases.)
    p = T.run(a, ["run", "case.yaml"], cwd=a.work, rc=5,
              match=[r"adi3d: numerical error: the field holds NaN or Inf after step 1 \(t = 0\.000100 s\); nothing "
                     r"was written from it; out\.h5 holds the steps up to 0"])
    T.check(not os.path.exists(os.path.join(a.work, "ck.h5")), "a checkpoint was written from the overflowed field")
    with h5py.File(os.path.join(a.work, "out.h5"), "r") as f:
        T.check(sorted(f["steps"]) == ["000000"], "steps %s" % sorted(f["steps"]))
        T.check(f.attrs["status"].startswith("failed: the field holds NaN or Inf"), "status %r" % f.attrs["status"])
        T.check(np.isfinite(f["steps/000000/u"][()]).all(), "step 0 not finite")
    T.check(p.stderr.count("adi3d:") == 1, "one error line")


CASE = """grid: {nx: 23, ny: 17, nz: 12}
diffusivity: {x: 1.0, y: 0.5, z: 0.25}
boundary: {x: {lo: dirichlet, hi: neumann}, y: dirichlet, z: neumann}
time: {dt: 2.0e-3, steps: 20}
backend: cpu
output: {file: out.h5, every: 2}
checkpoint: {file: ck.h5, every: 3}
"""


def nan_injected(a):
    ref = os.path.join(a.work, "ref")
    os.makedirs(ref)
    T.write(os.path.join(ref, "case.yaml"), CASE)
    T.run(a, ["run", "case.yaml", "-q"], cwd=ref)
    d = os.path.join(a.work, "run")
    os.makedirs(d)
    T.write(os.path.join(d, "case.yaml"), CASE)
    T.run(a, ["run", "case.yaml"], cwd=d, rc=5, extra_env={"ADI_FAULT_NAN_AT_STEP": "7"},
          match=[r"fault injection \(ADI_FAULT_NAN_AT_STEP=7\)",
                 # Seen after the chunk it was put in (step 7: the energy guard of this
                 # problem without data looks at every chunk) or at the next output (8).
                 r"adi3d: numerical error: the field holds NaN or Inf after step [78] .*nothing was written from it; "
                 r"the checkpoint ck\.h5 \(step 6\) is the last good state; out\.h5 holds the steps up to 6"])
    with h5py.File(os.path.join(d, "ck.h5"), "r") as f:
        T.check(int(f.attrs["step"]) == 6, "checkpoint at step %d, expected the last good one (6)" % f.attrs["step"])
        T.check(np.isfinite(f["u"][()]).all(), "checkpoint not finite")
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        T.check(sorted(f["steps"]) == ["000000", "000002", "000004", "000006"], "steps %s" % sorted(f["steps"]))
        T.check(f.attrs["status"].startswith("failed: the field holds NaN"), "status %r" % f.attrs["status"])
    # Continue from the last good state: the whole output as if nothing happened.
    T.run(a, ["run", "case.yaml", "-q", "--restart", "ck.h5"], cwd=d)
    T.assert_same_fields(os.path.join(d, "out.h5"), os.path.join(ref, "out.h5"), "NaN, then --restart")


def lambda_warning(a):
    rng = np.random.default_rng(3)
    with h5py.File(os.path.join(a.work, "grid.h5"), "w") as f:
        f.create_dataset("u", data=rng.uniform(0, 1, size=(17, 19, 21)))
        f["u"].attrs["spacing"] = [1.0, 1.0, 1.0]
    T.write(os.path.join(a.work, "case.yaml"), """initial: {file: grid.h5}
time: {dt: 5.0e-2, steps: 2}
backend: cpu
""")
    # h = 1 (unit spacing from the file), alpha = 1: lambda = dt.
    T.run(a, ["run", "case.yaml", "--set", "time.dt=5"], cwd=a.work,
          match=[r"\[warning\] lambda = alpha dt / h\^2 = \(5, 5, 5\) \(x, y, z\) is large: the Douglas scheme "
                 r"\(theta = 0\.5\) damps the grid's highest frequencies \(along x, y, z\) by only \|g\| = 0\.9[0-9]+ per "
                 r"step where the exact solution damps them by [0-9.e+-]+, so sharp features of the field decay "
                 r"slowly; time\.dt <= 3\.[01][0-9]* s \(or a coarser grid\) avoids this \(accuracy, not stability\)"])
    T.run(a, ["run", "case.yaml", "--set", "time.dt=2"], cwd=a.work, nomatch=[r"lambda = "])
    # Also when only checking the config.
    T.run(a, ["run", "case.yaml", "--set", "time.dt=20", "--dry-run"], cwd=a.work, match=[r"\[warning\] lambda = "])


def big_grid(a):
    # 2048^3 float32: one field 32 GiB, the CPU backend needs three fields +
    # 32 MiB; whether it fits depends on the machine (exit 0 or 7), the
    # estimate does not. Nothing is allocated by --dry-run.
    p = T.run(a, ["run", "--dry-run", "--backend", "cpu", "--precision", "float32", "--set",
                  "grid={nx: 2048, ny: 2048, nz: 2048}", "--set", "time={dt: 1.0e-6, steps: 10}"],
              cwd=a.work, rc=None,
              match=[r"grid: {nx: 2048, ny: 2048, nz: 2048}", r"precision: float32",
                     r"# memory: one field 32\.00 GiB; host 96\.03 GiB needed"])
    T.check(p.returncode in (0, 7), "exit %d" % p.returncode)
    T.run(a, ["run", "--dry-run", "--backend", "cpu", "--set",
              "grid={nx: 16777216, ny: 16777216, nz: 16777216}"], cwd=a.work, rc=2,
          match=[r"adi3d: error: .*the grid has 16777216 x 16777216 x 16777216 = .* nodes; at most 2\^56"])


TEMPERATURE = """grid: {nx: 19, ny: 15, nz: 11}
domain: {lx: 0.019, ly: 0.015, lz: 0.011}
material:
  regions: {file: package.h5, dataset: /region}
  materials:
    metal: {id: 1, conductivity: [[280, 60], [330, 52], [400, 45]], heat_capacity: [[280, 3.4e6], [400, 3.9e6]]}
    polymer: {id: 7, conductivity: {x: 0.4, y: 0.4, z: [[280, 0.2], [400, 0.3]]}, heat_capacity: 1.8e6}
source: {power_density: 3.0e7}
boundary:
  x: {lo: {type: convective, h: 400, ambient: 290}, hi: insulated}
  y: insulated
  z: {lo: {type: dirichlet, value: 290}, hi: insulated}
initial: {value: 290}
time: {dt: 0.5, steps: 12}
backend: cpu
output: {file: out.h5, every: 4}
"""


def temperature(a):
    d = os.path.join(a.work, "temperature")
    os.makedirs(d)
    z, y, x = np.meshgrid(np.arange(11), np.arange(15), np.arange(19), indexing="ij")
    with h5py.File(os.path.join(d, "package.h5"), "w") as f:
        f["region"] = np.where((x > 6) & (x < 13) & (z > 3), 7, 1).astype("i4")
    T.write(os.path.join(d, "case.yaml"), TEMPERATURE)
    T.run(a, ["run", "case.yaml", "-q", "--set", "output.file=whole.h5"], cwd=d)
    # Stopped after 6 steps (its checkpoint), then restarted to 12.
    T.run(a, ["run", "case.yaml", "-q", "--set", "time.steps=6", "--set", "checkpoint.file=ck.h5",
              "--set", "checkpoint.every=6"], cwd=d)
    T.run(a, ["run", "case.yaml", "-q", "--restart", "ck.h5"], cwd=d)
    whole, split = T.fields(os.path.join(d, "whole.h5")), T.fields(os.path.join(d, "out.h5"))
    T.check(sorted(whole) == [0, 4, 8, 12] and 12 in split, "steps %s and %s" % (sorted(whole), sorted(split)))
    for s in (4, 12):
        T.check(np.array_equal(whole[s].view(np.uint8), split[s].view(np.uint8)),
                "step %d after a restart differs by %g" % (s, np.max(np.abs(whole[s] - split[s]))))
    T.check(whole[12].max() > 330.0, "the case did not heat across the tables' points: max %g" % whole[12].max())
    # The same with a radiating lid and a source table (the radiation's
    # source is evaluated at each step's t*): a restart continues bit for bit.
    T.write(os.path.join(d, "rad.yaml"), TEMPERATURE
            .replace("z: {lo: {type: dirichlet, value: 290}, hi: insulated}",
                     "z: {lo: {type: dirichlet, value: 290}, hi: {type: convective, h: 20, ambient: 290, "
                     "radiation: {emissivity: 0.9, ambient: 280}}}")
            .replace("source: {power_density: 3.0e7}", "source: {power_density: 3.0e7, table: [[0, 1], [6, 0.5]]}")
            .replace("out.h5", "rad_out.h5"))
    T.run(a, ["run", "rad.yaml", "-q", "--set", "output.file=rad_whole.h5"], cwd=d)
    T.run(a, ["run", "rad.yaml", "-q", "--set", "time.steps=6", "--set", "checkpoint.file=rad_ck.h5",
              "--set", "checkpoint.every=6"], cwd=d)
    T.run(a, ["run", "rad.yaml", "-q", "--restart", "rad_ck.h5"], cwd=d)
    whole, split = T.fields(os.path.join(d, "rad_whole.h5")), T.fields(os.path.join(d, "rad_out.h5"))
    T.check(12 in split and np.array_equal(whole[12].view(np.uint8), split[12].view(np.uint8)),
            "a restart of the radiating case differs at step 12")
    # The region file is an input: no output or checkpoint may replace it, --overwrite or not.
    before = open(os.path.join(d, "package.h5"), "rb").read()
    for key in ("output.file=package.h5", "checkpoint.file=package.h5"):
        T.run(a, ["run", "case.yaml", "--set", key, "--set", "checkpoint.every=6", "--overwrite"], cwd=d, rc=2,
              match=[r"names the same file as the material\.regions field"])
    T.check(open(os.path.join(d, "package.h5"), "rb").read() == before, "package.h5 changed")
    # Heating past 400 K, the metal's last temperature: exit 5, one line, the
    # output failed with the steps before.
    T.run(a, ["run", "case.yaml", "--set", "output.file=hot.h5", "--set", "source.power_density=2.0e8",
              "--set", "output.every=1"], cwd=d, rc=5,
          match=[r"adi3d: numerical error: temperature 4\d\d\.?\d* at node \(i, j, k\) = \(\d+, \d+, \d+\) is outside "
                 r"the (conductivity|heat capacity|conductivity z) table of material '(metal|polymer)', \[280, 400\]; "
                 r"extend the table"])
    with h5py.File(os.path.join(d, "hot.h5"), "r") as f:
        status = f.attrs["status"]
        status = status.decode() if isinstance(status, bytes) else status
        T.check(status.startswith("failed: temperature "), "hot.h5's status: %s" % status)
        T.check(len(f["steps"]) >= 2, "hot.h5 holds no step before the failure: %s" % sorted(f["steps"]))
        last = f["steps"][sorted(f["steps"])[-1]]["u"][()]
        T.check(np.isfinite(last).all() and last.max() <= 400.0, "the last step written is outside the tables")
    # solve: steady of K = k0 (1 + beta T) between 300 and 600 K, one material
    # without a region field: the Kirchhoff transform's profile, order 2.
    errs = []
    for nx in (41, 81):
        T.write(os.path.join(d, "slab%d.yaml" % nx), """grid: {nx: %d, ny: 3, nz: 1}
domain: {lx: 1.0, ly: 0.1, lz: 0.1}
material:
  materials:
    steel: {conductivity: [[250, 1.0], [650, 1.8]], heat_capacity: 4.0e6}
boundary: {x: {lo: {type: dirichlet, value: 300}, hi: {type: dirichlet, value: 600}}, y: insulated}
initial: {value: 450}
solve: {steady: {tolerance: 1.0e-12}}
backend: cpu
output: {file: slab%d.h5}
""" % (nx, nx))
        T.run(a, ["run", "slab%d.yaml" % nx], cwd=d, match=[r"steady: \d+ linear solves about the last iterate \(temperature tables\)"])
        with h5py.File(os.path.join(d, "slab%d.h5" % nx), "r") as f:
            u = f["steps/000000/u"][()][0, 1, :]
        k0, beta = 0.5, 0.004
        theta = lambda t: k0 * (t + 0.5 * beta * t * t)
        th = theta(300) + (theta(600) - theta(300)) * np.linspace(0, 1, nx)
        errs.append(np.abs(u - (np.sqrt(1 + 2 * beta * th / k0) - 1) / beta).max())
    order = np.log2(errs[0] / errs[1])
    T.check(1.9 <= order <= 2.1, "solve: steady of the K(T) slab: errors %s, order %.3f" % (errs, order))
    print("tables of temperature: restart bit for bit, outside a table exit 5, steady order %.3f" % order)


PARTS = {f.__name__: f for f in (overflow, nan_injected, lambda_warning, big_grid, temperature)}


def body():
    a = T.parse_args(lambda p: p.add_argument("--part", required=True, choices=sorted(PARTS)))
    PARTS[a.part](a)


T.main(body)
