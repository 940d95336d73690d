#pragma once
// adi3d's documented exit codes (README "Exit codes"). Batch scripts rely on them.
namespace adi::app {
enum ExitCode : int {
  kOk = 0,
  kInternalError = 1,     ///< a bug or an unexpected failure (message says what)
  kUsageError = 2,        ///< bad command line or config file
  kIoError = 3,           ///< a file could not be read or written, or is not what adi3d expects
  kValidationFailed = 4,  ///< a validation check did not meet its tolerance
  kNumericalError = 5,    ///< NaN/Inf in the field, zero pivot
  kBackendError = 6,      ///< the requested backend or device is unavailable or failed
  kOutOfMemory = 7,       ///< the run does not fit in host or device memory (checked before allocating)
  kCheckpointed = 75,     ///< stopped on a signal after writing a checkpoint: requeue and --restart
  kAborted = 130,         ///< a second signal: stopped at once (files left consistent)
};
}  // namespace adi::app
