#pragma once
// Small formatting and parsing helpers for the subcommands.
#include <adi/stepper.hpp>

#include <string>

namespace adi::app {
Backend parse_backend(const std::string& s);      ///< throws CLI-style usage errors
Precision parse_precision(const std::string& s);
std::string human_bytes(double bytes);
std::string human_seconds(double s);
std::string json_escape(const std::string& s);
}  // namespace adi::app
