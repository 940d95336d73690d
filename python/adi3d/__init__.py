"""adi3d: batched tridiagonal solves along any axis of NumPy, CuPy and
PyTorch arrays, and the ADI heat solver, from Python.

NumPy arrays (and PyTorch CPU tensors) run on adi3d's CPU backend (OpenMP);
CuPy arrays and PyTorch CUDA tensors run on the GPU, on the caller's current
stream, with no copy of the data (DLPack). See the README's "Python" section.
"""

from __future__ import annotations

import numpy as np

from . import _core
from ._arrays import Kind, assign, contiguous_copy, current_stream, on_device, usable_strides

__all__ = [
    "solve_tridiagonal",
    "solve_constant",
    "Problem",
    "cuda_available",
    "ConfigError",
    "NumericalError",
    "__version__",
]

__version__ = _core.version
NumericalError = _core.NumericalError
ConfigError = getattr(_core, "ConfigError", ValueError)


def cuda_available() -> bool:
    """Whether this build has the CUDA backend and a usable device."""
    return _core.cuda_built() and _core.cuda_unavailable_reason() == ""


def _detach(x):
    # PyTorch refuses to export a tensor that requires grad; the solvers do
    # not record a graph, so they read its values.
    return x.detach() if hasattr(x, "requires_grad") and getattr(x, "requires_grad") else x


def _axis(axis, ndim: int) -> int:
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"axis: expected an integer, got {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of range for a {ndim}-D array")
    return int(axis) % ndim


def _check_rhs(d, name="d") -> Kind:
    k = Kind(d, name)
    if not 1 <= len(k.shape) <= 3:
        raise ValueError(f"{name}: expected a 1-, 2- or 3-D array, got shape {k.shape}")
    if any(n == 0 for n in k.shape):
        raise ValueError(f"{name}: the array is empty (shape {k.shape})")
    return k


def _like(x, kd: Kind, name: str) -> Kind:
    k = Kind(x, name)
    if k.lib != kd.lib:
        raise TypeError(f"{name} is a {k.lib} array, d a {kd.lib} array: pass arrays of one library")
    if k.dtype != kd.dtype:
        raise TypeError(f"{name} is {k.dtype}, d is {kd.dtype}: pass one dtype")
    if k.shape != kd.shape:
        raise ValueError(f"{name} has shape {k.shape}, d has {kd.shape}")
    if not k.same_place(kd):
        raise ValueError(f"{name} is on {k.where()}, d on {kd.where()}: pass arrays on one device")
    return k


def _output(d, kd: Kind, out, ko: Kind | None = None):
    """The array the solution goes to, holding d's values, and its Kind
    (ko: out's, when the caller has it already)."""
    if out is None:
        x = contiguous_copy(d, kd.lib)
        return x, Kind(x, "out")
    if ko is None:
        ko = kd if out is d else _like(out, kd, "out")
    if kd.lib == "numpy" and not out.flags.writeable:
        raise ValueError("out is read-only")
    if out is not d:
        assign(out, d, kd.lib)
    return out, ko


def solve_tridiagonal(a, b, c, d, axis: int = -1, cyclic: bool = False, out=None):
    """Solves every line of d along `axis`: for each line,

        a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i],  i = 0 .. n-1,

    with a, b, c, d of one shape, dtype (float32 or float64) and device.
    a[0] and c[n-1] are ignored, unless cyclic=True: then the line is a ring
    (a periodic axis of n distinct nodes, n >= 3), a[0] couples x[n-1] and
    c[n-1] couples x[0].

    Returns the solution in `out` (a new array of d's library when None; it
    may be d itself for an in-place solve). Arrays of any positive strides
    run in place; others (negative, zero or mixed strides) are solved in a
    contiguous copy. No pivoting: the matrix must be diagonally dominant or
    symmetric positive definite. A singular system, or NaN or Inf in the
    input, raises adi3d.NumericalError (an ArithmeticError) after the solve:
    a zero or non-finite pivot, or a solution that is not finite, on the CPU
    (Thomas); a solution that is not finite on the GPU (whose segmented
    elimination needs no pivot at a line's first row).
    """
    a, b, c, d, out = (_detach(v) if v is not None else None for v in (a, b, c, d, out))
    kd = _check_rhs(d)
    ks = [_like(v, kd, n) for v, n in ((a, "a"), (b, "b"), (c, "c"))]
    ko = None
    if out is not None:
        # d's Kind serves an in-place solve (out is d): one Kind per array,
        # this wrapper's time counts in every call of a loop.
        ko = kd if out is d else _like(out, kd, "out")
        # Checked before d is copied into out, which would overwrite them.
        if any(out is v or _overlap(out, v, kd.lib) for v in (a, b, c)):
            raise ValueError("out must not be one of a, b, c nor share memory with them (it may be d)")
    ax = _axis(axis, len(kd.shape))
    if cyclic and kd.shape[ax] < 3:
        raise ValueError(f"cyclic=True needs lines of at least 3 nodes, axis {axis} has {kd.shape[ax]}")
    x, kx = _output(d, kd, out, ko)
    work, kw = x, kx
    coefs = [a, b, c]
    # (a, b, c have d's shape: with the solution's strides they are usable
    # exactly when the solution's are.)
    if not (usable_strides(kw) and all(k.strides == kw.strides for k in ks)):
        # One layout for all four: the solution contiguous, and a contiguous
        # copy of each coefficient array laid out otherwise.
        if not _is_c_contiguous(kw):
            work = contiguous_copy(x, kd.lib)
            kw = Kind(work, "out")
        coefs = [v if k.strides == kw.strides and usable_strides(k) else contiguous_copy(v, kd.lib)
                 for v, k in zip(coefs, ks)]
    with on_device(kd), _axis_named(ax, kd.shape):
        _core.solve_general(*coefs, work, ax, bool(cyclic), current_stream(kd))
    if work is not x:
        assign(x, work, kd.lib)
    return x


class _axis_named:
    """Names the caller's array axis in a solver error: the library solves
    along its x, y, z (x the last array axis), which is not how the caller
    sees a 1-D or 2-D array ("along x" for the only axis of a 1-D array)."""

    def __init__(self, axis: int, shape: tuple):
        self.where = f"along axis {axis} of the {len(shape)}-D array of shape {tuple(shape)}"

    def __enter__(self):
        return self

    def __exit__(self, kind, e, tb):
        if e is None or not isinstance(e, _core.NumericalError):
            return False
        import re

        text, n = re.subn(r"\balong [xyz]\b", self.where, str(e), count=1)
        if n:
            raise type(e)(text) from None
        return False


def _overlap(x, y, lib: str) -> bool:
    """Whether x and y may share memory (bounds only: cheap, conservative)."""
    if lib == "numpy":
        return bool(np.may_share_memory(x, y))
    if lib == "cupy":
        import cupy

        return bool(cupy.may_share_memory(x, y))
    # PyTorch: the byte ranges of the two storages' views.
    def span(t):
        lo = t.data_ptr()
        hi = lo + t.element_size() * (1 + sum((n - 1) * st for n, st in zip(t.shape, t.stride()) if n > 0))
        return lo, hi
    (a0, a1), (b0, b1) = span(x), span(y)
    return x.device == y.device and a0 < b1 and b0 < a1


def _is_c_contiguous(k: Kind) -> bool:
    expect = 1
    for n, s in zip(reversed(k.shape), reversed(k.strides)):
        if n > 1 and s != expect:
            return False
        expect *= n
    return True


def _diagonal(v, n: int, name: str) -> list:
    if hasattr(v, "get") and type(v).__module__.split(".")[0] == "cupy":
        v = v.get()
    elif type(v).__module__.split(".")[0] == "torch":
        v = v.detach().cpu().numpy()
    arr = np.asarray(v, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"{name}: expected a number or {n} values (the line length), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: holds NaN or Inf")
    return arr.tolist()


def solve_constant(lower, diag, upper, d, axis: int = -1, out=None):
    """Solves every line of d along `axis` with one matrix shared by all
    lines: lower[i] x[i-1] + diag[i] x[i] + upper[i] x[i+1] = d[i]. Each
    diagonal is a number or n values (lower[0] and upper[n-1] ignored). The
    matrix is factorised once, in double precision, and the solve reads and
    writes only d's values: the fastest way to solve many lines of one
    matrix (an ADI sweep). Returns `out` (as in solve_tridiagonal). The
    diagonals are checked (finite, no zero pivot); d is not: NaN or Inf in a
    line of d gives that line a non-finite solution, unreported (a check
    would read d once more; use numpy.isfinite where d may hold them)."""
    d, out = (_detach(v) if v is not None else None for v in (d, out))
    kd = _check_rhs(d)
    ax = _axis(axis, len(kd.shape))
    n = kd.shape[ax]
    diags = [_diagonal(v, n, name) for v, name in ((lower, "lower"), (diag, "diag"), (upper, "upper"))]
    x, kx = _output(d, kd, out)
    work = x if usable_strides(kx) else contiguous_copy(x, kd.lib)
    with on_device(kd), _axis_named(ax, kd.shape):
        _core.solve_constant(*diags, work, ax, current_stream(kd))
    if work is not x:
        assign(x, work, kd.lib)
    return x


from ._problem import Problem  # noqa: E402  (needs the functions above)
