"""Rough edges of the CLI (issue #15), through the real executable:

  json_stdout      validate --json - : stdout is the JSON alone (it parses);
                   the tables are on stderr
  json_full        JSON to a full device (/dev/full), as a file and as
                   stdout: exit 3 naming it, not 0 or 1
  long_name        a 5000-character output name: exit 2, one line naming
                   output.file, the name cut
  field_geometry   an initial field without origin/spacing: a loud warning
                   and the summary says the box is the default; with a
                   spacing attribute or domain lengths, no warning and the
                   summary names the source
  lzf_field        an LZF-compressed initial field (h5py's filter): exit 3
                   naming the filter, not "truncated or damaged"
  locked_field     an initial field another program holds open for writing:
                   exit 3 naming the lock
  json_exists      validate / bench --json onto an existing file: refused
                   (exit 3, before the work) and the file unchanged; with
                   --overwrite only a JSON file is replaced (not an HDF5
                   output or a config), through a symbolic link the file it
                   names; a dangling link or a missing folder refused; no
                   temporary left behind
"""

import json
import os
import subprocess

import adi_testlib as T


def json_stdout(a):
    cmd = [a.adi3d, "validate", "--backend", "cpu", "--levels", "4,8", "--json", "-"]
    p = subprocess.run(cmd, cwd=a.work, env=T.env(), capture_output=True, text=True, timeout=120)
    print(p.stdout, p.stderr)
    T.check(p.returncode in (0, 4), "exit %d" % p.returncode)
    doc = json.loads(p.stdout)  # raises (and fails the test) if the tables are mixed in
    T.check([r["cells"] for r in doc["convergence"]["rows"]] == [4, 8], "rows %s" % doc["convergence"]["rows"])
    T.check("Round-off check" in p.stderr, "the tables are not on stderr")


def json_full(a):
    T.run(a, ["validate", "--backend", "cpu", "--levels", "4,8", "--json", "/dev/full"], cwd=a.work, rc=3,
          match=[r"adi3d: error: /dev/full: cannot write the validation JSON \(No space left on device\)"])
    with open("/dev/full", "w") as full:
        p = subprocess.run([a.adi3d, "validate", "--backend", "cpu", "--levels", "4,8", "--json", "-"], cwd=a.work,
                           env=T.env(), stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    print(p.stderr)
    T.check(p.returncode == 3, "stdout on /dev/full: exit %d" % p.returncode)
    T.check("stdout: cannot write the validation JSON" in p.stderr, "message does not name stdout")


def json_exists(a):
    w = a.work
    val = ["validate", "--backend", "cpu", "--levels", "4,8", "--json"]
    bench = ["bench", "--backend", "cpu", "--size", "9x10x11", "--precision", "float64", "--reps", "1", "--warmup",
             "0", "--json"]

    def content(name):
        with open(os.path.join(w, name), "rb") as f:
            return f.read()

    T.run(a, val + ["v.json"], cwd=w)
    first = content("v.json")
    T.check(json.loads(first)["convergence"]["rows"][0]["cells"] == 4, "v.json is not the study")
    # An earlier run's result: refused before the study (no tables printed), untouched.
    for cmd, what in ((val, "validation"), (bench, "benchmark")):
        p = T.run(a, cmd + ["v.json"], cwd=w, rc=3,
                  match=[r"adi3d: error: %s JSON file 'v.json' exists; pass --overwrite to replace it, or choose "
                         r"another name; nothing was written" % what])
        T.check("Round-off check" not in p.stdout and "copy bandwidth" not in p.stdout,
                "refused only after the work:\n" + p.stdout)
        T.check(content("v.json") == first, "v.json changed")
    # --overwrite replaces a JSON file (here the study by a benchmark) ...
    T.run(a, bench + ["v.json", "--overwrite"], cwd=w)
    T.check("copy_bandwidth_Bps" in json.loads(content("v.json")), "--overwrite did not replace v.json")
    # ... but not data that is not JSON: an HDF5 output, a config.
    T.write(os.path.join(w, "case.yaml"), "grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 1}\n"
            "output: {file: out.h5}\n")
    T.run(a, ["run", "case.yaml", "--backend", "cpu"], cwd=w)
    for name in ("out.h5", "case.yaml"):
        before = content(name)
        for cmd, what in ((val, "validation"), (bench, "benchmark")):
            T.run(a, cmd + [name, "--overwrite"], cwd=w, rc=3,
                  match=[r"%s JSON file '%s' exists and is not a JSON document; --overwrite replaces only a JSON "
                         r"file" % (what, name.replace(".", r"\."))])
        T.check(content(name) == before, name + " changed")
    # Through a symbolic link: the file it names is replaced, the link stays.
    os.symlink("v.json", os.path.join(w, "link.json"))
    T.run(a, val + ["link.json", "--overwrite"], cwd=w)
    T.check(os.path.islink(os.path.join(w, "link.json")), "the link was replaced by a file")
    T.check(b"convergence" in content("v.json"), "the file behind the link was not replaced")
    os.symlink("missing.json", os.path.join(w, "dangling.json"))
    T.run(a, val + ["dangling.json"], cwd=w, rc=3, match=[r"'dangling\.json' is a symbolic link to a file that does "
                                                          r"not exist"])
    T.check(not os.path.lexists(os.path.join(w, "missing.json")), "created a file through a dangling link")
    p = T.run(a, bench + ["no/such/b.json"], cwd=w, rc=3,
              match=[r"benchmark JSON file 'no/such/b\.json' cannot be created: folder 'no/such' \(No such file"])
    T.check("copy bandwidth" not in p.stdout, "refused only after the benchmark")
    os.mkdir(os.path.join(w, "d"))
    T.run(a, val + ["d"], cwd=w, rc=3, match=[r"validation JSON file 'd' exists and is a folder"])
    left = [f for f in os.listdir(w) if f.endswith(".tmp")]
    T.check(not left, "temporaries left: %s" % left)


def long_name(a):
    T.write(os.path.join(a.work, "case.yaml"), "grid: {nx: 9, ny: 9, nz: 9}\ntime: {dt: 0.1, steps: 1}\n")
    for args in (["--set", "output.file=" + "a" * 5000 + ".h5"], ["--set", "checkpoint.file=d/" + "b" * 300]):
        p = T.run(a, ["run", "case.yaml", "--backend", "cpu"] + args, cwd=a.work, rc=2,
                  match=[r"(output|checkpoint)\.file: expected a path of at most 4095 bytes whose names are at most "
                         r"255 bytes each"])
        T.check(len(p.stderr) < 400 and p.stderr.count("\n") == 1, "not one short line: %d bytes" % len(p.stderr))


def field_geometry(a):
    import h5py
    import numpy as np
    with h5py.File(os.path.join(a.work, "bare.h5"), "w") as f:
        f["u"] = np.zeros((7, 8, 9))  # (nz, ny, nx)
    with h5py.File(os.path.join(a.work, "spaced.h5"), "w") as f:
        f["u"] = np.zeros((7, 8, 9))
        f["u"].attrs["spacing"] = [0.01, 0.02, 0.03]
    T.write(os.path.join(a.work, "case.yaml"), "initial: {file: bare.h5}\ntime: {dt: 1e-4, steps: 2}\nbackend: cpu\n")
    T.run(a, ["run", "case.yaml"], cwd=a.work,
          match=[r"\[warning\] the initial field bare\.h5:/u carries no spacing .* the box is taken as 1 m along "
                 r"each axis, h = \(0\.125, 0\.1429, 0\.1667\) m",
                 r"geometry +DEFAULT lengths of 1 m \(no spacing attribute in bare\.h5:/u or a /grid group\), "
                 r"default origin \(0, 0, 0\)"])
    T.run(a, ["run", "case.yaml", "--dry-run", "--set", "initial.file=spaced.h5"], cwd=a.work,
          match=[r"# resolved: geometry: spacing from spaced\.h5:/u, default origin"], nomatch=[r"warning"])
    T.run(a, ["run", "case.yaml", "--dry-run", "--set", "domain={lx: 2, ly: 2, lz: 2}"], cwd=a.work,
          match=[r"# resolved: geometry: lengths from the config \(domain\)"], nomatch=[r"warning"])


def _field_case(a, name, **create):
    import h5py
    import numpy as np
    path = os.path.join(a.work, name)
    with h5py.File(path, "w") as f:
        f.create_dataset("u", data=np.zeros((7, 8, 9)), **create)
        f["u"].attrs["spacing"] = [0.1, 0.1, 0.1]
    T.write(os.path.join(a.work, "case.yaml"),
            "initial: {file: %s}\ntime: {dt: 1e-4, steps: 2}\nbackend: cpu\n" % name)
    return path


def lzf_field(a):
    _field_case(a, "lzf.h5", compression="lzf", chunks=(1, 8, 9))
    T.run(a, ["run", "case.yaml"], cwd=a.work, rc=3,
          match=[r"lzf\.h5:/u: compressed with the HDF5 filter 'lzf' \(id 32000\), which this adi3d's HDF5 "
                 r"cannot decode"], nomatch=[r"truncated or damaged"])


def locked_field(a):
    import h5py
    path = _field_case(a, "held.h5")
    with h5py.File(path, "a"):  # a writer holds it, as a running job would
        T.run(a, ["run", "case.yaml"], cwd=a.work, rc=3,
              match=[r"held\.h5: cannot open the initial field: the file is locked by another program that has "
                     r"it open for writing"], nomatch=[r"truncated or damaged"])


PARTS = {"lzf_field": lzf_field, "locked_field": locked_field, "json_exists": json_exists, "json_stdout": json_stdout, "json_full": json_full, "long_name": long_name, "field_geometry": field_geometry}


def body():
    a = T.parse_args(lambda p: p.add_argument("--part", required=True, choices=sorted(PARTS)))
    PARTS[a.part](a)


T.main(body)
