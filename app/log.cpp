#include "log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace adi::app {
void setup_logging(Verbosity v) {
  auto logger = spdlog::stderr_color_mt("adi3d");
  logger->set_pattern("[%Y-%m-%d %H:%M:%S] [%^%l%$] %v");
  logger->set_level(v == Verbosity::Quiet ? spdlog::level::warn
                    : v == Verbosity::Verbose ? spdlog::level::debug
                                              : spdlog::level::info);
  spdlog::set_default_logger(logger);
}
}  // namespace adi::app
