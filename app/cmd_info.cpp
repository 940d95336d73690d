// adi3d info: version, build options, and the devices this process sees;
// with -v also the knobs read from the environment; --knobs their table.

#include "commands.hpp"
#include "exit_codes.hpp"
#include "util.hpp"

#include <adi/io/io.hpp>
#include <adi/solver.hpp>

#include <omp.h>

#include <cstdio>

namespace adi::app {

int cmd_info(const EnvOptions& env, bool verbose, bool knob_table_only) {
  if (knob_table_only) {
    std::fputs(knob_table().c_str(), stdout);
    return kOk;
  }
  std::printf("adi3d %s (git %s, %s build)\n", ADI_VERSION, ADI_GIT_HASH, ADI_BUILD_TYPE);
  std::printf("  C++ compiler   %s\n", ADI_CXX_COMPILER);
  std::printf("  CUDA backend   %s\n", ADI_WITH_CUDA ? "built" : "not built");
  if (ADI_WITH_CUDA) std::printf("  CUDA compiler  %s (architectures %s)\n", ADI_CUDA_COMPILER, ADI_CUDA_ARCHITECTURES);
  std::printf("  MPI            %s\n", ADI_WITH_MPI ? "built" : "not built");
  std::printf("  HDF5           %s, %s\n", io::hdf5_library_version().c_str(),
              io::parallel_hdf5_built() ? "parallel (distributed runs write collectively)"
                                        : "serial (distributed runs gather each write to rank 0)");
  std::printf("  OpenMP         %d threads\n", omp_get_max_threads());
  const auto devs = cuda_devices();
  if (devs.empty()) {
    std::printf("  CUDA devices   none (%s)\n", cuda_unavailable_reason().c_str());
  } else {
    for (const auto& d : devs)
      std::printf("  CUDA device %d  %s, %s, %d SMs, compute capability %d.%d\n", d.index, d.name.c_str(),
                  human_bytes(static_cast<double>(d.global_memory)).c_str(), d.multiprocessors, d.cc_major,
                  d.cc_minor);
  }
  std::printf("  backend auto   resolves to %s\n", backend_name(resolve_backend(Backend::Auto)));
  if (verbose) {
    std::printf("Solver options (ADI_* environment):\n%s", env.solver.describe().c_str());
    std::printf("adi3d options (ADI_* environment):\n%s", env.app.describe().c_str());
  }
  return kOk;
}

}  // namespace adi::app
