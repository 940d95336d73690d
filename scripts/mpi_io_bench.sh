#!/bin/bash
# The cost of a distributed run's writes (docs/MPI.md, "Write cost"): collective
# (parallel HDF5) against gathered to rank 0 (ADI_PARALLEL_IO=0). 2 ranks x 1
# thread, 256^3 float64 (134 MB per field), 4 steps; median of 3 wall times per
# case, minus the same run without files. Run it in an empty folder:
#   mkdir /tmp/io && cd /tmp/io && /path/to/adi3d/scripts/mpi_io_bench.sh
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
A=${ADI3D:-$(cd "$(dirname "$0")/.." && pwd)/build/app/adi3d}
run() {  # mode, extra --set ...
  local mode=$1; shift
  local pio=1; [ $mode = gather ] && pio=0
  for rep in 1 2 3; do
    rm -f o.h5 o.xmf ck.h5
    t0=$(date +%s.%N)
    ADI_PARALLEL_IO=$pio mpirun --oversubscribe -np 2 $A run --set 'grid={nx: 256, ny: 256, nz: 256}' \
      --set 'time={dt: 1e-5, steps: 4}' --set backend=cpu --set checkpoint.file=ck.h5 "$@" -q --overwrite >/dev/null 2>&1 || echo FAIL
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
  done | sort -n | sed -n 2p
}
base=$(run collective --set 'output.file=""' --set checkpoint.every=0)
echo "no files: $base s"
for mode in collective gather; do
  o=$(run $mode --set output.file=o.h5 --set output.every=1 --set checkpoint.every=0)
  g=$(run $mode --set output.file=o.h5 --set output.every=1 --set output.compression=4 --set checkpoint.every=0)
  c=$(run $mode --set 'output.file=""' --set checkpoint.every=1)
  printf "%-10s 5 outputs: +%.2f s  5 gzip-4 outputs: +%.2f s  4 checkpoints: +%.2f s\n" $mode \
    $(echo "$o - $base" | bc) $(echo "$g - $base" | bc) $(echo "$c - $base" | bc)
done
