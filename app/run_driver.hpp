#pragma once
// adi3d run, the engine: planning (config, restart, initial file, memory;
// nothing allocated, nothing written) and the time loop with outputs,
// checkpoints, signals and progress. Written against adi::Stepper<T> only,
// so every backend runs through the same loop.
//
// execute_run's parts (run_driver.cpp): RunMode (how this rank takes part),
// load_initial_state, build_stepper (make_stepper with a StepperSpec),
// FieldBuffer (the field on the host for writes), RunWriters (output file,
// checkpoints, failure marking), StepLoop (chunks, signals, NaN checks),
// analytic_errors; the schedule of outputs, checkpoints and log lines is
// output_schedule.hpp (pure), the progress lines progress.hpp.

#include "commands.hpp"
#include "memory.hpp"

#include <adi/io/io.hpp>
#include <adi/heat_flows.hpp>
#include <adi/solver.hpp>

#include <optional>
#include <string>

namespace adi::app {

struct RunPlan {
  io::RunConfig config;
  std::string restart;                    ///< checkpoint to continue from ("" = fresh start)
  io::CheckpointState restart_state;      ///< its header
  std::optional<io::FieldInfo> initial;   ///< the initial field file (fresh start from a file)
  /// The state comes from the analytic mode: a fresh start from it, or a
  /// checkpoint of a run whose config started from it (a CONFIG given to
  /// --restart may say analytic for a run that began from a file). Only then
  /// are the errors against the analytic solution and the round-off check
  /// meaningful.
  bool from_analytic = false;
  std::string output;                     ///< output file ("" = none)
  std::string checkpoint;                 ///< where checkpoints go
  std::string heat_flow_csv;              ///< diagnostics.csv's file ("" = none)
  int ranks = 1;                          ///< MPI ranks of this run
  std::optional<Decomposition> decomposition;  ///< how they split the grid (ranks > 1)
  MemoryEstimate memory;
  /// The problem's identity (io/identity.hpp: items text and hash), made by
  /// rank 0 once the fields are read (identify_problem) and shared with
  /// every rank: outputs and checkpoints record it.
  std::string problem, problem_hash;
  /// Rank 0, a restart that continues an existing output: the problem that
  /// output was written for (check_paths reads it).
  std::optional<std::string> output_problem;
};

/// Reads the config (or the checkpoint's), checks a restart's compatibility,
/// inspects the initial file's header and takes its grid; estimates memory.
RunPlan plan_run(const RunOptions& o);

/// Reads the input data (initial field, checkpoint) once in a child process
/// (io/probe.hpp), after the memory check, so that a file that crashes the
/// HDF5 library stops the run with an IoError instead.
void probe_inputs(const RunPlan& plan, const AppOptions& a);

/// Rank 0, after probe_inputs: the problem's items; a restart refuses a
/// checkpoint written for another problem, and an output written for
/// another problem (ConfigError naming the first item that differs).
void identify_problem(RunPlan& plan, const AppOptions& a);

/// Removes what dead adi3d processes left of their unique temporaries
/// (`adi3d.<pid>.<random>.<name>.tmp`) beside the run's output, its .xmf and
/// journal, and its checkpoint, where this run holds their locks; one log
/// line names them.
void remove_dead_temporaries(const RunPlan& plan);

/// Resolves every path the run reads or writes (folder's real path + name,
/// device and inode) and refuses paths that alias (ConfigError), a file to
/// be written that is not a regular file, an existing output without
/// --overwrite, and an existing file that is not what adi3d wrote there (an
/// adi3d output, its .xmf, a checkpoint of the same case) (IoError); a restart
/// that would delete output steps it does not write again (ConfigError,
/// unless `discard_after_checkpoint`).
void check_paths(RunPlan& plan, const RunOptions& o);

struct RunReport {
  index_t start_step = 0;  ///< 0, or the restart step
  index_t end_step = 0;    ///< last step completed
  bool interrupted = false;
  int signal = 0;
  std::string checkpoint_written;  ///< last checkpoint written ("" none)
  index_t outputs_written = 0;
  double wall = 0.0;
  FieldStats stats;
  std::string backend, device;
  bool have_error = false;  ///< analytic initial data, run completed
  ErrorNorms exact, discrete;
  /// exp(-rate t_end): what is left of the analytic mode's initial amplitude
  /// (exact.ref_max / exact_decay is the initial max|u|).
  double exact_decay = 1.0;
  /// solve: steady (steady.hpp): whether it reached the tolerance, in how
  /// many sweeps, the final relative residual and net imbalance [W].
  bool steady = false;
  bool steady_converged = false;
  index_t steady_iterations = 0;
  double steady_residual = 0.0, steady_imbalance_W = 0.0;
  /// time.stop_rate: the step at which max|u^{n+1} - u^n| / dt fell below it
  /// (-1: the run did not stop early), and that rate [K/s].
  index_t stopped_at_rate = -1;
  double final_rate = 0.0;
  /// diagnostics.heat_flows: the flows at the last step (a completed run).
  std::optional<HeatFlows> heat_flows;
};

/// Runs the plan; throws on errors (after marking the output failed).
/// Collective in a distributed run (every rank calls it; the report's files,
/// outputs and analytic errors are rank 0's).
RunReport execute_run(const RunPlan& plan, const RunOptions& o);

}  // namespace adi::app
