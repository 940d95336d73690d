"""Round trip through the real CLI: h5py writes an initial grid (anisotropic,
non-cubic, mixed faces, non-zero Dirichlet values, origin and spacing
attributes), adi3d runs it, h5py reads the output back and compares it with
an independent numpy implementation of the Douglas step, and with the input
itself at step 0."""

import os

import h5py
import numpy as np

import adi_testlib as T

NX, NY, NZ = 13, 9, 7
ORIGIN = (-0.5, 1.0, 2.0)
SPACING = (0.1, 0.075, 0.125)
ALPHA = (1.0, 0.5, 0.25)
LO = ("dirichlet", "neumann", "dirichlet")
HI = ("neumann", "dirichlet", "dirichlet")
DT, STEPS, THETA = 2e-3, 10, 0.5


def body():
    a = T.parse_args()
    w = a.work
    rng = np.random.default_rng(20240501)
    u0 = rng.uniform(-1.0, 1.0, size=(NZ, NY, NX))  # (nz, ny, nx): x fastest
    with h5py.File(os.path.join(w, "grid.h5"), "w") as f:
        d = f.create_dataset("fields/u0", data=u0)
        d.attrs["origin"] = ORIGIN
        d.attrs["spacing"] = SPACING
        f.create_dataset("fields/u32", data=u0.astype(np.float32))
    config = """# grid and domain come from grid.h5
initial: {file: grid.h5, dataset: /fields/u0}
diffusivity: {x: %g, y: %g, z: %g}
boundary:
  x: {lo: dirichlet, hi: neumann}
  y: {lo: neumann, hi: dirichlet}
  z: dirichlet
time: {dt: %g, steps: %d}
scheme: {theta: %g}
backend: cpu
output: {file: out/run.h5, every: 5}
""" % (ALPHA + (DT, STEPS, THETA))
    T.write(os.path.join(w, "case.yaml"), config)
    os.makedirs(os.path.join(w, "out"))
    T.run(a, ["run", "case.yaml"], cwd=w, match=[r"grid +13 x 9 x 7 nodes"])

    out = os.path.join(w, "out", "run.h5")
    with h5py.File(out, "r") as f:
        T.check(f.attrs["status"] == "complete", "status %r" % f.attrs["status"])
        g = f["grid"]
        T.check(np.allclose(g.attrs["origin"], ORIGIN, rtol=1e-12, atol=0), "origin %s" % g.attrs["origin"])
        T.check(np.allclose(g.attrs["spacing"], SPACING, rtol=1e-12), "spacing %s" % g.attrs["spacing"])
        T.check(list(g.attrs["shape"]) == [NZ, NY, NX], "shape %s" % g.attrs["shape"])
        T.check(np.allclose(g["x"][()], ORIGIN[0] + SPACING[0] * np.arange(NX), rtol=1e-12), "/grid/x")
        steps = sorted(f["steps"])
        T.check(steps == ["000000", "000005", "000010"], "steps %s" % steps)
        for k in steps:
            d = f["steps"][k]["u"]
            T.check(d.shape == (NZ, NY, NX) and d.dtype == np.float64, "%s: %s %s" % (k, d.shape, d.dtype))
            T.check(d.attrs["step"] == int(k), "step attribute of %s" % k)
            T.check(d.attrs["time"] == int(k) * DT, "time attribute of %s: %r" % (k, d.attrs["time"]))
        T.check(np.array_equal(f["steps/000000/u"][()], u0), "step 0 differs from the input")
        p = f["provenance"]
        for key in ("adi3d_version", "git_hash", "cxx_compiler", "hdf5_version", "device", "host", "command_line",
                    "start_time", "end_time", "cuda_compiler", "slurm_job_id"):
            T.check(key in p.attrs, "provenance attribute %s missing" % key)
        T.check("run case.yaml" in p.attrs["command_line"], "command line %r" % p.attrs["command_line"])
        cfg = p["config"][()].decode()
        T.check("nx: 13" in cfg and "origin: [-0.5, 1, 2]" in cfg, "resolved config:\n" + cfg)
        for k in (5, 10):
            ref = T.douglas_reference(u0, k, SPACING, ALPHA, DT, THETA, LO, HI)
            got = f["steps/%06d/u" % k][()]
            err = np.max(np.abs(got - ref)) / np.max(np.abs(ref))
            print("step %d: max relative difference from the numpy reference %.3e" % (k, err))
            T.check(err < 1e-12, "step %d differs from the numpy Douglas reference by %.3e" % (k, err))

    # float32 input into a float64 run: exact, no warning. float64 input into a
    # float32 run: a warning that precision was lost, values rounded to nearest.
    T.run(a, ["run", "case.yaml", "--set", "initial.dataset=/fields/u32", "--set", "output.file=f32in.h5",
              "--set", "time.steps=0"], cwd=w, nomatch=[r"lost precision"])
    with h5py.File(os.path.join(w, "f32in.h5"), "r") as f:
        T.check(np.array_equal(f["steps/000000/u"][()], u0.astype(np.float32).astype(np.float64)), "f32 -> f64")
    T.run(a, ["run", "case.yaml", "--precision", "float32", "--set", "output.file=f32run.h5", "--set",
              "time.steps=0"], cwd=w, match=[r"\[warning\].*grid\.h5:/fields/u0: %d of %d values lost precision "
                                              r"converting float64 to float32" % (NX * NY * NZ, NX * NY * NZ)])
    with h5py.File(os.path.join(w, "f32run.h5"), "r") as f:
        d = f["steps/000000/u"]
        T.check(d.dtype == np.float32, "float32 run wrote %s" % d.dtype)
        T.check(np.array_equal(d[()], u0.astype(np.float32)), "f64 -> f32 is not round-to-nearest")

    # boundary_from_file: false zeroes the Dirichlet faces (x lo, y hi, z lo/hi).
    T.run(a, ["run", "case.yaml", "--set", "initial.boundary_from_file=false", "--set", "output.file=zero.h5",
              "--set", "time.steps=0"], cwd=w)
    with h5py.File(os.path.join(w, "zero.h5"), "r") as f:
        z = f["steps/000000/u"][()]
    T.check(np.all(z[:, :, 0] == 0) and np.all(z[:, -1, :] == 0) and np.all(z[0] == 0) and np.all(z[-1] == 0),
            "Dirichlet faces not zeroed")
    T.check(np.array_equal(z[1:-1, :-1, -1], u0[1:-1, :-1, -1]), "the Neumann face x = hi must keep its values")

    # Explicit config values must agree with the file's geometry.
    T.run(a, ["run", "case.yaml", "--set", "domain.lx=2.0", "--set", "output.file=never.h5"], cwd=w, rc=2,
          match=[r"case\.yaml: domain\.lx: the config gives h_x = lx / \(nx - 1\) = 0\.16.* but "
                 r"grid\.h5:/fields/u0 says spacing \(0\.1, 0\.075, 0\.125\)"])
    T.check(not os.path.exists(os.path.join(w, "never.h5")), "an output file was left by a refused run")


T.main(body)
