// The launcher's environment (see launch.hpp).
#include "launch.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace adi::app {

namespace {
bool set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}
}  // namespace

bool launched_by_mpi() {
  if (const char* v = std::getenv("ADI_MPI"); v && *v) return std::strcmp(v, "0") != 0;
  // Open MPI (mpirun), MPICH/Hydra and Intel MPI, PMI-1/2 (srun --mpi=pmi2),
  // PMIx (srun --mpi=pmix, prterun), MVAPICH.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", "MPI_LOCALNRANKS",
                           "MV2_COMM_WORLD_SIZE", "HYDRA_CONTROL_FD"})
    if (set(name)) return true;
  return false;
}

int launched_size() {
  // Open MPI, PMI (MPICH/Hydra, srun --mpi=pmi2), MVAPICH, and srun itself
  // (every task of a job step sees the step's task count).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS"})
    if (const char* v = std::getenv(name); v && *v) return std::max(1, std::atoi(v));
  return 1;
}

}  // namespace adi::app
