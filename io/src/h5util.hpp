#pragma once
// Internal to the io module: RAII handles over the plain HDF5 C API, the
// error text of HDF5's error stack, attribute and dataset helpers (the
// file-system primitives behind atomic writes are fsutil.hpp's).
//
// Only the calls of the HDF5 1.10 API are used (Debian 12 ships 1.10.8); in
// particular no H5Literate/H5Oget_info, whose signatures changed in 1.12.

#include <adi/common.hpp>
#include <adi/io/hdf5.hpp>
#include <adi/io/provenance.hpp>

#include <hdf5.h>

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace adi::io::detail {

/// Owns one HDF5 identifier and closes it with the matching H5*close.
class H5Id {
 public:
  using Closer = herr_t (*)(hid_t);
  H5Id() = default;
  H5Id(hid_t id, Closer closer) : id_(id), close_(closer) {}
  H5Id(const H5Id&) = delete;
  H5Id& operator=(const H5Id&) = delete;
  H5Id(H5Id&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
  H5Id& operator=(H5Id&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
      close_ = o.close_;
    }
    return *this;
  }
  ~H5Id() { reset(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  /// Closes now; returns the HDF5 status (negative on failure).
  herr_t close() {
    herr_t r = 0;
    if (id_ >= 0 && close_) r = close_(id_);
    id_ = H5I_INVALID_HID;
    return r;
  }
  void reset() { (void)close(); }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

/// Once per process, before HDF5's first use: no exit handler (see the .cpp)
/// and no automatic printing of HDF5's error stack (we report one line
/// ourselves). Cheap; called at every io entry point.
void init_hdf5();

/// The innermost message of HDF5's current error stack (the one that says
/// what actually went wrong, e.g. "truncated file: eof = ...", or the errno
/// text of a failed write), then clears the stack. "" if the stack is empty.
std::string hdf5_error_text();

/// Throws IoError "<context>: <what> (HDF5: <stack text>)".
[[noreturn]] void throw_hdf5(const std::string& context, const std::string& what, const char* file, int line);

/// Checks an HDF5 return value (negative = failure).
#define ADI_H5_CHECK(expr, context, what)                                                   \
  ([&]() {                                                                                  \
    auto adi_h5_r_ = (expr);                                                                \
    if (adi_h5_r_ < 0) ::adi::io::detail::throw_hdf5((context), (what), __FILE__, __LINE__); \
    return adi_h5_r_;                                                                       \
  }())

H5Id open_group(hid_t loc, const std::string& name, const std::string& context);
H5Id create_group(hid_t loc, const std::string& name, const std::string& context);
/// True when every component of `path` exists as a link (so H5Oopen will not fail on a missing parent).
bool path_exists(hid_t file, const std::string& path);
/// The names of a group's members (links), in name order; a failure names `what`.
std::vector<std::string> member_names(hid_t group, const std::string& context, const std::string& what);
/// Paths of every dataset in the file (depth first, at most `limit`), for error messages.
std::vector<std::string> list_datasets(hid_t file, std::size_t limit = 12);

// ---- crash consistency of the output file (undo_vfd.cpp) ----
/// A file access property list with the journaling driver (sec2 plus an undo
/// journal at `journal` for every overwrite of committed bytes).
H5Id undo_fapl(const std::string& journal, const std::string& context);
/// After a successful H5Fflush of a file opened with undo_fapl: the state on
/// disk is consistent; the journal is dropped and this is the new state a
/// recovery returns to. Throws IoError if a write had failed.
void undo_commit(hid_t file, const std::string& context);
/// If `journal` exists: restores `path` to its last committed state and
/// removes the journal; returns whether there was anything to undo.
/// undo_recover onto `target`, a new copy of `path` (the journal and `path`
/// are left as they are; the caller checks the copy, then replaces `path`).
/// The journal must belong to `path` (device and inode), be an adi3d
/// journal of this version with a committed size and every checksum right;
/// otherwise IoError and nothing changed.
bool undo_recover_to(const std::string& path, const std::string& journal, const std::string& target);
bool undo_recover(const std::string& path, const std::string& journal);

/// A byte range of a file.
struct ByteRange {
  std::uint64_t addr = 0, len = 0;
};
/// The journal of a collective change (parallel HDF5, where no driver of
/// ours sits below the MPI-IO driver to journal each overwrite): the same
/// journal format, written in one go by one rank before the change, holding
/// every byte of `path` except `untouched` (raw data of datasets the change
/// never writes: the steps already in the file, which make up nearly all of
/// it). It goes to "<journal>.tmp" and is renamed into place, so it is whole
/// or absent. undo_recover() then restores the state of this moment.
void undo_snapshot(const std::string& path, const std::string& journal, std::vector<ByteRange> untouched,
                   const std::string& context);
/// Removes the journal: the state on disk is the committed one.
void undo_drop(const std::string& journal);
/// Appends the file extents of every allocated chunk of the chunked dataset `d`.
void chunk_extents(hid_t d, std::vector<ByteRange>& out, const std::string& context);

// Attributes. Strings are variable-length UTF-8; numbers are native.
void write_attr(hid_t obj, const char* name, const std::string& value, const std::string& context);
void write_attr(hid_t obj, const char* name, double value, const std::string& context);
void write_attr(hid_t obj, const char* name, long long value, const std::string& context);
void write_attr(hid_t obj, const char* name, const std::array<double, 3>& value, const std::string& context);
void write_attr(hid_t obj, const char* name, const std::array<long long, 3>& value, const std::string& context);
bool has_attr(hid_t obj, const char* name);
std::string read_string_attr(hid_t obj, const char* name, const std::string& context);
double read_double_attr(hid_t obj, const char* name, const std::string& context);
long long read_int_attr(hid_t obj, const char* name, const std::string& context);
/// Reads a numeric attribute of exactly `n` elements (a standard integer or float type) as doubles.
std::vector<double> read_doubles_attr(hid_t obj, const char* name, std::size_t n, const std::string& context);
/// Reads an integer attribute of exactly `n` elements (a standard integer type).
std::vector<long long> read_ints_attr(hid_t obj, const char* name, std::size_t n, const std::string& context);
/// True for the IEEE float32/float64 and 8-64-bit integer types (either byte
/// order): the only number types adi3d converts from a file.
bool is_standard_number(hid_t type);
/// The most nodes along one axis (the config's grid limit, io/src/config.cpp).
constexpr long long kMaxAxisNodes = 1LL << 24;
/// A variable-length string dataset (the resolved config).
void write_string_dataset(hid_t loc, const char* name, const std::string& value, const std::string& context);
std::string read_string_dataset(hid_t loc, const char* name, const std::string& context);

/// The file type of a run's field and its native memory type.
hid_t file_type(Precision p);
hid_t mem_type(Precision p);

/// The chunk shape (nz, ny, nx order) for a field: whole x rows, whole
/// planes where they fit, about `target_bytes` per chunk.
std::array<hsize_t, 3> chunk_shape(const std::array<index_t, 3>& n, std::size_t elem_bytes,
                                   std::size_t target_bytes = std::size_t(1) << 20);

/// Writes /grid: attributes origin and spacing (x, y, z), shape (nz, ny, nx)
/// and nodes (nx, ny, nz), and 1-D coordinate datasets x, y, z.
void write_grid_group(hid_t file, const GridGeometry& g, const std::string& context);
/// Reads /grid back (throws IoError naming `context` when absent or malformed).
GridGeometry read_grid_group(hid_t file, const std::string& context);

/// Writes a provenance group `name` under `loc`: one string attribute per
/// field and the resolved config as the string dataset `config`.
void write_provenance(hid_t loc, const std::string& name, const Provenance& p, const std::string& context);

/// Records the first HDF5 error this process meets (throw_hdf5 calls it), for
/// io_error_note().
void note_error(const std::string& message);

/// Why H5Fopen failed on an existing file, in words, from HDF5's error
/// text (consumed): "the file is locked by another program ...", "the file
/// is truncated ...", or "the file is damaged (HDF5: ...)".
std::string open_failure_words(const std::string& h5);

}  // namespace adi::io::detail
