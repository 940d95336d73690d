"""The heat solver of `adi3d run`, stepped from Python."""

from __future__ import annotations

import json
import math
import os
import re

import numpy as np

from . import ConfigError, _core  # (the package defines ConfigError before it imports this module)


# The name the config reader gives the keyword arguments' YAML (never shown:
# Problem._in_callers_words takes it out of messages).
_KEYWORDS = "<keyword arguments>"


def _overrides(overrides, backend, precision) -> list:
    if isinstance(overrides, (str, bytes)):
        overrides = [overrides]  # one "key=value", not its characters
    sets = [str(s) for s in (overrides or ())]
    if backend is not None:
        sets.append(f"backend={backend}")
    if precision is not None:
        sets.append(f"precision={precision}")
    return sets


class Problem:
    """One heat problem, as `adi3d run` would start it: the same config keys,
    checks and error messages (adi3d.ConfigError, a ValueError naming
    file:line:column and key), the same initial field and stepper, so that
    stepping it as many times as the config's `time:` says gives the field
    `adi3d run` writes, bit for bit on the same backend.

        p = adi3d.Problem.from_yaml("case.yaml", backend="cpu")
        p.step(100)
        p.u          # the field in place: NumPy (CPU) or CuPy (CUDA), (nz, ny, nx)
        p.write("out.h5")

    or from keyword arguments with the YAML's section names, where a NumPy
    array of shape (nz, ny, nx) may stand for a field (initial, conductivity,
    heat_capacity, power_density; it goes through an HDF5 file of the
    Problem's own, with the checks of a file):

        p = adi3d.Problem(grid={"nx": 65, "ny": 33, "nz": 17},
                          time={"dt": 1e-4, "steps": 10}, initial={"value": 20.0},
                          material={"conductivity": K, "heat_capacity": 1e6})
    """

    def __init__(self, *, overrides=(), backend=None, precision=None, **sections):
        if "_core" in sections:  # from_yaml / from_text
            self._p = sections.pop("_core")
            return
        # A 3-D array where the YAML takes a field ({file, dataset}: the
        # initial field, a conductivity, the heat capacity, the power
        # density) is written to an HDF5 file of the Problem's own, which is
        # read exactly as a user's file would be (same checks and messages).
        self._fields_dir = None
        self._arrays = {}  # the file written for each array -> the keyword argument it came from
        sections = self._files_for_arrays(sections, ())
        # The keyword arguments are the YAML document (JSON is YAML).
        text = json.dumps(sections, indent=2, allow_nan=False, default=_jsonable)
        sets = _overrides(overrides, backend, precision)
        try:
            self._p = _core.Problem.from_text(text, _KEYWORDS, sets)
        except (ValueError, OSError) as e:
            raise type(e)(self._in_callers_words(str(e), backend, precision)) from None

    def _in_callers_words(self, msg: str, backend, precision) -> str:
        """A message of the config reader, in terms of the arguments the caller
        passed: the key path ("material.conductivity: ..."), not a position in
        the YAML text made of them; "the array passed as K", not the HDF5 file
        it went through; `overrides`, `backend=`, `precision=`, not --set."""
        for path, key in self._arrays.items():
            msg = msg.replace(path + ":/v", f"the array passed as {key}").replace(path, f"the array passed as {key}")
            # "<key>: the array passed as <key> has shape ..." says the key twice.
            msg = msg.replace(f"{key}: the array passed as {key}", f"{key}: the array")
            if msg.startswith(f"the array passed as {key}: "):
                msg = key + ": the array: " + msg[len(f"the array passed as {key}: "):]
        if self._arrays:
            msg = msg.replace("(dataset index [", "(array index [").replace("to take the file's", "to take the array's")
        msg = re.sub(r"^" + re.escape(_KEYWORDS) + r"(:\d+:\d+)?: ", "", msg)
        for name, value in (("backend", backend), ("precision", precision)):
            if value is not None:
                msg = msg.replace(f"--set {name}={value}: ", f"{name}={value!r}: ")
        return re.sub(r"^--set (.*?): ", r"overrides '\1': ", msg)

    def _files_for_arrays(self, v, key):
        if isinstance(v, dict):
            return {k: self._files_for_arrays(x, key + (str(k),)) for k, x in v.items()}
        # A NaN or Inf has no JSON (and no YAML the reader takes): name its
        # key as the reader names any other bad value, instead of JSON's
        # "Out of range float values are not JSON compliant".
        if isinstance(v, (list, tuple)):
            return [self._files_for_arrays(x, key[:-1] + (f"{key[-1]}[{i}]",) if key else (f"[{i}]",))
                    for i, x in enumerate(v)]
        if isinstance(v, (float, np.floating)) and not math.isfinite(v):
            raise ConfigError(f"{'.'.join(key)}: expected a finite number, got {float(v)!r}")
        if isinstance(v, np.ndarray) and v.ndim != 3 and v.dtype.kind in "fc" and not np.isfinite(v).all():
            raise ConfigError(f"{'.'.join(key)}: expected finite numbers, the array holds NaN or Inf")
        if isinstance(v, np.ndarray) and v.ndim == 3:
            if self._fields_dir is None:
                import shutil
                import tempfile
                import weakref

                self._fields_dir = tempfile.mkdtemp(prefix="adi3d-fields-")
                # Files this Problem wrote itself, removed with it.
                weakref.finalize(self, shutil.rmtree, self._fields_dir, True)
            try:
                import h5py
            except ImportError as e:
                raise RuntimeError(f"{'.'.join(key)}: passing an array needs h5py (or write an HDF5 file and pass "
                                   "{'file': ..., 'dataset': ...})") from e
            path = os.path.join(self._fields_dir, ".".join(key) + ".h5")
            self._arrays[path] = ".".join(key)
            with h5py.File(path, "x") as f:
                f.create_dataset("v", data=v)
            return {"file": path, "dataset": "/v"}
        return v

    @classmethod
    def from_yaml(cls, path, overrides=(), backend=None, precision=None) -> "Problem":
        """Loads a config file as `adi3d run path` does; `overrides` are
        "key.path=value" strings like `--set`, `backend` and `precision` like
        the CLI options of those names."""
        return cls(_core=_core.Problem.from_file(os.fspath(path), _overrides(overrides, backend, precision)))

    def step(self, n: int = 1) -> "Problem":
        """Advances n time steps; raises ArithmeticError if the field is no
        longer finite. On the GPU, work queued on CuPy's and PyTorch's current
        streams (a write into `u`, say) is waited for first: the stepper runs
        on a stream of its own."""
        if self._p.backend != "cpu":
            _wait_for_array_libraries()
        self._p.step(int(n))
        return self

    @property
    def time(self) -> float:
        """Simulated time, step_index * dt [s]."""
        return self._p.time

    @property
    def step_index(self) -> int:
        return self._p.step_index

    @property
    def u(self):
        """The field itself, no copy, shaped (nz, ny, nx): a NumPy array on
        the CPU backend, a CuPy array on CUDA. Writing into it changes the
        state the next step starts from. Valid while the Problem lives."""
        if self._p.backend == "cpu":
            return self._p.view()
        try:
            import cupy  # noqa: F401  (the view is made a CuPy array)
        except ImportError as e:  # pragma: no cover - depends on the machine
            raise RuntimeError(
                "the field is in GPU memory and CuPy is not installed: use Problem.field() for a NumPy copy"
            ) from e
        return self._p.view()

    def heat_flows(self) -> dict:
        """The heat flows at the current step, in W, positive into the body
        (docs/USER_GUIDE.md, "Heat flows"; what `adi3d run` writes to
        /diagnostics/heat_flows): keys "x-", "x+", "y-", "y+", "z-", "z+"
        (each face), "source", "dE/dt", "residual" (dE/dt - faces - source,
        round-off), "relative_residual" (|residual| / the largest term),
        "step", "time", and "kinds": the type of each face ("dirichlet",
        "flux", "convective", "insulated", "periodic", "none")."""
        v = self._p.heat_flows()
        names = ("x-", "x+", "y-", "y+", "z-", "z+", "source", "dE/dt", "residual", "relative_residual")
        out = {"step": self.step_index, "time": self.time}
        out.update(zip(names, (float(x) for x in v)))
        out["kinds"] = dict(zip(names[:6], self._p.face_kinds()))
        return out

    def field(self) -> np.ndarray:
        """A NumPy copy of the field, shaped (nz, ny, nx), on any backend."""
        return self._p.copy()

    def probe(self, x: float, y: float, z: float) -> float:
        """The field at the point (x, y, z) [m]: trilinear interpolation of
        the nodal field, the node's value bit for bit at a node (a point
        within 1e-9 spacings of a node is that node), periodic axes wrapped, a
        flat axis' coordinate unused (it must lie in the box). A point
        outside the box raises ConfigError. Reads only the point's (at most
        8) nodes, on the GPU too."""
        return self._p.probe(float(x), float(y), float(z))

    @property
    def probes(self) -> dict:
        """The config's probes (`probes.points`) at the current step: {name: value}."""
        return dict(self._p.probes())

    def heat_flux(self) -> np.ndarray:
        """The heat flux q = -K grad u [W/m^2] at every node at the current
        step, as `output.fields: [u, heat_flux]` writes it: a new NumPy array
        of shape (nz, ny, nx, 3), (qx, qy, qz) along the last axis, in the
        Problem's precision. Each component is the mean of the scheme's two
        face fluxes of the node's control volume (docs/USER_GUIDE.md,
        "Discretisation"). Copies the field to the host."""
        return self._p.heat_flux()

    def write(self, path, overwrite: bool = False, xdmf: bool = True, compression: int = 0) -> None:
        """Writes the current step to `path` in the layout of `adi3d run`'s
        outputs (/steps/NNNNNN/u, /grid, /provenance, the material fields),
        with its .xmf sidecar for ParaView. Refuses to replace an existing
        file unless overwrite=True, and even then a file that is not an adi3d
        output or is one of this problem's inputs (OSError); an `adi3d run`
        writing the same file makes it fail (OSError), touching nothing."""
        path = os.fspath(path)
        targets = [path] + ([_core.xdmf_path_for(path)] if xdmf else [])
        # FileExistsError here; the core checks again under the output's lock
        # (another process may create the file meanwhile).
        existing = [t for t in targets if os.path.lexists(t)]
        if existing and not overwrite:
            raise FileExistsError(f"{existing[0]} exists: pass overwrite=True to replace it")
        if not 0 <= int(compression) <= 9:
            raise ValueError(f"compression: expected a gzip level 0..9, got {compression}")
        self._p.write(path, bool(xdmf), int(compression), bool(overwrite))

    shape = property(lambda self: tuple(self._p.shape), doc="(nz, ny, nx)")
    spacing = property(lambda self: tuple(self._p.spacing), doc="(hx, hy, hz) [m] (a stretched axis: its mean gap)")
    coordinates = property(lambda self: tuple(np.array(c) for c in self._p.coordinates),
                           doc="(x, y, z): each axis' node coordinates [m], a stretched axis' own (as /grid/x ... of "
                               "the outputs)")
    origin = property(lambda self: tuple(self._p.origin), doc="(x0, y0, z0) [m]")
    dt = property(lambda self: self._p.dt, doc="time step [s]")
    steps = property(lambda self: self._p.steps, doc="the config's number of steps (time.steps or t_end / dt)")
    precision = property(lambda self: self._p.precision)
    backend = property(lambda self: self._p.backend)
    device = property(lambda self: self._p.device)
    config_yaml = property(lambda self: self._p.config_yaml, doc="the resolved config, every default filled in")

    def __repr__(self) -> str:
        nz, ny, nx = self.shape
        return (f"<adi3d.Problem {nx}x{ny}x{nz} {self.precision} on {self.backend} "
                f"step {self.step_index} t={self.time:.6g}>")


def _wait_for_array_libraries() -> None:
    import sys

    if "cupy" in sys.modules:
        sys.modules["cupy"].cuda.get_current_stream().synchronize()
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.current_stream().synchronize()


def _jsonable(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    raise TypeError(f"cannot put a {type(v).__name__} into a config")
