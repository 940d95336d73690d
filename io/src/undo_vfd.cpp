// The undo journal behind the output file's crash consistency (docs/IO.md,
// "Why the output is written this way").
//
// HDF5 1.10 updates metadata in place when a step is added (the /steps
// group's symbol table and heap, the superblock's end of file): a process
// killed inside H5Fflush leaves a file that may not open, or whose /steps
// cannot be listed (tests/integration/py/test_faults.py kills adi3d at every
// write of an output file and found exactly that). HDF5 has no journal, so
// this file driver adds one, below HDF5: it is sec2 (the default driver,
// used through the public H5FD API) plus, for every write that overwrites a
// byte of the last committed state (offsets below the file size at the last
// commit), the old bytes appended to "<output>.journal" before the write.
// New data (a new step's chunks and metadata) goes past that size and is not
// journaled, so the journal holds a few KiB per step.
//
//   commit (after every successful H5Fflush; GridFile::commit): the file on
//     disk is consistent; the journal is deleted and the committed size is
//     the file's size;
//   recovery (undo_recover, run by a restart, by `adi3d recover`, and before
//     a failed file is moved aside): the old bytes are written back in
//     reverse order and the file is cut to the committed size: exactly the
//     state of the last commit, which the .xmf sidecar lists.
//
// Scope: the process dying (SIGKILL, the OOM killer, a time limit, a crash),
// which leaves what it wrote in the page cache. Nothing is fsync'ed per step,
// so a node crash or power loss can still lose the output's last steps or
// damage it; checkpoints are fsync'ed and remain the safe restart point.
//
// The driver writes a plain HDF5 file (no driver information in the
// superblock): h5py, ParaView and the default driver read it as any other.

#include "fsutil.hpp"
#include "h5util.hpp"

#include <adi/io/lock.hpp>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace adi::io::detail {

namespace {

constexpr char kMagic[16] = "adi3d-undo-v2\n";  // 14 characters + NUL, padded to 16

// Version 2 (issue #14): the journal names the file it belongs to (device
// and inode) and every part carries a checksum, so recovery never applies a
// journal to another file, nor damaged bytes.
struct JournalHeader {
  char magic[16];
  std::uint64_t committed;  // file size at the last commit
  std::uint64_t dev, ino;   // the output file's identity
  std::uint64_t sum;        // FNV-1a of the fields above
};
struct RecordHeader {
  std::uint64_t addr;
  std::uint64_t len;
  std::uint64_t sum;  // FNV-1a of addr, len and the bytes
};

std::uint64_t fnv(const void* p, std::size_t n, std::uint64_t h = 1469598103934665603ull) {
  const auto* c = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
  return h;
}
std::uint64_t header_sum(const JournalHeader& h) { return fnv(&h, offsetof(JournalHeader, sum)); }
std::uint64_t record_sum(std::uint64_t addr, std::uint64_t len, const void* bytes) {
  const std::uint64_t head[2] = {addr, len};
  return fnv(bytes, static_cast<std::size_t>(len), fnv(head, sizeof head));
}
JournalHeader make_header(std::uint64_t committed, int fd) {
  JournalHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.committed = committed;
  struct stat st{};
  if (::fstat(fd, &st) == 0) {
    h.dev = static_cast<std::uint64_t>(st.st_dev);
    h.ino = static_cast<std::uint64_t>(st.st_ino);
  }
  h.sum = header_sum(h);
  return h;
}

struct UndoFapl {
  char journal[4096];
};

struct UndoState {
  H5FD_t* inner = nullptr;  // the sec2 file doing the I/O
  int rfd = -1;             // the same file, to read old bytes (beyond HDF5's end of allocation too)
  std::string journal;
  int jfd = -1;             // the journal, open while there is something to undo
  haddr_t committed = 0;    // bytes below this belong to the last committed state
  bool writable = false;
  bool failed = false;      // a write failed: keep the journal for recovery
};

// Standard layout, H5FD_t first: HDF5 hands &pub to every callback.
struct UndoFile {
  H5FD_t pub;
  UndoState* st;
};

UndoState* self(H5FD_t* f) { return reinterpret_cast<UndoFile*>(f)->st; }
const UndoState* self(const H5FD_t* f) { return reinterpret_cast<const UndoFile*>(f)->st; }

bool read_all(int fd, void* p, std::size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t r = ::read(fd, c, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

/// Saves the committed bytes [addr, addr + len) before they are overwritten.
bool journal_old_bytes(UndoState* f, haddr_t addr, haddr_t len) {
  if (f->jfd < 0) {
    f->jfd = ::open(f->journal.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f->jfd < 0) return false;
    const JournalHeader h = make_header(f->committed, f->rfd);
    if (!write_all(f->jfd, &h, sizeof h)) return false;
  }
  std::vector<unsigned char> old(static_cast<std::size_t>(len));
  std::size_t got = 0;
  while (got < old.size()) {
    const ssize_t r = ::pread(f->rfd, old.data() + got, old.size() - got, static_cast<off_t>(addr + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return false;
    if (r == 0) break;  // past the end of the file: nothing there to restore
    got += static_cast<std::size_t>(r);
  }
  old.resize(got);
  len = got;
  const RecordHeader r{addr, len, record_sum(addr, len, old.data())};
  return write_all(f->jfd, &r, sizeof r) && write_all(f->jfd, old.data(), old.size());
}

H5FD_t* undo_open(const char* name, unsigned flags, hid_t fapl, haddr_t maxaddr) {
  const auto* info = static_cast<const UndoFapl*>(H5Pget_driver_info(fapl));
  if (!info) return nullptr;
  const hid_t inner_fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (inner_fapl < 0) return nullptr;
  H5Pset_fapl_sec2(inner_fapl);
  H5FD_t* inner = H5FDopen(name, flags, inner_fapl, maxaddr);
  H5Pclose(inner_fapl);
  if (!inner) return nullptr;
  auto* file = new (std::nothrow) UndoFile{};
  auto* f = new (std::nothrow) UndoState;
  if (!file || !f) {
    delete file;
    delete f;
    H5FDclose(inner);
    return nullptr;
  }
  file->st = f;
  f->inner = inner;
  f->rfd = ::open(name, O_RDONLY | O_CLOEXEC);
  f->journal = info->journal;
  f->writable = (flags & H5F_ACC_RDWR) != 0;
  // What is on disk now is the committed state (a new file: nothing).
  f->committed = H5FDget_eof(inner, H5FD_MEM_DEFAULT);
  if (f->committed == HADDR_UNDEF) f->committed = 0;
  return &file->pub;
}

herr_t undo_close(H5FD_t* file) {
  UndoState* f = self(file);
  const herr_t r = H5FDclose(f->inner);
  if (f->jfd >= 0) ::close(f->jfd);
  if (f->rfd >= 0) ::close(f->rfd);
  // Closed cleanly: HDF5 has written everything, the file is consistent.
  if (r >= 0 && !f->failed) ::unlink(f->journal.c_str());
  delete f;
  delete reinterpret_cast<UndoFile*>(file);
  return r;
}

int undo_cmp(const H5FD_t* a, const H5FD_t* b) { return H5FDcmp(self(a)->inner, self(b)->inner); }

herr_t undo_query(const H5FD_t*, unsigned long* flags) {
  // As sec2, except that the handle is ours, not a POSIX file descriptor.
  *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
           H5FD_FEAT_AGGREGATE_SMALLDATA | H5FD_FEAT_DEFAULT_VFD_COMPATIBLE;
  return 0;
}

haddr_t undo_get_eoa(const H5FD_t* f, H5FD_mem_t type) { return H5FDget_eoa(self(f)->inner, type); }
herr_t undo_set_eoa(H5FD_t* f, H5FD_mem_t type, haddr_t addr) { return H5FDset_eoa(self(f)->inner, type, addr); }
haddr_t undo_get_eof(const H5FD_t* f, H5FD_mem_t type) { return H5FDget_eof(self(f)->inner, type); }

herr_t undo_get_handle(H5FD_t* f, hid_t, void** handle) {
  *handle = self(f);  // the state, for undo_commit
  return 0;
}

herr_t undo_read(H5FD_t* f, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, void* buf) {
  return H5FDread(self(f)->inner, type, dxpl, addr, size, buf);
}

herr_t undo_write(H5FD_t* file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, const void* buf) {
  UndoState* f = self(file);
  if (f->writable && addr < f->committed) {
    const haddr_t len = std::min<haddr_t>(size, f->committed - addr);
    if (f->rfd < 0 || !journal_old_bytes(f, addr, len)) {
      f->failed = true;
      return -1;  // the committed state is not touched without its copy
    }
  }
  const herr_t r = H5FDwrite(f->inner, type, dxpl, addr, size, buf);
  if (r < 0) f->failed = true;
  return r;
}

herr_t undo_flush(H5FD_t* f, hid_t dxpl, hbool_t closing) { return H5FDflush(self(f)->inner, dxpl, closing); }

herr_t undo_truncate(H5FD_t* file, hid_t dxpl, hbool_t closing) {
  UndoState* f = self(file);
  // HDF5 sets the file's size to its end of allocation at every flush; that
  // can cut committed bytes (space freed at the end): journal them too.
  const haddr_t eoa = H5FDget_eoa(f->inner, H5FD_MEM_DEFAULT);
  if (f->writable && eoa != HADDR_UNDEF && eoa < f->committed) {
    const haddr_t eof = H5FDget_eof(f->inner, H5FD_MEM_DEFAULT);
    const haddr_t end = std::min(f->committed, eof);
    if (end > eoa && (f->rfd < 0 || !journal_old_bytes(f, eoa, end - eoa))) {
      f->failed = true;
      return -1;
    }
  }
  const herr_t r = H5FDtruncate(f->inner, dxpl, closing);
  if (r < 0) f->failed = true;
  return r;
}

herr_t undo_lock(H5FD_t* f, hbool_t rw) { return H5FDlock(self(f)->inner, rw); }
herr_t undo_unlock(H5FD_t* f) { return H5FDunlock(self(f)->inner); }

hid_t driver_id() {
  static const hid_t id = [] {
    static H5FD_class_t cls;
    std::memset(&cls, 0, sizeof cls);
#if H5_VERSION_GE(1, 13, 2)
    // HDF5 >= 1.13.2 versions the class and wants a value of its own
    // (256..511 are for drivers outside the library).
    cls.version = H5FD_CLASS_VERSION;
    cls.value = static_cast<H5FD_class_value_t>(317);
#endif
    cls.name = "adi3d_undo";
    cls.maxaddr = (static_cast<haddr_t>(1) << 62) - 1;
    cls.fc_degree = H5F_CLOSE_WEAK;
    cls.fapl_size = sizeof(UndoFapl);
    cls.open = undo_open;
    cls.close = undo_close;
    cls.cmp = undo_cmp;
    cls.query = undo_query;
    cls.get_eoa = undo_get_eoa;
    cls.set_eoa = undo_set_eoa;
    cls.get_eof = undo_get_eof;
    cls.get_handle = undo_get_handle;
    cls.read = undo_read;
    cls.write = undo_write;
    cls.flush = undo_flush;
    cls.truncate = undo_truncate;
    cls.lock = undo_lock;
    cls.unlock = undo_unlock;
    const H5FD_mem_t map[] = H5FD_FLMAP_DICHOTOMY;
    std::memcpy(cls.fl_map, map, sizeof map);
    return H5FDregister(&cls);
  }();
  return id;
}

}  // namespace


H5Id undo_fapl(const std::string& journal, const std::string& context) {
  init_hdf5();
  H5Id fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG);
  UndoFapl info{};
  const hid_t id = driver_id();
  if (id < 0 || journal.size() >= sizeof info.journal) {
    // An HDF5 whose driver interface this was not written for (or an absurd
    // path): the default driver, without the journal, rather than no output.
    H5Eclear2(H5E_DEFAULT);
    return fapl;
  }
  std::memcpy(info.journal, journal.c_str(), journal.size() + 1);
  ADI_H5_CHECK(H5Pset_driver(fapl.get(), id, &info), context, "cannot select the journaling file driver");
  return fapl;
}

void undo_commit(hid_t file, const std::string& context) {
  {
    const H5Id fapl(H5Fget_access_plist(file), H5Pclose);
    if (!fapl.valid() || H5Pget_driver(fapl.get()) != driver_id()) return;  // opened without the journal
  }
  void* handle = nullptr;
  ADI_H5_CHECK(H5Fget_vfd_handle(file, H5P_FILE_ACCESS_DEFAULT, &handle), context, "cannot reach the file driver");
  UndoState* f = static_cast<UndoState*>(handle);
  if (f->failed) throw IoError(context + ": a write failed before the commit", __FILE__, __LINE__);
  if (f->jfd >= 0) {
    ::close(f->jfd);
    f->jfd = -1;
  }
  ::unlink(f->journal.c_str());
  const haddr_t eof = H5FDget_eof(f->inner, H5FD_MEM_DEFAULT);
  if (eof != HADDR_UNDEF) f->committed = eof;
}

bool undo_recover(const std::string& path, const std::string& journal) {
  return undo_recover_to(path, journal, path);
}

bool undo_recover_to(const std::string& path, const std::string& journal, const std::string& target) {
  struct stat js{};
  if (::lstat(journal.c_str(), &js) != 0) return false;
  auto refuse = [&](const std::string& why) {
    throw IoError(path + ": the journal " + journal + " " + why + "; nothing was changed (move the journal away if "
                      "the file opens without it)",
                  __FILE__, __LINE__);
  };
  if (!S_ISREG(js.st_mode)) refuse("is not a regular file");
  const int jfd = ::open(journal.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (jfd < 0) refuse("cannot be opened (" + errno_text(errno) + ")");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } jc{jfd};
  JournalHeader h{};
  const ssize_t got = ::pread(jfd, &h, sizeof h, 0);
  if (got < static_cast<ssize_t>(sizeof h)) {
    // Killed while writing the header: nothing was overwritten yet. Only
    // an empty file or a prefix of a header is that; anything else is not
    // ours to delete.
    const std::size_t n = got > 0 ? static_cast<std::size_t>(got) : 0;
    if (std::memcmp(h.magic, kMagic, std::min(n, sizeof kMagic)) != 0) refuse("is not an adi3d journal");
    ::unlink(journal.c_str());
    return false;
  }
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0)
    refuse(std::memcmp(h.magic, kMagic, 12) == 0 ? "was written by another version of adi3d"
                                                  : "is not an adi3d journal");
  if (h.sum != header_sum(h)) refuse("is damaged (its header's checksum does not match)");
  struct stat fs_{};
  if (::stat(path.c_str(), &fs_) != 0) refuse("belongs to a file that cannot be read (" + errno_text(errno) + ")");
  if (!S_ISREG(fs_.st_mode)) refuse("belongs to no regular file");
  if (h.dev != static_cast<std::uint64_t>(fs_.st_dev) || h.ino != static_cast<std::uint64_t>(fs_.st_ino))
    refuse("belongs to another file (device/inode differ)");
  if (h.committed == 0) refuse("records a committed size of 0 (it is damaged)");
  struct Record {
    RecordHeader r;
    std::vector<unsigned char> bytes;
  };
  std::vector<Record> records;
  if (::lseek(jfd, static_cast<off_t>(sizeof h), SEEK_SET) < 0) refuse("cannot be read");
  for (;;) {
    Record rec;
    if (!read_all(jfd, &rec.r, sizeof rec.r)) break;
    if (rec.r.len > h.committed || rec.r.addr > h.committed - rec.r.len)
      refuse("is damaged (a record outside the committed size)");
    rec.bytes.resize(static_cast<std::size_t>(rec.r.len));
    // An incomplete last record: the process died writing it, before the
    // overwrite it was saving for.
    if (!read_all(jfd, rec.bytes.data(), rec.bytes.size())) break;
    if (rec.r.sum != record_sum(rec.r.addr, rec.r.len, rec.bytes.data()))
      refuse("is damaged (a record's checksum does not match)");
    records.push_back(std::move(rec));
  }
  if (target != path) {
    // Onto a copy: the caller checks the result before it replaces anything.
    const int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    const int out = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    bool ok = in >= 0 && out >= 0;
    std::vector<char> buf(std::size_t(1) << 20);
    while (ok) {
      const ssize_t r = ::read(in, buf.data(), buf.size());
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        ok = r == 0;
        break;
      }
      ok = write_all(out, buf.data(), static_cast<std::size_t>(r));
    }
    const int err = errno;
    if (in >= 0) ::close(in);
    if (out >= 0) ::close(out);
    if (!ok) {
      ::unlink(target.c_str());
      throw IoError(path + ": cannot copy it to " + target + " (" + errno_text(err) + "); nothing was changed",
                    __FILE__, __LINE__);
    }
  }
  const int fd = ::open(target.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    throw IoError(target + ": cannot open it to undo an interrupted write (" + errno_text(err) + "); the journal " +
                      journal + " is kept",
                  __FILE__, __LINE__);
  }
  struct Closer2 {
    int fd;
    ~Closer2() { ::close(fd); }
  } fc{fd};
  for (auto it = records.rbegin(); it != records.rend(); ++it) {
    const char* p = reinterpret_cast<const char*>(it->bytes.data());
    std::size_t n = it->bytes.size();
    off_t off = static_cast<off_t>(it->r.addr);
    while (n > 0) {
      const ssize_t w = ::pwrite(fd, p, n, off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        const int err = errno;
        throw IoError(path + ": cannot undo an interrupted write (" + errno_text(err) + "); the journal " + journal +
                          " is kept",
                      __FILE__, __LINE__);
      }
      p += w;
      n -= static_cast<std::size_t>(w);
      off += w;
    }
  }
  if (::ftruncate(fd, static_cast<off_t>(h.committed)) != 0) {
    const int err = errno;
    throw IoError(path + ": cannot undo an interrupted write (" + errno_text(err) + "); the journal " + journal +
                      " is kept",
                  __FILE__, __LINE__);
  }
  (void)::fsync(fd);
  if (target == path) ::unlink(journal.c_str());
  return true;
}

void undo_snapshot(const std::string& path, const std::string& journal, std::vector<ByteRange> untouched,
                   const std::string& context) {
  auto fail = [&](const std::string& what, int err) {
    throw IoError(context + ": cannot " + what + " (" + errno_text(err) + ")", __FILE__, __LINE__);
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("open " + path + " to journal it", errno);
  struct Closer {
    int fd;
    ~Closer() {
      if (fd >= 0) ::close(fd);
    }
  } fc{fd};
  struct stat st{};
  if (::fstat(fd, &st) != 0) fail("stat " + path, errno);
  const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
  // A unique name (not "<journal>.tmp", which may be a user's file), made
  // here and by nobody else (O_EXCL), removed if the snapshot fails.
  const std::string tmp = unique_temp_path(journal);
  Closer jc{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)};
  if (jc.fd < 0) fail("create " + tmp, errno);
  struct Remover {
    const std::string& path;
    bool armed = true;
    ~Remover() {
      if (armed) ::unlink(path.c_str());
    }
  } remove_tmp{tmp};
  const JournalHeader h = make_header(size, fd);
  if (!write_all(jc.fd, &h, sizeof h)) fail("write " + tmp, errno);
  std::sort(untouched.begin(), untouched.end(),
            [](const ByteRange& a, const ByteRange& b) { return a.addr < b.addr; });
  std::vector<unsigned char> buf;
  // Everything in [0, size) outside the untouched ranges, in records of at
  // most 1 MiB (in practice: the metadata, a few KiB per step).
  auto save = [&](std::uint64_t from, std::uint64_t to) {
    while (from < to) {
      const std::uint64_t n = std::min<std::uint64_t>(to - from, std::uint64_t(1) << 20);
      buf.resize(static_cast<std::size_t>(n));
      std::size_t got = 0;
      while (got < buf.size()) {
        const ssize_t r = ::pread(fd, buf.data() + got, buf.size() - got, static_cast<off_t>(from + got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) fail("read " + path + " to journal it", errno);
        if (r == 0) break;
        got += static_cast<std::size_t>(r);
      }
      const RecordHeader rec{from, got, record_sum(from, got, buf.data())};
      if (!write_all(jc.fd, &rec, sizeof rec) || !write_all(jc.fd, buf.data(), got)) fail("write " + tmp, errno);
      if (got < buf.size()) return;  // the file ended early (it cannot: it is not being written)
      from += n;
    }
  };
  std::uint64_t at = 0;
  for (const ByteRange& r : untouched) {
    if (r.addr > at) save(at, std::min(r.addr, size));
    at = std::max(at, r.addr + r.len);
    if (at >= size) break;
  }
  if (at < size) save(at, size);
  const int j = jc.fd;
  jc.fd = -1;
  if (::close(j) != 0) fail("write " + tmp, errno);
  if (::rename(tmp.c_str(), journal.c_str()) != 0) fail("rename " + tmp + " to " + journal, errno);
  remove_tmp.armed = false;
}

void undo_drop(const std::string& journal) { ::unlink(journal.c_str()); }

}  // namespace adi::io::detail

namespace adi::io {
std::string journal_path_for(const std::string& h5_path) { return h5_path + ".journal"; }
}  // namespace adi::io
