"""--set as users reach for it (issue #15, items 4 and 6), through the real CLI:

  restart_extend  a finished run extended by --set time.t_end=... from its
                  checkpoint, without CONFIG and with it; the result equals
                  one uninterrupted run to the new t_end, bit for bit (dt
                  kept: t_end a whole number of steps of 0.0002 up to round-off)
  time_notes      a run whose t_end shortens dt and whose every_time outputs
                  land off their times says both in its log; the output file's
                  times are the ones the log names
"""

import os

import h5py

import adi_testlib as T

CASE = """grid: {nx: 11, ny: 9, nz: 7}
time: {dt: 0.0002, t_end: 0.004}
backend: cpu
output: {file: out.h5, every: 5}
checkpoint: {file: ck.h5, every: 5}
"""


def restart_extend(a):
    for with_config in (False, True):
        w = os.path.join(a.work, "with_config" if with_config else "no_config")
        os.makedirs(w)
        T.write(os.path.join(w, "case.yaml"), CASE)
        T.run(a, ["run", "case.yaml"], cwd=w, match=[r"20 steps of dt = 0\.0002 s"])
        # 0.07 / 0.0002 is 350.00000000000006: dt must stay 0.0002 exactly, or
        # the checkpoint's dt would not match.
        args = ["run", "--restart", "ck.h5", "--set", "time.t_end=0.07"]
        if with_config:
            args.insert(1, "case.yaml")
        T.run(a, args, cwd=w, match=[r"350 steps of dt = 0\.0002 s", r"restart +from ck\.h5 at step 20"],
              nomatch=[r"time step differs"])
        T.run(a, ["run", "case.yaml", "--set", "time.t_end=0.07", "--set", "output.file=ref.h5",
                  "--set", "checkpoint.file=ref.ckpt.h5"], cwd=w)
        T.assert_same_fields(os.path.join(w, "out.h5"), os.path.join(w, "ref.h5"),
                             "extended restart vs one run to t_end = 0.07")
        # And steps in place of t_end on the same restart: the override replaces t_end.
        T.run(a, ["run", "--restart", "ck.h5", "--set", "time.steps=360"], cwd=w,
              match=[r"360 steps of dt = 0\.0002 s", r"restart +from ck\.h5 at step 350"])


def time_notes(a):
    T.write(os.path.join(a.work, "case.yaml"), """grid: {nx: 9, ny: 9, nz: 9}
time: {dt: 0.02, t_end: 0.99}
backend: cpu
output: {file: out.h5, every_time: 0.25}
""")
    p = T.run(a, ["run", "case.yaml"], cwd=a.work,
              match=[r"\[info\] time\.dt = 0\.02 s shortened to 0\.0198 s so that 50 steps end exactly at "
                     r"time\.t_end = 0\.99 s",
                     r"\[info\] output\.every_time = 0\.25 s is not a whole number of steps of dt = 0\.0198 s "
                     r"\(12\.63 steps\): each output is written at the first step at or after its time, up to one "
                     r"dt late \(0\.25 at t = 0\.2574, 0\.5 at t = 0\.5148, 0\.75 at t = 0\.7524, \.\.\.\); for exact "
                     r"times choose time\.dt = every_time / n"])
    with h5py.File(os.path.join(a.work, "out.h5"), "r") as f:
        times = [round(float(f["steps"][k]["u"].attrs["time"]), 6) for k in sorted(f["steps"].keys())]
    print("output times:", times)
    T.check(times == [0.0, 0.2574, 0.5148, 0.7524, 0.99], "output times %s differ from the log's" % times)
    T.run(a, ["run", "case.yaml", "--dry-run", "--overwrite"], cwd=a.work,
          match=[r"# time: time\.dt = 0\.02 s shortened", r"# time: output\.every_time = 0\.25 s"])


PARTS = {"restart_extend": restart_extend, "time_notes": time_notes}


def body():
    a = T.parse_args(lambda p: p.add_argument("--part", required=True, choices=sorted(PARTS)))
    PARTS[a.part](a)


T.main(body)
