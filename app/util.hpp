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
/// Writes `text` to `path` ("-": stdout) and checks that it arrived: a full
/// disk or /dev/full is an I/O error naming the file (exit 3), not a silent
/// success or an internal error. `what` names the content in the message.
void write_text(const std::string& path, const std::string& text, const char* what);
}  // namespace adi::app
