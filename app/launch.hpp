#pragma once
// How this process was started: by an MPI launcher or not. The launchers
// announce themselves only through the environment, which library code never
// reads (tests/check_layering.py), so the app asks here and tells
// mpi::Session whether to start MPI.

namespace adi::app {

/// Whether an MPI launcher (mpirun, mpiexec, srun) started this process: an
/// Open MPI, MPICH/Hydra, PMI or PMIx rank variable is set. ADI_MPI=0 /
/// ADI_MPI=1 overrides the guess.
bool launched_by_mpi();
/// The job size the launcher announces (1 if none): how a process that did
/// not start MPI notices that it is one of many copies.
int launched_size();

}  // namespace adi::app
