// Reads of untrusted files in a child process first (see probe.hpp).

#include "h5util.hpp"

#include <adi/io/probe.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace adi::io {

namespace {
/// Virtual memory of this process in bytes (0 if unknown).
double vm_size() {
  std::ifstream f("/proc/self/statm");
  double pages = 0;
  f >> pages;
  return pages * static_cast<double>(::sysconf(_SC_PAGESIZE));
}
}  // namespace

void probe_in_child(const std::string& file, const std::string& what, const std::function<void()>& probe,
                    const ProbeLimits& limits) {
  if (!limits.isolate) return;
  const double timeout_s = limits.timeout_s, memory_bytes = limits.memory_bytes;
  detail::init_hdf5();  // before the fork, so both processes start alike
  int fds[2];
  if (::pipe(fds) != 0) return;  // cannot isolate: the parent's own read goes ahead
  std::fflush(nullptr);          // nothing buffered is written twice
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return;
  }
  if (pid == 0) {
    // The child: the write end of the pipe closes when it exits, however it
    // exits. _exit: no atexit handlers, no flushing of the parent's buffers.
    ::close(fds[0]);
    if (const double vm = vm_size(); vm > 0 && memory_bytes > 0) {
      const double cap = vm + memory_bytes;
      if (cap < 9e18) {
        const rlimit lim{static_cast<rlim_t>(cap), static_cast<rlim_t>(cap)};
        (void)::setrlimit(RLIMIT_AS, &lim);
      }
    }
    // The outcome goes up the pipe: "O" (the read succeeded) or "E" and the
    // error's message. An error is reported from here and the parent does not
    // repeat that read: the cap above may be what stopped it, and the parent
    // has no cap.
    std::string outcome = "O";
    try {
      probe();
    } catch (const Error& e) {
      outcome = std::string("E") + e.what();
    } catch (const std::bad_alloc&) {
      outcome = "E" + file + ": " + what +
                ": reading it needs more memory than its size allows for (the file is damaged or claims a huge size)";
    } catch (const std::exception& e) {
      outcome = "E" + file + ": " + what + ": cannot read it (" + e.what() + ")";
    } catch (...) {
      outcome = "E" + file + ": " + what + ": cannot read it";
    }
    const char* p = outcome.data();
    std::size_t left = std::min<std::size_t>(outcome.size(), 65536);
    while (left > 0) {
      const ssize_t w = ::write(fds[1], p, left);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;
      p += w;
      left -= static_cast<std::size_t>(w);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  // Read the outcome until end-of-file (the child has exited), at most timeout_s.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  bool finished = false;
  std::string outcome;
  for (;;) {
    const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) break;
    pollfd p{fds[0], POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min(left * 1000.0, 1e9)) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r > 0) {
      char buf[4096];
      const ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n > 0) outcome.append(buf, static_cast<std::size_t>(n));
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        finished = true;
        break;
      }
    }
  }
  ::close(fds[0]);
  if (!finished) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished)
    throw IoError(file + ": " + what + ": reading it did not finish within " + std::to_string(int(timeout_s)) +
                      " s (the HDF5 library hangs on it, or the file system does); the file may be damaged",
                  __FILE__, __LINE__);
  if (WIFSIGNALED(status))
    throw IoError(file + ": " + what + ": the HDF5 library crashed reading it (" +
                      std::string(strsignal(WTERMSIG(status))) +
                      "); the file is damaged (adi3d reads input files in a separate process first: "
                      "nothing was written)",
                  __FILE__, __LINE__);
  // A non-zero exit: the child's sanitizer runtime (in a checking build)
  // reported the crash and exited.
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || outcome.empty())
    throw IoError(file + ": " + what + ": the HDF5 library crashed reading it (exit status " +
                      std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                      "); the file is damaged (adi3d reads input files in a separate process first: "
                      "nothing was written)",
                  __FILE__, __LINE__);
  if (outcome[0] == 'E') throw IoError(outcome.substr(1), __FILE__, __LINE__);
}

}  // namespace adi::io
