// Built only without MPI (adi_mpi_hooks): adi/mpi.hpp links the same way,
// the world is one rank, and asking for a distributed stepper says why it
// cannot run.
#include "not_built.hpp"

#include <adi/mpi.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace adi::mpi {

bool built() { return false; }

bool launched() {
  if (const char* v = std::getenv("ADI_MPI"); v && *v) return std::strcmp(v, "0") != 0;
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", "MPI_LOCALNRANKS",
                           "MV2_COMM_WORLD_SIZE", "HYDRA_CONTROL_FD"})
    if (const char* v = std::getenv(name); v && *v) return true;
  return false;
}

int launched_size() {
  // Open MPI, PMI (MPICH/Hydra, srun --mpi=pmi2), MVAPICH, and srun itself
  // (every task of a job step sees the step's task count).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS"})
    if (const char* v = std::getenv(name); v && *v) return std::max(1, std::atoi(v));
  return 1;
}

Session::Session(int*, char***) {}
Session::~Session() = default;

int world_rank() { return 0; }
int world_size() { return 1; }
int local_rank() { return 0; }
void allreduce_max(double*, int) {}
void allreduce_sum(double*, int) {}
void broadcast(std::string&, int) {}
void barrier() {}
void abort(int code) { std::exit(code); }

template <class T>
std::unique_ptr<DistributedStepper<T>> make_distributed_stepper(const HeatProblem&, Backend,
                                                                const std::array<int, 3>&) {
  hooks::not_built(hooks::Missing::Mpi);
}
template std::unique_ptr<DistributedStepper<float>> make_distributed_stepper<float>(const HeatProblem&, Backend,
                                                                                    const std::array<int, 3>&);
template std::unique_ptr<DistributedStepper<double>> make_distributed_stepper<double>(const HeatProblem&, Backend,
                                                                                      const std::array<int, 3>&);

}  // namespace adi::mpi
