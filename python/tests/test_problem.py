"""adi3d.Problem: the heat solver from Python starts and steps as
`adi3d run` does (bit for bit on the same backend), writes the CLI's output
layout, refuses to overwrite, and reports bad configs as the CLI does."""

import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import adi3d
from conftest import need_gpu

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
h5py = pytest.importorskip("h5py")


def adi3d_exe():
    """The CLI built beside the package (ADI3D_EXE, or build/app/adi3d);
    ./test.sh sets ADI_REQUIRE_CLI=1, which makes a missing one a failure."""
    exe = os.environ.get("ADI3D_EXE") or os.path.join(ROOT, "build", "app", "adi3d")
    if not os.access(exe, os.X_OK):
        if os.environ.get("ADI_REQUIRE_CLI") == "1":
            pytest.fail(f"ADI_REQUIRE_CLI=1 but no adi3d executable at {exe}")
        pytest.skip(f"no adi3d executable at {exe} (set ADI3D_EXE)")
    return exe


def last_step(path):
    with h5py.File(path, "r") as f:
        names = sorted(f["steps"])
        return f["steps"][names[-1]]["u"][...], int(f["steps"][names[-1]]["u"].attrs["step"])


def case(tmp_path, name):
    """A copy of an example config in tmp_path, with the fields it needs."""
    shutil.copy(os.path.join(ROOT, "examples", name), tmp_path / name)
    if name == "layered_wall.yaml":
        subprocess.run([sys.executable, os.path.join(ROOT, "examples", "make_wall.py"), str(tmp_path / "wall.h5")],
                       check=True, capture_output=True)
    return tmp_path / name


CASES = [
    ("heat.yaml", ["grid.nx=21", "grid.ny=17", "grid.nz=13", "time.steps=7"]),
    ("anisotropic.yaml", ["time.steps=5"]),
    ("convective_cooling.yaml", ["time.t_end=300"]),
    ("periodic.yaml", ["time.steps=6"]),
    ("layered_wall.yaml", ["time.t_end=1200"]),
]


def run_both(tmp_path, name, sets, backend, precision):
    src = os.path.join(ROOT, "configs", name)
    cfg = src if os.path.exists(src) else case(tmp_path, name)
    out = tmp_path / f"cli_{backend}_{precision}.h5"
    cmd = [adi3d_exe(), "run", str(cfg), "--backend", backend, "--precision", precision,
           "--set", f"output.file={out}"]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    cli, cli_step = last_step(out)
    p = adi3d.Problem.from_yaml(cfg, overrides=sets, backend=backend, precision=precision)
    assert p.backend == backend and p.precision == precision
    p.step(p.steps)
    assert p.step_index == cli_step
    return p, cli


@pytest.mark.parametrize("precision", ["float64", "float32"])
@pytest.mark.parametrize("name,sets", CASES, ids=[c[0] for c in CASES])
def test_same_field_as_adi3d_run_bit_for_bit(tmp_path, name, sets, precision):
    p, cli = run_both(tmp_path, name, sets, "cpu", precision)
    u = p.u
    assert u.dtype == np.dtype(precision) and u.shape == cli.shape
    assert np.array_equal(u, cli), f"max |diff| {np.abs(u - cli).max()}"
    np.testing.assert_array_equal(p.field(), cli)


@pytest.mark.parametrize("name,sets", CASES[:4], ids=[c[0] for c in CASES[:4]])
def test_cuda_same_field_as_adi3d_run_bit_for_bit(tmp_path, name, sets):
    cupy = need_gpu("cupy")
    p, cli = run_both(tmp_path, name, sets, "cuda", "float64")
    u = p.u
    assert isinstance(u, cupy.ndarray)
    assert np.array_equal(cupy.asnumpy(u), cli)


def test_u_is_the_state(tmp_path):
    p = adi3d.Problem(grid={"nx": 11, "ny": 9, "nz": 7}, domain={"lx": 1, "ly": 1, "lz": 1},
                      time={"dt": 1e-3, "steps": 4}, initial={"value": 1.0}, backend="cpu")
    u = p.u
    assert not u.flags.owndata and u.shape == (7, 9, 11)
    u[3, 4, 5] = 2.0  # an interior hot spot, written in place
    q = adi3d.Problem(grid={"nx": 11, "ny": 9, "nz": 7}, domain={"lx": 1, "ly": 1, "lz": 1},
                      time={"dt": 1e-3, "steps": 4}, initial={"value": 1.0}, backend="cpu")
    p.step(2)
    q.step(2)
    assert p.u[3, 4, 5] != q.u[3, 4, 5]
    assert p.time == pytest.approx(2e-3) and p.step_index == 2
    u[...] = np.nan
    with pytest.raises(ArithmeticError, match="NaN or Inf"):
        p.step(1)
    with pytest.raises(ValueError, match=">= 0"):
        q.step(-1)


def test_write_has_the_cli_layout_and_refuses_to_overwrite(tmp_path):
    cfg = case(tmp_path, "layered_wall.yaml")
    p = adi3d.Problem.from_yaml(cfg, backend="cpu", overrides=["time.t_end=600"])
    p.step(3)
    out = tmp_path / "state.h5"
    p.write(out)
    with h5py.File(out, "r") as f:
        ds = f["steps/000003/u"]
        np.testing.assert_array_equal(ds[...], p.u)
        assert ds.attrs["time"] == pytest.approx(p.time)
        assert f.attrs["status"] in (b"complete", "complete")
        assert "material" in f and "conductivity" in f["material"]
        assert "grid" in f and "provenance" in f
    assert (tmp_path / "state.xmf").exists()
    before = out.read_bytes()
    with pytest.raises(FileExistsError, match="overwrite=True"):
        p.write(out)
    assert out.read_bytes() == before
    (tmp_path / "other.xmf").write_text("a user's file")
    with pytest.raises(FileExistsError, match="other.xmf"):
        p.write(tmp_path / "other.h5")
    assert not (tmp_path / "other.h5").exists()
    assert (tmp_path / "other.xmf").read_text() == "a user's file"
    p.step(1)
    p.write(out, overwrite=True)
    with h5py.File(out, "r") as f:
        assert "000004" in f["steps"] and "000003" not in f["steps"]
    # overwrite=True replaces only an adi3d output that is not an input:
    # not a user's other file, not the problem's material file, not a lone
    # sidecar; each refusal leaves the file as it was.
    mine = tmp_path / "notes.h5"
    mine.write_bytes(b"a user's data, not HDF5")
    lone = tmp_path / "lone.xmf"
    lone.write_text("a user's file")
    wall = tmp_path / "wall.h5"
    wall_before = wall.read_bytes()
    for target, kept, text in ((mine, mine, "notes.h5"), (wall, wall, "input of this problem"),
                               (tmp_path / "lone.h5", lone, "lone.xmf exists without")):
        before = kept.read_bytes()
        with pytest.raises(OSError, match=text):
            p.write(target, overwrite=True)
        assert kept.read_bytes() == before
    assert wall.read_bytes() == wall_before and not (tmp_path / "lone.h5").exists()
    # A run holding the output's lock (adi3d run, or another write): refused, nothing touched.
    import fcntl

    busy = tmp_path / "busy.h5"
    with open(str(busy) + ".lock", "w") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX | fcntl.LOCK_NB)
        lk.write("12345\n")
        lk.flush()
        with pytest.raises(OSError, match="in use"):
            p.write(busy)
    assert not busy.exists() and not (tmp_path / "busy.xmf").exists()


def test_config_errors_name_file_line_and_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 1e-3, steps: 2}\nboundary:\n  x: {lo: weird}\n")
    with pytest.raises(adi3d.ConfigError) as e:
        adi3d.Problem.from_yaml(bad)
    assert str(e.value).startswith(f"{bad}:4:") and "boundary.x.lo" in str(e.value)
    assert isinstance(e.value, ValueError)
    # Keyword arguments: the message names the argument's key path, not a
    # position in the YAML text the Problem made of them.
    with pytest.raises(adi3d.ConfigError, match=r"^time.dt: expected"):
        adi3d.Problem(grid={"nx": 9, "ny": 9, "nz": 9}, time={"dt": -1.0, "steps": 2})
    # NaN and Inf, which JSON (the keyword arguments' way to the reader) has no
    # words for: named by their key like any other bad value.
    for bad, key in (({"dt": float("nan"), "steps": 2}, "time.dt"), ({"dt": np.inf, "steps": 2}, "time.dt")):
        with pytest.raises(adi3d.ConfigError, match=rf"^{key}: expected a finite number, got (nan|inf)$"):
            adi3d.Problem(grid={"nx": 9, "ny": 9, "nz": 9}, time=bad)
    with pytest.raises(adi3d.ConfigError, match=r"^domain.origin\[1\]: expected a finite number"):
        adi3d.Problem(grid={"nx": 9, "ny": 9, "nz": 9}, time={"dt": 1e-3, "steps": 2}, domain={"origin": [0.0, -np.inf, 0.0]})
    with pytest.raises(adi3d.ConfigError, match=r"^domain.origin: expected finite numbers"):
        adi3d.Problem(grid={"nx": 9, "ny": 9, "nz": 9}, time={"dt": 1e-3, "steps": 2}, domain={"origin": np.array([0.0, np.nan, 0.0])})
    with pytest.raises(adi3d.ConfigError, match="did you mean 'time'"):
        adi3d.Problem(grid={"nx": 9, "ny": 9, "nz": 9}, tme={"dt": 1.0})
    with pytest.raises(adi3d.ConfigError, match="nope.yaml"):
        adi3d.Problem.from_yaml(tmp_path / "nope.yaml")
    with pytest.raises(adi3d.ConfigError, match="grid.nx"):
        adi3d.Problem.from_yaml(os.path.join(ROOT, "configs", "heat.yaml"), overrides=["grid.nx=two"])
    # A process grid of several ranks contradicts a Problem's one process.
    mpi = tmp_path / "mpi.yaml"
    mpi.write_text("grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 1e-3, steps: 2}\nparallel: {grid: [1, 2, 2]}\n")
    with pytest.raises(adi3d.ConfigError, match=r"mpi.yaml:3:\d+: parallel.grid: \[1, 2, 2\] needs 4 MPI ranks"):
        adi3d.Problem.from_yaml(mpi)
    assert adi3d.Problem.from_yaml(mpi, overrides=["parallel.grid=auto"], backend="cpu").shape == (9, 9, 9)
    assert adi3d.Problem.from_yaml(mpi, overrides="parallel.grid=auto", backend="cpu").shape == (9, 9, 9)


def test_arrays_stand_for_fields(tmp_path):
    """NumPy arrays where the YAML takes a field give what the same values in
    a user's HDF5 file give, bit for bit; the Problem's own files go with it."""
    import gc

    nz, ny, nx = 7, 9, 11
    rng = np.random.default_rng(4)
    K = rng.uniform(1, 10, (nz, ny, nx))
    c = rng.uniform(1e5, 2e5, (nz, ny, nx))
    q = rng.uniform(0, 1e4, (nz, ny, nx))
    u0 = rng.uniform(290, 310, (nz, ny, nx))
    common = dict(grid={"nx": nx, "ny": ny, "nz": nz}, domain={"lx": 0.1, "ly": 0.08, "lz": 0.06},
                  time={"dt": 0.5, "steps": 4}, boundary={"default": "insulated"}, backend="cpu")
    fields = tmp_path / "fields.h5"
    with h5py.File(fields, "w") as f:
        for name, v in (("K", K), ("c", c), ("q", q), ("u", u0)):
            f.create_dataset(name, data=v)
    ref = adi3d.Problem(material={"conductivity": {"file": str(fields), "dataset": "/K"},
                                  "heat_capacity": {"file": str(fields), "dataset": "/c"}},
                        source={"power_density": {"file": str(fields), "dataset": "/q"}},
                        initial={"file": str(fields), "dataset": "/u"}, **common)
    p = adi3d.Problem(material={"conductivity": K, "heat_capacity": c}, source={"power_density": q}, initial=u0,
                      **common)
    ref.step(4)
    p.step(4)
    assert np.array_equal(p.u, ref.u) and not np.array_equal(p.u, u0)
    own = p._fields_dir
    assert os.path.isdir(own) and sorted(os.listdir(own)) == [
        "initial.h5", "material.conductivity.h5", "material.heat_capacity.h5", "source.power_density.h5"]
    # A wrong shape is the file's error, naming the key.
    with pytest.raises(adi3d.ConfigError, match="material.conductivity"):
        adi3d.Problem(material={"conductivity": K[:, :, :5], "heat_capacity": c}, initial={"value": 300.0}, **common)
    del p
    gc.collect()
    assert not os.path.exists(own)


def test_errors_name_the_callers_arguments(tmp_path):
    """A bad keyword argument is named by its key path ("material.conductivity:
    ..."), never by a position in the YAML text the Problem made of the
    arguments nor by the HDF5 file an array went through (issue #59)."""
    base = dict(grid={"nx": 9, "ny": 9, "nz": 9}, time={"dt": 1e-3, "steps": 2}, initial={"value": 1.0})
    K = np.ones((9, 9, 9))
    K[3, 3, 3] = -1.0
    cases = [
        (dict(material={"conductivity": "abc", "heat_capacity": 1e6}), adi3d.ConfigError,
         r"^material.conductivity: expected a number, got 'abc'$"),
        (dict(material={"conductivity": K, "heat_capacity": 1e6}), OSError,
         r"^material.conductivity: the array: the conductivity field holds -1 at node \(i, j, k\) = \(3, 3, 3\) "
         r"\(array index \[3, 3, 3\]\); expected a finite value > 0$"),
        (dict(material={"conductivity": np.ones((9, 9, 8)), "heat_capacity": 1e6}), adi3d.ConfigError,
         r"^material.conductivity: the array has shape \(nz, ny, nx\) = \(9, 9, 8\) but the grid is \(9, 9, 9\)"),
        (dict(material={"conductivity": {"x": np.ones((9, 9, 8)), "y": 1.0, "z": 1.0}, "heat_capacity": 1e6}),
         adi3d.ConfigError, r"^material.conductivity.x: the array has shape"),
        (dict(material={"conductivity": 1.0, "heat_capacity": 1.0},
              source={"power_density": np.ones((9, 9, 9), dtype=np.int32)}), OSError,
         r"^source.power_density: the array: expected float32 or float64 values, got 32-bit integers"),
        (dict(material={"conductivity": 1.0, "heat_capacity": 1.0}, boundary={"x": "periodic"}), adi3d.ConfigError,
         r"^boundary: missing face y_lo"),
        (dict(bogus=1), adi3d.ConfigError, r"^bogus: unknown key 'bogus'"),
    ]
    for extra, kind, pattern in cases:
        kw = dict(base)
        kw.update(extra)
        with pytest.raises(kind) as e:
            adi3d.Problem(**kw)
        text = str(e.value)
        assert re.search(pattern, text), text
        assert "<keyword arguments>" not in text and "adi3d-fields-" not in text and ".h5" not in text, text
    # An initial array of another shape than the grid.
    with pytest.raises(adi3d.ConfigError) as e:
        adi3d.Problem(grid={"nx": 9, "ny": 9, "nz": 9}, time={"dt": 1e-3, "steps": 2}, initial=np.zeros((9, 9, 8)))
    assert re.search(r"^grid: the config says nx, ny, nz = 9, 9, 9 but the array passed as initial has shape "
                     r"\(nz, ny, nx\) = \(9, 9, 8\); drop the grid section to take the array's", str(e.value)), str(e.value)
    # NaN in an initial array: the array, not a temporary file.
    bad = np.zeros((9, 9, 9))
    bad[0, 1, 2] = np.nan
    with pytest.raises(OSError) as e:
        adi3d.Problem(grid={"nx": 9, "ny": 9, "nz": 9}, time={"dt": 1e-3, "steps": 2}, initial=bad)
    assert str(e.value).startswith("initial: the array: ") and "(i, j, k) = (2, 1, 0)" in str(e.value), str(e.value)
    # overrides, backend= and precision= are named as the caller passed them.
    with pytest.raises(adi3d.ConfigError, match=r"^overrides 'time.dt=abc': time.dt: expected a number"):
        adi3d.Problem(**base, overrides=["time.dt=abc"])
    with pytest.raises(adi3d.ConfigError, match=r"^precision='float16': precision: "):
        adi3d.Problem(**base, precision="float16")
    # A file of the caller's own keeps its name.
    with pytest.raises(OSError, match="nope.h5"):
        adi3d.Problem(grid={"nx": 9, "ny": 9, "nz": 9}, time={"dt": 1e-3, "steps": 2},
                      initial={"file": str(tmp_path / "nope.h5"), "dataset": "/u"})


def _inclusion(n=15):
    inside = np.zeros((n, n, n), bool)
    inside[5:10, 5:10, 5:10] = True
    K = np.where(inside, 1000.0, 1.0)
    c = np.where(inside, 70.0, 1.0)
    u0 = np.random.default_rng(20261205).uniform(0.0, 1.0, (n, n, n))
    return K, c, u0


def _energy(u, c):
    w = np.ones(u.shape)
    for ax in range(3):
        for end in (0, -1):
            s = [slice(None)] * 3
            s[ax] = end
            w[tuple(s)] *= 0.5
    return float(np.sum(w * c * u * u))


def test_strang_is_the_default_for_fields_and_keeps_the_energy_from_growing():
    """The issue-51 inclusion (K 1000x, c 70x, insulated, dt = 1): the default
    scheme's energy never grows from step to step (the Douglas step's grows
    3.2x a step there: docs/SCHEMES.md)."""
    K, c, u0 = _inclusion()
    p = adi3d.Problem(grid={"nx": 15, "ny": 15, "nz": 15}, domain={"lx": 1, "ly": 1, "lz": 1},
                      material={"conductivity": K, "heat_capacity": c}, boundary="insulated", initial=u0,
                      time={"dt": 1.0, "steps": 20}, backend="cpu")
    prev = _energy(p.field(), c)
    for _ in range(20):
        p.step()
        e = _energy(p.field(), c)
        assert e <= prev * (1 + 1e-12)
        prev = e
    assert prev < 0.95 * _energy(u0, c)


def test_energy_guard_stops_the_douglas_step_on_an_inclusion():
    """scheme.type douglas by name on the same inclusion: step() raises
    ArithmeticError naming the growth, as `adi3d run` stops with exit 4."""
    K, c, u0 = _inclusion()
    p = adi3d.Problem(grid={"nx": 15, "ny": 15, "nz": 15}, domain={"lx": 1, "ly": 1, "lz": 1},
                      material={"conductivity": K, "heat_capacity": c}, boundary="insulated", initial=u0,
                      time={"dt": 1.0, "steps": 20}, scheme={"type": "douglas"}, backend="cpu")
    with pytest.raises(ArithmeticError, match=r"the discrete energy sum w c u\^2 grew .* the run is unstable"):
        p.step(3)


def test_time_start_starts_the_clock():
    # time: {start: T} (issue #59 item 5): the clock of a fresh Problem, as of
    # `adi3d run`, and the tables are read on it: a moving face at t = 10 + k dt.
    common = dict(grid={"nx": 9, "ny": 7, "nz": 5}, material={"conductivity": 2.0, "heat_capacity": 1.0},
                  boundary={"x": {"type": "dirichlet", "value": 300.0, "table": [[0, 1], [10, 2], [20, 3]]},
                            "default": "insulated"},
                  initial={"value": 300.0})
    p = adi3d.Problem(time={"dt": 1.0, "steps": 4, "start": 10.0}, **common)
    assert p.time == 10.0
    assert np.all(p.u[:, :, 0] == 600.0)  # V f(10) = 300 x 2 at the start
    p.step(2)
    assert p.step_index == 2 and p.time == 12.0
    assert np.allclose(p.u[:, :, 0], 300.0 * 2.2)
    q = adi3d.Problem(time={"dt": 1.0, "steps": 4}, **common)
    assert q.time == 0.0 and np.all(q.u[:, :, 0] == 300.0)


def test_heat_flows_balance_and_match_adi3d_run(tmp_path):
    """Problem.heat_flows(): every face kind, K and q as arrays, a source
    table; the balance closes to round-off, a slab's exact K A / L, and the
    values are those `adi3d run` writes to /diagnostics/heat_flows."""
    nz, ny, nx = 6, 5, 7
    rng = np.random.default_rng(55)
    K = np.where(rng.random((nz, ny, nx)) < 0.3, 200.0, 2.0)
    q = rng.uniform(-1e4, 5e4, (nz, ny, nx))
    cfg = dict(grid={"nx": nx, "ny": ny, "nz": nz}, domain={"lx": 0.07, "ly": 0.05, "lz": 0.06},
               material={"conductivity": K, "heat_capacity": 1e6},
               source={"power_density": q, "table": [[0, 0.5], [5, 2]]},
               boundary={"x": {"lo": {"type": "dirichlet", "value": 40, "table": [[0, 1], [5, 1.5]]},
                               "hi": {"type": "neumann", "flux": 900}},
                         "y": {"lo": {"type": "convective", "h": 30, "ambient": 10}, "hi": "insulated"},
                         "z": "periodic"},
               initial={"value": 20.0}, time={"dt": 0.5, "steps": 6}, backend="cpu",
               diagnostics={"heat_flows": True})
    p = adi3d.Problem(**cfg)
    p.step(6)
    f = p.heat_flows()
    assert f["kinds"] == {"x-": "dirichlet", "x+": "flux", "y-": "convective", "y+": "insulated",
                          "z-": "periodic", "z+": "periodic"}
    assert f["step"] == 6 and f["relative_residual"] <= 1e-10
    faces = sum(f[k] for k in ("x-", "x+", "y-", "y+", "z-", "z+"))
    assert abs(f["dE/dt"] - faces - f["source"] - f["residual"]) <= 1e-12 * abs(f["dE/dt"])
    # The flux face: 900 W/m^2 over its area.
    assert f["x+"] == pytest.approx(900 * 0.05 * 0.06, rel=1e-13)
    # The CLI's row of the same step.
    yaml = tmp_path / "case.yaml"
    with h5py.File(tmp_path / "f.h5", "w") as h:
        h["K"], h["q"] = K, q
    cfg_cli = dict(cfg, material={"conductivity": {"file": "f.h5", "dataset": "/K"}, "heat_capacity": 1e6},
                   source={"power_density": {"file": "f.h5", "dataset": "/q"}, "table": [[0, 0.5], [5, 2]]},
                   output={"file": "run.h5", "every": 3})
    import json
    yaml.write_text("\n".join("%s: %s" % (k, json.dumps(v)) for k, v in cfg_cli.items()) + "\n")
    r = subprocess.run([adi3d_exe(), "run", "case.yaml"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with h5py.File(tmp_path / "run.h5", "r") as h:
        d = h["diagnostics/heat_flows"]
        row = dict(zip(d.attrs["columns"].split(","), d[-1]))
    assert row["step"] == 6
    for k in ("x-", "x+", "y-", "y+", "source", "dE/dt"):
        assert row[k] == pytest.approx(f[k], rel=1e-12, abs=1e-12 * abs(f["dE/dt"]))

    # A slab at its linear steady profile: K A / L through it, nothing stored.
    s = adi3d.Problem(grid={"nx": 11, "ny": 4, "nz": 5}, domain={"lx": 0.5, "ly": 0.3, "lz": 0.2},
                      material={"conductivity": 3.0, "heat_capacity": 2e6},
                      boundary={"x": {"lo": {"type": "dirichlet", "value": 1}, "hi": {"type": "dirichlet", "value": 0}},
                                "default": "insulated"},
                      initial=np.broadcast_to(1 - np.arange(11) / 10, (5, 4, 11)).copy(),
                      time={"dt": 1.0, "steps": 1}, backend="cpu")
    g = s.heat_flows()
    assert g["x-"] == pytest.approx(3.0 * 0.3 * 0.2 / 0.5, rel=1e-13)
    assert g["x+"] == pytest.approx(-3.0 * 0.3 * 0.2 / 0.5, rel=1e-13)
    assert abs(g["dE/dt"]) <= 1e-13 * g["x-"]


def test_probe_and_heat_flux_of_a_linear_profile():
    # A slab between Dirichlet 1 and 0 (x), insulated elsewhere, marched to its
    # linear steady state: the flux is K / L everywhere and a probe at a node
    # is the field there, bit for bit; between nodes, trilinear.
    p = adi3d.Problem(grid={"nx": 9, "ny": 7, "nz": 5}, domain={"lx": 2.0, "ly": 1.0, "lz": 1.0},
                      material={"conductivity": 3.0, "heat_capacity": 1.0},
                      boundary={"x": {"lo": {"type": "dirichlet", "value": 1}, "hi": {"type": "dirichlet", "value": 0}},
                                "y": "insulated", "z": "insulated"},
                      initial={"value": 0}, scheme={"type": "douglas", "theta": 1}, time={"dt": 100.0, "steps": 1},
                      backend="cpu")
    p.step(40)
    u = np.asarray(p.u)
    assert p.probe(0.5, 0.5, 0.25) == u[1, 3, 2]
    mid = 0.5 * (u[1, 3, 2] + u[1, 3, 3])
    assert p.probe(0.625, 0.5, 0.25) == pytest.approx(mid, rel=1e-14)
    q = np.asarray(p.heat_flux())
    assert q.shape == (5, 7, 9, 3)
    assert np.allclose(q[..., 0], 3.0 / 2.0, rtol=1e-9) and np.allclose(q[..., 1:], 0.0, atol=1e-9)


def test_stretched_axis_from_an_array(tmp_path):
    # A stretched x (a NumPy array of node coordinates, geometric from the
    # hot face) in a slab between 1 and 0: the steady profile is linear in the
    # coordinate (exact on any grid), the flux K / L at every node, the
    # coordinates come back as given, and adi3d run on the same config (the
    # Problem's resolved YAML) gives the same field bit for bit.
    x = np.concatenate(([0.0], np.cumsum(0.01 * 1.3 ** np.arange(11))))
    p = adi3d.Problem(grid={"x": {"coordinates": x}, "ny": 5, "nz": 4}, domain={"ly": 1.0, "lz": 1.0},
                      material={"conductivity": 2.0, "heat_capacity": 1.0},
                      boundary={"x": {"lo": {"type": "dirichlet", "value": 1}, "hi": {"type": "dirichlet", "value": 0}},
                                "y": "insulated", "z": "insulated"},
                      initial={"value": 0}, scheme={"type": "douglas", "theta": 1}, time={"dt": 10.0, "steps": 60},
                      backend="cpu")
    assert np.array_equal(p.coordinates[0], x) and len(p.coordinates[1]) == 5
    p.step(p.steps)
    u = np.asarray(p.u)
    exact = 1.0 - (x - x[0]) / (x[-1] - x[0])
    assert np.abs(u[2, 2, :] - exact).max() < 1e-12
    q = np.asarray(p.heat_flux())
    assert np.allclose(q[..., 0], 2.0 / (x[-1] - x[0]), rtol=1e-9)
    assert p.probe(x[4], 0.5, 0.5) == u[2, 2, 4]
    cfg = tmp_path / "resolved.yaml"
    cfg.write_text(p.config_yaml)
    out = tmp_path / "cli.h5"
    r = subprocess.run([adi3d_exe(), "run", str(cfg), "--set", f"output.file={out}"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    cli, step = last_step(out)
    assert step == 60 and np.array_equal(cli, u)
