"""Shared by the Python tests: the dense oracle and the GPU gate."""

import os

import numpy as np
import pytest


def dense_solve(a, b, c, d, axis, cyclic=False):
    """x for every line of d along `axis` by numpy.linalg.solve on the dense
    matrix of each line (float64): the oracle of the line solvers."""
    A, B, C, D = (np.moveaxis(np.asarray(v, dtype=np.float64), axis, -1) for v in (a, b, c, d))
    n = D.shape[-1]
    M = np.zeros(D.shape + (n,))
    i = np.arange(n)
    M[..., i, i] = B
    M[..., i[1:], i[:-1]] = A[..., 1:]
    M[..., i[:-1], i[1:]] = C[..., :-1]
    if cyclic:
        M[..., 0, n - 1] += A[..., 0]
        M[..., n - 1, 0] += C[..., n - 1]
    X = np.linalg.solve(M, D[..., None])[..., 0]
    return np.moveaxis(X, -1, axis)


def dominant_system(shape, dtype, seed=0):
    """Random a, b, c, d with |b| > |a| + |c| + 1 (Thomas needs no pivoting)."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, shape)
    c = rng.uniform(-1, 1, shape)
    b = (np.abs(a) + np.abs(c) + 1 + rng.uniform(0, 1, shape)) * rng.choice([-1, 1], shape)
    d = rng.standard_normal(shape)
    return [v.astype(dtype) for v in (a, b, c, d)]


def tolerance(dtype):
    return 2e-5 if np.dtype(dtype) == np.float32 else 1e-13


def gpu_required() -> bool:
    return os.environ.get("ADI_REQUIRE_GPU", "") == "1"


def need_gpu(lib: str):
    """The GPU library `lib` (cupy or torch) with a usable device: skipped
    without one, a failure instead with ADI_REQUIRE_GPU=1."""
    import adi3d

    why = None
    try:
        mod = __import__(lib)
    except ImportError:
        why = f"{lib} is not installed"
    else:
        if not adi3d.cuda_available():
            why = "no usable CUDA device (" + (adi3d._core.cuda_unavailable_reason() or "not built with CUDA") + ")"
        elif lib == "torch" and not mod.cuda.is_available():
            why = "torch sees no CUDA device"
    if why:
        if gpu_required():
            pytest.fail(f"ADI_REQUIRE_GPU=1 but {why}")
        pytest.skip(why)
    return mod
