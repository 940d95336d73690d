#pragma once
// Logging set-up shared by the subcommands: spdlog to stderr, so that stdout
// carries only results (summaries, tables, JSON).
#include <spdlog/spdlog.h>

namespace adi::app {
enum class Verbosity { Quiet, Normal, Verbose };
void setup_logging(Verbosity v);
}  // namespace adi::app
