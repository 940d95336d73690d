#!/usr/bin/env bash
# Shared-memory bank conflicts of every transpose_bench kernel, measured by
# ncu, next to what the host bank model (transpose/include/adi/transpose/
# bank_model.hpp) predicts for the same launch.
#
#   scripts/transpose_ncu.sh [BUILD_DIR] [transpose_bench args...]
#
#   BUILD_DIR defaults to build/; extra arguments go to transpose_bench, e.g.
#   --filter f64 or --filter _i32_. Environment: NCU (ncu binary), TILES
#   (tiles per kernel, default 1024), REPS (extra shared-memory round trips
#   per tile, default 1), OUT_DIR (default BUILD_DIR/transpose_ncu).
#
# Needs ncu (Nsight Compute) with permission to read the GPU counters (root,
# or the driver's NVreg_RestrictProfilingToAdminUsers=0), and python3. Prints one line per kernel:
#   map dtype I path | st conflicts measured / model | ld ... | wavefronts | SASS
# and a summary: conflict-free maps must measure 0, and the unpadded map
# (none) is expected to conflict where the model says so — unless the
# compiler fused its accesses (see the SASS column and docs/TRANSPOSE.md).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="$ROOT/build"
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  BUILD_DIR="$(cd "$1" && pwd)"
  shift
fi
BENCH="$BUILD_DIR/transpose/cuda/transpose_bench"
NCU="${NCU:-ncu}"
OUT="${OUT_DIR:-$BUILD_DIR/transpose_ncu}"
TILES="${TILES:-1024}"
REPS="${REPS:-1}"

[ -x "$BENCH" ] || { echo "transpose_ncu: $BENCH not found; build it: cmake --build $BUILD_DIR --target transpose_bench" >&2; exit 2; }
command -v "$NCU" >/dev/null 2>&1 || { echo "transpose_ncu: '$NCU' not found (set NCU=/path/to/ncu)" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "transpose_ncu: python3 is needed to print the table" >&2; exit 2; }
mkdir -p "$OUT"

METRICS="${METRICS:-l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum}"

echo "transpose_ncu: profiling $BENCH --once --tiles $TILES --reps $REPS $* (report in $OUT)"
rc=0
"$NCU" -f -o "$OUT/transpose" -k 'regex:^transpose_' --metrics "$METRICS" \
  "$BENCH" --once --tiles "$TILES" --reps "$REPS" --json "$OUT/model.json" "$@" > "$OUT/bench.log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ] || [ ! -s "$OUT/model.json" ]; then
  tail -n 30 "$OUT/bench.log" >&2
  echo "transpose_ncu: ncu / transpose_bench exited with $rc (log: $OUT/bench.log)" >&2
  [ -s "$OUT/model.json" ] && [ -s "$OUT/transpose.ncu-rep" ] || exit 1
fi
"$NCU" -i "$OUT/transpose.ncu-rep" --csv --page raw --print-units base > "$OUT/raw.csv"

# Static shared-memory instruction widths per kernel (did the compiler fuse
# scalar accesses into LDS.64/.128?), when cuobjdump is there.
CUOBJDUMP="${CUOBJDUMP:-$(command -v cuobjdump || true)}"
if [ -z "$CUOBJDUMP" ] && [ -x "$(dirname "$(command -v "$NCU")")/../bin/cuobjdump" ]; then
  CUOBJDUMP="$(dirname "$(command -v "$NCU")")/../bin/cuobjdump"
fi
if [ -n "$CUOBJDUMP" ]; then
  "$CUOBJDUMP" -sass "$BENCH" > "$OUT/bench.sass" 2>/dev/null || : > "$OUT/bench.sass"
else
  : > "$OUT/bench.sass"
fi

python3 - "$OUT" <<'PY'
import csv, json, re, sys
from collections import defaultdict

out = sys.argv[1]
model = {k["kernel"]: k for k in json.load(open(f"{out}/model.json"))["kernels"]}

def number(s):
    s = (s or "").replace(",", "").strip()
    try:
        return float(s)
    except ValueError:
        return None

# ncu CSV: either wide (--page raw: one row per kernel, one column per
# metric) or long (--page details: one row per metric). Accept both.
measured = defaultdict(dict)
with open(f"{out}/raw.csv", newline="") as f:
    rows = list(csv.reader(f))
header_at = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
header = rows[header_at]
col = {name: i for i, name in enumerate(header)}
for r in rows[header_at + 1:]:
    if len(r) < len(header) or not r[col["Kernel Name"]].strip():
        continue  # the units row, or noise
    name = re.sub(r"\(.*$", "", r[col["Kernel Name"]]).strip()
    if "Metric Name" in col:
        measured[name][r[col["Metric Name"]]] = number(r[col["Metric Value"]])
    else:
        for m, i in col.items():
            if "__" in m:
                measured[name][m] = number(r[i])

sass = defaultdict(lambda: defaultdict(int))
current = None
for line in open(f"{out}/bench.sass", errors="replace"):
    m = re.search(r"Function : \S*?(transpose_[a-z]+_f(?:32|64)_i\d+_(?:scalar|vec16))", line)
    if m:
        current = m.group(1)
        continue
    if current:
        for op in re.findall(r"\b((?:LDS|STS)(?:\.[A-Z0-9]+)*)\b", line):
            sass[current][op] += 1

def metric(meas, kind, what):
    key = (f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{kind}.sum" if what == "conflicts"
           else f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{kind}.sum")
    v = meas.get(key)
    return "-" if v is None else f"{v:.0f}"

def fmt(a, b):
    return f"{a:>9} / {b:<9}"

print(f"\n{'map':6} {'dtype':5} {'I':>3} {'path':6} | {'st conflicts meas/model':23} | {'ld conflicts meas/model':23} | "
      f"{'st wavefronts meas/model':23} | {'ld wavefronts meas/model':23} | SASS shared ops")
problems, none_zero, mismatches = [], [], []
order = {"giles": 0, "xor": 1, "pitch": 2, "none": 3}
for name in sorted(model, key=lambda n: (model[n]["dtype"], model[n]["I"], model[n]["path"], order[model[n]["map"]])):
    k = model[name]
    meas = measured.get(name, {})
    md = k["model"]
    st_c, ld_c = metric(meas, "st", "conflicts"), metric(meas, "ld", "conflicts")
    st_w, ld_w = metric(meas, "st", "wavefronts"), metric(meas, "ld", "wavefronts")
    ops = " ".join(f"{op}:{n}" for op, n in sorted(sass.get(name, {}).items())) or "-"
    print(f"{k['map']:6} {k['dtype']:5} {k['I']:>3} {k['path']:6} | {fmt(st_c, md['st_conflicts'])} | "
          f"{fmt(ld_c, md['ld_conflicts'])} | {fmt(st_w, md['st_wavefronts'])} | {fmt(ld_w, md['ld_wavefronts'])} | {ops}")
    if not meas:
        problems.append(f"{name}: not in the ncu report")
        continue
    total = sum(float(x) for x in (st_c, ld_c) if x != "-")
    if k["map"] in ("giles", "xor") and total != 0:
        problems.append(f"{name}: {total:.0f} conflicts measured, the model says 0")
    if k["map"] == "none" and md["st_conflicts"] + md["ld_conflicts"] > 0 and total == 0:
        none_zero.append(name)
    if (st_c, ld_c) != (str(md["st_conflicts"]), str(md["ld_conflicts"])):
        mismatches.append(name)

print(f"\n{len(model)} kernels; model = bank_model.hpp for the same launch ({next(iter(model.values()))['tiles']} tiles, "
      f"reps {next(iter(model.values()))['reps']}).")
print("conflict-free maps (giles, xor) with measured conflicts: " + (", ".join(problems) if problems else "none"))
print("unpadded (none) kernels the model expects to conflict but that measured 0: " +
      (", ".join(none_zero) if none_zero else "none") +
      ("  (did the compiler fuse their accesses? see the SASS column)" if none_zero else ""))
print(f"kernels whose measured conflicts differ from the model: {len(mismatches)}"
      + (" (" + ", ".join(mismatches) + ")" if mismatches else ""))
sys.exit(1 if problems else 0)
PY
