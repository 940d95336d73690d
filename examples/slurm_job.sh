#!/bin/bash
# adi3d under Slurm with checkpoint / requeue.
#
#   sbatch examples/slurm_job.sh configs/heat.yaml [--set key=value ...]
#
# Slurm sends SIGUSR1 to adi3d (--signal, without "B:", signals the job
# step, i.e. the srun below) 10 minutes before the time limit. adi3d then
# finishes the current step, writes a checkpoint and its outputs, and exits
# with code 75; this script asks Slurm to requeue the job (--requeue), and the
# requeued job finds the checkpoint and continues with --restart. The output
# file is continued, and the result is bit for bit that of an uninterrupted run.
#
#SBATCH --job-name=adi3d
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=16
#SBATCH --gpus=1
#SBATCH --time=04:00:00
#SBATCH --signal=USR1@600
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --output=adi3d-%j.log

set -u

ADI3D=${ADI3D:-adi3d}              # the executable
CONFIG=${1:-configs/heat.yaml}
shift || true
CKPT=${CKPT:-${SLURM_JOB_NAME:-adi3d}.ckpt.h5}
SRUN=${SRUN-srun}                  # SRUN= runs adi3d directly (no Slurm step)

cd "${SLURM_SUBMIT_DIR:-.}" || exit 1
export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-${OMP_NUM_THREADS:-1}}

args=(run "$CONFIG" --set "checkpoint.file=$CKPT" "$@")
if [ -f "$CKPT" ]; then
  echo "adi3d job ${SLURM_JOB_ID:-?}: continuing from $CKPT (restart ${SLURM_RESTART_COUNT:-0})"
  args+=(--restart "$CKPT")
fi

launch=()
if [ -n "$SRUN" ] && [ -n "${SLURM_JOB_ID:-}" ] && command -v "$SRUN" >/dev/null 2>&1; then
  launch=("$SRUN" --ntasks=1 --cpus-per-task="${SLURM_CPUS_PER_TASK:-1}")
fi

"${launch[@]}" "$ADI3D" "${args[@]}"
rc=$?

case $rc in
  0)
    echo "adi3d job ${SLURM_JOB_ID:-?}: finished"
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
exit $rc
