"""python -m adi3d.bench: adi3d's batched tridiagonal solves along each axis
of an n^3 GPU array, against JAX (jax.lax.linalg.tridiagonal_solve, which
needs the solved axis last: the moves are part of its cost, as for a user)
and cuSPARSE through CuPy (gtsvInterleavedBatch for the first axis, whose
lines are interleaved in memory, gtsv2StridedBatch for the last, and the
latter after a transposition for the middle one), in one process.

Every time is the median of --reps runs after a warm-up, from CUDA events
(adi3d, CuPy) or from the wall clock around block_until_ready (JAX). The
effective bandwidth counts the words the operation must move per point
(solve_tridiagonal in place: read a, b, c, d and write x = 5; solve_constant:
read d, write x = 2) over the time, and is compared with the copy bandwidth
measured in the same run (a device-to-device copy of 1 GiB, read + write).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

import adi3d


def _cuda_time(cp, f, reps, warmup=2):
    for _ in range(warmup):
        f()
    cp.cuda.get_current_stream().synchronize()
    times = []
    for _ in range(reps):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        f()
        e1.record()
        e1.synchronize()
        times.append(cp.cuda.get_elapsed_time(e0, e1))
    return statistics.median(times)


def _wall_time(f, reps, warmup=2):
    for _ in range(warmup):
        f()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def copy_bandwidth(cp, reps):
    n = (1 << 30) // 4
    src = cp.ones(n, dtype=cp.float32)
    dst = cp.empty_like(src)
    ms = _cuda_time(cp, lambda: cp.copyto(dst, src), reps)
    return 2 * src.nbytes / (ms * 1e-3)


def system(cp, n, dtype, seed=0):
    """A diagonally dominant system on an n^3 grid: the same numbers for
    every axis (a[0] and c[n-1] along the solved axis are set to 0 per axis)."""
    rs = cp.random.RandomState(seed)
    a = rs.uniform(-1, 1, (n, n, n)).astype(dtype)
    c = rs.uniform(-1, 1, (n, n, n)).astype(dtype)
    b = (3 + rs.uniform(0, 1, (n, n, n))).astype(dtype)
    d = rs.standard_normal((n, n, n)).astype(dtype)
    return a, b, c, d


def jax_solver(axis):
    import jax
    import jax.numpy as jnp

    def f(a, b, c, d):
        m = lambda v: jnp.moveaxis(v, axis, -1)  # noqa: E731
        x = jax.lax.linalg.tridiagonal_solve(m(a), m(b), m(c), m(d)[..., None])[..., 0]
        return jnp.moveaxis(x, -1, axis)

    return jax.jit(f)


def cusparse_solver(cp, axis, a, b, c, d):
    """The cuSPARSE batched solve CuPy reaches, for one axis, or None."""
    try:
        from cupy_backends.cuda.libs import cusparse
    except ImportError:
        return None, "cupy_backends.cuda.libs.cusparse not found"
    handle = cp.cuda.device.get_cusparse_handle()
    n = d.shape[0]
    pre = "s" if d.dtype == cp.float32 else "d"
    if axis == 0:
        batch = n * n
        size = getattr(cusparse, pre + "gtsvInterleavedBatch_bufferSizeExt", None)
        solve = getattr(cusparse, pre + "gtsvInterleavedBatch", None)
        if size is None or solve is None:
            return None, "gtsvInterleavedBatch not in this CuPy"
        dl, dd, du = a.copy(), b.copy(), c.copy()
        x = d.copy()
        buf = cp.empty(size(handle, 0, n, dl.data.ptr, dd.data.ptr, du.data.ptr, x.data.ptr, batch), cp.uint8)

        def f():
            solve(handle, 0, n, dl.data.ptr, dd.data.ptr, du.data.ptr, x.data.ptr, batch, buf.data.ptr)
        return (f, x, "gtsvInterleavedBatch (Thomas), no copies"), None
    size = getattr(cusparse, pre + "gtsv2StridedBatch_bufferSizeExt", None)
    solve = getattr(cusparse, pre + "gtsv2StridedBatch", None)
    if size is None or solve is None:
        return None, "gtsv2StridedBatch not in this CuPy"
    batch = n * n
    if axis == 2:
        dl, dd, du, x = a.copy(), b.copy(), c.copy(), d.copy()
        buf = cp.empty(size(handle, n, dl.data.ptr, dd.data.ptr, du.data.ptr, x.data.ptr, batch, n), cp.uint8)

        def f():
            solve(handle, n, dl.data.ptr, dd.data.ptr, du.data.ptr, x.data.ptr, batch, n, buf.data.ptr)
        return (f, x, "gtsv2StridedBatch, no copies"), None
    # The middle axis: move it last (contiguous copies), solve, move back.
    mv = lambda v: cp.ascontiguousarray(cp.moveaxis(v, axis, -1))  # noqa: E731
    out = cp.empty_like(d)
    probe = mv(d)
    buf = cp.empty(size(handle, n, probe.data.ptr, probe.data.ptr, probe.data.ptr, probe.data.ptr, batch, n),
                   cp.uint8)

    def f():
        dl, dd, du, x = mv(a), mv(b), mv(c), mv(d)
        solve(handle, n, dl.data.ptr, dd.data.ptr, du.data.ptr, x.data.ptr, batch, n, buf.data.ptr)
        out[...] = cp.moveaxis(x, -1, axis)
    return (f, out, "gtsv2StridedBatch after moving the axis last (4 copies in, 1 out)"), None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m adi3d.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=512, help="n of the n^3 array (default 512)")
    ap.add_argument("--precision", nargs="+", default=["float32", "float64"], choices=["float32", "float64"])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--no-jax", action="store_true")
    ap.add_argument("--no-cusparse", action="store_true")
    ap.add_argument("--json", help="also write the results here (refuses an existing file)")
    o = ap.parse_args(argv)
    if o.json and os.path.exists(o.json):
        ap.error(f"--json {o.json} exists: choose another name")
    if not adi3d.cuda_available():
        print("adi3d.bench: no usable CUDA device: " + (adi3d._core.cuda_unavailable_reason() or "not built with CUDA"),
              file=sys.stderr)
        return 1
    import cupy as cp

    jax = None
    if not o.no_jax:
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # share the GPU with CuPy
        try:
            import jax
            import jax.dlpack

            jax.config.update("jax_enable_x64", True)
        except ImportError as e:
            print(f"JAX not available ({e}): its column stays empty")
            jax = None

    bw = copy_bandwidth(cp, o.reps)
    dev = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"].decode()
    print(f"device: {dev}; copy bandwidth {bw / 1e9:.0f} GB/s (read + write, 1 GiB, median of {o.reps})")
    print(f"adi3d {adi3d.__version__} ({adi3d._core.git_hash}); n = {o.size}; median of {o.reps} after 2 warm-ups")
    # What one call costs beyond its data: a 3 x 3 x 3 float64 solve in place,
    # timed like the big ones (the wrapper, the launch, the error check's
    # wait for the stream), so that a 512^3 time can be read as kernel plus it.
    ta, tb, tc, td = system(cp, 3, cp.float64)
    latency_us = 1e3 * _cuda_time(cp, lambda: adi3d.solve_tridiagonal(ta, tb, tc, td, axis=0, out=td), o.reps)
    print(f"one call on a 3^3 float64 array (the fixed cost of a call): {latency_us:.0f} us")
    del ta, tb, tc, td
    rows = []
    n = o.size
    for prec in o.precision:
        dtype = cp.float32 if prec == "float32" else cp.float64
        a, b, c, d = system(cp, n, dtype)
        points = n ** 3
        word = np.dtype(prec).itemsize
        for axis in range(3):
            idx = [slice(None)] * 3
            idx[axis] = 0
            a[tuple(idx)] = 0
            idx[axis] = n - 1
            c[tuple(idx)] = 0
            row = {"precision": prec, "axis": axis, "n": n}
            work = d.copy()
            row["adi3d_inplace_ms"] = _cuda_time(cp, lambda: adi3d.solve_tridiagonal(a, b, c, work, axis=axis,
                                                                                     out=work), o.reps)
            row["adi3d_new_ms"] = _cuda_time(cp, lambda: adi3d.solve_tridiagonal(a, b, c, d, axis=axis), o.reps)
            row["adi3d_constant_ms"] = _cuda_time(
                cp, lambda: adi3d.solve_constant(-1.0, 3.0, -1.0, work, axis=axis, out=work), o.reps)
            row["gbps"] = 5 * word * points / (row["adi3d_inplace_ms"] * 1e-3) / 1e9
            row["constant_gbps"] = 2 * word * points / (row["adi3d_constant_ms"] * 1e-3) / 1e9
            x = adi3d.solve_tridiagonal(a, b, c, d, axis=axis)
            if jax is not None:
                f = jax_solver(axis)
                ja, jb, jc, jd = (jax.dlpack.from_dlpack(v) for v in (a, b, c, d))
                row["jax_ms"] = _wall_time(lambda: f(ja, jb, jc, jd).block_until_ready(), o.reps)
                xj = cp.asarray(np.asarray(f(ja, jb, jc, jd)))
                row["jax_max_rel_diff"] = float(cp.abs(xj - x).max() / cp.abs(x).max())
            if not o.no_cusparse:
                s, why = cusparse_solver(cp, axis, a, b, c, d)
                if s is None:
                    row["cusparse_note"] = why
                else:
                    f, xs, note = s
                    f()
                    row["cusparse_max_rel_diff"] = float(cp.abs(xs - x).max() / cp.abs(x).max())
                    row["cusparse_ms"] = _cuda_time(cp, f, o.reps)
                    row["cusparse_note"] = note
            rows.append(row)
            del work, x
        del a, b, c, d
        cp.get_default_memory_pool().free_all_blocks()

    print()
    print("| precision | axis | adi3d in place ms | GB/s (5 words) | % copy | adi3d new array ms | constant matrix ms "
          "(% copy) | JAX ms | JAX / adi3d | cuSPARSE ms | cuSPARSE / adi3d |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        j = r.get("jax_ms")
        s = r.get("cusparse_ms")
        print(f"| {r['precision']} | {r['axis']} | {r['adi3d_inplace_ms']:.3f} | {r['gbps']:.0f} | "
              f"{100 * r['gbps'] * 1e9 / bw:.0f} % | {r['adi3d_new_ms']:.3f} | {r['adi3d_constant_ms']:.3f} "
              f"({100 * r['constant_gbps'] * 1e9 / bw:.0f} %) | "
              + (f"{j:.3f} | {j / r['adi3d_inplace_ms']:.1f}x" if j else "- | -") + " | "
              + (f"{s:.3f} | {s / r['adi3d_inplace_ms']:.1f}x" if s else "- | -") + " |")
    for r in rows:
        notes = [f"{k} {r[k]:.1e}" for k in ("jax_max_rel_diff", "cusparse_max_rel_diff") if k in r]
        if "cusparse_note" in r:
            notes.append("cuSPARSE: " + r["cusparse_note"])
        print(f"  {r['precision']} axis {r['axis']}: " + "; ".join(notes))
    if o.json:
        with open(o.json, "x") as f:
            json.dump({"device": dev, "copy_bandwidth": bw, "call_latency_us": latency_us, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
