"""adi3d.solve_tridiagonal and solve_constant on NumPy arrays (the CPU
backend), against the dense oracle: awkward sizes, every axis, any strides,
cyclic lines, and bad input."""

import re

import numpy as np
import pytest

import adi3d
from conftest import dense_solve, dominant_system, tolerance

SHAPES = [(1,), (2,), (3,), (37,), (5, 33), (33, 5), (3, 4, 5), (7, 1, 9), (17, 9, 33), (2, 65, 3)]
DTYPES = [np.float32, np.float64]


def check(x, ref, dtype):
    assert x.dtype == np.dtype(dtype)
    scale = max(1.0, float(np.abs(ref).max()))
    np.testing.assert_allclose(x, ref, rtol=0, atol=tolerance(dtype) * scale * 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_every_axis_matches_dense_solve(shape, dtype):
    for axis in range(len(shape)):
        a, b, c, d = dominant_system(shape, dtype, seed=axis)
        d0 = d.copy()
        x = adi3d.solve_tridiagonal(a, b, c, d, axis=axis)
        check(x, dense_solve(a, b, c, d, axis), dtype)
        np.testing.assert_array_equal(d, d0)  # d is left alone without out=
        # A negative axis is the same axis.
        np.testing.assert_array_equal(adi3d.solve_tridiagonal(a, b, c, d, axis=axis - len(shape)), x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_in_place_and_into_out(dtype):
    a, b, c, d = dominant_system((6, 11, 13), dtype)
    ref = dense_solve(a, b, c, d, 1)
    out = np.full_like(d, np.nan)
    assert adi3d.solve_tridiagonal(a, b, c, d, axis=1, out=out) is out
    check(out, ref, dtype)
    assert adi3d.solve_tridiagonal(a, b, c, d, axis=1, out=d) is d
    check(d, ref, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_views_and_layouts(dtype):
    big = [v for v in dominant_system((9, 20, 31), dtype, seed=3)]
    views = {
        "every other row and column": lambda v: v[:, ::2, 1::3],
        "Fortran order": lambda v: np.asfortranarray(v),
        "transposed view": lambda v: v.transpose(2, 0, 1),
        "reversed axis": lambda v: v[::-1, :, ::-1],
    }
    for name, f in views.items():
        a, b, c, d = (f(v) for v in big)
        for axis in range(3):
            x = adi3d.solve_tridiagonal(a, b, c, d, axis=axis)
            check(x, dense_solve(a, b, c, d, axis), dtype)
    # Coefficients in a different layout from d, and broadcast (stride 0).
    a, b, c, d = big
    bb = np.broadcast_to(b[:1], b.shape)
    x = adi3d.solve_tridiagonal(np.asfortranarray(a), bb, c[:, :, ::-1].copy()[:, :, ::-1], d, axis=2)
    check(x, dense_solve(a, bb, c, d, 2), dtype)
    # out a strided view of a bigger array: written in place, the rest untouched.
    host = np.zeros((9, 40, 31), dtype)
    out = host[:, ::2, :]
    adi3d.solve_tridiagonal(a, b, c, d, axis=0, out=out)
    check(out, dense_solve(a, b, c, d, 0), dtype)
    assert not host[:, 1::2, :].any()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [3, 4, 37, 129])
def test_cyclic_matches_dense_solve(n, dtype):
    for shape, axis in (((n,), 0), ((5, n), 1), ((n, 3, 7), 0), ((4, n, 6), 1)):
        a, b, c, d = dominant_system(shape, dtype, seed=n)
        x = adi3d.solve_tridiagonal(a, b, c, d, axis=axis, cyclic=True)
        check(x, dense_solve(a, b, c, d, axis, cyclic=True), dtype)


def test_cyclic_fourier_mode_is_an_eigenvector():
    # The periodic second difference maps cos(2 pi k i / n) to
    # -(2 - 2 cos(2 pi k / n)) times itself: (I - tau L) u = d has the exact
    # solution d / (1 + tau (2 - 2 cos)).
    n, k, tau = 48, 5, 0.7
    i = np.arange(n)
    mode = np.cos(2 * np.pi * k * i / n)
    ones = np.ones((3, n))
    x = adi3d.solve_tridiagonal(-tau * ones, (1 + 2 * tau) * ones, -tau * ones, np.tile(mode, (3, 1)), axis=1,
                                cyclic=True)
    lam = 1 + tau * (2 - 2 * np.cos(2 * np.pi * k / n))
    np.testing.assert_allclose(x, np.tile(mode / lam, (3, 1)), atol=1e-14)


@pytest.mark.parametrize("dtype", DTYPES)
def test_constant_matrix(dtype):
    shape = (10, 23, 17)
    rng = np.random.default_rng(7)
    d = rng.standard_normal(shape).astype(dtype)
    for axis in range(3):
        n = shape[axis]
        lower = rng.uniform(-1, 0, n)
        upper = rng.uniform(-1, 0, n)
        diag = 2.5 + rng.uniform(0, 1, n)
        shp = [1, 1, 1]
        shp[axis] = n
        A, B, C = (np.broadcast_to(v.reshape(shp), shape) for v in (lower, diag, upper))
        x = adi3d.solve_constant(lower, diag, upper, d, axis=axis)
        check(x, dense_solve(A, B, C, d, axis), dtype)
        # Numbers for the diagonals: the same matrix on every row.
        x = adi3d.solve_constant(-1.0, 4.0, -1.0, d[::2], axis=axis)
        A = np.full(x.shape, -1.0)
        check(x, dense_solve(A, -4 * A, A, d[::2], axis), dtype)


def test_bad_input_raises_clear_errors():
    a, b, c, d = dominant_system((4, 5, 6), np.float64)
    inputs = [v.copy() for v in (a, b, c, d)]
    cases = [
        (TypeError, "float32 or float64", lambda: adi3d.solve_tridiagonal(a, b, c, d.astype(np.int32))),
        (TypeError, "one dtype", lambda: adi3d.solve_tridiagonal(a.astype(np.float32), b, c, d)),
        (ValueError, "shape", lambda: adi3d.solve_tridiagonal(a[:, :4], b, c, d)),
        (ValueError, "1-, 2- or 3-D", lambda: adi3d.solve_tridiagonal(a, b, c, d.reshape(2, 2, 5, 6))),
        (ValueError, "empty", lambda: adi3d.solve_tridiagonal(a[:0], b[:0], c[:0], d[:0])),
        (ValueError, "out of range", lambda: adi3d.solve_tridiagonal(a, b, c, d, axis=3)),
        (TypeError, "integer", lambda: adi3d.solve_tridiagonal(a, b, c, d, axis=1.0)),
        (TypeError, "NumPy array", lambda: adi3d.solve_tridiagonal(a.tolist(), b, c, d)),
        (ValueError, "at least 3", lambda: adi3d.solve_tridiagonal(a[:, :, :2], b[:, :, :2], c[:, :, :2],
                                                                   d[:, :, :2], cyclic=True)),
        (ValueError, "out must not be", lambda: adi3d.solve_tridiagonal(a, b, c, d, out=b)),
        (ValueError, "share memory", lambda: adi3d.solve_tridiagonal(a, b, c, d, out=a[:, :, ::-1])),
        (ValueError, "shape", lambda: adi3d.solve_tridiagonal(a, b, c, d, out=np.empty((4, 5, 7)))),
        (ValueError, "6 values", lambda: adi3d.solve_constant([1, 2], 4, 1, d)),
        (ValueError, "NaN", lambda: adi3d.solve_constant(1, np.nan, 1, d)),
    ]
    ro = d.copy()
    ro.flags.writeable = False
    cases.append((ValueError, "read-only", lambda: adi3d.solve_tridiagonal(a, b, c, d, out=ro)))
    for exc, text, call in cases:
        with pytest.raises(exc, match=text):
            call()
    for v, v0 in zip((a, b, c, d), inputs):  # refused before anything was written
        np.testing.assert_array_equal(v, v0)


def test_zero_pivot_is_an_arithmetic_error():
    a, b, c, d = dominant_system((3, 8), np.float64)
    b[1, 0] = 0.0
    with pytest.raises(ArithmeticError, match="pivot"):
        adi3d.solve_tridiagonal(a, b, c, d, axis=1)
    with pytest.raises(ArithmeticError, match="pivot"):
        adi3d.solve_constant(0.0, 0.0, 0.0, d, axis=1)


@pytest.mark.parametrize("shape, axis", [((8,), 0), ((3, 8), 1), ((8, 3), 0), ((2, 8, 3), 1), ((2, 3, 8), -1)])
@pytest.mark.parametrize("cyclic", [False, True])
def test_singular_error_names_the_array_axis(shape, axis, cyclic):
    # The library solves along its x, y, z (x the last array axis); the
    # caller's message names the caller's axis: "along x" for the only axis
    # of a 1-D array read as if it were a 3-D grid's x (issue #59).
    a, b, c, d = dominant_system(shape, np.float64)
    b[...] = 0.0
    a[...] = 0.0
    c[...] = 0.0
    with pytest.raises(ArithmeticError) as e:
        adi3d.solve_tridiagonal(a, b, c, d, axis=axis, cyclic=cyclic)
    text = str(e.value)
    assert f"along axis {axis % len(shape)} of the {len(shape)}-D array of shape {shape}" in text, text
    assert not re.search(r"along [xyz]\b", text), text


@pytest.mark.parametrize("cyclic", [False, True])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nonfinite_rhs_is_an_arithmetic_error(cyclic, bad):
    # No silent NaN: as on the GPU, a solution that is not finite is an
    # error on the CPU too (it returned NaN without a word).
    a, b, c, d = dominant_system((4, 9), np.float64)
    d[2, 5] = bad
    with pytest.raises(ArithmeticError, match="not finite"):
        adi3d.solve_tridiagonal(a, b, c, d, axis=1, cyclic=cyclic)


def test_torch_cpu_tensors():
    torch = pytest.importorskip("torch")
    a, b, c, d = dominant_system((5, 6, 7), np.float64)
    x = adi3d.solve_tridiagonal(*(torch.from_numpy(v) for v in (a, b, c, d)), axis=0)
    assert isinstance(x, torch.Tensor)
    check(x.numpy(), dense_solve(a, b, c, d, 0), np.float64)
