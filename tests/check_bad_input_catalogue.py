"""Checks docs/BAD_INPUT.md against the tests (ctest test bad_input_catalogue):

  * every test named in a catalogue row (backticked in the last column)
    exists in this build's ctest list, or, for the libFuzzer tests, is one of
    the targets in tests/fuzz/CMakeLists.txt (they live in the fuzzing build);
  * every test of the bad-input families exists in the catalogue.

Prints the figures: classes catalogued, tests referenced, saved fuzz inputs.
Usage: check_bad_input_catalogue.py --catalogue docs/BAD_INPUT.md --ctest CTEST
       --build BUILD_DIR --source SOURCE_DIR
"""

import argparse
import os
import re
import subprocess
import sys

FAMILIES = [r"cli_bad_", r"cli_layout_bad_", r"cli_layout_missing_", r"cli_no_subcommand$", r"io_bad_", r"io_signal_",
            r"io_restart_after_sigkill$", r"fault_", r"numerics_", r"fuzz_replay_"]


def catalogue_rows(path):
    rows = []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line.startswith("|") or line.startswith("| ---") or line.startswith("| bad input |") \
                or line.startswith("| fault |") or line.startswith("| condition |"):
            continue
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        rows.append((cells[0], re.findall(r"`([^`]+)`", cells[-1])))
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--catalogue", required=True)
    p.add_argument("--ctest", required=True)
    p.add_argument("--build", required=True)
    p.add_argument("--source", required=True)
    a = p.parse_args()

    out = subprocess.run([a.ctest, "--test-dir", a.build, "-N"], capture_output=True, text=True).stdout
    tests = set(re.findall(r"Test +#\d+: (\S+)", out))
    fuzz_cmake = open(os.path.join(a.source, "tests", "fuzz", "CMakeLists.txt")).read()
    fuzz_targets = re.search(r"set\(FUZZ_TARGETS ([^)]*)\)", fuzz_cmake).group(1).split()
    libfuzzer_tests = {"fuzz_" + t for t in fuzz_targets}

    # A build without MPI (the sanitizer build) has no mpirun tests: their
    # absence is expected there, and only there.
    mpi_built = any(t.startswith("mpi_") for t in tests)
    rows = catalogue_rows(a.catalogue)
    problems = []
    named = set()
    for what, names in rows:
        if not names:
            problems.append("row '%s' names no test" % what)
        for n in names:
            named.add(n)
            if n not in tests and n not in libfuzzer_tests and not (n.startswith("mpi_") and not mpi_built):
                problems.append("row '%s': test %s does not exist in this build" % (what, n))
    for t in sorted(tests):
        if any(re.match(f, t) for f in FAMILIES) and t not in named:
            problems.append("test %s (a bad-input test) is not in the catalogue" % t)
    for t in sorted(libfuzzer_tests - named):
        problems.append("fuzz target test %s is not in the catalogue" % t)

    saved = 0
    for kind in ("regressions", "corpus"):
        for t in fuzz_targets:
            d = os.path.join(a.source, "tests", "fuzz", kind, t)
            saved += len([f for f in os.listdir(d) if not f.startswith(".")])
    print("catalogue: %d classes of bad input, %d tests named (%d in this build), %d saved fuzz inputs "
          "(regressions and seeds)" % (len(rows), len(named), len(named & tests), saved))
    for pr in problems:
        print("PROBLEM: " + pr)
    sys.exit(1 if problems else 0)


main()
