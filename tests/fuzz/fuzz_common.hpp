#pragma once
// Shared by the fuzz targets (tests/fuzz/README.md): what counts as a
// finding besides a crash, a sanitizer report, a hang or an out-of-memory.
//
// adi3d turns every failure into an adi::Error subclass (ConfigError,
// IoError, ...) whose message is one line; main() maps them to the
// documented exit codes. Anything else escaping a reader (a yaml-cpp or
// std:: exception) would reach the user as "internal error" (exit 1): that is
// a finding too, and so is a multi-line or empty message.

#include <adi/error.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

namespace adi::fuzz {

[[noreturn]] inline void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "\nFUZZ FINDING: %s: %s\n", what, detail.c_str());
  std::abort();
}

/// Runs f(); an adi::Error with a one-line message is the expected outcome
/// of bad input, anything else thrown is a finding.
template <class F>
void expect_clean_failure(F&& f) {
  try {
    f();
  } catch (const adi::Error& e) {
    const std::string m = e.what();
    if (m.empty()) finding("empty error message", typeid(e).name());
    if (m.find('\n') != std::string::npos || m.find('\r') != std::string::npos)
      finding("error message is not one line", m);
  } catch (const std::bad_alloc&) {
    // adi3d reports it (exit 7); the targets cap sizes so that it cannot come
    // from the sizes a file claims (the run checks memory before reading).
    finding("std::bad_alloc", "an allocation the memory check should have prevented");
  } catch (const std::exception& e) {
    finding("exception that is not an adi::Error", std::string(typeid(e).name()) + ": " + e.what());
  } catch (...) {
    finding("unknown exception", "");
  }
}

}  // namespace adi::fuzz
