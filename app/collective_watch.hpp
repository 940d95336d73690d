#pragma once
// A watchdog over a distributed run's collective writes (see the class).

#include <memory>
#include <string>
#include <thread>

namespace adi::app {

/// A distributed run's collective writes (and the agreements around them)
/// block until every rank takes part. A rank that failed outside them, or
/// hangs in HDF5 on a full disk, used to leave the others waiting for ever.
/// While a collective write is under way a watchdog thread waits for it:
///   * this rank met an HDF5 error in it (io::io_error_note): after
///     kFailureGrace seconds more it names that error (a full disk: "No space
///     left on device") and ends this rank with exit 3. A failure inside a
///     collective HDF5 call on one rank can leave that rank in the clean-up
///     and another inside the library, each waiting for the other;
///   * otherwise, past ADI_COLLECTIVE_TIMEOUT: it says so and ends this rank
///     with exit 3 (a rank that truly hangs).
/// mpirun then ends the job. Files stay as a kill leaves them: the output at
/// its last complete step (journal, `adi3d recover`), the checkpoint the
/// previous one.
class CollectiveWatch {
 public:
  /// Watches until destroyed when `on`; `what` names the write in the
  /// message, `file` the file whose disk a failure's note looks at.
  CollectiveWatch(bool on, double timeout_s, std::string what, std::string file = "");
  ~CollectiveWatch();
  CollectiveWatch(const CollectiveWatch&) = delete;
  CollectiveWatch& operator=(const CollectiveWatch&) = delete;

 private:
  struct State;
  std::shared_ptr<State> state_;
  std::thread thread_;
};

}  // namespace adi::app
