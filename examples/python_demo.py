#!/usr/bin/env python3
"""adi3d from Python, end to end. Run it as a script, or paste it into a
notebook cell by cell (the cells are marked "# %%"):

    pip install .                      # from the adi3d source tree, once
    python3 examples/python_demo.py demo_out

1. A heterogeneous case: a silicon die (4 cm x 4 cm x 4 mm) with a hot spot
   (a 4 mm x 4 mm block dissipating 1 GW/m^3 under its top face) on a cold
   plate (convective bottom face, h = 5000 W/(m^2 K), 300 K), the other faces
   insulated, and a copper heat spreader under half of it. The material and
   the source are fields in an HDF5 file, as `adi3d run` reads them.
2. It steps the case, writes the state as adi3d's output layout (open
   demo_out/state.xmf in ParaView) and plots the top face and a cut through
   the hot spot with matplotlib (demo_out/slice.png).
3. It solves a batch of 10^6 tridiagonal systems with adi3d.solve_tridiagonal
   on the GPU from CuPy (on the CPU from NumPy, 10^5 systems, without one),
   and checks the residual.

Nothing existing is overwritten: the output folder must not exist yet.
"""

# %%
import os
import sys
import time

import h5py
import numpy as np

import adi3d

out = sys.argv[1] if len(sys.argv) > 1 else "demo_out"
os.makedirs(out)  # refuses an existing folder: nothing of the user's is replaced

# %% 1. The material and the source, as fields of shape (nz, ny, nx).
nx, ny, nz = 81, 81, 9
lx, ly, lz = 0.04, 0.04, 0.004  # [m]
x = np.linspace(0, lx, nx)
y = np.linspace(0, ly, ny)
z = np.linspace(0, lz, nz)
Z, Y, X = np.meshgrid(z, y, x, indexing="ij")
K = np.full(X.shape, 150.0)  # silicon [W/(m K)]
c = np.full(X.shape, 1.63e6)  # [J/(m^3 K)]
spreader = (X < lx / 2) & (Z < 0.0015)
K[spreader], c[spreader] = 400.0, 3.45e6  # copper
q = np.where((np.abs(X - 0.6 * lx) < 0.002) & (np.abs(Y - ly / 2) < 0.002) & (Z > lz - 0.001), 1e9, 0.0)  # [W/m^3]
fields = os.path.join(out, "die.h5")
with h5py.File(fields, "x") as f:
    for name, v in (("K", K), ("c", c), ("q", q)):
        f.create_dataset(name, data=v)

# %% 2. The problem: the YAML's sections as keyword arguments (or
# adi3d.Problem.from_yaml("case.yaml")), the same checks and messages.
p = adi3d.Problem(
    grid={"nx": nx, "ny": ny, "nz": nz},
    domain={"lx": lx, "ly": ly, "lz": lz},
    material={"conductivity": {"file": fields, "dataset": "/K"},
              "heat_capacity": {"file": fields, "dataset": "/c"}},
    source={"power_density": {"file": fields, "dataset": "/q"}},
    boundary={"x": "insulated", "y": "insulated",
              "z": {"lo": {"type": "convective", "h": 5000.0, "ambient": 300.0}, "hi": "insulated"}},
    initial={"value": 300.0},
    time={"dt": 0.01, "steps": 200},
)
print(p)
t0 = time.perf_counter()
p.step(p.steps)  # two seconds of heating
print(f"{p.steps} steps in {time.perf_counter() - t0:.2f} s on {p.device}: t = {p.time:.2f} s, "
      f"max T = {float(p.u.max()):.2f} K")
p.write(os.path.join(out, "state.h5"))  # + state.xmf for ParaView

# %% The top face and a cut through the hot spot (p.field(): a NumPy copy on any backend).
u = p.field()
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(1, 2, figsize=(11, 4.2))
im = ax[0].imshow(u[-1], origin="lower", extent=[0, lx * 1e3, 0, ly * 1e3], cmap="inferno")
ax[0].set(title=f"top face, t = {p.time:.1f} s", xlabel="x [mm]", ylabel="y [mm]")
fig.colorbar(im, ax=ax[0], label="T [K]")
im = ax[1].imshow(u[:, ny // 2, :], origin="lower", aspect="auto", extent=[0, lx * 1e3, 0, lz * 1e3], cmap="inferno")
ax[1].set(title="cut y = 20 mm (copper spreader: x < 20 mm, bottom)", xlabel="x [mm]", ylabel="z [mm]")
fig.colorbar(im, ax=ax[1], label="T [K]")
fig.tight_layout()
fig.savefig(os.path.join(out, "slice.png"), dpi=110)
print("wrote", os.path.join(out, "slice.png"))

# %% 3. A batch of tridiagonal systems along the first axis, no copy.
try:
    import cupy as xp

    if not adi3d.cuda_available():
        raise ImportError("no usable GPU for adi3d")
    shape = (64, 1000, 1000)  # 10^6 systems of 64 unknowns
except ImportError:
    xp = np
    shape = (64, 100, 1000)  # 10^5 systems on the CPU
rs = xp.random.RandomState(1)
a = rs.uniform(-1, 1, shape).astype(xp.float32)
cc = rs.uniform(-1, 1, shape).astype(xp.float32)
b = (3 + rs.uniform(0, 1, shape)).astype(xp.float32)
d = rs.standard_normal(shape).astype(xp.float32)
adi3d.solve_tridiagonal(a, b, cc, d, axis=0)  # warm-up (plans, first launch)
t0 = time.perf_counter()
sol = adi3d.solve_tridiagonal(a, b, cc, d, axis=0)
if xp is not np:
    xp.cuda.get_current_stream().synchronize()
dt = time.perf_counter() - t0
r = b * sol - d
r[1:] += a[1:] * sol[:-1]
r[:-1] += cc[:-1] * sol[1:]
print(f"{shape[1] * shape[2]:.0e} systems of {shape[0]} unknowns ({xp.__name__}): {dt * 1e3:.2f} ms, "
      f"max residual {float(abs(r).max()):.1e}")
