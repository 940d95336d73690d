#!/usr/bin/env bash
# The layered-wall example (K, c, q fields, convective faces with a table, a
# source table) as a user runs it, on one GPU, on GPU ranks under mpirun and
# on CPU ranks, compared step by step with the single-GPU run:
#   scripts/mpi_gpu_general_check.sh ADI3D OUT_DIR
# Needs h5py (examples/make_wall.py writes the fields). Prints one line per
# run: the largest relative difference of u over all written steps.
set -uo pipefail
ADI3D="$(realpath "$1")"
OUT="$(realpath -m "$2")"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-python3}"
MPIRUN=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && MPIRUN+=(--allow-run-as-root)
W="$OUT/wall"
mkdir -p "$W"
cp "$ROOT/examples/layered_wall.yaml" "$W/case.yaml"
"$PY" "$ROOT/examples/make_wall.py" "$W/wall.h5" >"$W/make_wall.log" 2>&1 || { cat "$W/make_wall.log"; exit 1; }
cd "$W" || exit 1
run() {  # name, launcher args..., -- adi3d args...
  local name=$1; shift
  "$@" >"$OUT/$name.log" 2>&1
  echo "$name rc=$?"
}
run gpu1 "$ADI3D" run case.yaml --backend cuda --set output.file=gpu1.h5
for np in 2 3 4; do
  run gpu_np$np "${MPIRUN[@]}" -np $np "$ADI3D" run case.yaml --backend cuda --set output.file=gpu_np$np.h5
done
run cpu_np3 "${MPIRUN[@]}" -np 3 "$ADI3D" run case.yaml --backend cpu --set output.file=cpu_np3.h5
grep -h -E "MPI:|device|backend" "$OUT"/gpu_np2.log | head -5
"$PY" - "$W" <<'PYEOF'
import sys, h5py, numpy as np
d = sys.argv[1]
with h5py.File(d + "/gpu1.h5", "r") as f:
    ref = {k: f["steps"][k]["u"][...] for k in f["steps"]}
for name in ["gpu_np2", "gpu_np3", "gpu_np4", "cpu_np3"]:
    try:
        with h5py.File("%s/%s.h5" % (d, name), "r") as f:
            keys = sorted(f["steps"])
            worst = max(float(np.max(np.abs(f["steps"][k]["u"][...] - ref[k])) / np.max(np.abs(ref[k]))) for k in keys)
            dev = f["provenance"].attrs.get("device", "")
        print("%-8s steps %d  max rel diff to one GPU %.3e  device: %s" % (name, len(keys), worst, dev))
    except Exception as e:
        print("%-8s FAILED: %s" % (name, e))
PYEOF
