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

Session::Session(int*, char***, bool) {}
Session::~Session() = default;

int world_rank() { return 0; }
int world_size() { return 1; }
int local_rank() { return 0; }
void allreduce_max(double*, int) {}
void allreduce_sum(double*, int) {}
void broadcast(std::string&, int) {}
void exchange_ghost_layers(const Decomposition&, int, const std::array<index_t, 3>&, double*) {}
void barrier() {}
void abort(int code) { std::exit(code); }

template <class T>
std::unique_ptr<DistributedStepper<T>> make_distributed_stepper(const HeatProblem&, Backend,
                                                                const std::array<int, 3>&, const SolverOptions&) {
  hooks::not_built(hooks::Missing::Mpi);
}
template std::unique_ptr<DistributedStepper<float>> make_distributed_stepper<float>(const HeatProblem&, Backend,
                                                                                    const std::array<int, 3>&,
                                                                                    const SolverOptions&);
template std::unique_ptr<DistributedStepper<double>> make_distributed_stepper<double>(const HeatProblem&, Backend,
                                                                                      const std::array<int, 3>&,
                                                                                      const SolverOptions&);

}  // namespace adi::mpi
