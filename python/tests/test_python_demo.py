"""examples/python_demo.py runs as a user would run it, writes what it says,
and refuses an existing output folder."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
h5py = pytest.importorskip("h5py")
pytest.importorskip("matplotlib")


def test_python_demo(tmp_path):
    out = tmp_path / "demo"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python_demo.py"), str(out)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "max residual" in r.stdout and "max T" in r.stdout
    for name in ("die.h5", "state.h5", "state.xmf", "slice.png"):
        assert (out / name).stat().st_size > 0
    with h5py.File(out / "state.h5", "r") as f:
        u = f["steps/000200/u"][...]
        assert u.shape == (9, 81, 81) and u.max() > 300.5  # the hot spot heated up
    # A second run into the same folder is refused, and leaves it as it was.
    before = (out / "state.h5").read_bytes()
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python_demo.py"), str(out)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode != 0 and "FileExistsError" in r.stderr
    assert (out / "state.h5").read_bytes() == before
