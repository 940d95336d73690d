#include "log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace adi::app {
// Timestamps in UTC, marked as such: provenance and checkpoints are UTC, and
// a job's log is often read on a machine in another zone.
void setup_logging(Verbosity v, int rank) {
  auto logger = spdlog::stderr_color_mt("adi3d");
  if (rank == 0) {
    logger->set_pattern("[%Y-%m-%d %H:%M:%S UTC] [%^%l%$] %v", spdlog::pattern_time_type::utc);
    logger->set_level(v == Verbosity::Quiet ? spdlog::level::warn
                      : v == Verbosity::Verbose ? spdlog::level::debug
                                                : spdlog::level::info);
  } else {
    logger->set_pattern("[%Y-%m-%d %H:%M:%S UTC] [rank " + std::to_string(rank) + "] [%^%l%$] %v",
                        spdlog::pattern_time_type::utc);
    logger->set_level(spdlog::level::err);
  }
  spdlog::set_default_logger(logger);
}
}  // namespace adi::app
