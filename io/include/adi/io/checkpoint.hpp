#pragma once
// Checkpoints: the full state of a run (field in the run's precision, bit
// for bit, step, time, resolved config), written atomically: to
// "<path>.tmp", fsync'ed, then renamed over "<path>", so the previous
// checkpoint survives until the new one is complete. The field dataset
// carries HDF5's Fletcher-32 checksum, so damage is detected on read.
//
// Layout: root attributes format = "adi3d-checkpoint", format_version (2),
// step, time (exact: the time of `step` on the run's time axis), dt,
// time_origin, step_origin, dt_before, time_segments (the axis, config.hpp
// TimeAxis), steps_total, precision, problem and problem_hash (identity.hpp),
// state_hash; dataset /u (nz, ny, nx), and /u_previous (the field of the
// step before, Stepper::exchange_previous_field) where the scheme keeps one
// (scheme.nonlinear: extrapolated); /grid and /provenance as in the output
// file. A checkpoint without /u_previous restarts such a scheme with its
// first step's predictor-corrector. Version 1 (before restarts could change dt) has no axis and
// no problem: its time is step x dt, its problem is read from its config and
// the provenance's input_fields.

#include <adi/common.hpp>
#include <adi/io/config.hpp>
#include <adi/io/hdf5.hpp>
#include <adi/io/identity.hpp>
#include <adi/io/provenance.hpp>

#include <string>
#include <vector>

namespace adi::io {

struct CheckpointState {
  int format_version = 2;    ///< as read (1: written before the time axis and the problem's identity)
  index_t step = 0;          ///< steps done
  double time = 0.0;         ///< the time of `step`: axis.time_of(step, dt) [s]
  double dt = 0.0;           ///< the time step that reached it (version 1: the config's)
  TimeAxis axis;             ///< the time axis of the run that wrote it (version 1: t = step x dt)
  index_t steps_total = 0;   ///< the run's planned number of steps
  Precision precision = Precision::F64;
  GridGeometry geometry;
  std::string config_yaml;   ///< the resolved config of the run that wrote it
  std::string problem;       ///< its problem's items (problem_items_text; "" in version 1)
  std::string problem_hash;  ///< problem_hash of them ("" in version 1)
  std::string input_fields;  ///< /provenance input_fields (version 1's field checksums)
  bool has_previous = false; ///< it holds /u_previous (checked like /u)

  /// The problem it was written for: `problem`, or for version 1 what its
  /// config and input_fields say.
  std::vector<ProblemItem> problem_items(const std::string& name) const;
};

/// Writes a checkpoint atomically; throws IoError (the previous checkpoint,
/// if any, is then unchanged). With `part`, collective: every rank of
/// MPI_COMM_WORLD calls it with its part of the field (parallel HDF5, see
/// FieldPart) and the same state and provenance; rank 0 renames the file.
/// `previous` (that part of it): the step before's field, as /u_previous.
template <class T>
void write_checkpoint(const std::string& path, const CheckpointState& s, const T* field, const Provenance& prov,
                      const FieldPart* part = nullptr, const T* previous = nullptr);

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
/// Reads /u_previous likewise; empty where s.has_previous is false.
template <class T>
std::vector<T> read_checkpoint_previous(const std::string& path, const CheckpointState& s);

/// The time axis of a restart from `s` with config `c` (its time request
/// read, on the axis of a fresh run): the checkpoint's own axis when the
/// config's dt resolves on it to the checkpoint's dt (then the times are the
/// uninterrupted run's, bit for bit), else a new segment that starts at the
/// checkpoint's step and time. Sets c.axis and resolves c's steps and dt on
/// it (resolve_time); refreshes c.resolved_yaml.
void resolve_restart_time(RunConfig& c, const CheckpointState& s);

/// Checks what a restart trusts, before anything is read beyond the header:
/// the header against itself (time = the axis' time of the step, steps
/// within the run the config stored; IoError: edited or damaged), and
/// against config `c` (ConfigError, where = `path`): the same precision and
/// grid, the checkpoint's step not past c.steps. The problem itself (every
/// item of identity.hpp) is compared by check_same_problem, once the fields
/// are read.
void check_restart_compatible(const std::string& path, const CheckpointState& s, const RunConfig& c);

/// ConfigError (where = `path`, exit 2) naming the first item of the
/// problem that differs between checkpoint `s` and the run's `items`:
/// "cannot continue this run from the checkpoint: source.table differs:
/// checkpoint [[0, 1], [40, 10]], config [[0, 1], [40, 20]]".
void check_same_problem(const std::string& path, const CheckpointState& s, const std::vector<ProblemItem>& items);

}  // namespace adi::io
