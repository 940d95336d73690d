#pragma once
// The environment, read once: every ADI_* knob of adi3d, parsed strictly
// (a malformed value is a usage error naming the variable, exit 2), into
// the solver's options (adi::SolverOptions, passed down through
// StepperSpec) and the app's own (AppOptions, passed to the run driver and
// the io calls). Nothing else in adi3d or its libraries reads the
// environment for these (tests/check_layering.py: no getenv in library code).
//
// Unset or empty variables keep their defaults.

#include <adi/common.hpp>
#include <adi/options.hpp>

#include <functional>
#include <string>

namespace adi::app {

/// The app's own knobs.
struct AppOptions {
  bool parallel_io = true;        ///< ADI_PARALLEL_IO=0: a distributed run gathers each write to rank 0
  double read_timeout_s = 60.0;   ///< ADI_READ_TIMEOUT: seconds a child may take to read an input file's header
  index_t fault_nan_at_step = -1; ///< ADI_FAULT_NAN_AT_STEP=N: a NaN put into the field after step N (tests)
  bool isolate_reads = true;      ///< ADI_ISOLATE_READS=0: read input files in-process, without a child first
  /// ADI_COLLECTIVE_TIMEOUT: seconds a collective write (and the agreement
  /// around it) may take on every rank of a distributed run before the job
  /// stops with exit 3 (a rank that failed or hangs must not hang the rest).
  double collective_timeout_s = 600.0;
  int fault_stall_rank = -1;      ///< ADI_FAULT_STALL_RANK=R: rank R hangs before its first collective write (tests)
  /// SLURM_JOB_ID, with " array task " SLURM_ARRAY_TASK_ID and " restart "
  /// SLURM_RESTART_COUNT when set; "" outside Slurm (provenance).
  std::string batch_job;

  /// One line per knob, as SolverOptions::describe() (for `adi3d info -v`).
  std::string describe() const;
};

struct EnvOptions {
  SolverOptions solver;
  AppOptions app;
};

/// Looks a variable up (nullptr: unset).
using EnvLookup = std::function<const char*(const char*)>;

/// Reads every knob through `lookup` (default: this process's environment).
/// Throws InvalidArgument ("ADI_X_SEG='abc': expected ...") on a malformed
/// value.
EnvOptions read_env_options(const EnvLookup& lookup = {});

}  // namespace adi::app
