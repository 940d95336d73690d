#!/usr/bin/python3
"""Writes the seed corpora of the HDF5 fuzz targets (tests/fuzz/README.md):

  corpus/hdf5_field/   small initial-field files: float64/float32, geometry
                       on the dataset or in /grid, chunked + gzip + shuffle +
                       Fletcher-32, the newest file format, and two wrong ones
                       (integers, rank 2) so the mutator starts near the checks;
  corpus/checkpoint/   checkpoints written by adi3d itself (float64, float32).

Usage: /usr/bin/python3 tests/fuzz/make_seeds.py ADI3D_EXECUTABLE
The files are committed; rerun only when the formats change.
"""

import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def field(shape=(3, 4, 5), dtype=np.float64):
    k, j, i = np.meshgrid(*(np.arange(n) for n in shape), indexing="ij")
    return (0.5 + i + 10.0 * j + 100.0 * k).astype(dtype)


def fields(out):
    os.makedirs(out, exist_ok=True)
    with h5py.File(os.path.join(out, "f64_attrs.h5"), "w") as f:
        d = f.create_dataset("u", data=field())
        d.attrs["origin"] = [0.0, -1.0, 2.5]
        d.attrs["spacing"] = [0.1, 0.2, 0.25]
    with h5py.File(os.path.join(out, "f32_grid_group.h5"), "w") as f:
        f.create_dataset("u", data=field(dtype=np.float32))
        g = f.create_group("grid")
        g.attrs["origin"] = [1.0, 2.0, 3.0]
        g.attrs["spacing"] = [0.5, 0.5, 0.5]
    with h5py.File(os.path.join(out, "chunked_gzip_fletcher.h5"), "w") as f:
        f.create_dataset("u", data=field((4, 3, 6)), chunks=(1, 3, 6), compression="gzip", shuffle=True,
                         fletcher32=True)
    with h5py.File(os.path.join(out, "latest_format.h5"), "w", libver="latest") as f:
        d = f.create_dataset("u", data=field((3, 3, 3)), chunks=(3, 3, 3))
        d.attrs["spacing"] = np.array([1.0, 1.0, 1.0], dtype=np.float32)
    with h5py.File(os.path.join(out, "int16.h5"), "w") as f:
        f.create_dataset("u", data=np.ones((3, 3, 3), dtype=np.int16))
    with h5py.File(os.path.join(out, "rank2_and_group.h5"), "w") as f:
        f.create_dataset("u", data=np.ones((3, 4)))
        f.create_group("v")


CASE = """grid: {nx: 4, ny: 3, nz: 3}
boundary: {x: {lo: dirichlet, hi: neumann}, y: neumann, z: dirichlet}
time: {dt: 1.0e-3, steps: 2}
precision: %s
backend: cpu
checkpoint: {file: ck.h5, every: 2}
"""


def checkpoints(adi3d, out):
    os.makedirs(out, exist_ok=True)
    for prec in ("float64", "float32"):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "case.yaml"), "w") as f:
                f.write(CASE % prec)
            subprocess.run([adi3d, "run", "case.yaml", "--quiet"], cwd=d, check=True, stdout=subprocess.DEVNULL)
            os.replace(os.path.join(d, "ck.h5"), os.path.join(out, "ck_%s.h5" % prec))


if __name__ == "__main__":
    fields(os.path.join(HERE, "corpus", "hdf5_field"))
    checkpoints(os.path.abspath(sys.argv[1]), os.path.join(HERE, "corpus", "checkpoint"))
    # A checkpoint is a valid initial field too (/u with /grid).
    import shutil
    shutil.copy(os.path.join(HERE, "corpus", "checkpoint", "ck_float64.h5"),
                os.path.join(HERE, "corpus", "hdf5_field", "checkpoint_as_field.h5"))
