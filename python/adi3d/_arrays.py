"""Which array library an argument comes from, and the few operations the
solvers need from it (copy, contiguous copy, element strides, the caller's
current CUDA stream), for NumPy, CuPy and PyTorch alike."""

from __future__ import annotations

import sys

import numpy as np


def _module_of(x) -> str:
    mod = type(x).__module__.split(".")[0]
    if isinstance(x, np.ndarray):
        return "numpy"
    if mod == "cupy":
        return "cupy"
    if mod == "torch":
        return "torch"
    return mod


class Kind:
    """What the solvers need to know about an array: its library, dtype,
    device and strides in elements (PyTorch's convention; NumPy's and CuPy's
    are in bytes)."""

    def __init__(self, x, name: str):
        self.lib = _module_of(x)
        if self.lib not in ("numpy", "cupy", "torch"):
            raise TypeError(
                f"{name}: expected a NumPy array, a CuPy array or a PyTorch tensor, got {type(x).__name__}"
            )
        self.name = name
        if self.lib == "torch":
            import torch

            if x.dtype not in (torch.float32, torch.float64):
                raise TypeError(f"{name}: expected float32 or float64 values, got {x.dtype}")
            self.dtype = "float32" if x.dtype == torch.float32 else "float64"
            self.gpu = x.device.type == "cuda"
            if x.device.type not in ("cpu", "cuda"):
                raise TypeError(f"{name}: tensors on {x.device.type} are not supported (cpu or cuda)")
            self.device = x.device.index if self.gpu else None
            self.shape = tuple(x.shape)
            self.strides = tuple(x.stride())
        else:
            # A kind and size test, not `dtype in (np.float32, np.float64)`,
            # and the device from the memory pointer, not `x.device`: this
            # runs four times in every solve, and those forms cost several
            # microseconds each on a CuPy array.
            dt = x.dtype
            if dt.kind != "f" or dt.itemsize not in (4, 8) or not dt.isnative:
                raise TypeError(f"{name}: expected float32 or float64 values, got {dt}")
            size = dt.itemsize
            self.dtype = "float32" if size == 4 else "float64"
            self.gpu = self.lib == "cupy"
            self.device = x.data.device_id if self.gpu else None
            self.shape = x.shape
            self.strides = tuple(s // size if s % size == 0 else None for s in x.strides)

    def where(self) -> str:
        return f"cuda:{self.device}" if self.gpu else "cpu"

    def same_place(self, other: "Kind") -> bool:
        return self.lib == other.lib and self.gpu == other.gpu and self.device == other.device


def usable_strides(k: Kind) -> bool:
    """Strides the kernels take in place: positive, whole elements, and axes
    that do not overlap (an axis of extent 1 has no stride to speak of)."""
    dims = [(n, s) for n, s in zip(k.shape, k.strides) if n > 1]
    if any(s is None or s < 1 for _, s in dims):
        return False
    dims.sort(key=lambda t: t[1])
    return all(dims[q][1] >= dims[q - 1][1] * dims[q - 1][0] for q in range(1, len(dims)))


def contiguous_copy(x, lib: str):
    if lib == "numpy":
        return np.array(x, order="C", copy=True)
    if lib == "cupy":
        import cupy

        return cupy.array(x, order="C", copy=True)
    return x.clone(memory_format=sys.modules["torch"].contiguous_format)


def assign(dst, src, lib: str) -> None:
    if lib == "torch":
        dst.copy_(src)
    else:
        dst[...] = src


def current_stream(k: Kind) -> int:
    """The caller's current stream on the array's device, as an integer
    handle (0: the legacy default stream)."""
    if not k.gpu:
        return 0
    if k.lib == "cupy":
        import cupy

        return int(cupy.cuda.get_current_stream().ptr)
    import torch

    return int(torch.cuda.current_stream(k.device).cuda_stream)


class on_device:
    """Makes the array's device current for the library's own allocations
    and launches (CUDA's current device is per thread)."""

    def __init__(self, k: Kind):
        self.k = k
        self.ctx = None

    def __enter__(self):
        if self.k.gpu:
            if self.k.lib == "cupy":
                import cupy

                self.ctx = cupy.cuda.Device(self.k.device)
            else:
                import torch

                self.ctx = torch.cuda.device(self.k.device)
            self.ctx.__enter__()
        return self

    def __exit__(self, *exc):
        if self.ctx is not None:
            self.ctx.__exit__(*exc)
        return False
