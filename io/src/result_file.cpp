// Result files of bench / validate: refuse what exists, write new ones
// through a temporary (see result_file.hpp).
#include <adi/io/result_file.hpp>

#include <adi/io/hdf5.hpp>
#include <adi/io/lock.hpp>

#include "fsutil.hpp"
#include "h5util.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>

namespace adi::io {

namespace {

enum class Target { Stdout, Stream, New, Replace };

struct Resolved {
  Target kind = Target::Stdout;
  std::string file;  ///< the file to write: `path`, or the file a symbolic link names
  mode_t mode = 0644;
};

[[noreturn]] void refuse(const std::string& path, const std::string& what, const std::string& why) {
  throw IoError(what + " file '" + path + "' " + why, __FILE__, __LINE__);
}

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a folder";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

/// The first non-blank byte of a regular file, or 0 for an empty (or blank)
/// one; -1 if it cannot be read.
int first_byte(const std::string& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[4096];
  int found = 0;
  for (;;) {
    const ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) found = -1;
    if (r <= 0) break;
    for (ssize_t i = 0; i < r && !found; ++i)
      if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && buf[i] != '\r')
        found = static_cast<unsigned char>(buf[i]);
    if (found) break;
  }
  ::close(fd);
  return found;
}

Resolved resolve(const std::string& path, const std::string& what, bool overwrite) {
  if (path == "-") return {Target::Stdout, "", 0};
  if (path.empty()) throw IoError(what + ": expected a file name (or '-' for stdout), got ''", __FILE__, __LINE__);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err != ENOENT) refuse(path, what, "cannot be inspected (" + detail::errno_text(err) + "); nothing was written");
    struct stat lst;
    if (::lstat(path.c_str(), &lst) == 0)
      refuse(path, what,
             "is a symbolic link to a file that does not exist; adi3d creates no file through a dangling link: "
             "name the file itself; nothing was written");
    // Checked now, not after minutes of work: the folder takes a new file.
    const std::string dir = detail::parent_dir(path);
    struct stat ds;
    if (::stat(dir.c_str(), &ds) != 0) {
      const int derr = errno;
      refuse(path, what, "cannot be created: folder '" + dir + "' (" + detail::errno_text(derr) + ")");
    }
    if (!S_ISDIR(ds.st_mode)) refuse(path, what, "cannot be created: '" + dir + "' is not a folder");
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
      const int derr = errno;
      refuse(path, what, "cannot be created in folder '" + dir + "' (" + detail::errno_text(derr) + ")");
    }
    return {Target::New, path, 0644};
  }
  // A character device or a pipe is where the user streams the text to.
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return {Target::Stream, path, 0};
  if (!S_ISREG(st.st_mode))
    refuse(path, what, std::string("exists and is ") + kind_of(st.st_mode) + "; expected a file name");
  if (!overwrite)
    refuse(path, what, "exists; pass --overwrite to replace it, or choose another name; nothing was written");
  const int b = first_byte(path);
  if (b < 0) refuse(path, what, "exists and cannot be read (" + detail::errno_text(errno) + "); nothing was written");
  if (b != 0 && b != '{')
    refuse(path, what,
           "exists and is not a JSON document; --overwrite replaces only a JSON file (an earlier run's result), "
           "not an HDF5 output, a config or other data: choose another name; nothing was written");
  // Through a symbolic link the file it names is replaced, not the link.
  char real[PATH_MAX];
  if (!::realpath(path.c_str(), real))
    refuse(path, what, "cannot be resolved (" + detail::errno_text(errno) + "); nothing was written");
  return {Target::Replace, real, st.st_mode & 07777};
}

void write_stream(const std::string& path, const std::string& text, const std::string& what) {
  const bool to_stdout = path == "-";
  std::FILE* f = to_stdout ? stdout : std::fopen(path.c_str(), "w");
  if (!f) throw IoError(path + ": cannot write the " + what + " (" + detail::errno_text(errno) + ")", __FILE__, __LINE__);
  errno = 0;
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fflush(f) == 0 && ok;
  const int err = errno;
  if (!to_stdout) ok = std::fclose(f) == 0 && ok;
  if (!ok)
    throw IoError((to_stdout ? std::string("stdout") : path) + ": cannot write the " + what + " (" +
                      detail::errno_text(err ? err : EIO) + ")",
                  __FILE__, __LINE__);
}

}  // namespace

void check_result_file(const std::string& path, const std::string& what, bool overwrite) {
  (void)resolve(path, what, overwrite);
}

void write_result_file(const std::string& path, const std::string& text, const std::string& what, bool overwrite) {
  const Resolved r = resolve(path, what, overwrite);
  if (r.kind == Target::Stdout || r.kind == Target::Stream) return write_stream(path, text, what);
  const std::string tmp = unique_temp_path(r.file);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, r.mode);
  if (fd < 0) {
    const int err = errno;
    refuse(path, what, "cannot be written: cannot create " + tmp + " (" + detail::errno_text(err) + ")");
  }
  bool ok = detail::write_all(fd, text.data(), text.size()) && ::fsync(fd) == 0;
  int err = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) ok = false, err = errno;
  if (!ok) {
    ::unlink(tmp.c_str());
    throw IoError(path + ": cannot write the " + what + " (" + detail::errno_text(err ? err : EIO) +
                      "); nothing was written",
                  __FILE__, __LINE__);
  }
  if (r.kind == Target::Replace) {
    if (std::rename(tmp.c_str(), r.file.c_str()) != 0) {
      err = errno;
      ::unlink(tmp.c_str());
      refuse(path, what, "cannot be replaced (" + detail::errno_text(err) + "); it was left as it was");
    }
  } else {
    // link(2) fails if the name was taken meanwhile (another program's file
    // stays); where the file system has no hard links, rename after a check.
    if (::link(tmp.c_str(), r.file.c_str()) != 0) {
      err = errno;
      const bool no_links = err == EPERM || err == EOPNOTSUPP || err == ENOSYS || err == EMLINK;
      struct stat st;
      if (no_links && ::lstat(r.file.c_str(), &st) != 0 && std::rename(tmp.c_str(), r.file.c_str()) == 0) {
        detail::fsync_parent_dir(r.file);
        return;
      }
      ::unlink(tmp.c_str());
      if (err == EEXIST || no_links)
        refuse(path, what, "was created by another program while this command ran; it was left as it was, "
                           "and nothing was written");
      refuse(path, what, "cannot be created (" + detail::errno_text(err) + "); nothing was written");
    }
    ::unlink(tmp.c_str());
  }
  detail::fsync_parent_dir(r.file);
}

}  // namespace adi::io
