"""Progress and logs as users see them:

  tty      on a terminal (a pseudo-terminal here): a progress line rewritten
           with \\r, carrying the step, rate, ETA and max|u|
  plain    not a terminal: plain log lines (step, t, steps/s, ETA, max|u|)
  quiet    --quiet: nothing on stderr but warnings and errors, the summary on stdout
  verbose  --verbose: debug lines (the resolved config, each checkpoint)
"""

import os
import pty
import re
import select
import subprocess
import time

import adi_testlib as T

CASE = """grid: {nx: 45, ny: 37, nz: 29}
time: {dt: 1.0e-4, steps: %d}
backend: cpu
checkpoint: {file: ck.h5, every: 100}
"""


def tty(a):
    T.write(os.path.join(a.work, "case.yaml"), CASE % 1500)
    master, slave = pty.openpty()
    p = subprocess.Popen([a.adi3d, "run", "case.yaml"], cwd=a.work, env=T.env(), stdout=subprocess.PIPE,
                         stderr=slave, text=False)
    os.close(slave)
    buf = b""
    end = time.time() + 120
    while time.time() < end:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
        elif p.poll() is not None:
            break
    p.wait()
    os.close(master)
    text = buf.decode(errors="replace")
    print(text)
    T.check(p.returncode == 0, "exit %d" % p.returncode)
    T.check(re.search(r"\r  step [0-9]+/1500  t = [0-9.e-]+ s  [0-9.]+ steps/s  ETA [0-9.]+ s  max\|u\| = ", text),
            "no progress line on the terminal")


def plain(a):
    T.write(os.path.join(a.work, "case.yaml"), CASE % 300)
    p = T.run(a, ["run", "case.yaml", "--set", "log.every=100"], cwd=a.work)
    lines = re.findall(r"\[info\] step ([0-9]+)/300  t = ([0-9.e-]+) s  [0-9.]+ steps/s  ETA \S+ s  max\|u\| = \S+",
                       p.stderr)
    T.check([int(s) for s, _ in lines] == [100, 200, 300], "log lines %s" % lines)
    T.check("\r" not in p.stderr, "a progress line (\\r) when stderr is not a terminal")


def quiet(a):
    T.write(os.path.join(a.work, "case.yaml"), CASE % 200)
    p = T.run(a, ["run", "case.yaml", "--quiet", "--set", "log.every=10"], cwd=a.work)
    T.check(p.stderr == "", "stderr is not empty with --quiet:\n" + p.stderr)
    T.check("adi3d run: case.yaml" in p.stdout, "no summary on stdout")
    p = T.run(a, ["-q", "run", "case.yaml", "--overwrite"], cwd=a.work)
    T.check(p.stderr == "", "-q before the subcommand")


def verbose(a):
    T.write(os.path.join(a.work, "case.yaml"), CASE % 200)
    T.run(a, ["run", "case.yaml", "--verbose"], cwd=a.work,
          match=[r"\[debug\] resolved config:\s+grid: \{nx: 45", r"\[debug\] checkpoint at step 200 written to ck\.h5"])


PARTS = {"tty": tty, "plain": plain, "quiet": quiet, "verbose": verbose}


def body():
    a = T.parse_args(lambda p: p.add_argument("--part", required=True, choices=sorted(PARTS)))
    PARTS[a.part](a)


T.main(body)
