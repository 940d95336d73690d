// Fault injection for the integration tests: an LD_PRELOAD library that
// kills its process with SIGKILL at a chosen write to a chosen file, so a
// test can put a `kill -9` exactly inside an output or checkpoint write
// (a random kill rarely lands there) and check what is left on disk.
//
//   ADI_KILL_ON_WRITE=SUFFIX:N[:torn]
//     the N-th (1-based) write(2)/pwrite(2) to a file whose path ends with
//     SUFFIX kills the process: before the write, or with "torn" after
//     writing only the first half of its bytes (a torn write).
//   ADI_KILL_ON_RENAME=SUFFIX:N
//     the N-th rename(2) onto a path ending with SUFFIX kills the process
//     just before it (a temporary written and synced, not yet in place).
//   ADI_WRITE_COUNT_FILE=PATH
//     at exit, appends "SUFFIX COUNT" (the matching writes, or renames, seen)
//     to PATH, so a test can learn how many kill points a run has (one line
//     per process: every MPI rank of a run adds its own).
//
// write(2), writev(2), pwrite(2) and pwritev(2) are seen: what HDF5 1.10's
// default (sec2) driver, std::ofstream and Open MPI's MPI-IO use on Linux.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static char g_suffix[256];
static long g_target = -1;
static int g_torn = 0;
static int g_renames = 0;  // count renames instead of writes
static long g_count = 0;
static int g_ready = 0;

static void init(void) {
  if (g_ready) return;
  g_ready = 1;
  const char* spec = getenv("ADI_KILL_ON_WRITE");
  if (!spec || !*spec) {
    spec = getenv("ADI_KILL_ON_RENAME");
    g_renames = 1;
  }
  if (!spec || !*spec) return;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", spec);
  char* n = strchr(buf, ':');
  if (!n) return;
  *n++ = '\0';
  snprintf(g_suffix, sizeof g_suffix, "%s", buf);
  char* mode = strchr(n, ':');
  if (mode) {
    *mode++ = '\0';
    g_torn = strcmp(mode, "torn") == 0;
  }
  g_target = atol(n);
}

static int ends_with(const char* path, size_t len) {
  const size_t ls = strlen(g_suffix);
  return len >= ls && strcmp(path + len - ls, g_suffix) == 0;
}

static int matches(int fd) {
  if (!g_suffix[0] || g_renames) return 0;
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t len = readlink(link, path, sizeof path - 1);
  if (len <= 0) return 0;
  path[len] = '\0';
  return ends_with(path, (size_t)len);
}

typedef ssize_t (*write_fn)(int, const void*, size_t);
typedef ssize_t (*pwrite_fn)(int, const void*, size_t, off_t);

// Returns the number of bytes to really write (count, or half of it when the
// process dies after a torn write); kills the process when it is time.
static size_t before_write(int fd, size_t count, int* die_after) {
  init();
  *die_after = 0;
  if (!matches(fd)) return count;
  ++g_count;
  if (g_count != g_target) return count;
  if (!g_torn || count < 2) kill(getpid(), SIGKILL);
  *die_after = 1;
  return count / 2;
}

ssize_t write(int fd, const void* buf, size_t count) {
  static write_fn real;
  if (!real) real = (write_fn)dlsym(RTLD_NEXT, "write");
  int die = 0;
  const size_t n = before_write(fd, count, &die);
  const ssize_t r = real(fd, buf, n);
  if (die) kill(getpid(), SIGKILL);
  return r;
}

static ssize_t do_pwrite(const char* name, int fd, const void* buf, size_t count, off_t off) {
  pwrite_fn real = (pwrite_fn)dlsym(RTLD_NEXT, name);
  int die = 0;
  const size_t n = before_write(fd, count, &die);
  const ssize_t r = real(fd, buf, n, off);
  if (die) kill(getpid(), SIGKILL);
  return r;
}

// A torn vector write: the first n bytes of iov (at most 64 pieces) in part;
// returns the number of pieces.
static int torn_iov(const struct iovec* iov, int iovcnt, size_t n, struct iovec* part) {
  int m = 0;
  size_t left = n;
  for (int q = 0; q < iovcnt && q < 64 && left > 0; ++q, ++m) {
    part[m] = iov[q];
    if (part[m].iov_len > left) part[m].iov_len = left;
    left -= part[m].iov_len;
  }
  return m;
}

// std::ofstream hands large buffers to writev.
ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  typedef ssize_t (*writev_fn)(int, const struct iovec*, int);
  static writev_fn real;
  if (!real) real = (writev_fn)dlsym(RTLD_NEXT, "writev");
  size_t total = 0;
  for (int q = 0; q < iovcnt; ++q) total += iov[q].iov_len;
  int die = 0;
  const size_t n = before_write(fd, total, &die);
  if (!die) return real(fd, iov, iovcnt);
  struct iovec part[64];
  real(fd, part, torn_iov(iov, iovcnt, n, part));
  kill(getpid(), SIGKILL);
  return -1;
}

// Open MPI's MPI-IO (OMPIO, parallel HDF5) writes with pwritev too.
static ssize_t do_pwritev(const char* name, int fd, const struct iovec* iov, int iovcnt, off_t off) {
  typedef ssize_t (*pwritev_fn)(int, const struct iovec*, int, off_t);
  pwritev_fn real = (pwritev_fn)dlsym(RTLD_NEXT, name);
  size_t total = 0;
  for (int q = 0; q < iovcnt; ++q) total += iov[q].iov_len;
  int die = 0;
  const size_t n = before_write(fd, total, &die);
  if (!die) return real(fd, iov, iovcnt, off);
  struct iovec part[64];
  real(fd, part, torn_iov(iov, iovcnt, n, part), off);
  kill(getpid(), SIGKILL);
  return -1;
}
ssize_t pwritev(int fd, const struct iovec* iov, int iovcnt, off_t off) {
  return do_pwritev("pwritev", fd, iov, iovcnt, off);
}
ssize_t pwritev64(int fd, const struct iovec* iov, int iovcnt, off_t off) {
  return do_pwritev("pwritev64", fd, iov, iovcnt, off);
}

ssize_t pwrite(int fd, const void* buf, size_t count, off_t off) { return do_pwrite("pwrite", fd, buf, count, off); }
ssize_t pwrite64(int fd, const void* buf, size_t count, off_t off) {
  return do_pwrite("pwrite64", fd, buf, count, off);
}

int rename(const char* from, const char* to) {
  typedef int (*rename_fn)(const char*, const char*);
  static rename_fn real;
  if (!real) real = (rename_fn)dlsym(RTLD_NEXT, "rename");
  init();
  if (g_renames && g_suffix[0] && ends_with(to, strlen(to)) && ++g_count == g_target) kill(getpid(), SIGKILL);
  return real(from, to);
}

__attribute__((destructor)) static void report(void) {
  const char* out = getenv("ADI_WRITE_COUNT_FILE");
  if (!out || !*out || !g_suffix[0]) return;
  FILE* f = fopen(out, "a");
  if (!f) return;
  fprintf(f, "%s %ld\n", g_suffix, g_count);
  fclose(f);
}
