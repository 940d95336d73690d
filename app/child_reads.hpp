#pragma once
// The run's reads of input files in a child process (io/probe.hpp): the
// limits of a header read and of a data read, and a signal during one
// turned into a stop (exit 75) instead of an I/O error.

#include "env_options.hpp"

#include <adi/io/probe.hpp>

#include <functional>
#include <string>

namespace adi::app {

/// The limits of a child that reads a file's header.
io::ProbeLimits header_limits(const AppOptions& a);
/// The limits of a child that reads `path`'s data (a field of `field_bytes`).
io::ProbeLimits data_limits(const AppOptions& a, const std::string& path, double field_bytes);
/// `read` in a child (io::probe_in_child); a signal stops the run (StoppedBySignal).
void probe_read(const std::string& file, const std::string& what, const std::function<void()>& read,
                const io::ProbeLimits& limits);
/// `read`'s result from a child (io::probe_result_in_child); a signal stops the run.
std::string probe_result(const std::string& file, const std::string& what, const std::function<std::string()>& read,
                         const io::ProbeLimits& limits);

}  // namespace adi::app
