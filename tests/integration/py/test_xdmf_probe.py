"""The .xmf sidecar read the way ParaView's XDMF reader reads it: parse the
XML, take Dimensions / Origin / Spacing slowest first (z y x), load the HDF5
data item, flatten it in C order to VTK point ids (x fastest), and probe
physical points with trilinear interpolation (what ParaView's Probe filter
does on an image). The grid is non-cubic and anisotropic with a non-zero
origin, and the field is linear with a different slope per axis, so a
swapped axis, origin or spacing gives a wrong value. A linear field is
discrete-harmonic and Dirichlet faces hold it, so it stays exact (to
round-off) at every step: the probe is checked at every time in the file."""

import os
import xml.etree.ElementTree as ET

import h5py
import numpy as np

import adi_testlib as T

NX, NY, NZ = 17, 11, 6
ORIGIN = np.array([-1.0, 2.0, 0.5])   # x, y, z
SPACING = np.array([0.1, 0.05, 0.2])  # x, y, z
DT = 1e-3


def f(x, y, z):
    return 1.0 + 2.0 * x + 30.0 * y + 500.0 * z


class XdmfGrid:
    """One Uniform grid of the temporal collection, as a reader sees it."""

    def __init__(self, elem, folder):
        topo = elem.find("Topology")
        T.check(topo.get("TopologyType") == "3DCoRectMesh", "topology %s" % topo.get("TopologyType"))
        self.dims = [int(v) for v in topo.get("Dimensions").split()]  # slowest first: nz ny nx
        geo = elem.find("Geometry")
        T.check(geo.get("GeometryType") == "ORIGIN_DXDYDZ", "geometry %s" % geo.get("GeometryType"))
        items = geo.findall("DataItem")
        origin_zyx = [float(v) for v in items[0].text.split()]
        spacing_zyx = [float(v) for v in items[1].text.split()]
        # XDMF lists them slowest first; VTK wants x, y, z.
        self.origin = np.array(origin_zyx[::-1])
        self.spacing = np.array(spacing_zyx[::-1])
        self.time = float(elem.find("Time").get("Value"))
        attr = elem.find("Attribute")
        T.check(attr.get("Center") == "Node", "attribute centering %s" % attr.get("Center"))
        item = attr.find("DataItem")
        T.check(item.get("Format") == "HDF", "data item format")
        T.check([int(v) for v in item.get("Dimensions").split()] == self.dims, "attribute dimensions")
        h5name, dataset = item.text.strip().split(":", 1)
        with h5py.File(os.path.join(folder, h5name), "r") as h:
            data = h[dataset][()]
        T.check(list(data.shape) == self.dims, "HDF5 shape %s vs XDMF %s" % (data.shape, self.dims))
        # VTK point id = i + nx * (j + ny * k): C-order flattening of (nz, ny, nx).
        self.values = data.reshape(-1)
        self.n = self.dims[::-1]  # nx, ny, nz

    def point(self, i, j, k):
        return self.values[i + self.n[0] * (j + self.n[1] * k)]

    def probe(self, p):
        """Trilinear interpolation at physical point p = (x, y, z)."""
        q = (np.asarray(p) - self.origin) / self.spacing
        T.check(np.all(q >= 0) and np.all(q <= np.array(self.n) - 1), "probe point %s outside the grid" % (p,))
        i0 = np.minimum(np.floor(q).astype(int), np.array(self.n) - 2)
        t = q - i0
        v = 0.0
        for dk in (0, 1):
            for dj in (0, 1):
                for di in (0, 1):
                    wgt = (t[0] if di else 1 - t[0]) * (t[1] if dj else 1 - t[1]) * (t[2] if dk else 1 - t[2])
                    v += wgt * self.point(i0[0] + di, i0[1] + dj, i0[2] + dk)
        return v


def body():
    a = T.parse_args()
    w = a.work
    z, y, x = np.meshgrid(ORIGIN[2] + SPACING[2] * np.arange(NZ), ORIGIN[1] + SPACING[1] * np.arange(NY),
                          ORIGIN[0] + SPACING[0] * np.arange(NX), indexing="ij")
    with h5py.File(os.path.join(w, "linear.h5"), "w") as h:
        d = h.create_dataset("u", data=f(x, y, z))
        d.attrs["origin"] = ORIGIN
        d.attrs["spacing"] = SPACING
    T.write(os.path.join(w, "case.yaml"), """initial: {file: linear.h5, dataset: /u}
diffusivity: {x: 1.0, y: 0.3, z: 2.0}
time: {dt: %g, steps: 12}
backend: cpu
output: {file: probe.h5, every: 4, compression: 3}
""" % DT)
    T.run(a, ["run", "case.yaml"], cwd=w)

    root = ET.parse(os.path.join(w, "probe.xmf")).getroot()
    T.check(root.tag == "Xdmf", "root element %s" % root.tag)
    coll = root.find("Domain/Grid")
    T.check(coll.get("GridType") == "Collection" and coll.get("CollectionType") == "Temporal", "temporal collection")
    grids = [XdmfGrid(g, w) for g in coll.findall("Grid")]
    T.check([g.time for g in grids] == [0.0, 4 * DT, 8 * DT, 12 * DT], "times %s" % [g.time for g in grids])
    probes = [(-1.0, 2.0, 0.5),            # node (0, 0, 0): the origin
              (-1.0 + 0.3, 2.0 + 0.45, 0.5 + 0.8),  # node (3, 9, 4)
              (0.6, 2.5, 1.5),             # the far corner (16, 10, 5)
              (-0.37, 2.231, 1.13)]        # between nodes
    for g in grids:
        T.check(g.dims == [NZ, NY, NX], "XDMF dimensions %s, expected nz ny nx = %s" % (g.dims, [NZ, NY, NX]))
        T.check(np.allclose(g.origin, ORIGIN, rtol=0, atol=1e-15), "origin %s" % g.origin)
        T.check(np.allclose(g.spacing, SPACING, rtol=1e-15), "spacing %s" % g.spacing)
        for p in probes:
            got, want = g.probe(p), f(*p)
            print("t = %-6g probe %-22s -> %.12f (expected %.12f)" % (g.time, p, got, want))
            T.check(abs(got - want) <= 1e-9 * abs(want), "probe at %s, t = %g: %r, expected %r" % (p, g.time, got, want))


T.main(body)
