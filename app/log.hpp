#pragma once
// Logging set-up shared by the subcommands: spdlog to stderr, so that stdout
// carries only results (summaries, tables, JSON).
#include <spdlog/spdlog.h>

namespace adi::app {
enum class Verbosity { Quiet, Normal, Verbose };
/// Ranks other than 0 of a distributed run log errors only, tagged with the rank.
void setup_logging(Verbosity v, int rank = 0);
}  // namespace adi::app
