#pragma once
// Graceful stop on SIGTERM, SIGUSR1 (Slurm's --signal) and SIGINT.
//
// The handlers only record the signal: the run loop polls stop_requested()
// between steps, finishes the step, writes a checkpoint and the outputs and
// exits with kCheckpointed (75). A second signal aborts at once with
// kAborted (130) through _exit(2) from the handler, except while a file
// under its final name is being modified (CriticalWrite: appending a step to
// the output file); then the abort waits until that write and its flush are
// done. Everything else is written to a temporary and renamed, so an abort
// can leave only a stale "*.tmp", never a half-written final file.

#include <csignal>

namespace adi::app {

class SignalGuard {
 public:
  SignalGuard();   ///< installs the handlers (and resets the recorded state)
  ~SignalGuard();  ///< restores the previous dispositions
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

  /// The first signal received (0: none).
  static int stop_requested();
  /// Called between steps: _exit(kAborted) if a second signal came in while
  /// its abort had to wait.
  static void abort_if_requested();
};

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
