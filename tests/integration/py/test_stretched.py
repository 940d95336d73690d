"""Stretched grids (#56) through the real CLI, from configs a user writes:

  forms          grid.z as a list, as an HDF5 dataset and as a stretch rule:
                 the output's /grid/z is the config's coordinates, the .xmf a
                 rectilinear mesh on them, the resolved config (--dry-run)
                 runs the same bits again, and the summary says "stretched"
  uniform_bits   coordinates that are uniform up to round-off (0.1 steps) give
                 the uniform run (nz and lz) bit for bit
  warning        a gap ratio above 1.5 between neighbours is a warning that
                 names the axis and the node, not an error
  probes         a probe at a node of the stretched axis is that node's value
                 bit for bit; one between nodes interpolates linearly in the
                 coordinate (not in the index)
  files          a field file with the run's /grid (an earlier output) is
                 accepted; one whose /grid/z differs, or that is uniform while
                 the config stretches z, is refused naming the node
  paraview       pvbatch reads the .xmf: the mesh's z coordinates are /grid/z
                 and the value at a node is the HDF5 value (skipped, exit 77,
                 without pvbatch)
"""

import json
import os
import shutil
import subprocess

import h5py
import numpy as np

import adi_testlib as T

# A 2 mm slab: a fine layer of 0.05 mm gaps at the heated bottom, growing by
# 1.2 per gap (the list form), a K field and a source.
Z = np.round(np.concatenate(([0.0], np.cumsum(5e-5 * 1.2 ** np.arange(14)))), 12)

CASE = """grid:
  nx: 7
  ny: 5
  z: %(z)s
domain: {lx: 0.003, ly: 0.002}
material: {conductivity: 20.0, heat_capacity: 2.0e6}
source: {power_density: 1.0e8}
boundary:
  x: insulated
  y: insulated
  z: {lo: {type: dirichlet, value: 300}, hi: {type: convective, h: 500, ambient: 300}}
initial: {value: 300}
time: {dt: 0.01, steps: 20}
output: {file: %(out)s, every: 10}
backend: cpu
"""


def z_list(z):
    return "{coordinates: [" + ", ".join(repr(float(v)) for v in z) + "]}"


def write_case(d, z_text, out="out.h5", name="case.yaml", extra=""):
    os.makedirs(d, exist_ok=True)
    T.write(os.path.join(d, name), CASE % dict(z=z_text, out=out) + extra)


def forms(a):
    d = os.path.join(a.work, "forms")
    write_case(d, z_list(Z), out="list.h5")
    T.run(a, ["run", "case.yaml"], cwd=d,
          match=[r"grid +7 x 5 x 15 nodes, h = \(0\.0005, 0\.0005, 5e-05 to 0\.000535\) m \(stretched\)"])
    with h5py.File(os.path.join(d, "list.h5"), "r") as f:
        T.check(np.array_equal(f["grid/z"][()], Z), "/grid/z is not the config's coordinates: %s" % f["grid/z"][()])
        T.check(list(f["grid"].attrs["stretched"]) == [0, 0, 1], "/grid's stretched attribute")
        T.check(np.array_equal(f["grid/x"][()], 0.0005 * np.arange(7)), "/grid/x of the uniform axis")
    xmf = open(os.path.join(d, "list.xmf")).read()
    T.check('TopologyType="3DRectMesh"' in xmf and 'GeometryType="VXVYVZ"' in xmf and "list.h5:/grid/z" in xmf,
            "the .xmf is not a rectilinear mesh on /grid:\n" + xmf[:800])
    # The same coordinates from an HDF5 dataset (float32 is refused only if
    # not increasing; float64 here): bit for bit the list's run.
    with h5py.File(os.path.join(d, "g.h5"), "w") as f:
        f["/z"] = Z
    write_case(d, "{coordinates: {file: g.h5, dataset: /z}}", out="file.h5", name="file.yaml")
    T.run(a, ["run", "file.yaml"], cwd=d)
    T.assert_same_fields(os.path.join(d, "list.h5"), os.path.join(d, "file.h5"), "coordinates from g.h5:/z")
    # The resolved config states the coordinates: run again from it, the same bits.
    p = T.run(a, ["run", "file.yaml", "--dry-run", "--set", "output.file=resolved.h5"], cwd=d)
    resolved = "\n".join(l for l in p.stdout.splitlines() if not l.startswith("#"))
    T.check("coordinates: [0, 5e-05," in resolved and "lz" not in resolved,
            "the resolved config does not list the coordinates (or names lz):\n" + resolved)
    T.write(os.path.join(d, "resolved.yaml"), resolved)
    T.run(a, ["run", "resolved.yaml"], cwd=d)
    T.assert_same_fields(os.path.join(d, "list.h5"), os.path.join(d, "resolved.h5"), "the resolved config")
    # A rule: 15 nodes over the same 2.19 mm, clustered at the lo face by 1.2.
    write_case(d, "{n: 15, stretch: {from: lo, ratio: 1.2}}", out="rule.h5", name="rule.yaml",
               extra="domain: {lx: 0.003, ly: 0.002, lz: %r}\n" % float(Z[-1]))
    T.write(os.path.join(d, "rule.yaml"), open(os.path.join(d, "rule.yaml")).read().replace(
        "domain: {lx: 0.003, ly: 0.002}\n", "", 1))
    T.run(a, ["run", "rule.yaml"], cwd=d, match=[r"\(stretched\)"])
    with h5py.File(os.path.join(d, "rule.h5"), "r") as f:
        z = f["grid/z"][()]
    g = np.diff(z)
    T.check(len(z) == 15 and z[0] == 0.0 and z[-1] == Z[-1] and np.allclose(g[1:] / g[:-1], 1.2, rtol=1e-9, atol=0),
            "the rule's nodes: %s" % z)
    T.check(np.allclose(z, Z, rtol=0, atol=1e-9 * Z[-1]), "the rule's nodes differ from the list's: %s" % (z - Z))


def uniform_bits(a):
    d = os.path.join(a.work, "uniform")
    z = [round(0.1 * k, 12) for k in range(11)]  # 0.30000000000000004 and friends rounded: gaps differ by ulps
    T.check(len(set(np.diff(z))) > 1, "the test's coordinates should not be exactly uniform")
    write_case(d, z_list(z), out="coords.h5")
    T.run(a, ["run", "case.yaml"], cwd=d, nomatch=[r"\(stretched\)"])
    write_case(d, "", out="uniform.h5", name="uniform.yaml")
    text = open(os.path.join(d, "uniform.yaml")).read().replace("  z: \n", "  nz: 11\n").replace(
        "domain: {lx: 0.003, ly: 0.002}", "domain: {lx: 0.003, ly: 0.002, lz: 1.0}")
    T.write(os.path.join(d, "uniform.yaml"), text)
    T.run(a, ["run", "uniform.yaml"], cwd=d)
    T.assert_same_fields(os.path.join(d, "uniform.h5"), os.path.join(d, "coords.h5"),
                         "coordinates uniform to round-off vs nz and lz")


def warning(a):
    d = os.path.join(a.work, "warning")
    z = [0.0, 0.001, 0.002, 0.005, 0.006, 0.007]  # the gap after node 2 is 3x its neighbours
    write_case(d, z_list(z))
    T.run(a, ["run", "case.yaml"], cwd=d,
          match=[r"\[warning\] grid\.z: neighbouring gaps differ by a factor 3 at node 2 \(more than 1\.5\)"])


def probes(a):
    d = os.path.join(a.work, "probes")
    node, between = 6, 0.5 * (Z[9] + Z[10]) * 0.25 + Z[9] * 0.75  # a quarter into the gap above node 9
    write_case(d, z_list(Z), extra="probes:\n  points:\n    node: [0.001, 0.001, %r]\n    between: [0.001, 0.001, %r]\n"
               "  every: 10\n" % (float(Z[node]), float(between)))
    T.run(a, ["run", "case.yaml"], cwd=d)
    fields = T.fields(os.path.join(d, "out.h5"))
    with h5py.File(os.path.join(d, "out.h5"), "r") as f:
        rows = {k: f["probes"][k][()] for k in f["probes"]}
    w = (between - Z[9]) / (Z[10] - Z[9])
    checked = 0
    for r_node, r_between in zip(rows["node"], rows["between"]):
        s = int(r_node["step"])
        u = fields[s]
        T.check(r_node["value"] == u[node, 2, 2], "node probe at step %d: %r, the field %r" % (s, r_node["value"],
                                                                                          u[node, 2, 2]))
        want = (1 - w) * u[9, 2, 2] + w * u[10, 2, 2]
        T.check(abs(r_between["value"] - want) <= 1e-13 * abs(want),
                "between-nodes probe at step %d: %r, linear in z %r" % (s, r_between["value"], want))
        checked += 1
    T.check(checked == 3 and rows["node"]["value"][-1] != 300.0, "compared %d rows" % checked)
    print("probes: a node's value bit for bit, between nodes linear in z (weight %.3f)" % w)


def files(a):
    d = os.path.join(a.work, "files")
    write_case(d, z_list(Z), out="first.h5")
    T.run(a, ["run", "case.yaml"], cwd=d)
    # The earlier output as the initial field: its /grid matches.
    second = CASE.replace("initial: {value: 300}", "initial: {file: first.h5, dataset: /steps/000020/u}")
    T.write(os.path.join(d, "second.yaml"), second % dict(z=z_list(Z), out="second.h5"))
    T.run(a, ["run", "second.yaml"], cwd=d)
    # Another z: refused, naming the node.
    z2 = Z.copy()
    z2[5] += 1e-6
    T.write(os.path.join(d, "moved.yaml"), second % dict(z=z_list(z2), out="moved.h5"))
    T.run(a, ["run", "moved.yaml"], cwd=d, rc=2,
          match=[r"node 5 along z is at 0\.000372\d* m in first\.h5:/grid/z but at 0\.000373\d* m in the config"])
    # A uniform file (spacing attributes) under a stretched config: refused.
    with h5py.File(os.path.join(d, "uniform.h5"), "w") as f:
        ds = f.create_dataset("u", data=np.full((15, 5, 7), 300.0))
        ds.attrs["spacing"] = [0.0005, 0.0005, float(Z[-1]) / 14]
        ds.attrs["origin"] = [0.0, 0.0, 0.0]
    T.write(os.path.join(d, "uni.yaml"),
            CASE.replace("initial: {value: 300}", "initial: {file: uniform.h5, dataset: u}") % dict(z=z_list(Z), out="uni.h5"))
    T.run(a, ["run", "uni.yaml"], cwd=d, rc=2,
          match=[r"uniform\.h5:u lies on a grid whose z axis is uniform but the config's is stretched"])
    T.check(not os.path.exists(os.path.join(d, "moved.h5")) and not os.path.exists(os.path.join(d, "uni.h5")),
            "a refused run wrote an output")
    # No grid section: the stretched z comes from the file's /grid, and a
    # restart of that run (its checkpoint's config) takes it again.
    nogrid = CASE.replace("grid:\n  nx: 7\n  ny: 5\n  z: %(z)s\n", "").replace(
        "initial: {value: 300}", "initial: {file: first.h5, dataset: /steps/000020/u}")
    T.check("grid:" not in nogrid, "the case without a grid section still has one")
    T.write(os.path.join(d, "nogrid.yaml"),
            nogrid.replace("output: {file: %(out)s, every: 10}", "output: {file: nogrid.h5, every: 10}\n"
                           "checkpoint: {file: nogrid.ckpt.h5, every: 10}"))
    T.run(a, ["run", "nogrid.yaml", "--set", "time.steps=10"], cwd=d, match=[r"\(stretched\)"])
    T.run(a, ["run", "nogrid.yaml", "--restart", "nogrid.ckpt.h5"], cwd=d,
          match=[r"restart +from nogrid\.ckpt\.h5 at step 10", r"\(stretched\)"])
    T.run(a, ["run", "nogrid.yaml", "--set", "output.file=straight.h5", "--set", "checkpoint.file=straight.ckpt.h5"],
          cwd=d)
    full, cont = T.fields(os.path.join(d, "straight.h5")), T.fields(os.path.join(d, "nogrid.h5"))
    T.check(np.array_equal(full[20], cont[20]), "the restart of a grid from the file is not bit for bit the straight run")
    with h5py.File(os.path.join(d, "nogrid.h5"), "r") as f:
        T.check(np.array_equal(f["grid/z"][()], Z), "the grid taken from first.h5 lost its z nodes")
    # A restart with other z nodes is another problem: refused, naming the key.
    ck = CASE % dict(z=z_list(Z), out="ck_run.h5") + "checkpoint: {file: ck_run.ckpt.h5, every: 10}\n"
    T.write(os.path.join(d, "ck.yaml"), ck)
    T.run(a, ["run", "ck.yaml", "--set", "time.steps=10"], cwd=d)
    T.write(os.path.join(d, "ck_moved.yaml"), ck.replace(z_list(Z), z_list(z2)))
    p = T.run(a, ["run", "ck_moved.yaml", "--restart", "ck_run.ckpt.h5"], cwd=d, rc=None,
              match=[r"grid\.z\.coordinates differs: checkpoint 15 values 0 \.\. 0\.002959796161 fnv1a64:[0-9a-f]{16}"])
    T.check(p.returncode != 0, "a restart with other z nodes ran")
    # A periodic stretched z off the origin: the checkpoint alone (its stored
    # config states the period) continues the run as the same problem.
    T.write(os.path.join(d, "ring.yaml"), """grid: {nx: 5, ny: 4, z: {coordinates: [0.1, 0.13, 0.2, 0.33, 0.4, 0.55],
                                                period: 0.7000000000000001}}
domain: {lx: 1, ly: 1}
boundary: {x: dirichlet, y: insulated, z: periodic}
initial: {value: 1}
source: {power_density: 3.0}
time: {dt: 0.01, steps: 4}
output: {file: ring.h5, every: 2}
checkpoint: {file: ring.ckpt.h5, every: 2}
backend: cpu
""")
    T.run(a, ["run", "ring.yaml", "--set", "time.steps=2"], cwd=d)
    T.run(a, ["run", "--restart", "ring.ckpt.h5", "--set", "time.steps=4"], cwd=d,
          match=[r"restart +from ring\.ckpt\.h5 at step 2"])


PV_SCRIPT = """
import json, sys
from paraview.simple import XDMFReader
r = XDMFReader(FileNames=[sys.argv[1]])
r.UpdatePipeline(time=float(sys.argv[2]))
# The reader's own output (the builtin session's VTK object): Fetch's copy
# of a rectilinear grid did not keep its coordinate arrays (ParaView 5.11).
d = r.GetClientSideObject().GetOutputDataObject(0)
if d.IsA("vtkMultiBlockDataSet"):
    d = d.GetBlock(0)
z = d.GetZCoordinates()
u = d.GetPointData().GetArray("u")
nx, ny, nz = d.GetDimensions()
i, j, k = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
print("PV " + json.dumps({"class": d.GetClassName(), "z": [z.GetValue(q) for q in range(z.GetNumberOfTuples())],
                          "u": u.GetValue(i + nx * (j + ny * k)), "dims": [nx, ny, nz]}))
"""


def paraview(a):
    pvbatch = shutil.which("pvbatch")
    if not pvbatch:
        print("SKIPPED: pvbatch is not installed (Debian: apt-get install paraview python3-paraview)")
        raise SystemExit(77)
    d = os.path.join(a.work, "paraview")
    write_case(d, z_list(Z))
    T.run(a, ["run", "case.yaml"], cwd=d)
    T.write(os.path.join(d, "probe.py"), PV_SCRIPT)
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    p = subprocess.run([pvbatch, "probe.py", "out.xmf", "0.2", "3", "2", "6"], cwd=d, env=env, capture_output=True,
                       text=True, timeout=300)
    print(p.stdout + p.stderr)
    line = [l for l in p.stdout.splitlines() if l.startswith("PV ")]
    T.check(p.returncode == 0 and line, "pvbatch failed (exit %d)" % p.returncode)
    got = json.loads(line[-1][3:])
    u = T.fields(os.path.join(d, "out.h5"))[20]
    T.check(got["class"] == "vtkRectilinearGrid", "ParaView made a %s" % got["class"])
    T.check(got["dims"] == [7, 5, 15] and np.array_equal(np.array(got["z"]), Z),
            "ParaView's z coordinates %s are not /grid/z %s" % (got["z"], Z))
    T.check(got["u"] == u[6, 2, 3], "ParaView's u at node (3, 2, 6) = %r, the HDF5 value %r" % (got["u"], u[6, 2, 3]))
    print("ParaView: a vtkRectilinearGrid on /grid/z; u at node (3, 2, 6) = %r, as in out.h5" % got["u"])


PARTS = {f.__name__: f for f in (forms, uniform_bits, warning, probes, files, paraview)}


def body():
    a = T.parse_args(lambda p: p.add_argument("--part", required=True, choices=sorted(PARTS)))
    PARTS[a.part](a)


T.main(body)
