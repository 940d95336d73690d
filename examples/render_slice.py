"""Renders a slice of an adi3d output to PNG with ParaView, headless.

    pvbatch examples/render_slice.py run.xmf -o slice.png [--axis z] [--at 0.5] [--step N]

pvbatch is ParaView's batch Python (Debian: apt-get install paraview python3-paraview xvfb).
It opens the .xmf that adi3d writes beside run.h5 (ParaView's XDMF reader: axes, origin,
spacing and the steps' times come from it) and colours by u:

  3D output  the plane --axis = const (default z, through the middle of the box; --at
             picks the coordinate in m);
  2D output  (nx, ny or nz = 1) the whole sheet, seen along its flat axis (--axis defaults
             to it; a cut along another axis would be a line: examples/plot.py draws it);
  1D output  refused: examples/plot.py slices draws the line plot.

Views, in conventional orientation (orthographic):
  --axis z   seen from +z: x to the right, y up
  --axis y   seen from -y: x to the right, z up
  --axis x   seen from +x: y to the right, z up
--step picks an output step by its number (default: the last one).

Display: ParaView's Debian build renders through X. The script uses $DISPLAY when it answers
(holding a connection open, so that an Xvfb started without -noreset, as xvfb-run starts it,
does not reset between ParaView's connections: that made about one render in five abort
with "bad X server connection"), else it starts a private Xvfb of its own, ended with the
script: no xvfb-run needed. Where ParaView is built for offscreen rendering (EGL, OSMesa),
RENDER_SLICE_OFFSCREEN=1 pvbatch --force-offscreen-rendering ... renders without X (Debian's
build aborts with --force-offscreen-rendering).
"""

import argparse
import ctypes
import ctypes.util
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (pvbatch need not put it there)
from _safe_output import refuse_existing, write_new  # noqa: E402

# Camera per view: where it looks from (unit vector from the focal point) and
# which way is up, so that the picture has the conventional orientation.
VIEWS = {
    "z": ([0.0, 0.0, 1.0], [0.0, 1.0, 0.0], "seen from +z: x to the right, y up"),
    "y": ([0.0, -1.0, 0.0], [0.0, 0.0, 1.0], "seen from -y: x to the right, z up"),
    "x": ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0], "seen from +x: y to the right, z up"),
}


_held = []  # X connections this script keeps open until it ends


def hold_display(name):
    """Opens a connection to the X display `name` and keeps it open until the
    script ends; False when the display does not answer (tried a few times).

    An X server started without -noreset (Xvfb's default, so `xvfb-run`'s)
    resets itself whenever its last client disconnects, and refuses or drops
    connections while it does. ParaView connects, disconnects and connects
    again while it starts, and its render window aborts the process when its
    connection fails ("bad X server connection ... Aborting"): about one
    render in five on a loaded machine. A client that stays connected from
    the start keeps the server from resetting."""
    if not name:
        return False
    lib = ctypes.util.find_library("X11")
    if not lib:
        return True  # cannot tell: let ParaView try the display it was given
    x11 = ctypes.CDLL(lib)
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    for attempt in range(5):
        d = x11.XOpenDisplay(name.encode())
        if d:
            _held.append(d)
            return True
        time.sleep(0.2 * (attempt + 1))
    return False


def _end_with_parent():
    """In the Xvfb child: SIGTERM when this script's process ends, however it ends."""
    libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def private_display():
    """Starts an Xvfb of this script's own (-displayfd: it takes a free display
    number and writes it back once it accepts connections; -noreset: see
    hold_display), ended with the script, and points DISPLAY at it."""
    r, w = os.pipe()
    try:
        subprocess.Popen(["Xvfb", "-displayfd", str(w), "-noreset", "-nolisten", "tcp", "-screen", "0",
                          "1920x1200x24"], pass_fds=(w,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, preexec_fn=_end_with_parent)
    except FileNotFoundError:
        sys.exit("render_slice.py: no X display and no Xvfb to start one: install xvfb (Debian: apt-get install "
                 "xvfb), or, where ParaView is built for offscreen rendering (EGL, OSMesa), run with "
                 "RENDER_SLICE_OFFSCREEN=1 and pvbatch --force-offscreen-rendering")
    finally:
        os.close(w)
    number = b""
    while not number.endswith(b"\n"):
        c = os.read(r, 1)
        if not c:
            sys.exit("render_slice.py: Xvfb did not start (no display number came back)")
        number += c
    os.close(r)
    os.environ["DISPLAY"] = ":" + number.decode().strip()
    if not hold_display(os.environ["DISPLAY"]):
        sys.exit("render_slice.py: the Xvfb started on %s does not accept connections" % os.environ["DISPLAY"])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("xmf", help="the .xmf sidecar of an adi3d output (run.xmf)")
    p.add_argument("-o", "--output", default="slice.png")
    p.add_argument("--axis", choices=["x", "y", "z"],
                   help="normal of the slice plane (default: z for a 3D output, the flat axis of a 2D one)")
    p.add_argument("--at", type=float, help="coordinate of the plane in m (default: the middle of the box)")
    p.add_argument("--step", type=int, help="output step number (default: the last one)")
    p.add_argument("--size", type=int, nargs=2, default=[900, 700], metavar=("W", "H"))
    p.add_argument("--overwrite", action="store_true", help="replace an existing output file")
    a = p.parse_args()
    refuse_existing(a.output, a.overwrite)
    if not os.path.exists(a.xmf):
        sys.exit("render_slice.py: %s: no such file" % a.xmf)
    if os.environ.get("RENDER_SLICE_OFFSCREEN") != "1" and not hold_display(os.environ.get("DISPLAY", "")):
        private_display()

    from paraview import simple as pv  # only under pvbatch / pvpython; after DISPLAY is settled

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
    size = max(b[1] - b[0], b[3] - b[2], b[5] - b[4], 1e-30)
    flat = [ax for ax in "xyz" if b[2 * "xyz".index(ax) + 1] - b[2 * "xyz".index(ax)] <= 1e-12 * size]
    if len(flat) >= 2:
        sys.exit("%s is a 1D output (flat %s): a slice of it is a line; examples/plot.py slices draws it"
                 % (a.xmf, ", ".join(flat)))
    axis = a.axis or (flat[0] if flat else "z")
    if flat and axis != flat[0]:
        sys.exit("%s is a 2D output (flat %s): it is drawn whole with --axis %s (the default); a cut along %s would "
                 "be a line (examples/plot.py slices draws the plane)" % (a.xmf, flat[0], flat[0], axis))
    k = "xyz".index(axis)
    centre = [0.5 * (b[0] + b[1]), 0.5 * (b[2] + b[3]), 0.5 * (b[4] + b[5])]
    if a.at is not None:
        if not b[2 * k] - 1e-12 * size <= a.at <= b[2 * k + 1] + 1e-12 * size:
            sys.exit("--at %g is outside the box along %s (%g .. %g m)" % (a.at, axis, b[2 * k], b[2 * k + 1]))
        centre[k] = a.at

    if flat:
        shown_source = reader  # the sheet itself: a cut through it would be empty
    else:
        shown_source = pv.Slice(Input=reader)
        shown_source.SliceType = "Plane"
        shown_source.SliceType.Origin = centre
        shown_source.SliceType.Normal = [1.0 if q == k else 0.0 for q in range(3)]
    view = pv.CreateView("RenderView")
    view.ViewSize = a.size
    view.ViewTime = t
    view.OrientationAxesVisibility = 1
    shown = pv.Show(shown_source, view)
    shown.SetRepresentationType("Surface")
    pv.ColorBy(shown, ("POINTS", "u"))
    shown.RescaleTransferFunctionToDataRange(True, False)
    shown.SetScalarBarVisibility(view, True)
    bar = pv.GetScalarBar(pv.GetColorTransferFunction("u"), view)
    bar.Title = "u"
    bar.RangeLabelFormat = "%-#.5g"  # the ends of the range as read: 293.15, not 2.9e+02
    toward, up, described = VIEWS[axis]
    view.CameraParallelProjection = 1
    view.CameraFocalPoint = centre
    view.CameraPosition = [centre[q] + toward[q] * 10.0 * size for q in range(3)]
    view.CameraViewUp = up
    view.ResetCamera()
    write_new(a.output, a.overwrite, lambda tmp: pv.SaveScreenshot(tmp, view, ImageResolution=a.size))
    print("wrote %s (%s = %g m, t = %g s; %s%s)"
          % (a.output, axis, centre[k], t, "the 2D sheet, " if flat else "", described))


main()
