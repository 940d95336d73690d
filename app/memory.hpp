#pragma once
// What a run will allocate, estimated from the config before anything is
// allocated, and whether it fits (adi3d run and run --dry-run).

#include <adi/error.hpp>
#include <adi/io/config.hpp>
#include <adi/options.hpp>
#include <adi/stepper.hpp>

#include <string>

namespace adi::app {

/// The run does not fit in host or device memory (exit code kOutOfMemory).
class InsufficientMemory : public Error {
  using Error::Error;
};

struct MemoryEstimate {
  Backend backend = Backend::Cpu;   ///< resolved
  double field_bytes = 0;           ///< one nx*ny*nz field in the run's precision
  int material_fields = 0;          ///< K, c, q arrays the stepper holds (distinct fields of the material)
  double host_bytes = 0;            ///< host memory the run needs
  double device_bytes = 0;          ///< device memory (CUDA), 0 on the CPU
  double device_bytes_rows16 = 0;   ///< the same with rows padded to 16 bytes only (ADI_ROW_ALIGN=16)
  double host_available = -1;       ///< MemAvailable, capped by the cgroup limit (-1: unknown)
  std::string host_limit_source;    ///< "/proc/meminfo" or the cgroup file that capped it
  double device_total = -1;         ///< total memory of CUDA device 0 (-1: unknown / none)
  std::string device_name;
  int ranks = 1;                    ///< MPI ranks sharing the grid
};

/// Host: the run's own copy of the field (initial data, outputs,
/// checkpoints) and 32 MiB for libraries and I/O buffers, plus what the
/// backend says its stepper will hold (adi::stepper_footprint: each backend
/// models its own arrays, the steady solver its own). With `ranks` > 1 this
/// is rank 0's share, the largest: the whole field (gathered for outputs and
/// checkpoints) plus its sub-box's arrays, per host and per device.
MemoryEstimate estimate_memory(const io::RunConfig& c, int ranks = 1, const SolverOptions& solver = {});

/// Throws InsufficientMemory naming what is needed and what is there.
void check_memory(const MemoryEstimate& m);

/// Lines for --dry-run ("# memory: ...").
std::string describe_memory(const MemoryEstimate& m);

}  // namespace adi::app
