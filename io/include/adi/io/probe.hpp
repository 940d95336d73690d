#pragma once
// Reading untrusted HDF5 files without letting the HDF5 library crash adi3d.
//
// HDF5 1.10 (Debian 12 ships 1.10.8) trusts the metadata it reads: a damaged
// or crafted file can make it read out of bounds and die with SIGSEGV
// (tests/fuzz found such files in minutes, e.g. a chunk shape far larger
// than the dataset; h5py crashes on them too). No check adi3d could do
// before calling HDF5 covers every such case, so adi3d first does each read
// of an input file in a child process (fork) that keeps nothing: if the
// child's read succeeds, the parent does the same read, which then behaves
// the same; if it fails with an error, the parent reports that error without
// reading; if the child dies, the run stops with an IoError naming the file
// (exit 3). In every case before anything was written.
// Costs: a fork and a second read of the file (docs/BAD_INPUT.md).

#include <adi/io/hdf5.hpp>

#include <functional>
#include <string>

namespace adi::io {

/// How a read is isolated. The caller decides (adi3d: ADI_ISOLATE_READS and
/// ADI_READ_TIMEOUT, read once by the app); the library reads no environment.
struct ProbeLimits {
  /// false (e.g. where fork() is not allowed): probe_in_child does nothing,
  /// and a damaged file may crash the process in the caller's own read.
  bool isolate = true;
  /// CPU seconds the child may take (RLIMIT_CPU: a stopped or suspended
  /// process, or one waiting for the disk, is not a hang); the wall clock
  /// backs it up at max(10 x, + 60 s), not counting time this process was
  /// suspended, and the error then says what the child was doing.
  double timeout_s = 60.0;
  double memory_bytes = 1024.0 * 1024 * 1024;  ///< what the child may allocate beyond the process' size
  /// Polled while the child reads (every 0.2 s): true stops the child and
  /// throws ProbeInterrupted (the caller was asked to stop, e.g. by a signal).
  std::function<bool()> interrupted;
};

/// probe_in_child stopped the child because `interrupted` said so.
class ProbeInterrupted : public IoError {
  using IoError::IoError;
};

/// Runs `probe` (which reads `file`) in a child process that may use at most
/// `limits.timeout_s` seconds of CPU; the child may allocate at most
/// `limits.memory_bytes` beyond what the process had (RLIMIT_AS: a damaged
/// size field can make HDF5 allocate and fill gigabytes; the child's
/// allocation then fails cleanly). Returns when `probe` returned in the
/// child, or at once when `limits.isolate` is false. Throws an IoError with
/// the message of the exception `probe` threw in the child; "<file>: <what>:
/// the HDF5 library crashed reading it (...)" when the child died; and a
/// timeout error when it did not finish in time.
void probe_in_child(const std::string& file, const std::string& what, const std::function<void()>& probe,
                    const ProbeLimits& limits);

/// The same for a read that finds something (a checksum, the problem a file
/// was written for): `probe`'s result comes back from the child (at most
/// 60 KiB), and the parent need not read again. Without isolation
/// (limits.isolate false) `probe` runs here.
std::string probe_result_in_child(const std::string& file, const std::string& what,
                                  const std::function<std::string()>& probe, const ProbeLimits& limits);

}  // namespace adi::io
