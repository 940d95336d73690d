#!/usr/bin/env bash
# The GPU runs of a round (issue "GPU verification of this round"), one device
# call per MODE, from the repository root on the GPU machine:
#   scripts/gpu_round.sh MODE        logs and a short table under $OUT/MODE
# MODE:
#   new     build (tests on), then the gpu tests of this round's CUDA work (the
#           general path on both schemes, the contract, the GPU ranks) and
#           `adi3d validate --backend cuda`; the stability runs on the GPU
#   half1   the distributed GPU tests (contract_mpi_cuda*, mpi_gpu*), then the
#           rest of the `gpu` label, first half (ctest -I 1,,2)
#   half2   the second half, then pytest python/tests (scripts/gpu_python.sh)
#   steady  the rest of `new` (GPU ranks 3, 4; the inclusion), then solve:
#           steady on CUDA at 65, 129, 257 per axis (a K field varying 100x)
#           against theta = 1 Douglas marching at 257 (iterations, times)
#   bench   adi3d bench: the constant-coefficient step, the K-field step
#           (strang and douglas) with mixed faces and the cuSPARSE baseline,
#           at 512^3, 257^3 and 500x384x260, both precisions
#   pending the GPU checks of host-side changes: adi3d and the serial
#           contract are built, then the temperature-dependent contract,
#           materials by region with GPU ranks (1 and 2) against the CPU, and
#           an agreed step failure on GPU ranks, tables of temperature on 2
#           GPU ranks (mpi_gpu_cli_*);
#           `adi3d validate --backend cuda`
#   stretched  stretched grids on CUDA: the contract's stretched checks, validate,
#           the die-stack example against the CPU
#   ab      the constant-coefficient step at 512^3 of this tree against a
#           baseline tree in the same call, three alternating rounds each:
#           BASE_SRC (default base-src/, ignored by git: make it with
#           `mkdir base-src && git archive REV | tar -x -C base-src` and
#           carry it) is built into base-build/
# A mode builds build-gpu/ only if it is missing (a call may find the last
# call's build). Every step is bounded by the time left (BUDGET, default
# 580 s) so the logs come back. Never changes GPU settings.
set -uo pipefail
M=${1:?usage: scripts/gpu_round.sh new|steady|half1|half2|bench|ab|pending|stretched}
O="${OUT:-/tmp/out}/$M"; mkdir -p "$O"
T0=$(date +%s); BUDGET=${BUDGET:-580}
left() { local l=$(( BUDGET - ($(date +%s) - T0) )); [ $l -lt 1 ] && l=1; echo $l; }
B=build-gpu/app/adi3d
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; git log -1 --format='%H %s';
  git status --short | head -20; } > "$O/machine.txt" 2>&1
cat "$O/machine.txt"
build() {
  [ -x $B ] && [ "${REBUILD:-0}" != 1 ] && { echo "build: reusing build-gpu"; return 0; }
  cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=ON > "$O/build.log" 2>&1 &&
    cmake --build build-gpu -j 16 > /dev/null 2>> "$O/build.log" && cmake --build build-gpu -j 16 >> "$O/build.log" 2>&1
  local rc=$?; echo "build rc=$rc $(( $(date +%s) - T0 )) s"
  [ $rc -ne 0 ] && { grep -E "error" "$O/build.log" | head -20; }
  return $rc
}
ct() { local name=$1; shift; ADI_REQUIRE_GPU=1 timeout $(left) ctest --test-dir build-gpu -L gpu "$@" > "$O/ctest_$name.txt" 2>&1
  echo "ctest $name rc=$? $(( $(date +%s) - T0 )) s"; grep -E "tests passed|tests failed|Total Test" "$O/ctest_$name.txt"
  grep -E "^\s+[0-9]+ - " "$O/ctest_$name.txt" | head -20; }
bench() { local name=$1; shift; timeout $(left) $B bench "$@" --json "$O/bench_$name.json" > "$O/bench_$name.txt" 2>&1
  echo "bench $name rc=$? $(( $(date +%s) - T0 )) s"; }
case $M in
new)
  build || exit 1
  ct new -j 8 -R "CudaGeneral|StepperContract|contract_mpi_cuda|mpi_gpu_general|CudaStepper"
  timeout $(left) $B validate --backend cuda > "$O/validate.txt" 2>&1; echo "validate rc=$?"; grep -E "FAILED|passed|failed" "$O/validate.txt" | head
  # The issue's inclusion on the GPU: the default scheme completes, douglas stops (exit 4).
  mkdir -p "$O/inc" && /usr/bin/env python3 - "$O/inc" <<'PY'
import sys, numpy as np, h5py
d = sys.argv[1]; n = 15; inside = np.zeros((n, n, n), bool); inside[5:10, 5:10, 5:10] = True
with h5py.File(d + "/inc.h5", "w") as f:
    f["K"] = np.where(inside, 1000.0, 1.0); f["c"] = np.where(inside, 70.0, 1.0)
    f["u"] = np.random.default_rng(20261205).uniform(0, 1, (n, n, n))
open(d + "/case.yaml", "w").write("""grid: {nx: 15, ny: 15, nz: 15}
material: {conductivity: {file: inc.h5, dataset: /K}, heat_capacity: {file: inc.h5, dataset: /c}}
boundary: insulated
initial: {file: inc.h5, dataset: /u}
time: {dt: 1.0, steps: 100}
backend: cuda
""")
PY
  BA="$PWD/$B"
  (cd "$O/inc" && timeout $(left) "$BA" run case.yaml > strang.txt 2>&1; echo "inclusion strang rc=$?"; tail -4 strang.txt
   timeout $(left) "$BA" run case.yaml --set scheme.type=douglas > douglas.txt 2>&1; echo "inclusion douglas rc=$?"
   tail -1 douglas.txt)
  # What time is left: a first look at the field step, Strang against Douglas.
  if [ $(left) -gt 120 ]; then bench field512 --size 512 --material field --faces mixed --scheme strang --reps 5; fi
  if [ $(left) -gt 60 ]; then bench field512d --size 512 --material field --faces mixed --scheme douglas --reps 5; fi
  ;;
steady)
  build || exit 1
  ct rest -j 4 -R "mpi_gpu_general_np3|mpi_gpu_general_np4"
  BA="$PWD/$B"; mkdir -p "$O/st"
  /usr/bin/env python3 - "$O/st" <<'PY'
import sys, numpy as np, h5py
d = sys.argv[1]
for n in (65, 129, 257):
    x = np.linspace(0, 1, n)
    s = np.sin(2 * np.pi * x)
    K = 10.0 ** (1.0 + s[:, None, None] * s[None, :, None] * s[None, None, :])  # 1 .. 100
    with h5py.File("%s/k%d.h5" % (d, n), "w") as f:
        f["K"] = K
    base = """grid: {nx: %d, ny: %d, nz: %d}
material: {conductivity: {file: k%d.h5, dataset: /K}, heat_capacity: 1.0}
source: {power_density: 1.0e3}
boundary: {x_lo: {type: dirichlet, value: 20}, z_hi: {type: convective, h: 100, ambient: 20}, x_hi: insulated, y: insulated, z_lo: insulated}
backend: cuda
""" % (n, n, n, n)
    open("%s/s%d.yaml" % (d, n), "w").write(base + "solve: steady\noutput: {file: s%d.h5}\n" % n)
    # Douglas theta = 1 (its fixed point is the steady state); dt ~ 1 / sqrt(lam_min lam_max)
    h = 1.0 / (n - 1); lmax = 4 * 100 / h**2; lmin = np.pi**2 * 1 / 4
    dt = 1.0 / np.sqrt(lmax * lmin)
    open("%s/m%d.yaml" % (d, n), "w").write(base + "scheme: {type: douglas, theta: 1}\ninitial: {value: 0}\n"
        "time: {dt: %.6g, steps: 200000, stop_rate: 1.0e-7}\noutput: {file: m%d.h5, every: 1000000}\n" % (dt, n))
PY
  for n in 65 129 257; do
    (cd "$O/st" && /usr/bin/time -f "wall %e s" timeout $(( $(left) / 2 )) "$BA" run s$n.yaml > s$n.txt 2>&1; echo "steady $n rc=$?"; grep -E "steady  |wall" s$n.txt | head -3)
  done
  (cd "$O/st" && timeout $(( $(left) - 30 )) "$BA" run m257.yaml > m257.txt 2>&1; echo "march 257 rc=$?"; grep -E "stopped|stop rate|wall time" m257.txt)
  /usr/bin/env python3 - "$O/st" <<'PY'
import sys, h5py, numpy as np, os
d = sys.argv[1]
for n in (65, 129, 257):
    try:
        a = h5py.File("%s/s%d.h5" % (d, n))["steps/000000/u"][...]
    except Exception as e:
        print(n, "no steady output", e); continue
    if os.path.exists("%s/m%d.h5" % (d, n)):
        f = h5py.File("%s/m%d.h5" % (d, n)); k = sorted(f["steps"])[-1]
        b = f["steps/" + k + "/u"][...]
        print(n, "steady vs march (step %s): max rel diff %.3e" % (k, np.abs(a - b).max() / np.abs(a).max()))
PY
  ;;
half1) build || exit 1
  # The distributed GPU tests first: they cover the MPI step's error agreement.
  ct mpi -j 4 -R "contract_mpi_cuda|mpi_gpu"
  ct half1 -j 8 -I 1,,2 -E "contract_mpi_cuda|mpi_gpu" ;;
half2) build || exit 1; ct half2 -j 8 -I 2,,2 -E "contract_mpi_cuda|mpi_gpu"
  [ $(left) -gt 100 ] && { SKIP_BUILD=1 SKIP_BENCH=1 timeout $(( $(left) - 10 )) scripts/gpu_python.sh "$O/py" > "$O/pytest.txt" 2>&1; echo "pytest rc=$?"; tail -3 "$O/pytest.txt"; } ;;
ab)
  build || exit 1
  BS=${BASE_SRC:-base-src}
  [ -f "$BS/CMakeLists.txt" ] || { echo "ab: no baseline source tree in $BS"; exit 1; }
  if [ ! -x base-build/app/adi3d ]; then
    cmake --preset gpu -S "$BS" -B base-build -G Ninja -DADI_BUILD_TESTS=OFF > "$O/build_base.log" 2>&1 &&
      cmake --build base-build -j 16 --target adi3d >> "$O/build_base.log" 2>&1
    echo "base build rc=$? $(( $(date +%s) - T0 )) s"
  fi
  for r in 1 2 3; do
    for side in base new; do
      bin=$B; [ $side = base ] && bin=base-build/app/adi3d
      timeout $(left) $bin bench --size 512 --reps ${REPS:-10} --json "$O/bench_ab_${side}_$r.json" \
        > "$O/bench_ab_${side}_$r.txt" 2>&1
      echo "ab $side round $r rc=$? $(( $(date +%s) - T0 )) s"
    done
  done
  ;;
pending)
  cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=ON > "$O/build.log" 2>&1 &&
    cmake --build build-gpu -j 16 --target adi3d test_contract_cuda >> "$O/build.log" 2>&1
  echo "build adi3d test_contract_cuda rc=$? $(( $(date +%s) - T0 )) s"
  ct pending --output-on-failure -R "mpi_gpu_cli_|CudaF64Temperature"
  # Every check of adi3d validate on the GPU (the temperature-dependent ones included).
  timeout $(left) $B validate --backend cuda > "$O/validate.txt" 2>&1; echo "validate cuda rc=$?"
  grep -E "FAILED|K\(T\)|enthalpy|passed|failed" "$O/validate.txt" | head -12 ;;
stretched)
  # Stretched grids on the serial CUDA stepper (#56): the contract's stretched
  # checks (orders, layers, equal gaps = uniform bit for bit, balances) and a
  # few uniform ones, validate's stretched rows, and the die-stack example on
  # CUDA against the CPU.
  cmake --preset gpu -S . -B build-gpu -G Ninja -DADI_BUILD_TESTS=ON > "$O/build.log" 2>&1 &&
    cmake --build build-gpu -j 16 --target adi3d test_contract_cuda >> "$O/build.log" 2>&1
  echo "build adi3d test_contract_cuda rc=$? $(( $(date +%s) - T0 )) s"
  ct stretched --output-on-failure -R "CudaF64\.(Stretched|ManufacturedMaterials|EnergyBalance)|CudaF32\.Conservation"
  export ADI_CUDA_STRETCHED=1  # the CUDA rows of a stretched grid (refused without it until verified)
  D="$O/die"; mkdir -p "$D" && cp examples/die_stack.yaml "$D" && python3 examples/make_die_stack.py "$D/die_stack.h5" &&
    (cd "$D" && for be in cuda cpu; do timeout $(left) "$OLDPWD/$B" run die_stack.yaml --backend $be \
       --set output.file=$be.h5 > $be.txt 2>&1; echo "die stack $be rc=$?"; grep -E "steady|backend" $be.txt | head -2; done
     python3 -c "import h5py, numpy as np; a, b = (h5py.File(f + '.h5')['steps/000000/u'][()] for f in ('cuda', 'cpu')); print('die stack cuda vs cpu: max |diff| %.3e of max %.3f' % (np.abs(a - b).max(), np.abs(b).max()))")
  timeout $(left) $B validate --backend cuda > "$O/validate.txt" 2>&1; echo "validate cuda rc=$?"
  grep -E "FAILED|stretched|passed|failed" "$O/validate.txt" | head -12 ;;
bench)
  build || exit 1
  S="--size 512 --size 257 --size 500x384x260 --reps ${REPS:-10}"
  bench const $S
  bench field_strang $S --material field --faces mixed --scheme strang --baseline cusparse
  bench field_douglas $S --material field --faces mixed --scheme douglas
  ;;
esac
echo "total $(( $(date +%s) - T0 )) s"
for f in "$O"/bench_*.txt; do [ -f "$f" ] || continue
  awk -v f=$(basename $f .txt) '/^case /{c=$2$3$4$5$6" "$7} /^  step /{st=$2} /floor = /{print f, c, "step", st, "x" $NF}' "$f"; done
