// Reads of untrusted files in a child process first (see probe.hpp).

#include "h5util.hpp"

#include <adi/io/probe.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <iterator>
#include <sstream>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <poll.h>
#include <sys/prctl.h>
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
    // A damaged file can make HDF5 loop for ever: the limit is CPU time
    // (SIGXCPU ends the child), so a process that is stopped or suspended
    // (SIGSTOP, ^Z, a suspended job) or waits for a slow disk is not taken
    // for a hang. The signals that stop a run are the parent's to handle.
    if (timeout_s > 0 && timeout_s < 1e9) {
      const rlim_t cpu = static_cast<rlim_t>(std::ceil(timeout_s));
      const rlimit lim{cpu, cpu + 5};
      (void)::setrlimit(RLIMIT_CPU, &lim);
    }
    for (const int sig : {SIGTERM, SIGINT, SIGUSR1, SIGHUP}) ::signal(sig, SIG_IGN);
    (void)::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives a killed parent
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
  // Read the outcome until end-of-file (the child has exited). The child's
  // CPU time is limited (above); the wall clock only backs that up, for a
  // file system that does not answer: generously, and not counting time in
  // which this process itself did not run (the job was suspended).
  const double wall_s = std::max(3.0 * timeout_s, timeout_s + 30.0);
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::duration<double>(wall_s);
  bool finished = false;
  std::string outcome;
  for (;;) {
    const auto now = Clock::now();
    const double left = std::chrono::duration<double>(deadline - now).count();
    if (left <= 0) break;
    if (limits.interrupted && limits.interrupted()) {
      ::close(fds[0]);
      ::kill(pid, SIGKILL);
      int st = 0;
      while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
      }
      throw ProbeInterrupted(file + ": " + what + ": reading it was interrupted", __FILE__, __LINE__);
    }
    const double slice = std::min(left, 0.2);
    pollfd p{fds[0], POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(slice * 1000.0) + 1);
    const double late = std::chrono::duration<double>(Clock::now() - now).count() - slice;
    if (late > 2.0) deadline += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(late));
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
  char state = '?';
  double cpu_s = -1;
  if (!finished) {
    // What the child was doing: /proc/PID/stat, field 3 the state, 14 and
    // 15 user and system time in clock ticks.
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const auto close_paren = text.rfind(')');
    if (close_paren != std::string::npos) {
      std::istringstream in(text.substr(close_paren + 2));
      std::string field[13];
      for (auto& x : field) in >> x;
      if (!field[0].empty()) state = field[0][0];
      if (!field[11].empty() && !field[12].empty())
        cpu_s = (std::atof(field[11].c_str()) + std::atof(field[12].c_str())) / static_cast<double>(::sysconf(_SC_CLK_TCK));
    }
    ::kill(pid, SIGKILL);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished) {
    char used[96] = "";
    if (cpu_s >= 0) std::snprintf(used, sizeof used, ", using %.1f s of CPU", cpu_s);
    const std::string limit = std::to_string(int(wall_s)) + " s";
    if (state == 'T' || state == 't')
      throw IoError(file + ": " + what + ": the process reading it (pid " + std::to_string(pid) +
                        ") was stopped (SIGSTOP or a suspend) and did not go on within " + limit +
                        "; the file is not known to be damaged: run again",
                    __FILE__, __LINE__);
    throw IoError(file + ": " + what + ": reading it did not finish within " + limit + " of wall time" + used +
                      " (waiting for the file system, state '" + std::string(1, state) +
                      "'); the file is not known to be damaged",
                  __FILE__, __LINE__);
  }
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
    throw IoError(file + ": " + what + ": reading it did not finish within " + std::to_string(int(std::ceil(timeout_s))) +
                      " s of CPU time (the HDF5 library loops on it); the file is damaged",
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
