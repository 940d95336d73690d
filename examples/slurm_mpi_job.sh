#!/bin/bash
# adi3d as an MPI job under Slurm (CPU ranks, or one GPU per rank), with checkpoint / requeue:
# the MPI variant of slurm_job.sh.
#
#   sbatch examples/slurm_mpi_job.sh configs/heat.yaml [--set key=value ...]
#   sbatch --nodes=2 --ntasks-per-node=4 examples/slurm_mpi_job.sh case.yaml
#
# Every rank owns a sub-box of the grid (README, "Running with MPI"). Slurm
# sends SIGUSR1 to this script 10 minutes before the time limit
# (--signal=B:USR1@600); the script passes it on to the launcher (srun and
# Open MPI's mpirun both forward SIGUSR1 to every rank). The ranks agree to
# stop after the same step, rank 0 writes a checkpoint and closes the
# output, and adi3d exits with 75; the script then asks Slurm to requeue the
# job, and the requeued job continues with --restart (on any rank count: the
# checkpoint holds the whole field). Only a requeued job (SLURM_RESTART_COUNT
# > 0) continues a checkpoint; after a complete run it is retired (renamed
# *.final.ckpt.h5, or *.final.N.ckpt.h5 beside an earlier one), so a new
# submission starts afresh.
#
#SBATCH --job-name=adi3d-mpi
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=2
# No GPU by default (CPU ranks); GPU ranks, one GPU each, from the sbatch line:
#   sbatch --gpus-per-task=1 examples/slurm_mpi_job.sh case.yaml --backend cuda
#SBATCH --cpus-per-task=8
#SBATCH --time=04:00:00
#SBATCH --signal=B:USR1@600
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --output=adi3d-mpi-%j.log

set -u

ADI3D=${ADI3D:-adi3d}              # the executable (built with -DADI_ENABLE_MPI=ON)
CONFIG=${1:-configs/heat.yaml}
shift || true
# Job arrays: "%a" in the config's name or in an argument stands for this
# task's index (SLURM_ARRAY_TASK_ID), as in sbatch's own --output patterns:
#   sbatch --array=1-4 examples/slurm_job.sh case_%a.yaml
#   sbatch --array=1-4 examples/slurm_job.sh case.yaml --set output.file=case_%a.h5
# (${SLURM_ARRAY_TASK_ID} on the sbatch line would be expanded by the shell
# that submits, where it is empty: every task would write the same file).
task=${SLURM_ARRAY_TASK_ID:-}
case "$CONFIG $*" in
  *%a*)
    if [ -z "$task" ]; then
      echo "adi3d job ${SLURM_JOB_ID:-?}: '%a' in the arguments stands for the array task, but this job is not" \
        "a job array (submit it with sbatch --array=...)" >&2
      exit 2
    fi ;;
  *)
    if [ -n "$task" ] && [ "${SLURM_ARRAY_TASK_COUNT:-0}" != 1 ]; then
      echo "adi3d job ${SLURM_JOB_ID:-?}: array task $task: no '%a' in the arguments, so every task of the array" \
        "would run the same case into the same files; put %a where the tasks differ (case_%a.yaml, or" \
        "--set output.file=case_%a.h5)" >&2
      exit 2
    fi ;;
esac
CONFIG=${CONFIG//\%a/$task}
set -- "${@//\%a/$task}"
# The checkpoint belongs to this case: named after the output file (a
# --set output.file=... argument) or else the config, plus the array task, so
# that two cases in one folder, or the tasks of a job array, never share one.
stem=$(basename "$CONFIG")
stem=${stem%.yaml}
stem=${stem%.yml}
for arg in "$@"; do
  case $arg in output.file=*) stem=${arg#output.file=}; stem=${stem%.h5}; stem=${stem%.hdf5} ;; esac
done
CKPT=${CKPT:-${stem}${SLURM_ARRAY_TASK_ID:+.task${SLURM_ARRAY_TASK_ID}}.ckpt.h5}
# srun starts the ranks through Slurm's PMI (add --mpi=pmix where the site
# needs it, through SRUN_FLAGS); LAUNCHER=mpirun uses Open MPI's launcher
# inside the allocation instead (MPIRUN_FLAGS, e.g. "-n 2").
if [ -z "${LAUNCHER:-}" ]; then
  if [ -n "${SLURM_JOB_ID:-}" ] && command -v srun >/dev/null 2>&1; then LAUNCHER=srun; else LAUNCHER=mpirun; fi
fi

cd "${SLURM_SUBMIT_DIR:-.}" || exit 1
export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-${OMP_NUM_THREADS:-1}}

args=(run "$CONFIG" --set "checkpoint.file=$CKPT" "$@")
# Continue only a run that this job started: Slurm counts requeues in
# SLURM_RESTART_COUNT. A checkpoint found by a fresh submission is left by
# an earlier job (failed, or cancelled): continuing it silently could
# continue a stale run, so the job stops and says what to do.
if [ -f "$CKPT" ]; then
  if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ] || [ "${RESTART:-0}" = 1 ]; then
    echo "adi3d job ${SLURM_JOB_ID:-?}: continuing from $CKPT (restart ${SLURM_RESTART_COUNT:-0})"
    args+=(--restart "$CKPT")
  else
    echo "adi3d job ${SLURM_JOB_ID:-?}: $CKPT exists from an earlier job and this job is not a requeue;" \
      "continue that run with RESTART=1 (sbatch --export=ALL,RESTART=1 ...), or remove $CKPT to start afresh" >&2
    exit 2
  fi
fi

if [ "$LAUNCHER" = srun ]; then
  # shellcheck disable=SC2206
  launch=(srun --cpus-per-task="${SLURM_CPUS_PER_TASK:-1}" ${SRUN_FLAGS:-})
else
  # shellcheck disable=SC2206
  launch=($LAUNCHER --bind-to none ${MPIRUN_FLAGS:-})
fi

# The launcher runs in the background so that this shell can take Slurm's
# signal (B:USR1) and pass it on; `wait` returns early when a trapped signal
# arrives, hence the loop.
child=
# shellcheck disable=SC2317  # called by the trap
forward() { [ -n "$child" ] && kill -USR1 "$child" 2>/dev/null; }
trap forward USR1 TERM
"${launch[@]}" "$ADI3D" "${args[@]}" &
child=$!
while true; do
  wait "$child"
  rc=$?
  kill -0 "$child" 2>/dev/null || break
done

case $rc in
  0)
    # A completed run's checkpoint is retired, so that the next submission
    # of this case starts afresh; it is kept under another name to extend
    # the run later (--restart ... --set time.t_end=...).
    # An earlier retired checkpoint (the one an extended run started from,
    # say) is kept: the first free name of *.final.ckpt.h5, *.final.1.ckpt.h5, ...
    if [ -f "$CKPT" ]; then
      final=${CKPT%.ckpt.h5}.final.ckpt.h5
      n=1
      while [ -e "$final" ] || [ -L "$final" ]; do
        final=${CKPT%.ckpt.h5}.final.$n.ckpt.h5
        n=$((n + 1))
      done
      if mv -n "$CKPT" "$final" && [ ! -e "$CKPT" ]; then
        echo "adi3d job ${SLURM_JOB_ID:-?}: finished; checkpoint retired to $final"
      else
        echo "adi3d job ${SLURM_JOB_ID:-?}: finished; the checkpoint could not be retired to $final: it stays $CKPT" >&2
      fi
    else
      echo "adi3d job ${SLURM_JOB_ID:-?}: finished"
    fi
    ;;
  75)  # checkpointed on a signal: requeue and continue later
    if [ -n "${SLURM_JOB_ID:-}" ]; then
      echo "adi3d job $SLURM_JOB_ID: checkpointed to $CKPT, requeueing"
      scontrol requeue "$SLURM_JOB_ID" || exit 75
      exit 0
    fi
    echo "adi3d: checkpointed to $CKPT; run this script again to continue"
    ;;
  *)
    echo "adi3d job ${SLURM_JOB_ID:-?}: failed with exit code $rc (see README, Exit codes)" >&2
    ;;
esac
exit "$rc"
