#pragma once
// The adi3d subcommands. Each returns an exit code (exit_codes.hpp) and
// throws only for errors main() maps to codes.
#include "env_options.hpp"

#include <string>
#include <vector>

namespace adi::app {

struct LayoutOptions {
  std::string width;          ///< I, elements per thread (checked: 1..256)
  std::string dtype = "f32";  ///< f32 | f64
  std::string map = "giles";  ///< giles | pitch | xor | none
  bool vector16 = false;      ///< draw the 16-byte variant of the map
};
int cmd_layout(const LayoutOptions& o);

struct RunOptions {
  std::string config;              ///< "" = the embedded default case
  std::vector<std::string> sets;   ///< --set key.path=value
  std::string backend, precision;  ///< shorthands for --set backend=... / precision=...
  bool dry_run = false;
  bool overwrite = false;
  bool discard_after_checkpoint = false;  ///< a restart may delete output steps it does not write again
  bool force = false;              ///< run even when the outputs are estimated not to fit on their disk
  std::string restart;             ///< checkpoint to continue from
  std::vector<std::string> argv;   ///< the whole command line (provenance)
  bool quiet = false;              ///< no progress line, no periodic log lines
  EnvOptions env;                  ///< the ADI_* knobs (read once by main)
};
int cmd_run(const RunOptions& o);

struct ValidateOptions {
  std::string backend = "auto";
  std::vector<long long> levels{10, 20, 40, 80};
  std::string json;  ///< write the results as JSON to this file ("-" = stdout)
  bool overwrite = false;  ///< replace an existing JSON file (io/result_file.hpp)
};
int cmd_validate(const ValidateOptions& o);

/// `verbose` (adi3d info -v): also the knobs of the environment;
/// `knob_table_only` (--knobs): only their table (env_options.hpp, knob_table).
int cmd_info(const EnvOptions& env, bool verbose, bool knob_table_only = false);

struct BenchOptions {
  std::vector<std::string> sizes{"256"};
  std::string precision = "both";
  std::string backend = "auto";
  int reps = 20;
  int warmup = 3;
  std::string baseline;  ///< "" or "cusparse"
  std::string material = "constant";  ///< constant | field (an isotropic K field, constant c, a q field)
  std::string faces = "dirichlet";    ///< dirichlet | mixed | robin | periodic
  std::string scheme = "auto";        ///< auto | douglas | strang (scheme.type)
  std::string nonlinear;              ///< "" (iterate) | iterate | predictor-corrector | extrapolated (tables)
  std::string stretch;                ///< "" or the stretched axes ("z", "xz", ...): bench_problem's nodes
  std::string json;
  bool overwrite = false;  ///< replace an existing JSON file (io/result_file.hpp)
  std::string grid;      ///< under mpirun: the process grid "1xPyxPz" ("" = automatic)
  SolverOptions solver;  ///< the ADI_* kernel and MPI knobs (read once by main)
};
int cmd_bench(const BenchOptions& o);

}  // namespace adi::app
