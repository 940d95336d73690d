"""Renders a slice of an adi3d output to PNG with ParaView, headless.

    xvfb-run -a pvbatch examples/render_slice.py run.xmf -o slice.png [--axis z] [--at 0.5] [--step N]

pvbatch is ParaView's batch Python (Debian: python3-paraview, paraview); xvfb-run (Debian:
xvfb) gives it a display on a machine without one (or pass --force-offscreen-rendering to
pvbatch where ParaView is built for it). It opens the .xmf that adi3d writes beside run.h5
(ParaView's XDMF reader: axes, origin, spacing and the steps' times come from it), cuts the
plane axis = const (default: through the middle of the box), colours it by u, and writes
the PNG. --step picks an output step by its number (default: the last one).
"""

import argparse
import os
import re
import sys

from paraview import simple as pv  # only under pvbatch / pvpython

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (pvbatch need not put it there)
from _safe_output import refuse_existing, write_new  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("xmf", help="the .xmf sidecar of an adi3d output (run.xmf)")
    p.add_argument("-o", "--output", default="slice.png")
    p.add_argument("--axis", choices=["x", "y", "z"], default="z", help="normal of the slice plane (default z)")
    p.add_argument("--at", type=float, help="coordinate of the plane in m (default: the middle of the box)")
    p.add_argument("--step", type=int, help="output step number (default: the last one)")
    p.add_argument("--size", type=int, nargs=2, default=[900, 700], metavar=("W", "H"))
    p.add_argument("--overwrite", action="store_true", help="replace an existing output file")
    a = p.parse_args()
    refuse_existing(a.output, a.overwrite)

    reader = pv.XDMFReader(FileNames=[a.xmf])
    reader.UpdatePipelineInformation()
    times = list(reader.TimestepValues) if reader.TimestepValues else [0.0]
    t = times[-1]
    if a.step is not None:
        # The .xmf names each grid after its step ("step 000100"); the times
        # are step * dt, in the order of the steps.
        steps = [int(s) for s in re.findall(r'Name="step (\d+)"', open(a.xmf).read())]
        if a.step not in steps:
            sys.exit("%s has no step %d (it has %s)" % (a.xmf, a.step, ", ".join(map(str, steps))))
        t = times[steps.index(a.step)]
    reader.UpdatePipeline(t)
    b = reader.GetDataInformation().GetBounds()  # xmin, xmax, ymin, ymax, zmin, zmax
    k = "xyz".index(a.axis)
    centre = [0.5 * (b[0] + b[1]), 0.5 * (b[2] + b[3]), 0.5 * (b[4] + b[5])]
    if a.at is not None:
        if not b[2 * k] <= a.at <= b[2 * k + 1]:
            sys.exit("--at %g is outside the box along %s (%g .. %g m)" % (a.at, a.axis, b[2 * k], b[2 * k + 1]))
        centre[k] = a.at
    normal = [0.0, 0.0, 0.0]
    normal[k] = 1.0

    cut = pv.Slice(Input=reader)
    cut.SliceType = "Plane"
    cut.SliceType.Origin = centre
    cut.SliceType.Normal = normal
    view = pv.CreateView("RenderView")
    view.ViewSize = a.size
    view.ViewTime = t
    view.OrientationAxesVisibility = 1
    shown = pv.Show(cut, view)
    pv.ColorBy(shown, ("POINTS", "u"))
    shown.RescaleTransferFunctionToDataRange(True, False)
    shown.SetScalarBarVisibility(view, True)
    # Look along the plane's normal, with a sensible "up".
    up = {"x": [0, 0, 1], "y": [0, 0, 1], "z": [0, 1, 0]}[a.axis]
    view.CameraPosition = [centre[i] + (normal[i] * 10.0 * max(b[1] - b[0], b[3] - b[2], b[5] - b[4], 1e-30))
                           for i in range(3)]
    view.CameraFocalPoint = centre
    view.CameraViewUp = up
    view.ResetCamera()
    write_new(a.output, a.overwrite, lambda tmp: pv.SaveScreenshot(tmp, view, ImageResolution=a.size))
    print("wrote %s (%s = %g m, t = %g s)" % (a.output, a.axis, centre[k], t))


main()
