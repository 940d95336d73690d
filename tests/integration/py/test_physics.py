"""Materials, sources and face types through the real CLI (#16, #17): each
part runs adi3d on a small case and checks what a user would check.

  constant_field   a K and c field holding constants gives the constant input's
                   result bit for bit; the fields land under /material, in the
                   .xmf and (with checksums) in the provenance
  robin_steady     a 1D slab (ny = nz = 1) with a convective face and a fixed
                   value runs to the analytic linear steady state (1e-9)
  source_balance   insulated box, uniform start, a source with a ramp table:
                   u = u0 + (q / c) t^2 / (2 T) exactly (the midpoint rule is
                   exact on a linear table), to round-off
  restart          a general run (K field, moving Dirichlet face from the
                   initial file, convective face, source table) split by a
                   checkpoint equals the uninterrupted run bit for bit
  flat_2d          nz = 1: output of shape (1, ny, nx), .xmf dimensions "1 ny nx",
                   and the 2D run equals a 3D run with insulated z faces
  bad_field_*      bad material fields: exit 2 or 3, one line naming the file,
                   dataset and node / the key; nothing written
"""

import os
import re

import h5py
import numpy as np

import adi_testlib as T


def adi(a, d, args, **kw):
    return T.run(a, list(args), cwd=d, **kw)


def folder(a, name):
    d = os.path.join(a.work, name)
    os.makedirs(d, exist_ok=True)
    return d


def last(path):
    f = T.fields(path)
    return f[max(f)]


BOX = """grid: {nx: 11, ny: 9, nz: 7}
domain: {lx: 0.10, ly: 0.08, lz: 0.06}
boundary:
  x: {lo: {type: convective, h: 15, ambient: 290}, hi: {type: dirichlet, value: 310}}
  y: insulated
  z: periodic
source: 5.0e4
initial: {value: 295}
time: {dt: 5.0, steps: 12}
backend: cpu
output: {file: out.h5, every: 6}
"""


def constant_field(a):
    d = folder(a, "constant_field")
    shape = (7, 9, 11)
    with h5py.File(os.path.join(d, "mat.h5"), "w") as f:
        f["K"] = np.full(shape, 1.7)
        f["c"] = np.full(shape, 2.5e6, dtype=np.float32)
    # The same scheme for both (a field takes the Strang step by default,
    # constants the Douglas step): the field's default, named for the constants.
    T.write(os.path.join(d, "const.yaml"), BOX + "material: {conductivity: 1.7, heat_capacity: 2.5e6}\n"
            "scheme: {type: strang}\n")
    T.write(os.path.join(d, "field.yaml"), BOX.replace("out.h5", "field.h5") +
            "material: {conductivity: {file: mat.h5, dataset: /K}, heat_capacity: {file: mat.h5, dataset: /c}}\n")
    adi(a, d, ["run", "const.yaml"])
    adi(a, d, ["run", "field.yaml"])
    T.assert_same_fields(os.path.join(d, "out.h5"), os.path.join(d, "field.h5"), "K, c fields vs constants")
    u = last(os.path.join(d, "field.h5"))
    T.check(np.all(u[:, :, -1] == 310.0), "the x_hi face holds its value 310")
    T.check(u.max() > 295.5, "the source heats the box (max %g)" % u.max())
    with h5py.File(os.path.join(d, "field.h5"), "r") as f:
        T.check(sorted(f["material"]) == ["conductivity", "heat_capacity"], "material group: %s" % list(f["material"]))
        T.check(np.all(f["material/conductivity"][()] == 1.7), "conductivity written as given")
        T.check(f["material/heat_capacity"].shape == shape, "heat capacity shape")
        prov = f["provenance"].attrs["input_fields"]
        prov = prov.decode() if isinstance(prov, bytes) else prov
        T.check(re.search(r"conductivity = \S*mat\.h5:/K fnv1a64:[0-9a-f]{16}", prov) is not None, "provenance: " + prov)
        T.check(re.search(r"heat_capacity = \S*mat\.h5:/c fnv1a64:[0-9a-f]{16}", prov) is not None, "provenance: " + prov)
    xmf = open(os.path.join(d, "field.xmf")).read()
    T.check('Attribute Name="conductivity"' in xmf and "field.h5:/material/heat_capacity" in xmf,
            "the .xmf lists the material fields")
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        T.check("material" not in f, "constants are not written as fields")


def robin_steady(a):
    d = folder(a, "robin_steady")
    K, h, Ta, T1, L = 2.0, 40.0, 280.0, 350.0, 0.2
    T.write(os.path.join(d, "slab.yaml"), """grid: {nx: 41, ny: 1, nz: 1}
domain: {lx: %g, ly: 0.1, lz: 0.1}
material: {conductivity: %g, heat_capacity: 1.0e5}
boundary: {x: {lo: {type: convective, h: %g, ambient: %g}, hi: {type: dirichlet, value: %g}}}
initial: {value: 300}
scheme: {theta: 1.0}
time: {dt: 50.0, steps: 400}
backend: cpu
output: {file: out.h5, every: 400}
""" % (L, K, h, Ta, T1))
    adi(a, d, ["run", "slab.yaml"])
    u = last(os.path.join(d, "out.h5"))
    T.check(u.shape == (1, 1, 41), "1D output shape %s" % (u.shape,))
    x = np.linspace(0.0, L, 41)
    B = h * (T1 - Ta) / (K + h * L)
    exact = T1 - B * (L - x)
    err = np.max(np.abs(u[0, 0, :] - exact))
    print("Robin slab steady state: max |u - exact| = %.3e (u(0) = %.6f, exact %.6f)" % (err, u[0, 0, 0], exact[0]))
    T.check(err < 1e-9, "steady state differs from the analytic profile by %g" % err)


def source_balance(a):
    d = folder(a, "source_balance")
    q, c, u0, dt, n, Tr = 3.0e5, 4.0e6, 300.0, 2.0, 30, 40.0
    T.write(os.path.join(d, "box.yaml"), """grid: {nx: 9, ny: 8, nz: 7}
domain: {lx: 0.1, ly: 0.1, lz: 0.1}
material: {conductivity: {x: 1.0, y: 2.0, z: 0.5}, heat_capacity: %g}
source: {power_density: %g, table: [[0, 0], [%g, 1]]}
boundary: insulated
initial: {value: %g}
time: {dt: %g, steps: %d}
backend: cpu
output: {file: out.h5, every: 10}
""" % (c, q, Tr, u0, dt, n))
    adi(a, d, ["run", "box.yaml"])
    for s, u in sorted(T.fields(os.path.join(d, "out.h5")).items()):
        t = s * dt
        integral = t * t / (2 * Tr) if t <= Tr else Tr / 2 + (t - Tr)
        expect = u0 + q / c * integral
        err = np.max(np.abs(u - expect)) / (q / c * max(integral, 1e-300))
        print("step %d: u = %.12f, expected %.12f (relative to the rise: %.2e)" % (s, u.max(), expect, err))
        T.check(s == 0 or err < 1e-11, "step %d: energy balance off by %g relative" % (s, err))


def restart(a):
    d = folder(a, "restart")
    shape = (6, 7, 9)
    z, y, x = np.meshgrid(np.arange(6), np.arange(7), np.arange(9), indexing="ij")
    with h5py.File(os.path.join(d, "in.h5"), "w") as f:
        f["K"] = 1.0 + 4.0 * (x >= 4) + 0.1 * y
        f["u"] = 290.0 + 0.5 * x + 0.2 * z
    case = """grid: {nx: 9, ny: 7, nz: 6}
domain: {lx: 0.08, ly: 0.06, lz: 0.05}
material: {conductivity: {file: in.h5, dataset: /K}, heat_capacity: 1.0e6}
source: {power_density: 2.0e4, table: [[0, 1], [100, 0.2]]}
boundary:
  x: {lo: {type: dirichlet, table: [[0, 1], [60, 1.05]]}, hi: {type: convective, h: 12, ambient: 285, table: [[0, 1], [80, 1.1]]}}
  y: {lo: {type: neumann, flux: 150}, hi: insulated}
  z: periodic
initial: {file: in.h5, dataset: /u}
time: {dt: 4.0, steps: 30}
backend: cpu
output: {file: out.h5, every: 5}
checkpoint: {file: ck.h5, every: 10}
"""
    ref, split = folder(a, "restart/ref"), folder(a, "restart/split")
    for w in (ref, split):
        T.write(os.path.join(w, "case.yaml"), case)
        os.link(os.path.join(d, "in.h5"), os.path.join(w, "in.h5"))
    adi(a, ref, ["run", "case.yaml"])
    adi(a, split, ["run", "case.yaml", "--set", "time.steps=10"])
    adi(a, split, ["run", "case.yaml", "--restart", "ck.h5", "--set", "time.steps=30"],
        match=[r"restart +from ck\.h5 at step 10"])
    T.assert_same_fields(os.path.join(split, "out.h5"), os.path.join(ref, "out.h5"), "general run split at step 10")
    u = last(os.path.join(ref, "out.h5"))
    u0 = 290.0 + 0.2 * np.arange(6)[:, None]
    T.check(np.allclose(u[:, 1:, 0], u0 * 1.05, rtol=0, atol=1e-9), "x_lo holds the initial values times f(t)")


def flat_2d(a):
    d = folder(a, "flat_2d")
    base = """domain: {lx: 0.1, ly: 0.05, lz: 0.01}
material: {conductivity: 1.2, heat_capacity: 1.5e6}
source: 1.0e5
initial: {value: 300}
time: {dt: 2.0, steps: 10}
backend: cpu
"""
    T.write(os.path.join(d, "flat.yaml"), base + """grid: {nx: 13, ny: 9, nz: 1}
boundary: {x: {lo: {type: convective, h: 20, ambient: 290}, hi: {type: dirichlet, value: 300}}, y: insulated}
output: {file: flat.h5, every: 5}
""")
    T.write(os.path.join(d, "slab.yaml"), base + """grid: {nx: 13, ny: 9, nz: 4}
boundary: {x: {lo: {type: convective, h: 20, ambient: 290}, hi: {type: dirichlet, value: 300}}, y: insulated, z: insulated}
output: {file: slab.h5, every: 5}
""")
    adi(a, d, ["run", "flat.yaml"])
    adi(a, d, ["run", "slab.yaml"])
    u2, u3 = last(os.path.join(d, "flat.h5")), last(os.path.join(d, "slab.h5"))
    T.check(u2.shape == (1, 9, 13), "2D output shape %s" % (u2.shape,))
    diff = max(np.max(np.abs(u3[k] - u2[0])) for k in range(u3.shape[0]))
    print("2D vs 3D with insulated z faces: max |diff| = %.3e" % diff)
    T.check(diff < 1e-9, "the 2D run differs from the z-independent 3D run by %g" % diff)
    xmf = open(os.path.join(d, "flat.xmf")).read()
    T.check('Dimensions="1 9 13"' in xmf, "the .xmf states the 2D grid")
    # A moving Dirichlet face in 2D (it used to stop with "a face node's
    # operator reached outside its halo", exit 5): the face holds V f(t).
    T.write(os.path.join(d, "moving.yaml"), base.replace("steps: 10", "steps: 7") + """grid: {nx: 13, ny: 9, nz: 1}
boundary: {x: {lo: {type: dirichlet, value: 310, table: [[0, 1], [20, 1.1]]}, hi: {type: convective, h: 20, ambient: 290}}, y: insulated}
output: {file: moving.h5, every: 7}
""")
    adi(a, d, ["run", "moving.yaml"])
    u = last(os.path.join(d, "moving.h5"))
    T.check(np.allclose(u[0, :, 0], 310.0 * (1 + 0.1 * 14.0 / 20.0), rtol=0, atol=1e-9),
            "the moving x_lo face holds V f(t): %s" % u[0, :, 0])


# ---- bad material fields ------------------------------------------------------------

BAD = """grid: {nx: 9, ny: 7, nz: 5}
material: {conductivity: %s, heat_capacity: 1}
boundary: insulated
initial: {value: 1}
time: {dt: 0.1, steps: 3}
backend: cpu
output: {file: out.h5, every: 1}
"""


def bad_setup(a, conductivity):
    d = folder(a, "bad")
    with h5py.File(os.path.join(d, "k.h5"), "w") as f:
        k = np.ones((5, 7, 9))
        k[3, 2, 6] = 0.0
        f["zero"] = k
        k = np.ones((5, 7, 9))
        k[1, 4, 2] = np.nan
        f["nan"] = k
        f["short"] = np.ones((5, 7, 8))
    T.write(os.path.join(d, "case.yaml"), BAD % conductivity)
    return d


def run_bad(a, d, rc, pattern):
    p = adi(a, d, ["run", "case.yaml"], rc=rc, match=[pattern])
    lines = [l for l in p.stderr.splitlines() if l.startswith("adi3d:")]
    T.check(len(lines) == 1, "expected one 'adi3d:' line, got %s" % lines)
    T.check(not os.path.exists(os.path.join(d, "out.h5")), "no output left behind")


def bad_field_nonpositive(a):
    d = bad_setup(a, "{file: k.h5, dataset: /zero}")
    run_bad(a, d, 3, r"adi3d: error: k\.h5:/zero: the conductivity field holds 0 at node \(i, j, k\) = \(6, 2, 3\) "
                     r"\(dataset index \[3, 2, 6\]\); expected a finite value > 0")


def bad_field_nan(a):
    d = bad_setup(a, "{x: 1, y: {file: k.h5, dataset: /nan}, z: 1}")
    run_bad(a, d, 3, r"k\.h5:/nan: the conductivity field holds nan at node \(i, j, k\) = \(2, 4, 1\)")


def bad_field_shape(a):
    d = bad_setup(a, "{file: k.h5, dataset: /short}")
    run_bad(a, d, 2, r"adi3d: error: case\.yaml:2:26: material\.conductivity: \S*k\.h5:/short has shape \(nz, ny, nx\) = "
                     r"\(5, 7, 8\) but the grid is \(5, 7, 9\)")


def bad_field_missing(a):
    d = bad_setup(a, "{file: gone.h5, dataset: /K}")
    run_bad(a, d, 3, r"adi3d: error: \S*gone\.h5: cannot open the conductivity field \(No such file or directory\)")


PARTS = {f.__name__: f for f in (constant_field, robin_steady, source_balance, restart, flat_2d, bad_field_nonpositive,
                                 bad_field_nan, bad_field_shape, bad_field_missing)}

if __name__ == "__main__":
    args = T.parse_args(lambda p: p.add_argument("--part", required=True, choices=sorted(PARTS)))
    T.main(lambda: PARTS[args.part](args))
