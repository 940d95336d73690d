#include "errors.hpp"

#include "exit_codes.hpp"
#include "log.hpp"
#include "memory.hpp"
#include "signals.hpp"

#include <adi/io/io.hpp>
#include <adi/mpi.hpp>

#include <cstdio>
#include <filesystem>
#include <limits>
#include <new>

namespace adi::app {

int exit_code_of(const std::exception& e, const char** kind) {
  const char* k = "error: ";
  int code = kInternalError;
  if (const auto* c = dynamic_cast<const CollectiveError*>(&e)) code = c->code();
  else if (dynamic_cast<const StoppedBySignal*>(&e)) code = kCheckpointed, k = "stopped: ";
  else if (dynamic_cast<const io::ConfigError*>(&e)) code = kUsageError;
  else if (dynamic_cast<const io::IoError*>(&e)) code = kIoError;
  else if (dynamic_cast<const InsufficientMemory*>(&e)) code = kOutOfMemory, k = "not enough memory: ";
  else if (dynamic_cast<const InvalidArgument*>(&e)) code = kUsageError;
  else if (dynamic_cast<const BackendUnavailable*>(&e)) code = kBackendError;
  else if (dynamic_cast<const NumericalError*>(&e)) code = kNumericalError, k = "numerical error: ";
  else if (dynamic_cast<const std::bad_alloc*>(&e)) code = kOutOfMemory, k = "out of memory: ";
  else if (dynamic_cast<const std::filesystem::filesystem_error*>(&e)) code = kIoError;
  if (kind) *kind = k;
  return code;
}

/// A message is a line a person reads: one quoting a 5000-byte file name
/// (from a library) is cut.
constexpr std::size_t kMaxMessage = 1000;

int report(const std::exception& e, bool tag_rank) {
  const char* kind = "";
  const int code = exit_code_of(e, &kind);
  if (tag_rank)
    std::fprintf(stderr, "adi3d: [rank %d] %s%s\n", mpi::world_rank(), kind, printable(e.what(), kMaxMessage).c_str());
  else
    // One line whatever the message quotes (file names, library text).
    std::fprintf(stderr, "adi3d: %s%s\n", kind, printable(e.what(), kMaxMessage).c_str());
  if (const auto* ae = dynamic_cast<const adi::Error*>(&e); ae && *ae->source_file())
    spdlog::debug("raised at {}:{}", ae->source_file(), ae->source_line());
  return code;
}

void collectively(const std::function<void()>& f) {
  if (mpi::world_size() == 1) {
    f();
    return;
  }
  std::exception_ptr own;
  bool failed = false;
  int code = 0;
  try {
    f();
  } catch (const mpi::PeerError&) {
    failed = true;  // another rank's error: it reports it
  } catch (const std::exception& e) {
    failed = true;
    own = std::current_exception();
    code = exit_code_of(e);
  }
  const int rank = mpi::world_rank();
  // v[0] = -(lowest rank with its own error), v[1] = any failure.
  double v[2] = {own ? -static_cast<double>(rank) : -std::numeric_limits<double>::max(), failed ? 1.0 : 0.0};
  mpi::allreduce_max(v, 2);
  if (v[1] == 0.0) return;
  const int reporter = v[0] > -std::numeric_limits<double>::max() ? static_cast<int>(-v[0]) : -1;
  double c = rank == reporter ? code : 0.0;
  mpi::allreduce_max(&c, 1);
  std::string message = "another rank failed";
  if (own) {
    try {
      std::rethrow_exception(own);
    } catch (const std::exception& e) {
      message = e.what();
      if (rank == reporter) report(e, rank != 0);
    }
  }
  // Every rank carries the reporter's words: a collective output's status
  // ("failed: ...") is one attribute the ranks write together.
  if (reporter >= 0) mpi::broadcast(message, reporter);
  // mpirun ends the whole job as soon as one rank exits with an error: the
  // others wait here until the message is out.
  std::fflush(stderr);
  mpi::barrier();
  throw CollectiveError(reporter >= 0 ? static_cast<int>(c) : kInternalError, message, reporter >= 0, __FILE__,
                        __LINE__);
}

}  // namespace adi::app
