#include "signals.hpp"

#include "errors.hpp"
#include "exit_codes.hpp"

#include <adi/mpi.hpp>

#include <cstdio>
#include <string>

#include <atomic>
#include <csignal>
#include <cstring>
#include <unistd.h>

namespace adi::app {

namespace {

// Lock-free atomics are async-signal-safe; the handler may run on any
// thread (OpenMP workers included).
std::atomic<int> g_first{0};       // first signal number
std::atomic<int> g_count{0};       // signals received
std::atomic<int> g_critical{0};    // > 0 while a final-name file is written
std::atomic<int> g_abort_wanted{0};
std::atomic<int> g_exit_code{-1};  // set by exiting_with
static_assert(std::atomic<int>::is_always_lock_free, "signal handlers need lock-free atomics");

constexpr int kSignals[] = {SIGTERM, SIGUSR1, SIGINT, SIGHUP};

void say(const char* msg) {
  // write(2) is async-signal-safe; the result is irrelevant here.
  ssize_t r = ::write(STDERR_FILENO, msg, std::strlen(msg));
  (void)r;
}

[[noreturn]] void abort_now() {
  say("\nadi3d: second signal: aborting now (no file under its final name is mid-write)\n");
  ::_exit(kAborted);
}

extern "C" void on_signal(int sig) {
  // The run has failed and has said so: a signal now (mpirun stopping the
  // other ranks once one has exited) ends the process quietly with the exit
  // code it is on its way to, unless a file is mid-write (that write ends
  // first, then CriticalWrite aborts).
  if (const int code = g_exit_code.load(); code >= 0) {
    if (g_critical.load() > 0) {
      g_abort_wanted.store(1);
      return;
    }
    ::_exit(code);
  }
  const int n = g_count.fetch_add(1) + 1;
  if (n == 1) {
    g_first.store(sig);
    say("\nadi3d: signal received: stopping at the next step with a checkpoint (before the first step: with nothing "
        "written; send it again to abort)\n");
    return;
  }
  if (g_critical.load() > 0) {
    g_abort_wanted.store(1);  // CriticalWrite's destructor aborts
    return;
  }
  abort_now();
}

}  // namespace

void install_signal_handlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // file I/O in progress is not interrupted with EINTR
  for (const int sig : kSignals) sigaction(sig, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  // A full file-size limit (ulimit -f) must fail the write with EFBIG, which
  // is reported and cleaned up, rather than kill the process mid-write.
  std::signal(SIGXFSZ, SIG_IGN);
}

void default_signal_handling() {
  for (const int sig : kSignals) std::signal(sig, SIG_DFL);
  std::signal(SIGPIPE, SIG_DFL);
  if (const int sig = g_first.load()) std::raise(sig);
}

void exiting_with(int code) { g_exit_code.store(code); }

int SignalGuard::stop_requested() { return g_first.load(); }

void SignalGuard::abort_if_requested() {
  if (g_count.load() >= 2 && g_critical.load() == 0) abort_now();
}

CriticalWrite::CriticalWrite() { g_critical.fetch_add(1); }

CriticalWrite::~CriticalWrite() {
  if (g_critical.fetch_sub(1) == 1 && (g_abort_wanted.load() || g_count.load() >= 2)) abort_now();
}

// The handlers go in before any other code of the process runs: the
// dynamic loader calls the executable's .preinit_array before the
// initialisers of every shared library (Open MPI, HDF5, the C++ runtime,
// CUDA: some 20 ms at start-up, in which a SIGTERM used to kill adi3d by
// the default action, exit 143). Only the loader's own relocations come
// before it. main() installs them again (harmless: the same handlers).
namespace {
extern "C" void adi_preinit_signals(int, char**, char**) { install_signal_handlers(); }
__attribute__((section(".preinit_array"), used)) void (*adi_preinit_entry)(int, char**, char**) =
    adi_preinit_signals;
}  // namespace

const char* signal_name(int sig) {
  switch (sig) {
    case SIGTERM: return "SIGTERM";
    case SIGUSR1: return "SIGUSR1";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

void stop_if_signalled(const char* stage) {
  const int ranks = mpi::world_size();
  double sig = g_first.load();
  if (ranks > 1) mpi::allreduce_max(&sig, 1);  // every rank stops, or none
  if (sig == 0) return;
  const std::string msg = std::string(signal_name(static_cast<int>(sig))) + " received " + stage +
                          ": stopped before the first step; nothing was written (run the same command again)";
  if (ranks > 1) throw CollectiveError(kCheckpointed, "stopped: " + msg, false, __FILE__, __LINE__);
  throw StoppedBySignal(msg, __FILE__, __LINE__);
}

}  // namespace adi::app
