"""What a newcomer reads on a first day (issue #59), through the real CLI:

  summary_decayed     a run whose analytic solution decayed to almost nothing
                      gives its error relative to the initial amplitude, not
                      "max relative 8.4e-01"; one that did not keeps "max relative"
  lambda_flat_axis    the large-dt warning of a 2D case names only its two axes
  dry_run_numbers     --dry-run prints 20 and 60, not 2e+01 and 6e+01
  theta_message       a restart with another scheme.theta names both values
  disk_refused        --dry-run and the run refuse outputs that cannot fit on
                      their file system (exit 3, nothing written); --force runs
  disk_warning        an output that takes more than 80 % of the free space is
                      warned about; a small one says "fits"
  cuda_off_message    a CPU-only configure where nvcc is installed says so (and
                      the README's pip lines name options CMake has)
"""

import os
import re

import adi_testlib as T


def summary_decayed(a):
    w = a.work
    # The guide's first block before issue #59: a 2.5 cm thick steel block for
    # 600 s, 128 time constants: the exact solution is 3e-56 of its start.
    T.write(os.path.join(w, "thin.yaml"), """grid: {nx: 41, ny: 41, nz: 11}
domain: {lx: 0.1, ly: 0.1, lz: 0.025}
diffusivity: 1.2e-5
time: {dt: 1.0, t_end: 600}
backend: cpu
""")
    p = T.run(a, ["run", "thin.yaml"], cwd=w,
              match=[r"error vs exact solution +max [0-9.]+e-5[0-9] +rms [0-9.]+e-5[0-9] +\(relative to the initial "
                     r"amplitude 1: [0-9.]+e-5[0-9]\)",
                     r"decay +the exact solution has decayed to 2\.8[0-9]*e-56 of its initial amplitude by t = 600 s "
                     r"\(time constant 4\.69[0-9]* s\)"],
              nomatch=[r"max relative [0-9.]+e-0[0-9]"])
    # A run that has not decayed (the default case: 0.23 of its start) keeps
    # the error relative to the solution's own max.
    T.run(a, ["run", "--backend", "cpu", "--set", "time.t_end=0.01", "--set", "grid={nx: 21, ny: 19, nz: 17}"],
          cwd=w, match=[r"error vs exact solution +max [0-9.]+e-0[0-9] +rms [0-9.]+e-0[0-9] +\(max relative "
                        r"[0-9.]+e-0[0-9]\)"],
          nomatch=[r"initial amplitude", r"\n  decay "])


def lambda_flat_axis(a):
    w = a.work
    T.write(os.path.join(w, "sheet.yaml"), """grid: {nx: 41, ny: 31, nz: 1}
domain: {lx: 0.2, ly: 0.15, lz: 0.002}
diffusivity: 8.3333e-5
boundary: {x: {lo: {type: dirichlet, value: 300}, hi: insulated}, y: insulated}
initial: {value: 293.15}
time: {dt: 20, steps: 3}
backend: cpu
""")
    # lambda_x = lambda_y = 8.3333e-5 * 20 / 0.005^2 = 66.7; the flat z axis
    # (h = lz = 0.002 m) would have shown 417 -- as a number of the lambda
    # list, not as digits anywhere (the summary's "4173.1 steps/s" has them).
    T.run(a, ["run", "sheet.yaml"], cwd=w,
          match=[r"\[warning\] lambda = alpha dt / h\^2 = \(66\.7, 66\.7\) \(x, y\) is large: .* \(along [xy](, [xy])?\) "],
          nomatch=[r"lambda = alpha dt / h\^2 = \([^)]*, [^)]*, [^)]*\)", r"\(x, y, z\)",
                   r"[(, ]41[67](\.[0-9]+)?[,)]"])


def dry_run_numbers(a):
    w = a.work
    T.write(os.path.join(w, "faces.yaml"), """grid: {nx: 21, ny: 11, nz: 1}
domain: {lx: 0.2, ly: 0.1, lz: 0.002}
material: {conductivity: 200.0, heat_capacity: 2.4e6}
boundary: {x: {lo: {type: convective, h: 20, ambient: 30}, hi: {type: dirichlet, value: 300}}, y: insulated}
initial: {value: 20000}
time: {dt: 2, t_end: 900}
output: {file: faces.h5, every_time: 60}
backend: cpu
""")
    p = T.run(a, ["run", "faces.yaml", "--dry-run"], cwd=w,
              match=[r"h: 20\b", r"ambient: 30\b", r"value: 300\b", r"every_time: 60\b", r"value: 20000\b",
                     r"time: \{dt: 2, steps: 450\}"])
    T.check(not re.search(r"[0-9]e\+[0-9]", p.stdout), "--dry-run printed a number in exponent form:\n" + p.stdout)


def theta_message(a):
    w = a.work
    T.write(os.path.join(w, "case.yaml"), """grid: {nx: 13, ny: 11, nz: 9}
time: {dt: 1.0e-3, steps: 10}
backend: cpu
output: {file: out.h5, every: 5}
checkpoint: {file: ck.h5, every: 5}
""")
    T.run(a, ["run", "case.yaml", "--quiet"], cwd=w)
    T.run(a, ["run", "case.yaml", "--restart", "ck.h5", "--set", "scheme.theta=0.75"], cwd=w, rc=2,
          match=[r"adi3d: error: ck\.h5: cannot continue this run from the checkpoint: scheme\.theta differs: "
                 r"checkpoint 0\.5, config 0\.75"])


def _free_bytes(folder):
    s = os.statvfs(folder)
    return s.f_bavail * s.f_frsize


def disk_refused(a):
    w = a.work
    # 501^3 float64: 0.96 GiB a step, written 100001 times: 92 TiB, which no
    # test machine has free (the memory, 2.8 GiB, fits).
    T.write(os.path.join(w, "huge.yaml"), """grid: {nx: 501, ny: 501, nz: 501}
time: {dt: 1.0e-6, steps: 100000}
backend: cpu
output: {file: huge.h5, every: 1}
""")
    T.check(_free_bytes(w) < 90 * 2 ** 40, "this file system has 90 TiB free: the test's case fits")
    refusal = (r"adi3d: error: the run writes about 91\.[0-9]+ TiB to the file system of %s \(output huge\.h5: "
               r"100001 steps of 959\.41 MiB \(501 x 501 x 501 float64\), about 91\.[0-9]+ TiB; checkpoint "
               r"huge\.ckpt\.h5: .*\), which has .* free: it cannot fit; .*or pass --force to run anyway" % re.escape(
                   os.path.realpath(w)))
    p = T.run(a, ["run", "huge.yaml", "--dry-run"], cwd=w, rc=3,
              match=[r"# disk: output huge\.h5: 100001 steps of 959\.41 MiB \(501 x 501 x 501 float64\), about "
                     r"91\.[0-9]+ TiB",
                     r"# disk: 91\.[0-9]+ TiB on the file system of .*: DOES NOT FIT", refusal])
    # The run itself: refused before its first step, nothing written.
    T.run(a, ["run", "huge.yaml"], cwd=w, rc=3, match=[refusal], timeout=60)
    left = sorted(f for f in os.listdir(w) if f != "huge.yaml")
    T.check(left == [], "a refused run left files: %s" % left)
    # --force: warned, not refused (the dry run is enough here).
    T.run(a, ["run", "huge.yaml", "--dry-run", "--force"], cwd=w, rc=0,
          match=[r"\[warning\] the run writes about 91\.[0-9]+ TiB .* it cannot fit; --force: running anyway"])
    # Compressed outputs may be much smaller: a warning, not a refusal.
    T.run(a, ["run", "huge.yaml", "--dry-run", "--set", "output.compression=4"], cwd=w, rc=0,
          match=[r"before compression \(output\.compression = 4\)", r"may not fit"])


def disk_warning(a):
    w = a.work
    free = _free_bytes(w)
    # A case that writes 90 % of the free space: 101^3 float64 steps (7.86 MiB
    # and 5 KiB) written every step.
    step = 101 ** 3 * 8 + 5 * 1024
    steps = int(0.90 * free / step)
    T.write(os.path.join(w, "big.yaml"), """grid: {nx: 101, ny: 101, nz: 101}
time: {dt: 1.0e-6, steps: %d}
backend: cpu
output: {file: big.h5, every: 1}
""" % steps)
    T.run(a, ["run", "big.yaml", "--dry-run"], cwd=w, rc=0,
          match=[r"# disk: .* on the file system of .*: fits, but takes (8[5-9]|9[0-5]) % of the free space",
                 r"\[warning\] the run writes about .* to the file system of .*: it takes (8[5-9]|9[0-5]) % of the "
                 r"free space"])
    # A small one: fits, no warning.
    T.run(a, ["run", "big.yaml", "--dry-run", "--set", "time.steps=3"], cwd=w, rc=0,
          match=[r"# disk: output big\.h5: 4 steps of 7\.86 MiB", r": fits \(< 1 % of the free space\)"],
          nomatch=[r"\[warning\]"])


def cuda_off_message(a):
    """CMake says whether it builds the CUDA backend, where nvcc is and how to
    choose the other way: here a CPU-only configure (ADI_ENABLE_CUDA=OFF, as
    the README's pip line passes it) on a machine where an nvcc is on PATH (a
    stand-in; a real one in /usr/local/cuda/bin is named instead)."""
    import shutil
    import subprocess
    w = a.work
    fake = os.path.join(w, "cuda", "bin")
    os.makedirs(fake)
    T.write(os.path.join(fake, "nvcc"), "#!/bin/sh\necho 'stand-in nvcc' >&2\nexit 1\n")
    os.chmod(os.path.join(fake, "nvcc"), 0o755)
    cmake = shutil.which("cmake")
    T.check(cmake is not None, "cmake is not on PATH")
    env = T.env()
    env["PATH"] = fake + os.pathsep + env["PATH"]
    cmd = [cmake, "-S", a.source, "-B", os.path.join(w, "build"), "-DADI_ENABLE_CUDA=OFF", "-DADI_BUILD_TESTS=OFF",
           "-DADI_BUILD_EXAMPLES=OFF", "-DADI_BUILD_APP=OFF"]
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    print(p.stdout + p.stderr, flush=True)
    T.check(p.returncode == 0, "configure failed")
    T.check(re.search(r"-- CUDA backend: off \(ADI_ENABLE_CUDA=OFF\); nvcc at \S*/nvcc is not used: a CPU-only build",
                      p.stdout), "no word that the nvcc found is not used")
    T.check("CUDA=OFF" in p.stdout, "the summary line")
    # The README's pip lines name CMake options that exist.
    readme = open(os.path.join(a.source, "README.md")).read()
    cmakelists = open(os.path.join(a.source, "CMakeLists.txt")).read()
    lines = [l for l in readme.splitlines() if l.startswith("pip install")]
    T.check(any("cmake.define.ADI_ENABLE_CUDA=OFF" in l for l in lines), "no CPU-only pip line in the README: %s" % lines)
    for name in re.findall(r"cmake\.define\.(\w+)=", "\n".join(lines)):
        T.check(re.search(r"option\(%s\b" % name, cmakelists), "README's pip line names %s, not a CMake option" % name)


PARTS = {f.__name__: f for f in (summary_decayed, lambda_flat_axis, dry_run_numbers, theta_message, disk_refused,
                                 disk_warning, cuda_off_message)}


def body():
    a = T.parse_args(lambda p: p.add_argument("--part", required=True, choices=sorted(PARTS)))
    PARTS[a.part](a)


T.main(body)
