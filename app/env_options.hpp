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
#include <vector>

namespace adi::app {

/// The app's own knobs (app_knobs.def).
struct AppOptions {
#define ADI_KNOB(type, field, def, variable, form, rule, effect, default_text) type field = def;
#include "app_knobs.def"
#undef ADI_KNOB
  /// SLURM_JOB_ID, with " array task " SLURM_ARRAY_TASK_ID and " restart "
  /// SLURM_RESTART_COUNT when set; "" outside Slurm (provenance).
  std::string batch_job;

  /// One line per knob, as SolverOptions::describe() (for `adi3d info -v`).
  std::string describe() const;

  /// The rows of app_knobs.def.
  static const std::vector<KnobInfo>& knobs();
};

/// The knob table of docs/DEVELOPERS.md: a Markdown row per knob of
/// SolverOptions and AppOptions (`adi3d info --knobs`).
std::string knob_table();

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
