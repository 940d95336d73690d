#include "log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace adi::app {
void setup_logging(Verbosity v, int rank) {
  auto logger = spdlog::stderr_color_mt("adi3d");
  if (rank == 0) {
    logger->set_pattern("[%Y-%m-%d %H:%M:%S] [%^%l%$] %v");
    logger->set_level(v == Verbosity::Quiet ? spdlog::level::warn
                      : v == Verbosity::Verbose ? spdlog::level::debug
                                                : spdlog::level::info);
  } else {
    logger->set_pattern("[%Y-%m-%d %H:%M:%S] [rank " + std::to_string(rank) + "] [%^%l%$] %v");
    logger->set_level(spdlog::level::err);
  }
  spdlog::set_default_logger(logger);
}
}  // namespace adi::app
