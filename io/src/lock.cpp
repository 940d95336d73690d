// One run per file (see lock.hpp).

#include <adi/io/hdf5.hpp>
#include <adi/io/lock.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <csignal>
#include <fcntl.h>
#include <random>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace adi::io {

namespace {
long read_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  return n > 0 ? std::strtol(buf, nullptr, 10) : 0;
}

/// What a lock file adi3d wrote holds: nothing yet (killed between the
/// create and the write) or "<pid>\n". Anything else is a user's file that
/// happens to have the name, and is not taken over (and removed at the end).
bool holds_an_adi3d_lock(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (st.st_size == 0) return true;
  if (st.st_size > 24) return false;
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n != st.st_size) return false;
  ssize_t i = 0;
  while (i < n && buf[i] >= '0' && buf[i] <= '9') ++i;
  return i > 0 && (i == n || (i == n - 1 && buf[i] == '\n'));
}
}  // namespace

FileLock::FileLock(const std::string& path, const std::string& what) : lock_path_(path + ".lock") {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
      const int err = errno;
      throw IoError(what + ": cannot create " + lock_path_ + " (" + std::strerror(err) + ")", __FILE__,
                    __LINE__);
    }
    if (!holds_an_adi3d_lock(fd)) {
      ::close(fd);
      throw IoError(what + ": " + lock_path_ +
                        " exists and is not an adi3d lock file (adi3d writes a pid there and removes it when the "
                        "run ends); it is left as it is: move it away; nothing was changed",
                    __FILE__, __LINE__);
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const long pid = read_pid(fd);
      ::close(fd);
      if (err == EWOULDBLOCK)
        throw IoError(what + " is in use by another adi3d run (" +
                          (pid > 0 ? "pid " + std::to_string(pid) + ", " : std::string()) + "lock " + lock_path_ +
                          "); nothing was changed",
                      __FILE__, __LINE__);
      throw IoError(what + ": cannot lock " + lock_path_ + " (" + std::strerror(err) + ")", __FILE__, __LINE__);
    }
    // The previous owner may have removed the name between our open and
    // our lock: then we hold a lock on a file nobody else will see.
    struct stat a, b;
    if (::fstat(fd, &a) == 0 && ::stat(lock_path_.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
      char buf[32];
      const int n = std::snprintf(buf, sizeof buf, "%ld\n", static_cast<long>(::getpid()));
      if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, buf, static_cast<std::size_t>(n), 0) != n) {
        // the pid is only for messages
      }
      fd_ = fd;
      return;
    }
    ::close(fd);
  }
  throw IoError(what + ": cannot lock " + lock_path_ + " (it keeps being replaced)", __FILE__, __LINE__);
}

FileLock::FileLock(FileLock&& o) noexcept : fd_(o.fd_), lock_path_(std::move(o.lock_path_)) { o.fd_ = -1; }

FileLock& FileLock::operator=(FileLock&& o) noexcept {
  if (this != &o) {
    this->~FileLock();
    fd_ = o.fd_;
    lock_path_ = std::move(o.lock_path_);
    o.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ < 0) return;
  // Removed while still locked: a run waiting to open it sees the name gone
  // (or a new file) and takes a fresh one.
  ::unlink(lock_path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

long locked_by(const std::string& path) {
  const std::string lock = path + ".lock";
  const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return 0;
  long pid = 0;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) pid = std::max(read_pid(fd), 1L);
  ::close(fd);
  return pid;
}

std::string unique_temp_path(const std::string& path) {
  static std::mt19937_64 rng{std::random_device{}() ^ (static_cast<std::uint64_t>(::getpid()) << 32)};
  const auto slash = path.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  char mid[64];
  std::snprintf(mid, sizeof mid, "adi3d.%ld.%08llx.", static_cast<long>(::getpid()),
                static_cast<unsigned long long>(rng() & 0xffffffffull));
  return folder + mid + name + ".tmp";
}

std::vector<std::string> remove_dead_temporaries(const std::string& path) {
  std::vector<std::string> removed;
  const auto slash = path.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  const std::string prefix = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string tail = "." + name + ".tmp";
  DIR* d = ::opendir(folder.c_str());
  if (!d) return removed;
  const long self = static_cast<long>(::getpid());
  while (const dirent* e = ::readdir(d)) {
    const std::string f = e->d_name;
    // adi3d.<pid>.<8 hex>.<name>.tmp, exactly.
    if (f.size() <= 6 + tail.size() || f.compare(0, 6, "adi3d.") != 0 ||
        f.compare(f.size() - tail.size(), tail.size(), tail) != 0)
      continue;
    const std::string mid = f.substr(6, f.size() - 6 - tail.size());  // "<pid>.<hex>"
    const auto dot = mid.find('.');
    if (dot == std::string::npos || dot == 0 || mid.size() - dot - 1 != 8) continue;
    const std::string pid_text = mid.substr(0, dot), hex = mid.substr(dot + 1);
    if (pid_text.size() > 10 || pid_text.find_first_not_of("0123456789") != std::string::npos ||
        hex.find_first_not_of("0123456789abcdef") != std::string::npos)
      continue;
    const long pid = std::strtol(pid_text.c_str(), nullptr, 10);
    if (pid <= 0 || pid == self) continue;
    errno = 0;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to ask): kept
    const std::string full = prefix + f;
    struct stat st;
    if (::lstat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (::unlink(full.c_str()) == 0) removed.push_back(full);
  }
  ::closedir(d);
  return removed;
}

}  // namespace adi::io
