// The run's reads of input files in a child process (child_reads.hpp).

#include "child_reads.hpp"

#include "signals.hpp"

#include <filesystem>
#include <system_error>

namespace adi::app {

namespace fs = std::filesystem;

namespace {
/// Memory a child may use for a file's header; for its data, twice the field
/// more (read_field's copy as double planes and the result).
constexpr double kProbeHeaderBytes = 1024.0 * 1024 * 1024;
/// Seconds a child may take to read a file's header (ADI_READ_TIMEOUT,
/// default 60), and its data (plus the time to read the file at 20 MB/s): a
/// damaged file can make HDF5 loop for ever (tests/fuzz found such files); a
/// slow disk should not stop a run, hence generous. ADI_ISOLATE_READS=0:
/// no child at all.
/// A signal stops the read (the child is killed) and the run (exit 75).
bool signalled() { return SignalGuard::stop_requested() != 0; }
}  // namespace

io::ProbeLimits header_limits(const AppOptions& a) {
  return {a.isolate_reads, a.read_timeout_s, kProbeHeaderBytes, signalled};
}
io::ProbeLimits data_limits(const AppOptions& a, const std::string& path, double field_bytes) {
  std::error_code ec;
  const auto bytes = fs::file_size(path, ec);
  return {a.isolate_reads, a.read_timeout_s + (ec ? 0.0 : static_cast<double>(bytes) / 20e6),
          kProbeHeaderBytes + 2.0 * field_bytes, signalled};
}
/// A signal during a read in a child is a stop (exit 75), not an I/O error.
[[noreturn]] void stopped_while_reading(const std::string& file, const std::string& what) {
  throw StoppedBySignal(std::string(signal_name(SignalGuard::stop_requested())) + " received while reading " + file +
                            " (" + what + "): stopped before the first step; nothing was written (run the same "
                            "command again)",
                        __FILE__, __LINE__);
}
void probe_read(const std::string& file, const std::string& what, const std::function<void()>& read,
                const io::ProbeLimits& limits) {
  try {
    io::probe_in_child(file, what, read, limits);
  } catch (const io::ProbeInterrupted&) {
    stopped_while_reading(file, what);
  }
}
std::string probe_result(const std::string& file, const std::string& what, const std::function<std::string()>& read,
                         const io::ProbeLimits& limits) {
  try {
    return io::probe_result_in_child(file, what, read, limits);
  } catch (const io::ProbeInterrupted&) {
    stopped_while_reading(file, what);
  }
}

}  // namespace adi::app
