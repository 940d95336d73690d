#pragma once
// Provenance stored in every output and checkpoint: what ran, where, when,
// built how, and with which resolved config.

#include <string>
#include <vector>

namespace adi::io {

struct Provenance {
  std::string version;        ///< adi3d version (ADI_VERSION)
  std::string git_hash;       ///< git hash at build time, "-dirty" when the tree had changes
  std::string build_type;     ///< CMake build type
  std::string cxx_compiler;   ///< "GNU 12.2.0"
  std::string cuda_compiler;  ///< "NVIDIA 12.4.131", or "not built"
  std::string hdf5_version;   ///< of the library linked at run time (H5get_libversion)
  std::string backend;        ///< cpu | cuda
  std::string device;         ///< Stepper::device_name()
  std::string host;           ///< gethostname
  std::string command_line;   ///< the whole argv, shell-quoted
  std::string slurm_job_id;   ///< the batch job (adi3d: SLURM_JOB_ID [array task N] [restart N]), "" outside one
  std::string start_time;     ///< ISO 8601 UTC
  std::string end_time;       ///< ISO 8601 UTC; "" while the run is going
  std::string config_yaml;    ///< the resolved config (every default filled in)
  /// The input fields of the material and source, one per line:
  /// "conductivity = wall.h5:/K fnv1a64:0123..." ("" when there are none).
  std::string fields;
  /// The run's time axis when it has more than one segment (a restart changed
  /// dt): "step 0: t = 0 s, dt = 0.01 s; step 40: t = 0.4 s, dt = 0.02 s"
  /// (attribute time_segments; "" otherwise).
  std::string time_segments;
};

/// Fills in everything this process can know; `backend`, `device`,
/// `config_yaml` and `batch_job` (the batch system's job, "" outside one:
/// the caller reads the environment, e.g. Slurm's variables) come from the
/// caller. start_time is now.
Provenance collect_provenance(const std::vector<std::string>& argv, const std::string& backend,
                              const std::string& device, const std::string& config_yaml,
                              const std::string& batch_job = "");

/// Now as "2024-05-01T12:34:56Z".
std::string utc_now_iso8601();
/// Joins argv with POSIX shell quoting where needed.
std::string shell_join(const std::vector<std::string>& argv);
/// "1.10.8" (the HDF5 library linked at run time).
std::string hdf5_library_version();

}  // namespace adi::io
