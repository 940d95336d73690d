// File-system primitives of the io module (see fsutil.hpp).

#include "fsutil.hpp"

#include <adi/error.hpp>
#include <adi/io/hdf5.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace adi::io::detail {

namespace {
std::string human(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024.0 && u < 4) b /= 1024.0, ++u;
  char buf[48];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}
}  // namespace

void require_regular_input(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // the open says why
  const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                     : S_ISREG(st.st_mode)  ? nullptr
                                            : "not a regular file";
  if (kind)
    throw IoError(path + ": cannot read " + what + ": it is " + kind +
                      ", not a file (adi3d reads HDF5 files; a FIFO would block the read, a device never ends)",
                  __FILE__, __LINE__);
}

double free_bytes(const std::string& path) {
  struct statvfs v {};
  if (::statvfs(parent_dir(path).c_str(), &v) != 0) return -1.0;
  return static_cast<double>(v.f_bavail) * static_cast<double>(v.f_frsize);
}

std::string space_note(const std::string& path, double need, const std::string& message) {
  if (message.find("No space left on device") != std::string::npos) return "";
  const double free = free_bytes(path);
  if (free < 0 || free >= need) return "";
  return "; No space left on device: the file system of '" + parent_dir(path) + "' has " + human(free) +
         " free (this write needs about " + human(need) + ")";
}

void require_space(const std::string& path, double need, const std::string& what) {
  const double free = free_bytes(path);
  if (free < 0 || free >= need) return;
  throw IoError(what + ": No space left on device: the file system of '" + parent_dir(path) + "' has " + human(free) +
                    " free, and this write needs about " + human(need) + "; nothing of it was written",
                __FILE__, __LINE__);
}

std::string errno_text(int err) { return std::strerror(err); }

bool file_exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

void probe_creatable(const std::string& path, const std::string& what) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    throw IoError(what + ": cannot create " + path + " (" + errno_text(err) + ")", __FILE__, __LINE__);
  }
  ::close(fd);
}

void fsync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

std::string parent_dir(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void fsync_parent_dir(const std::string& path) {
  const int fd = ::open(parent_dir(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

void rename_file(const std::string& from, const std::string& to, const std::string& what) {
  if (std::rename(from.c_str(), to.c_str()) != 0) {
    const int err = errno;
    throw IoError(what + " '" + to + "': cannot rename " + from + " to it (" + errno_text(err) + ")", __FILE__,
                  __LINE__);
  }
  fsync_parent_dir(to);
}

void remove_quietly(const std::string& path) { (void)std::remove(path.c_str()); }

bool write_all(int fd, const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return false;
    }
    c += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace adi::io::detail

namespace adi::io {

std::string disk_space_note(const std::string& path, double need, const std::string& message) {
  return detail::space_note(path, need, message);
}

}  // namespace adi::io
