#pragma once
// One run per file: an exclusive lock (flock) on "<path>.lock", held for
// the whole run, and unique temporary names. Two runs on one output used to
// race on the existence check and on shared "<path>.tmp" names: both failed,
// or one exited 0 while the file under the final name was the other's
// partial "failed" file (issue #14). With the lock the second run fails at
// once, having touched nothing; `adi3d recover` refuses a locked file.
//
// The lock file holds the owner's pid (for the message). It is removed by
// its owner when the run ends; one left by a killed run is not locked and is
// simply taken over. Taking it: open (create), flock(LOCK_EX | LOCK_NB),
// then check that the name still refers to the locked inode (another owner
// may have removed it in between), else again.
//
// A file of that name that is not an adi3d lock (not a regular file, or
// holding anything but a pid) is a user's file: refused, never taken over
// (taking it over wrote a pid into it and removed it at the end).

#include <string>
#include <vector>

namespace adi::io {

class FileLock {
 public:
  FileLock() = default;
  /// Locks "<path>.lock" or throws IoError: "<what> is in use by another
  /// adi3d run (pid N, lock <path>.lock); nothing was changed" (or the
  /// reason the lock file cannot be created).
  FileLock(const std::string& path, const std::string& what);
  FileLock(FileLock&& o) noexcept;
  FileLock& operator=(FileLock&& o) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();  ///< removes the lock file and releases the lock

  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
  std::string lock_path_;
};

/// The pid of the live process that holds "<path>.lock", or 0 if none does.
long locked_by(const std::string& path);

/// A temporary name next to `path` that no other process uses:
/// "<folder>/adi3d.<pid>.<random>.<name>.tmp".
std::string unique_temp_path(const std::string& path);

/// Removes the temporaries that dead adi3d processes left for `path`
/// (unique_temp_path's names beside it: a killed run's first output step,
/// checkpoint or .xmf being written, a journal snapshot). Only what can be
/// proven theirs: a regular file (not a link) named exactly
/// "adi3d.<pid>.<8 hex digits>.<name of path>.tmp" in path's folder whose
/// pid is not this process and is not alive (kill(pid, 0): ESRCH). The
/// caller must hold path's lock (FileLock, or the output's for its .xmf and
/// journal): no live run of that file is then writing one. Returns the names
/// removed (failures to remove are left, silently).
std::vector<std::string> remove_dead_temporaries(const std::string& path);

}  // namespace adi::io
