#pragma once
// Checkpoints: the full state of a run (field in the run's precision, bit
// for bit, step, time, resolved config), written atomically: to
// "<path>.tmp", fsync'ed, then renamed over "<path>", so the previous
// checkpoint survives until the new one is complete. The field dataset
// carries HDF5's Fletcher-32 checksum, so damage is detected on read.
//
// Layout: root attributes format = "adi3d-checkpoint", format_version,
// step, time, steps_total, precision, state_hash; dataset /u (nz, ny, nx); /grid and
// /provenance as in the output file.

#include <adi/common.hpp>
#include <adi/io/config.hpp>
#include <adi/io/hdf5.hpp>
#include <adi/io/provenance.hpp>

#include <string>
#include <vector>

namespace adi::io {

struct CheckpointState {
  index_t step = 0;          ///< steps done
  double time = 0.0;         ///< step * dt [s]
  index_t steps_total = 0;   ///< the run's planned number of steps
  Precision precision = Precision::F64;
  GridGeometry geometry;
  std::string config_yaml;   ///< the resolved config of the run that wrote it
};

/// Writes a checkpoint atomically; throws IoError (the previous checkpoint,
/// if any, is then unchanged). With `part`, collective: every rank of
/// MPI_COMM_WORLD calls it with its part of the field (parallel HDF5, see
/// FieldPart) and the same state and provenance; rank 0 renames the file.
template <class T>
void write_checkpoint(const std::string& path, const CheckpointState& s, const T* field, const Provenance& prov,
                      const FieldPart* part = nullptr);

/// The hash of the header a restart trusts (step, time, steps_total,
/// precision, config), stored as the attribute `state_hash` and checked by
/// read_checkpoint_state: an edited step is an error, never a wrong restart.
std::string checkpoint_state_hash(const CheckpointState& s);

/// Reads and checks a checkpoint's header (format, version, step, grid).
/// Throws IoError for a missing, non-HDF5, truncated or foreign file.
CheckpointState read_checkpoint_state(const std::string& path);

/// Reads the field (precision must be T's; checksums verified).
template <class T>
std::vector<T> read_checkpoint_field(const std::string& path, const CheckpointState& s);

/// Throws ConfigError (where = `path`) unless a run with config `c` can
/// continue from checkpoint `s` bit for bit: same grid, domain, origin,
/// diffusivity, boundaries, theta, dt and precision, and s.step <= c.steps.
void check_restart_compatible(const std::string& path, const CheckpointState& s, const RunConfig& c);

}  // namespace adi::io
