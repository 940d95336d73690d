"""The solves on CuPy arrays and PyTorch CUDA tensors: the GPU backend, on
the caller's stream, no copy, against the dense oracle. Skipped without a
GPU; ADI_REQUIRE_GPU=1 makes that a failure."""

import numpy as np
import pytest

import adi3d
from conftest import dense_solve, dominant_system, need_gpu, tolerance

SHAPES = [(3, 5, 7), (7, 33, 257), (2, 129, 100), (1, 3, 1000), (65,), (9, 513)]


def check(x, ref, dtype):
    scale = max(1.0, float(np.abs(ref).max()))
    np.testing.assert_allclose(x, ref, rtol=0, atol=tolerance(dtype) * scale * 10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_cupy_every_axis(shape, dtype):
    cp = need_gpu("cupy")
    for axis in range(len(shape)):
        host = dominant_system(shape, dtype, seed=axis)
        a, b, c, d = (cp.asarray(v) for v in host)
        x = adi3d.solve_tridiagonal(a, b, c, d, axis=axis)
        assert isinstance(x, cp.ndarray) and x.dtype == dtype
        check(cp.asnumpy(x), dense_solve(*host, axis), dtype)
        if shape[axis] >= 3:
            x = adi3d.solve_tridiagonal(a, b, c, d, axis=axis, cyclic=True)
            check(cp.asnumpy(x), dense_solve(*host, axis, cyclic=True), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_cupy_constant_matrix_every_axis(shape, dtype):
    cp = need_gpu("cupy")
    rng = np.random.default_rng(1)
    d_host = rng.standard_normal(shape).astype(dtype)
    for axis in range(len(shape)):
        n = shape[axis]
        lower, upper = rng.uniform(-1, 0, n), rng.uniform(-1, 0, n)
        diag = 2.2 + rng.uniform(0, 1, n)
        shp = [1] * len(shape)
        shp[axis] = n
        A, B, C = (np.broadcast_to(v.reshape(shp), shape) for v in (lower, diag, upper))
        d = cp.asarray(d_host)
        x = adi3d.solve_constant(lower, diag, upper, d, axis=axis, out=d)
        assert x is d
        check(cp.asnumpy(x), dense_solve(A, B, C, d_host, axis), dtype)


def test_cupy_strided_views_and_streams():
    cp = need_gpu("cupy")
    host = dominant_system((9, 40, 63), np.float64, seed=5)
    big = [cp.asarray(v) for v in host]
    views = [lambda v: v[:, ::2, 1::3], lambda v: v.transpose(2, 0, 1), lambda v: v[::-1]]
    for f in views:
        a, b, c, d = (f(v) for v in big)
        ha, hb, hc, hd = (cp.asnumpy(v) for v in (a, b, c, d))
        for axis in range(3):
            check(cp.asnumpy(adi3d.solve_tridiagonal(a, b, c, d, axis=axis)), dense_solve(ha, hb, hc, hd, axis),
                  np.float64)
    # On a stream of the caller's: the solve is ordered after the work queued there.
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        a, b, c = (v.copy() for v in big[:3])
        d = big[3] * 2.0
        x = adi3d.solve_tridiagonal(a, b, c, d, axis=1)
        y = x + 1.0
    s.synchronize()
    check(cp.asnumpy(y) - 1.0, dense_solve(*host[:3], host[3] * 2.0, 1), np.float64)


def test_cupy_bad_input():
    cp = need_gpu("cupy")
    a, b, c, d = dominant_system((4, 5, 6), np.float64)
    g = [cp.asarray(v) for v in (a, b, c, d)]
    with pytest.raises(TypeError, match="numpy array, d a cupy array"):
        adi3d.solve_tridiagonal(a, g[1], g[2], g[3])
    with pytest.raises(TypeError, match="one dtype"):
        adi3d.solve_tridiagonal(g[0].astype(cp.float32), *g[1:])
    with pytest.raises(ValueError, match="shape"):
        adi3d.solve_tridiagonal(g[0][:, :4], *g[1:])
    # A zero row: the matrix is singular, whatever the algorithm (the
    # segmented solve needs no pivot at a line's first row, so b = 0 there
    # alone is no error on the GPU).
    for v in g[:3]:
        v[0, 0, 3] = 0.0
    with pytest.raises(ArithmeticError, match="not finite"):
        adi3d.solve_tridiagonal(*g, axis=2)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_torch_cuda_tensors(dtype):
    torch = need_gpu("torch")
    host = dominant_system((5, 66, 129), np.dtype(dtype), seed=9)
    t = [torch.from_numpy(v).cuda() for v in host]
    for axis in range(3):
        x = adi3d.solve_tridiagonal(*t, axis=axis)
        assert isinstance(x, torch.Tensor) and x.is_cuda
        check(x.cpu().numpy(), dense_solve(*host, axis), np.dtype(dtype))
    # On the caller's current stream, and into a tensor that requires grad's values.
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        a = t[0].clone().requires_grad_(True)
        out = torch.empty_like(t[3])
        adi3d.solve_tridiagonal(a, t[1], t[2], t[3] * 3, axis=0, out=out)
        res = out * 1
    s.synchronize()
    check(res.cpu().numpy(), dense_solve(host[0], host[1], host[2], host[3] * 3, 0), np.dtype(dtype))
    x = adi3d.solve_constant(-1.0, 4.0, -1.0, t[3], axis=2)
    n = host[3].shape[2]
    A = np.full(host[3].shape, -1.0)
    check(x.cpu().numpy(), dense_solve(A, -4 * A, A, host[3], 2), np.dtype(dtype))
    with pytest.raises(ValueError, match="device"):
        adi3d.solve_tridiagonal(t[0].cpu(), t[1].cpu(), t[2].cpu(), t[3])
