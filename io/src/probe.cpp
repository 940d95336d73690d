// Reads of untrusted files in a child process first (see probe.hpp).

#include "fsutil.hpp"
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
#include <dlfcn.h>
#include <execinfo.h>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <ucontext.h>
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
// Which layer a crash of the probe's child was in. A damaged file may crash
// the HDF5 library (that is what the child is for), but a crash in adi3d's
// own reader is a bug that must not pass as "HDF5 crashed". The child's
// handler for the crash signals finds the code that faulted: the faulting
// instruction, then the frames above it, skipping the C/C++ runtime and the
// sanitizer runtime (a memcpy that faults is blamed on its caller), and names
// the shared object: libhdf5* is HDF5, anything else (adi3d's executable or
// its libraries) is adi3d. It writes "C" and that name up the outcome pipe
// (which carries nothing else until the probe returns), then puts back the
// previous handler and returns, so the fault happens again and ends the
// child as before (or a sanitizer's handler reports it).
int g_outcome_fd = -1;
constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction g_previous[sizeof(kCrashSignals) / sizeof(kCrashSignals[0])];

bool is_runtime(const char* path) {
  static const char* const runtimes[] = {"/libc.", "/libc-", "/libstdc++", "/libgcc_s", "/ld-linux", "/libm.",
                                         "/libpthread", "/libasan", "/libubsan", "/libclang_rt", "linux-vdso"};
  for (const char* r : runtimes)
    if (std::strstr(path, r)) return true;
  return false;
}

/// A frame of a runtime: in a runtime's shared object, or a sanitizer
/// interceptor or runtime function linked into the executable itself (clang
/// links ASan's runtime statically: a memcpy that faults inside HDF5 runs
/// through __interceptor_memcpy in the fuzz executable, and is HDF5's).
bool is_runtime_frame(const Dl_info& info) {
  if (!info.dli_fname || is_runtime(info.dli_fname)) return true;
  static const char* const prefixes[] = {"__interceptor_", "___interceptor_", "__asan", "__sanitizer", "__ubsan",
                                         "__lsan", "__interception"};
  if (info.dli_sname)
    for (const char* pre : prefixes)
      if (std::strncmp(info.dli_sname, pre, std::strlen(pre)) == 0) return true;
  return false;
}

void write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void* faulting_pc(void* context) {
#if defined(__x86_64__)
  return reinterpret_cast<void*>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return reinterpret_cast<void*>(static_cast<ucontext_t*>(context)->uc_mcontext.pc);
#else
  (void)context;
  return nullptr;
#endif
}

extern "C" void probe_crash_handler(int sig, siginfo_t*, void* context) {
  // Not async-signal-safe in the strict sense (backtrace, dladdr); the child
  // is dying and keeps nothing, and the worst case is no layer reported.
  void* frames[64];
  const int n = ::backtrace(frames, 64);
  void* const pc = faulting_pc(context);
  int from = 0;
  for (int i = 0; i < n; ++i)
    if (frames[i] == pc) {
      from = i;
      break;
    }
  // The first non-runtime frames from the fault upwards: HDF5 if libhdf5 is
  // among the first three (a fault in a memcpy that HDF5 called may show an
  // interceptor of a sanitizer linked into the executable in between, whose
  // symbol dladdr may not name), else the first one's object.
  const char* object = nullptr;
  const char* hdf5 = nullptr;
  int seen = 0;
  Dl_info info;
  auto consider = [&](const Dl_info& fi) {
    if (seen == 0) object = fi.dli_fname;
    const char* b = std::strrchr(fi.dli_fname, '/');
    b = b ? b + 1 : fi.dli_fname;
    if (!hdf5 && std::strstr(b, "libhdf5") == b) hdf5 = fi.dli_fname;
    ++seen;
  };
  if (from == 0 && pc && ::dladdr(pc, &info) && !is_runtime_frame(info)) consider(info);
  for (int i = from; seen < 3 && i < n; ++i)
    if (::dladdr(frames[i], &info) && !is_runtime_frame(info) &&
        reinterpret_cast<void*>(&probe_crash_handler) != info.dli_saddr)
      consider(info);
  if (hdf5) object = hdf5;
  if (object && g_outcome_fd >= 0) {
    const char* base = std::strrchr(object, '/');
    base = base ? base + 1 : object;
    write_all(g_outcome_fd, "C", 1);
    write_all(g_outcome_fd, std::strstr(base, "libhdf5") == base ? "hdf5 " : "adi3d ", std::strstr(base, "libhdf5") == base ? 5 : 6);
    write_all(g_outcome_fd, base, std::strlen(base));
    g_outcome_fd = -1;  // one report
  }
  for (std::size_t s = 0; s < sizeof(kCrashSignals) / sizeof(kCrashSignals[0]); ++s)
    if (kCrashSignals[s] == sig) ::sigaction(sig, &g_previous[s], nullptr);
}

void install_crash_handlers(int fd) {
  g_outcome_fd = fd;
  for (std::size_t s = 0; s < sizeof(kCrashSignals) / sizeof(kCrashSignals[0]); ++s) {
    struct sigaction sa {};
    sa.sa_sigaction = probe_crash_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    ::sigaction(kCrashSignals[s], &sa, &g_previous[s]);
  }
}

/// "hdf5 <object>", "adi3d <object>" or "" (no report: the handler did not
/// run, e.g. SIGKILL, or found no frame) from the child's crash report.
std::string crash_layer(const std::string& outcome) {
  return !outcome.empty() && outcome[0] == 'C' ? outcome.substr(1) : std::string();
}
}  // namespace

void probe_in_child(const std::string& file, const std::string& what, const std::function<void()>& probe,
                    const ProbeLimits& limits) {
  if (!limits.isolate) return;
  (void)probe_result_in_child(
      file, what,
      [&] {
        probe();
        return std::string();
      },
      limits);
}

std::string probe_result_in_child(const std::string& file, const std::string& what,
                                  const std::function<std::string()>& probe, const ProbeLimits& limits) {
  if (!limits.isolate) return probe();
  const double timeout_s = limits.timeout_s, memory_bytes = limits.memory_bytes;
  detail::init_hdf5();  // before the fork, so both processes start alike
  int fds[2];
  if (::pipe(fds) != 0) return probe();  // cannot isolate: read here
  std::fflush(nullptr);          // nothing buffered is written twice
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return probe();
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
    install_crash_handlers(fds[1]);
    try {
      outcome += probe();
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
    g_outcome_fd = -1;  // the probe returned: no crash report after this
    write_all(fds[1], outcome.data(), std::min<std::size_t>(outcome.size(), 65536));
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
  // A crash reported in adi3d's own code is a bug of adi3d's, not a damaged
  // file that HDF5 could not cope with: say so (still exit 3, nothing written).
  const std::string layer = crash_layer(outcome);
  // "the crash was in libhdf5_serial.so.103; " when the child said so.
  const std::string where = layer.rfind("hdf5 ", 0) == 0 ? "the crash was in " + layer.substr(5) + "; " : "";
  if (layer.rfind("adi3d ", 0) == 0 && (WIFSIGNALED(status) || !WIFEXITED(status) || WEXITSTATUS(status) != 0))
    throw IoError(file + ": " + what + ": adi3d's own reader crashed reading it (" +
                      (WIFSIGNALED(status) ? std::string(strsignal(WTERMSIG(status)))
                                           : "exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1)) +
                      " in " + layer.substr(6) +
                      "): a bug in adi3d, please report it with the file (adi3d reads input files in a separate "
                      "process first: nothing was written)",
                  __FILE__, __LINE__);
  if (WIFSIGNALED(status))
    throw IoError(file + ": " + what + ": the HDF5 library crashed reading it (" +
                      std::string(strsignal(WTERMSIG(status))) +
                      "); the file is damaged (" + where +
                      "adi3d reads input files in a separate process first: nothing was written)",
                  __FILE__, __LINE__);
  // A non-zero exit: the child's sanitizer runtime (in a checking build)
  // reported the crash and exited.
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || outcome.empty() || !layer.empty())
    throw IoError(file + ": " + what + ": the HDF5 library crashed reading it (exit status " +
                      std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                      "); the file is damaged (" + where +
                      "adi3d reads input files in a separate process first: nothing was written)",
                  __FILE__, __LINE__);
  if (outcome[0] == 'E') throw IoError(outcome.substr(1), __FILE__, __LINE__);
  return outcome.substr(1);
}

}  // namespace adi::io
