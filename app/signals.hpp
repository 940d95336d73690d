#pragma once
// Graceful stop on SIGTERM, SIGUSR1 (Slurm's --signal), SIGINT and SIGHUP
// (a closed terminal or ssh session), from the first line of main to the
// last: a signal during set-up, the input read or the final summary must
// not kill the process by the default action (exit 143/138/129: Slurm sees a
// failure and does not requeue, a running output stays "running").
//
// The handlers only record the signal. `adi3d run` checks it before the
// first step (StoppedBySignal: exit 75 having written nothing) and the run
// loop polls stop_requested() between steps, finishes the step, writes a
// checkpoint and the outputs and exits with kCheckpointed (75). A signal
// after the last step changes nothing: the run is complete (exit 0). A
// second signal aborts at once with kAborted (130) through _exit(2) from the
// handler, except while a file under its final name is being modified
// (CriticalWrite: appending a step to the output file); then the abort waits
// until that write and its flush are done. Everything else is written to a
// temporary and renamed, so an abort can leave only a stale temporary,
// never a half-written final file.
//
// SIGPIPE is ignored: a closed stdout makes the summary's write fail with
// EPIPE, which is reported, instead of killing a run that has finished.

#include <adi/error.hpp>

#include <csignal>

namespace adi::app {

/// First thing in main: installs the handlers (and ignores SIGPIPE and SIGXFSZ).
void install_signal_handlers();
/// For the subcommands that do not checkpoint (validate, bench, info, ...):
/// the default dispositions again; a signal recorded so far is re-raised.
void default_signal_handling();

/// The process is ending with `code` (!= 0) after its error was reported:
/// from now on a signal ends it at once with that code and says nothing
/// (under mpirun, the launcher's SIGTERM to the ranks still exiting would
/// otherwise print "signal received: stopping at the next step" after the
/// error). A file mid-write is finished first.
void exiting_with(int code);

class SignalGuard {
 public:
  /// The first signal received (0: none).
  static int stop_requested();
  /// Called between steps: _exit(kAborted) if a second signal came in while
  /// its abort had to wait.
  static void abort_if_requested();
};

/// A signal stopped `adi3d run` before its first step: nothing was written
/// (exit 75, as for any other stop by a signal: run the same command again).
class StoppedBySignal : public Error {
  using Error::Error;
};

/// Before the first step: if a signal came (on any rank: collective in a
/// distributed run), throws StoppedBySignal (CollectiveError with exit 75
/// under MPI) naming it and `stage` ("while reading the inputs").
void stop_if_signalled(const char* stage);

/// Marks a write to a final-name file: a second signal waits for it.
class CriticalWrite {
 public:
  CriticalWrite();
  ~CriticalWrite();
  CriticalWrite(const CriticalWrite&) = delete;
  CriticalWrite& operator=(const CriticalWrite&) = delete;
};

const char* signal_name(int sig);

}  // namespace adi::app
