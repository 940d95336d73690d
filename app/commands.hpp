#pragma once
// The adi3d subcommands. Each returns an exit code (exit_codes.hpp) and
// throws only for errors main() maps to codes.
#include <string>
#include <vector>

namespace adi::app {

struct RunOptions {
  std::string config;              ///< "" = the embedded default case
  std::vector<std::string> sets;   ///< --set key.path=value
  std::string backend, precision;  ///< shorthands for --set backend=... / precision=...
  bool dry_run = false;
  bool overwrite = false;
  std::string restart;             ///< checkpoint to continue from
  std::vector<std::string> argv;   ///< the whole command line (provenance)
  bool quiet = false;              ///< no progress line, no periodic log lines
};
int cmd_run(const RunOptions& o);

struct ValidateOptions {
  std::string backend = "auto";
  std::vector<long long> levels{10, 20, 40, 80};
  std::string json;  ///< write the results as JSON to this file ("-" = stdout)
};
int cmd_validate(const ValidateOptions& o);

int cmd_info();

}  // namespace adi::app
