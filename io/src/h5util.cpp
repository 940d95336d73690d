// HDF5 helpers of the io module (see h5util.hpp).

#include "h5util.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>

namespace adi::io::detail {

void init_hdf5() {
  static const bool done = [] {
    // No H5_term_library at exit: after a write that failed (disk full,
    // file too large) HDF5 1.10 cannot close that file, and its exit handler
    // then crashes closing it again. Every file is closed explicitly (RAII),
    // so the handler has nothing left to do. Only effective before the
    // library's first use, which is why every io entry point calls this first.
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)done;
}

namespace {
herr_t walk_innermost(unsigned n, const H5E_error2_t* e, void* data) {
  auto* out = static_cast<std::string*>(data);
  // Walking upward, n == 0 is the innermost entry: the root cause.
  if (n == 0 && e && e->desc) *out = e->desc;
  return 0;
}
}  // namespace

std::string hdf5_error_text() {
  std::string text;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_innermost, &text);
  H5Eclear2(H5E_DEFAULT);
  // HDF5 messages sometimes end with a newline or carry one inside.
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  // System-call failures come as "file write failed: time = ..., filename =
  // ..., errno = 27, error message = 'File too large', buf = ..."; keep what
  // a user can act on: "file write failed: File too large (errno 27)".
  const auto m = text.find("error message = '");
  if (m != std::string::npos) {
    const auto m0 = m + 17, m1 = text.find('\'', m0);
    std::string short_text = text.substr(0, text.find(':')) + ": " + text.substr(m0, m1 - m0);
    const auto e = text.find("errno = ");
    if (e != std::string::npos) short_text += " (errno " + text.substr(e + 8, text.find(',', e) - e - 8) + ")";
    return short_text;
  }
  return text;
}

std::string open_failure_words(const std::string& h5) {
  // HDF5 locks a file that a program has open for writing (a running job,
  // an open h5py session): "unable to lock file, errno = 11 ... Resource
  // temporarily unavailable". (Not every "lock" is one: a truncated file's
  // message names the superblock, "sblock".)
  if (h5.find("unable to lock") != std::string::npos || h5.find("Resource temporarily unavailable") != std::string::npos)
    return "the file is locked by another program that has it open for writing (HDF5 file locking; a running job "
           "or an open h5py/ParaView session?); close it first, or set HDF5_USE_FILE_LOCKING=FALSE to read it "
           "anyway (HDF5: " + h5 + ")";
  if (h5.find("truncated file") != std::string::npos)
    return "the file is truncated or damaged: it is shorter than its HDF5 superblock says (a copy or transfer that did not "
           "finish?) (HDF5: " + h5 + ")";
  return "the file is truncated or damaged" + (h5.empty() ? std::string() : " (HDF5: " + h5 + ")");
}

void throw_hdf5(const std::string& context, const std::string& what, const char* file, int line) {
  const std::string h5 = hdf5_error_text();
  const std::string msg = context + ": " + what + (h5.empty() ? "" : " (HDF5: " + h5 + ")");
  note_error(msg);
  throw IoError(msg, file, line);
}

namespace {
std::mutex g_note_mutex;
std::string g_note;
}  // namespace

void note_error(const std::string& message) {
  std::lock_guard<std::mutex> lock(g_note_mutex);
  if (g_note.empty()) g_note = message.empty() ? std::string("an HDF5 call failed") : message;
}

H5Id open_group(hid_t loc, const std::string& name, const std::string& context) {
  return H5Id(ADI_H5_CHECK(H5Gopen2(loc, name.c_str(), H5P_DEFAULT), context, "cannot open group " + name),
              H5Gclose);
}

H5Id create_group(hid_t loc, const std::string& name, const std::string& context) {
  return H5Id(ADI_H5_CHECK(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), context,
                           "cannot create group " + name),
              H5Gclose);
}

bool path_exists(hid_t file, const std::string& path) {
  if (path.empty()) return false;
  if (path == "/") return true;
  std::string prefix;
  std::size_t pos = path[0] == '/' ? 1 : 0;
  if (path[0] == '/') prefix = "/";
  while (pos <= path.size()) {
    const std::size_t next = path.find('/', pos);
    const std::string part = path.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    if (!part.empty()) {
      prefix += (prefix.empty() || prefix.back() == '/' ? "" : "/") + part;
      const htri_t e = H5Lexists(file, prefix.c_str(), H5P_DEFAULT);
      if (e <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return false;
      }
    }
    if (next == std::string::npos) break;
    pos = next + 1;
  }
  return true;
}

std::vector<std::string> member_names(hid_t group, const std::string& context, const std::string& what) {
  H5G_info_t info;
  ADI_H5_CHECK(H5Gget_info(group, &info), context, "cannot list " + what);
  std::vector<std::string> out;
  for (hsize_t q = 0; q < info.nlinks; ++q) {
    char name[256];
    ADI_H5_CHECK(H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, q, name, sizeof name, H5P_DEFAULT),
                 context, "cannot list " + what);
    out.emplace_back(name);
  }
  return out;
}

namespace {
void collect_datasets(hid_t group, const std::string& prefix, std::vector<std::string>& out, std::size_t limit,
                      int depth) {
  H5G_info_t info;
  if (depth > 8 || H5Gget_info(group, &info) < 0) return;
  for (hsize_t q = 0; q < info.nlinks && out.size() < limit; ++q) {
    char name[512];
    if (H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, q, name, sizeof name, H5P_DEFAULT) < 0) continue;
    const hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
    if (obj < 0) continue;
    const H5I_type_t t = H5Iget_type(obj);
    const std::string path = prefix + "/" + name;
    if (t == H5I_DATASET) out.push_back(path);
    if (t == H5I_GROUP) collect_datasets(obj, path, out, limit, depth + 1);
    H5Oclose(obj);
  }
}
}  // namespace

std::vector<std::string> list_datasets(hid_t file, std::size_t limit) {
  std::vector<std::string> out;
  collect_datasets(file, "", out, limit, 0);
  H5Eclear2(H5E_DEFAULT);
  return out;
}

// ---- attributes ----------------------------------------------------------------

namespace {
H5Id string_type() {
  H5Id t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t.get(), H5T_VARIABLE);
  H5Tset_cset(t.get(), H5T_CSET_UTF8);
  return t;
}

void write_attr_raw(hid_t obj, const char* name, hid_t ftype, hid_t mtype, hsize_t n, const void* data,
                    const std::string& context) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  H5Id space = n == 0 ? H5Id(H5Screate(H5S_SCALAR), H5Sclose) : H5Id(H5Screate_simple(1, &n, nullptr), H5Sclose);
  H5Id a(ADI_H5_CHECK(H5Acreate2(obj, name, ftype, space.get(), H5P_DEFAULT, H5P_DEFAULT), context,
                      std::string("cannot create attribute ") + name),
         H5Aclose);
  ADI_H5_CHECK(H5Awrite(a.get(), mtype, data), context, std::string("cannot write attribute ") + name);
}

H5Id open_attr(hid_t obj, const char* name, const std::string& context) {
  if (H5Aexists(obj, name) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw IoError(context + ": attribute '" + name + "' is missing", __FILE__, __LINE__);
  }
  return H5Id(ADI_H5_CHECK(H5Aopen(obj, name, H5P_DEFAULT), context, std::string("cannot open attribute ") + name),
              H5Aclose);
}

hssize_t attr_points(hid_t attr) {
  H5Id space(H5Aget_space(attr), H5Sclose);
  return H5Sget_simple_extent_npoints(space.get());
}
}  // namespace

void write_attr(hid_t obj, const char* name, const std::string& value, const std::string& context) {
  const H5Id t = string_type();
  const char* p = value.c_str();
  write_attr_raw(obj, name, t.get(), t.get(), 0, &p, context);
}

void write_attr(hid_t obj, const char* name, double value, const std::string& context) {
  write_attr_raw(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &value, context);
}

void write_attr(hid_t obj, const char* name, long long value, const std::string& context) {
  write_attr_raw(obj, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, 0, &value, context);
}

void write_attr(hid_t obj, const char* name, const std::array<double, 3>& value, const std::string& context) {
  write_attr_raw(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, value.data(), context);
}

void write_attr(hid_t obj, const char* name, const std::array<long long, 3>& value, const std::string& context) {
  write_attr_raw(obj, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, 3, value.data(), context);
}

bool has_attr(hid_t obj, const char* name) {
  const htri_t e = H5Aexists(obj, name);
  if (e < 0) H5Eclear2(H5E_DEFAULT);
  return e > 0;
}

std::string read_string_attr(hid_t obj, const char* name, const std::string& context) {
  H5Id a = open_attr(obj, name, context);
  H5Id ftype(H5Aget_type(a.get()), H5Tclose);
  if (H5Tget_class(ftype.get()) != H5T_STRING || attr_points(a.get()) != 1)
    throw IoError(context + ": attribute '" + std::string(name) + "' is not a string", __FILE__, __LINE__);
  if (H5Tis_variable_str(ftype.get()) > 0) {
    // Same character set as stored (HDF5 converts neither way between ASCII and UTF-8).
    const H5Id t(H5Tcopy(ftype.get()), H5Tclose);
    char* p = nullptr;
    ADI_H5_CHECK(H5Aread(a.get(), t.get(), &p), context, std::string("cannot read attribute ") + name);
    std::string s = p ? p : "";
    H5free_memory(p);
    return s;
  }
  const std::size_t size = H5Tget_size(ftype.get());
  std::string s(size, '\0');
  H5Id t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t.get(), size);
  ADI_H5_CHECK(H5Aread(a.get(), t.get(), s.data()), context, std::string("cannot read attribute ") + name);
  s.resize(std::strlen(s.c_str()));
  return s;
}

bool is_standard_number(hid_t type) {
  // Only the standard types (what numpy, h5py, MATLAB and adi3d write) are
  // converted. HDF5's soft conversions from exotic layouts (a 32-byte float,
  // a 3-byte integer, odd exponent fields) are where damaged files corrupted
  // memory inside the library in fuzzing, so such a type is refused, not read.
  static const hid_t* const kStandard[] = {
      &H5T_IEEE_F32LE, &H5T_IEEE_F32BE, &H5T_IEEE_F64LE, &H5T_IEEE_F64BE, &H5T_STD_I8LE,  &H5T_STD_I8BE,
      &H5T_STD_I16LE,  &H5T_STD_I16BE,  &H5T_STD_I32LE,  &H5T_STD_I32BE,  &H5T_STD_I64LE, &H5T_STD_I64BE,
      &H5T_STD_U8LE,   &H5T_STD_U8BE,   &H5T_STD_U16LE,  &H5T_STD_U16BE,  &H5T_STD_U32LE, &H5T_STD_U32BE,
      &H5T_STD_U64LE,  &H5T_STD_U64BE};
  const H5T_class_t cls = H5Tget_class(type);
  if (cls != H5T_FLOAT && cls != H5T_INTEGER) return false;
  for (const hid_t* t : kStandard)
    if (H5Tequal(type, *t) > 0) return true;
  H5Eclear2(H5E_DEFAULT);
  return false;
}

namespace {
/// Opens a numeric attribute of exactly `n` elements of a standard type
/// (integers only when `integers`), or throws naming what it holds instead.
H5Id open_number_attr(hid_t obj, const char* name, std::size_t n, bool integers, const std::string& context) {
  H5Id a = open_attr(obj, name, context);
  H5Id ftype(H5Aget_type(a.get()), H5Tclose);
  const H5T_class_t cls = H5Tget_class(ftype.get());
  const hssize_t count = attr_points(a.get());
  const bool numeric = cls == H5T_INTEGER || (!integers && cls == H5T_FLOAT);
  auto count_of = [](long long k, const char* what) { return std::to_string(k) + " " + what + (k == 1 ? "" : "s"); };
  if (!numeric || count != static_cast<hssize_t>(n))
    throw IoError(context + ": attribute '" + std::string(name) + "': expected " +
                      count_of(static_cast<long long>(n), integers ? "integer" : "number") + ", got " +
                      count_of(count, cls == H5T_INTEGER ? "integer"
                                      : cls == H5T_FLOAT ? "float"
                                                         : "non-numeric value"),
                  __FILE__, __LINE__);
  if (!is_standard_number(ftype.get()))
    throw IoError(context + ": attribute '" + std::string(name) + "': stored as a " +
                      std::to_string(8 * H5Tget_size(ftype.get())) + "-bit " +
                      (cls == H5T_FLOAT ? "float" : "integer") +
                      " of a non-standard layout; expected " +
                      (integers ? "an 8-64-bit integer" : "IEEE float32/float64 or an 8-64-bit integer"),
                  __FILE__, __LINE__);
  return a;
}
}  // namespace

std::vector<double> read_doubles_attr(hid_t obj, const char* name, std::size_t n, const std::string& context) {
  H5Id a = open_number_attr(obj, name, n, false, context);
  std::vector<double> v(n);
  ADI_H5_CHECK(H5Aread(a.get(), H5T_NATIVE_DOUBLE, v.data()), context, std::string("cannot read attribute ") + name);
  return v;
}

double read_double_attr(hid_t obj, const char* name, const std::string& context) {
  return read_doubles_attr(obj, name, 1, context)[0];
}

std::vector<long long> read_ints_attr(hid_t obj, const char* name, std::size_t n, const std::string& context) {
  H5Id a = open_number_attr(obj, name, n, true, context);
  // An unsigned 64-bit value past LLONG_MAX converts with an HDF5 range
  // exception (clipped): it is refused below as out of range, never wrapped.
  std::vector<long long> v(n);
  ADI_H5_CHECK(H5Aread(a.get(), H5T_NATIVE_LLONG, v.data()), context, std::string("cannot read attribute ") + name);
  return v;
}

long long read_int_attr(hid_t obj, const char* name, const std::string& context) {
  return read_ints_attr(obj, name, 1, context)[0];
}

void write_string_dataset(hid_t loc, const char* name, const std::string& value, const std::string& context) {
  // Fixed length (the string's own), UTF-8: parallel HDF5 cannot write
  // variable-length data, and a file has one layout however it was written.
  const H5Id t(H5Tcopy(H5T_C_S1), H5Tclose);
  ADI_H5_CHECK(H5Tset_size(t.get(), std::max<std::size_t>(1, value.size())), context, "cannot make a string type");
  ADI_H5_CHECK(H5Tset_strpad(t.get(), H5T_STR_NULLPAD), context, "cannot make a string type");
  ADI_H5_CHECK(H5Tset_cset(t.get(), H5T_CSET_UTF8), context, "cannot make a string type");
  H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Id d(ADI_H5_CHECK(H5Dcreate2(loc, name, t.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), context,
                      std::string("cannot create dataset ") + name),
         H5Dclose);
  std::string bytes = value;
  bytes.resize(std::max<std::size_t>(1, value.size()), '\0');
  ADI_H5_CHECK(H5Dwrite(d.get(), t.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), context,
               std::string("cannot write dataset ") + name);
}

std::string read_string_dataset(hid_t loc, const char* name, const std::string& context) {
  if (!path_exists(loc, name))
    throw IoError(context + ": dataset '" + std::string(name) + "' is missing", __FILE__, __LINE__);
  H5Id d(ADI_H5_CHECK(H5Dopen2(loc, name, H5P_DEFAULT), context, std::string("cannot open dataset ") + name),
         H5Dclose);
  H5Id ftype(H5Dget_type(d.get()), H5Tclose);
  H5Id space(H5Dget_space(d.get()), H5Sclose);
  if (H5Tget_class(ftype.get()) != H5T_STRING || H5Sget_simple_extent_type(space.get()) != H5S_SCALAR)
    throw IoError(context + ": dataset '" + std::string(name) + "' is not a string", __FILE__, __LINE__);
  const H5Id t(H5Tcopy(ftype.get()), H5Tclose);
  if (H5Tis_variable_str(ftype.get()) > 0) {  // as adi3d wrote it before parallel HDF5
    char* p = nullptr;
    ADI_H5_CHECK(H5Dread(d.get(), t.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &p), context,
                 std::string("cannot read dataset ") + name);
    std::string s = p ? p : "";
    H5free_memory(p);
    return s;
  }
  const std::size_t n = H5Tget_size(ftype.get());
  if (n == 0 || n > (std::size_t(1) << 30))
    throw IoError(context + ": dataset '" + std::string(name) + "' has an impossible string size", __FILE__, __LINE__);
  std::string s(n, '\0');
  ADI_H5_CHECK(H5Dread(d.get(), t.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, s.data()), context,
               std::string("cannot read dataset ") + name);
  s.resize(std::strlen(s.c_str()));  // null-padded
  return s;
}

hid_t file_type(Precision p) { return p == Precision::F32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE; }
hid_t mem_type(Precision p) { return p == Precision::F32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE; }

std::array<hsize_t, 3> chunk_shape(const std::array<index_t, 3>& n, std::size_t elem_bytes,
                                   std::size_t target_bytes) {
  // Dataset order (z, y, x). Whole rows always; as many rows, then planes, as
  // fit in the target, so a chunk is one contiguous slab of the field.
  const hsize_t nx = static_cast<hsize_t>(n[0]), ny = static_cast<hsize_t>(n[1]), nz = static_cast<hsize_t>(n[2]);
  const hsize_t row = std::max<hsize_t>(1, nx * elem_bytes);
  const hsize_t rows = std::clamp<hsize_t>(target_bytes / row, 1, ny);
  if (rows < ny) return {1, rows, nx};
  const hsize_t planes = std::clamp<hsize_t>(target_bytes / (row * ny), 1, nz);
  return {planes, ny, nx};
}

void chunk_extents(hid_t d, std::vector<ByteRange>& out, const std::string& context) {
  H5Id space(ADI_H5_CHECK(H5Dget_space(d), context, "cannot read a dataset's shape"), H5Sclose);
  H5Id dcpl(ADI_H5_CHECK(H5Dget_create_plist(d), context, "cannot read a dataset's layout"), H5Pclose);
  // A field (z, y, x), or a vector field (z, y, x, 3) whose chunks hold all
  // three components (the heat flux).
  hsize_t dims[4] = {0, 0, 0, 1}, chunk[4] = {1, 1, 1, 1};
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if ((rank != 3 && rank != 4) || H5Pget_layout(dcpl.get()) != H5D_CHUNKED ||
      H5Sget_simple_extent_dims(space.get(), dims, nullptr) != rank || H5Pget_chunk(dcpl.get(), rank, chunk) != rank ||
      (rank == 4 && chunk[3] != dims[3]))
    throw IoError(context + ": expected a chunked 3-D dataset", __FILE__, __LINE__);
  // By coordinate (a B-tree lookup each), not by index (a scan each).
  hsize_t at[4] = {0, 0, 0, 0};
  for (at[0] = 0; at[0] < dims[0]; at[0] += chunk[0])
    for (at[1] = 0; at[1] < dims[1]; at[1] += chunk[1])
      for (at[2] = 0; at[2] < dims[2]; at[2] += chunk[2]) {
        unsigned mask = 0;
        haddr_t addr = HADDR_UNDEF;
        hsize_t bytes = 0;
        ADI_H5_CHECK(H5Dget_chunk_info_by_coord(d, at, &mask, &addr, &bytes), context,
                     "cannot locate a chunk");
        if (addr != HADDR_UNDEF && bytes > 0) out.push_back({addr, bytes});
      }
}

void write_grid_group(hid_t file, const GridGeometry& g, const std::string& context) {
  H5Id grp = create_group(file, "grid", context);
  write_attr(grp.get(), "origin", g.origin, context);
  write_attr(grp.get(), "spacing", g.spacing, context);
  write_attr(grp.get(), "shape", std::array<long long, 3>{g.n[2], g.n[1], g.n[0]}, context);
  write_attr(grp.get(), "nodes", std::array<long long, 3>{g.n[0], g.n[1], g.n[2]}, context);
  write_attr(grp.get(), "axes",
             std::string("origin, spacing, nodes: x, y, z; shape and field datasets: (z, y, x), x fastest"),
             context);
  write_attr(grp.get(), "units", std::string("m"), context);
  if (g.stretched())
    write_attr(grp.get(), "stretched",
               std::array<long long, 3>{!g.coordinates[0].empty(), !g.coordinates[1].empty(), !g.coordinates[2].empty()},
               context);
  const char* names[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    std::vector<double> c(static_cast<std::size_t>(g.n[a]));
    for (index_t i = 0; i < g.n[a]; ++i) c[i] = g.origin[a] + static_cast<double>(i) * g.spacing[a];
    if (!g.coordinates[a].empty()) c = g.coordinates[a];  // a stretched axis: its own nodes
    const hsize_t len = c.size();
    H5Id space(H5Screate_simple(1, &len, nullptr), H5Sclose);
    H5Id d(ADI_H5_CHECK(H5Dcreate2(grp.get(), names[a], H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                                   H5P_DEFAULT),
                        context, std::string("cannot create /grid/") + names[a]),
           H5Dclose);
    ADI_H5_CHECK(H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, c.data()), context,
                 std::string("cannot write /grid/") + names[a]);
  }
}

GridGeometry read_grid_group(hid_t file, const std::string& context) {
  if (!path_exists(file, "/grid")) throw IoError(context + ": group /grid is missing", __FILE__, __LINE__);
  H5Id grp = open_group(file, "/grid", context);
  GridGeometry g;
  const auto o = read_doubles_attr(grp.get(), "origin", 3, context + ":/grid");
  const auto h = read_doubles_attr(grp.get(), "spacing", 3, context + ":/grid");
  const auto s = read_ints_attr(grp.get(), "shape", 3, context + ":/grid");
  for (int a = 0; a < 3; ++a) {
    // Checked here, before any size is computed from them: a damaged file's
    // values reach no arithmetic (a node count of 2^62 would overflow).
    if (!std::isfinite(o[a]) || !std::isfinite(h[a]) || !(h[a] > 0))
      throw IoError(context + ":/grid: origin and spacing must be finite with spacing > 0", __FILE__, __LINE__);
    if (s[2 - a] < 1 || s[2 - a] > kMaxAxisNodes)
      throw IoError(context + ":/grid: attribute 'shape': " + std::to_string(s[2 - a]) +
                        " nodes along an axis; expected 1 to " + std::to_string(kMaxAxisNodes),
                    __FILE__, __LINE__);
    g.origin[a] = o[a];
    g.spacing[a] = h[a];
    g.n[a] = static_cast<index_t>(s[2 - a]);
  }
  if (has_attr(grp.get(), "stretched")) {
    const auto st = read_ints_attr(grp.get(), "stretched", 3, context + ":/grid");
    const char* names[3] = {"x", "y", "z"};
    for (int a = 0; a < 3; ++a) {
      if (!st[a]) continue;
      const std::string ds = std::string("/grid/") + names[a];
      std::vector<double>& x = g.coordinates[a];
      x.resize(static_cast<std::size_t>(g.n[a]));
      H5Id d(ADI_H5_CHECK(H5Dopen2(file, ds.c_str(), H5P_DEFAULT), context, "cannot open " + ds), H5Dclose);
      H5Id space(H5Dget_space(d.get()), H5Sclose);
      hsize_t len = 0;
      if (H5Sget_simple_extent_ndims(space.get()) != 1 || H5Sget_simple_extent_dims(space.get(), &len, nullptr) != 1 ||
          len != x.size())
        throw IoError(context + ":" + ds + ": expected " + std::to_string(x.size()) + " coordinates", __FILE__,
                      __LINE__);
      ADI_H5_CHECK(H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data()), context,
                   "cannot read " + ds);
      for (std::size_t i = 0; i < x.size(); ++i)
        if (!std::isfinite(x[i]) || (i > 0 && !(x[i] > x[i - 1])))
          throw IoError(context + ":" + ds + ": coordinates must be finite and increase", __FILE__, __LINE__);
    }
  }
  return g;
}

}  // namespace adi::io::detail

namespace adi::io {

std::string io_error_note() {
  std::lock_guard<std::mutex> lock(detail::g_note_mutex);
  return detail::g_note;
}

void clear_io_error_note() {
  std::lock_guard<std::mutex> lock(detail::g_note_mutex);
  detail::g_note.clear();
}

bool hdf5_files_open() {
  detail::init_hdf5();
  return H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE) > 0;
}

}  // namespace adi::io
