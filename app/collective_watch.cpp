// A watchdog over a distributed run's collective writes (collective_watch.hpp).

#include "collective_watch.hpp"

#include "exit_codes.hpp"

#include <adi/io/io.hpp>
#include <adi/mpi.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <unistd.h>

namespace adi::app {

namespace {
using Clock = std::chrono::steady_clock;
constexpr double kFailureGrace = 5.0;
}  // namespace

struct CollectiveWatch::State {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::string what;
};

CollectiveWatch::CollectiveWatch(bool on, double timeout_s, std::string what, std::string file) {
  if (!on) return;
  io::clear_io_error_note();
  state_ = std::make_shared<State>();
  state_->what = std::move(what);
  auto st = state_;
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  thread_ = std::thread([st, deadline, timeout_s, file] {
    std::unique_lock<std::mutex> lock(st->m);
    Clock::time_point failed_at{};
    std::string note;
    for (;;) {
      const auto now = Clock::now();
      if (note.empty()) {
        note = io::io_error_note();
        if (!note.empty()) failed_at = now;
      }
      const auto limit = note.empty() ? deadline
                                      : std::min(deadline, failed_at + std::chrono::duration_cast<Clock::duration>(
                                                                           std::chrono::duration<double>(kFailureGrace)));
      if (now >= limit) break;
      const auto wake = std::min(limit, now + std::chrono::milliseconds(250));
      if (st->cv.wait_until(lock, wake, [&] { return st->done; })) return;
    }
    if (!note.empty()) {
      const double need = 1 << 20;
      std::fprintf(stderr,
                   "adi3d: [rank %d] error: %s%s; %s failed on this rank and the ranks could not finish it together "
                   "(they wait in different calls of the HDF5 library): stopping the job (exit 3); the output stays "
                   "at its last complete step (adi3d recover, or the restart, undoes the rest), the previous "
                   "checkpoint is unchanged\n",
                   mpi::world_rank(), printable(note, 600).c_str(),
                   file.empty() ? "" : printable(io::disk_space_note(file, need, note), 200).c_str(),
                   st->what.c_str());
    } else {
      std::fprintf(stderr,
                   "adi3d: [rank %d] error: %s did not complete on every rank within %.0f s "
                   "(ADI_COLLECTIVE_TIMEOUT): another rank failed or hangs in it; stopping the job (exit 3); the "
                   "output stays at its last complete step, the previous checkpoint is unchanged\n",
                   mpi::world_rank(), st->what.c_str(), timeout_s);
    }
    std::fflush(stderr);
    ::_exit(kIoError);
  });
}

CollectiveWatch::~CollectiveWatch() {
  if (!state_) return;
  {
    std::lock_guard<std::mutex> lock(state_->m);
    state_->done = true;
  }
  state_->cv.notify_all();
  thread_.join();
}

}  // namespace adi::app
