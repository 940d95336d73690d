// Reading initial fields from HDF5, and taking the grid geometry from them.

#include "fsutil.hpp"
#include "h5util.hpp"

#include <adi/io/hdf5.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <sys/stat.h>

namespace adi::io {

using detail::H5Id;

GridGeometry geometry_of(const RunConfig& c) {
  GridGeometry g;
  for (int a = 0; a < 3; ++a) {
    g.n[a] = c.problem.n[a];
    g.origin[a] = c.origin[a];
    g.spacing[a] = c.problem.spacing(a);
    if (c.problem.stretched(a))
      g.coordinates[a].assign(c.problem.coordinates[a].begin(),
                              c.problem.coordinates[a].begin() + static_cast<std::ptrdiff_t>(c.problem.n[a]));
  }
  return g;
}

namespace {

std::string fmt3(const std::array<double, 3>& v) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "(%.10g, %.10g, %.10g)", v[0], v[1], v[2]);
  return buf;
}

std::string shape_text(const std::array<index_t, 3>& n) {  // dataset order
  return "(" + std::to_string(n[2]) + ", " + std::to_string(n[1]) + ", " + std::to_string(n[0]) + ")";
}

/// Opens an existing file read-only with messages for the usual mistakes.
H5Id open_existing(const std::string& file, const std::string& what) {
  detail::init_hdf5();
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) {
    const int err = errno;
    throw IoError(file + ": cannot open " + what + " (" + detail::errno_text(err) + ")", __FILE__, __LINE__);
  }
  if (S_ISDIR(st.st_mode)) throw IoError(file + ": is a directory, expected an HDF5 file", __FILE__, __LINE__);
  detail::require_regular_input(file, what);
  const htri_t is = H5Fis_hdf5(file.c_str());
  if (is == 0) throw IoError(file + ": not an HDF5 file (no HDF5 signature)", __FILE__, __LINE__);
  if (is < 0) detail::throw_hdf5(file, "cannot read " + what, __FILE__, __LINE__);
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    // A lock (a running job's file) is not damage: say which it is.
    throw IoError(file + ": cannot open " + what + ": " + detail::open_failure_words(detail::hdf5_error_text()),
                  __FILE__, __LINE__);
  }
  return H5Id(f, H5Fclose);
}

std::optional<std::array<double, 3>> geometry_attr(hid_t obj, const char* name, const std::string& context) {
  if (!detail::has_attr(obj, name)) return std::nullopt;
  const auto v = detail::read_doubles_attr(obj, name, 3, context);
  std::array<double, 3> r{{v[0], v[1], v[2]}};
  for (double x : r)
    if (!std::isfinite(x))
      throw IoError(context + ": attribute '" + std::string(name) + "' holds NaN or Inf: " + fmt3(r), __FILE__,
                    __LINE__);
  return r;
}

bool close_to(double a, double b, double scale) { return std::fabs(a - b) <= 1e-9 * scale; }

}  // namespace

std::vector<double> read_vector(const std::string& file, const std::string& dataset) {
  H5Id f = open_existing(file, "coordinates");
  const std::string ctx = file + ":" + dataset;
  if (!detail::path_exists(f.get(), dataset)) throw IoError(file + ": dataset '" + dataset + "' not found", __FILE__, __LINE__);
  H5Id obj(ADI_H5_CHECK(H5Oopen(f.get(), dataset.c_str(), H5P_DEFAULT), ctx, "cannot open"), H5Oclose);
  if (H5Iget_type(obj.get()) != H5I_DATASET)
    throw IoError(ctx + ": is a group, expected a 1-D dataset of coordinates", __FILE__, __LINE__);
  obj.reset();
  H5Id d(ADI_H5_CHECK(H5Dopen2(f.get(), dataset.c_str(), H5P_DEFAULT), ctx, "cannot open dataset"), H5Dclose);
  H5Id type(H5Dget_type(d.get()), H5Tclose);
  const std::size_t size = H5Tget_size(type.get());
  if (H5Tget_class(type.get()) != H5T_FLOAT || (size != 4 && size != 8) || !detail::is_standard_number(type.get()))
    throw IoError(ctx + ": expected float32 or float64 coordinates", __FILE__, __LINE__);
  H5Id space(H5Dget_space(d.get()), H5Sclose);
  hsize_t dims[H5S_MAX_RANK];
  const int rank = H5Sget_simple_extent_ndims(space.get());
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  if (rank != 1 || dims[0] < 1 || dims[0] > static_cast<hsize_t>(detail::kMaxAxisNodes) + 1)
    throw IoError(ctx + ": expected a 1-D dataset of node coordinates, got rank " + std::to_string(rank) +
                      (rank == 1 ? " with " + std::to_string(dims[0]) + " values" : ""),
                  __FILE__, __LINE__);
  std::vector<double> v(static_cast<std::size_t>(dims[0]));
  ADI_H5_CHECK(H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), ctx, "cannot read");
  return v;
}

FieldInfo inspect_field(const std::string& file, const std::string& dataset, const std::string& what,
                        bool integers) {
  H5Id f = open_existing(file, what);
  const std::string ctx = file + ":" + dataset;
  if (!detail::path_exists(f.get(), dataset)) {
    const auto have = detail::list_datasets(f.get());
    std::string list;
    for (const auto& d : have) list += (list.empty() ? "" : ", ") + d;
    throw IoError(file + ": dataset '" + dataset + "' not found" +
                      (have.empty() ? " (the file holds no datasets)" : " (datasets in the file: " + list + ")"),
                  __FILE__, __LINE__);
  }
  H5Id obj(ADI_H5_CHECK(H5Oopen(f.get(), dataset.c_str(), H5P_DEFAULT), ctx, "cannot open"), H5Oclose);
  if (H5Iget_type(obj.get()) != H5I_DATASET)
    throw IoError(ctx + ": is a group, expected a dataset of shape (nz, ny, nx)", __FILE__, __LINE__);
  obj.reset();
  H5Id d(ADI_H5_CHECK(H5Dopen2(f.get(), dataset.c_str(), H5P_DEFAULT), ctx, "cannot open dataset"), H5Dclose);
  {
    // A compression filter this HDF5 cannot decode (LZF, Blosc, ... from
    // h5py or hdf5plugin) would fail every read as if the data were damaged:
    // name the filter at the header.
    H5Id dcpl(H5Dget_create_plist(d.get()), H5Pclose);
    const int nf = dcpl.get() >= 0 ? H5Pget_nfilters(dcpl.get()) : 0;
    for (int q = 0; q < nf; ++q) {
      unsigned flags = 0, config = 0;
      std::size_t nelem = 0;
      char name[64] = "";
      const H5Z_filter_t id = H5Pget_filter2(dcpl.get(), static_cast<unsigned>(q), &flags, &nelem, nullptr,
                                             sizeof name, name, &config);
      if (id < 0 || H5Zfilter_avail(id) > 0) continue;
      std::string label = name[0] ? std::string(name) : std::string("unnamed");
      if (id == 32000) label = "lzf";
      throw IoError(ctx + ": compressed with the HDF5 filter '" + printable(label, 40) + "' (id " + std::to_string(id) +
                        "), which this adi3d's HDF5 cannot decode; rewrite the dataset uncompressed or with gzip "
                        "(h5py: compression='gzip')",
                    __FILE__, __LINE__);
    }
  }

  {
    // Created and never written (h5py's create_dataset(name, shape, dtype)
    // alone): no storage, and every read returned HDF5's default fill
    // value, 0, taken as the field. A fill value the writer chose
    // (fillvalue=300.0) is a uniform field on purpose and is read.
    H5D_space_status_t status{};
    H5Id dcpl(H5Dget_create_plist(d.get()), H5Pclose);
    H5D_fill_value_t fill{};
    if (H5Dget_space_status(d.get(), &status) >= 0 && status == H5D_SPACE_STATUS_NOT_ALLOCATED &&
        dcpl.get() >= 0 && H5Pfill_value_defined(dcpl.get(), &fill) >= 0 && fill != H5D_FILL_VALUE_USER_DEFINED)
      throw IoError(ctx + ": the dataset was created but never written (no storage: every value would read as "
                          "HDF5's default fill value 0); write its values (or give it a fill value on purpose)",
                    __FILE__, __LINE__);
  }

  FieldInfo info;
  info.file = file;
  info.dataset = dataset;
  H5Id type(H5Dget_type(d.get()), H5Tclose);
  const H5T_class_t cls = H5Tget_class(type.get());
  const std::size_t size = H5Tget_size(type.get());
  if (integers) {
    if (cls != H5T_INTEGER)
      throw IoError(ctx + ": expected integer region ids, got " +
                        (cls == H5T_FLOAT ? std::to_string(8 * size) + "-bit floats (write the ids as integers, e.g. "
                                                                        "with numpy .astype('i4'))"
                                          : std::string("a non-integer type")),
                    __FILE__, __LINE__);
    if (!detail::is_standard_number(type.get()))
      throw IoError(ctx + ": expected integer region ids of a standard layout (8, 16, 32 or 64 bits), got " +
                        std::to_string(8 * size) + "-bit integers of another layout",
                    __FILE__, __LINE__);
  } else if (cls == H5T_INTEGER) {
    const bool is_signed = H5Tget_sign(type.get()) == H5T_SGN_2;
    throw IoError(ctx + ": expected float32 or float64 values, got " + std::string(is_signed ? "" : "unsigned ") +
                      std::to_string(8 * size) + "-bit integers (convert them, e.g. with numpy .astype('f8'))",
                  __FILE__, __LINE__);
  }
  if (!integers && (cls != H5T_FLOAT || (size != 4 && size != 8) || !detail::is_standard_number(type.get())))
    throw IoError(ctx + ": expected float32 or float64 values, got " +
                      (cls == H5T_FLOAT ? std::to_string(8 * size) + "-bit floats" +
                                              (size == 4 || size == 8 ? " of a non-IEEE layout" : "")
                       : cls == H5T_STRING ? std::string("strings")
                       : cls == H5T_COMPOUND ? std::string("a compound type")
                                            : std::string("a non-numeric type")),
                  __FILE__, __LINE__);
  info.dtype = size == 4 && !integers ? Precision::F32 : Precision::F64;

  H5Id space(H5Dget_space(d.get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  hsize_t dims[H5S_MAX_RANK];
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  if (rank != 3) {
    std::string shape;
    for (int q = 0; q < rank; ++q) shape += (q ? ", " : "") + std::to_string(dims[q]);
    throw IoError(ctx + ": expected a 3-D dataset of shape (nz, ny, nx), got rank " + std::to_string(rank) +
                      " (shape (" + shape + "))",
                  __FILE__, __LINE__);
  }
  for (int a = 0; a < 3; ++a) {
    if (dims[2 - a] > static_cast<hsize_t>(detail::kMaxAxisNodes))
      throw IoError(ctx + ": " + std::to_string(dims[2 - a]) + " nodes along an axis; at most " +
                        std::to_string(detail::kMaxAxisNodes) + " are supported",
                    __FILE__, __LINE__);
    info.n[a] = static_cast<index_t>(dims[2 - a]);
  }
  for (int a = 0; a < 3; ++a)
    if (info.n[a] < 3 && info.n[a] != 1)
      throw IoError(ctx + ": shape (nz, ny, nx) = " + shape_text(info.n) +
                        ": every axis needs at least 3 nodes (two boundary nodes and one interior node), or 1 "
                        "(a flat axis)",
                    __FILE__, __LINE__);

  // Geometry: on the dataset, else on /grid (adi3d's own outputs and checkpoints).
  info.origin = geometry_attr(d.get(), "origin", ctx);
  info.spacing = geometry_attr(d.get(), "spacing", ctx);
  info.geometry_source = ctx;
  if (!info.origin && !info.spacing && detail::path_exists(f.get(), "/grid")) {
    H5Id g = detail::open_group(f.get(), "/grid", file);
    info.origin = geometry_attr(g.get(), "origin", file + ":/grid");
    info.spacing = geometry_attr(g.get(), "spacing", file + ":/grid");
    info.geometry_source = file + ":/grid";
  }
  if (detail::path_exists(f.get(), "/grid")) {
    H5Id g = detail::open_group(f.get(), "/grid", file);
    if (detail::has_attr(g.get(), "stretched")) {
      g.reset();
      info.coordinates = detail::read_grid_group(f.get(), file).coordinates;
    }
  }
  if (info.spacing)
    for (int a = 0; a < 3; ++a)
      if (!((*info.spacing)[a] > 0))
        throw IoError(info.geometry_source + ": attribute 'spacing' must be > 0 on every axis, got " +
                          fmt3(*info.spacing),
                      __FILE__, __LINE__);
  return info;
}

void require_regular_input(const std::string& path, const std::string& what) {
  detail::require_regular_input(path, what);
}

template <class T>
FieldData<T> read_field(const FieldInfo& info) {
  H5Id f = open_existing(info.file, "the initial field");
  const std::string ctx = info.file + ":" + info.dataset;
  H5Id d(ADI_H5_CHECK(H5Dopen2(f.get(), info.dataset.c_str(), H5P_DEFAULT), ctx, "cannot open dataset"), H5Dclose);
  H5Id fspace(H5Dget_space(d.get()), H5Sclose);
  const index_t nx = info.n[0], ny = info.n[1], nz = info.n[2];
  FieldData<T> out;
  out.values.resize(static_cast<std::size_t>(nx * ny * nz));
  // Plane by plane as double: exact for both file types, and it lets us see
  // both NaN/Inf and what the conversion to T rounds away.
  std::vector<double> plane(static_cast<std::size_t>(nx * ny));
  const hsize_t count[3] = {1, static_cast<hsize_t>(ny), static_cast<hsize_t>(nx)};
  const hsize_t mcount = static_cast<hsize_t>(nx * ny);
  H5Id mspace(H5Screate_simple(1, &mcount, nullptr), H5Sclose);
  for (index_t k = 0; k < nz; ++k) {
    const hsize_t start[3] = {static_cast<hsize_t>(k), 0, 0};
    ADI_H5_CHECK(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), ctx,
                 "cannot select a plane");
    ADI_H5_CHECK(H5Dread(d.get(), H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT, plane.data()), ctx,
                 "cannot read plane k = " + std::to_string(k) + " (the file may be truncated or damaged)");
    T* dst = out.values.data() + k * nx * ny;
    for (index_t q = 0; q < nx * ny; ++q) {
      const double v = plane[q];
      if (!std::isfinite(v)) {
        std::ostringstream s;
        s << ctx << ": holds " << (std::isnan(v) ? "NaN" : "Inf") << " at node (i, j, k) = (" << q % nx << ", "
          << q / nx << ", " << k << ") (dataset index [" << k << ", " << q / nx << ", " << q % nx
          << "]); the initial field must be finite";
        throw IoError(s.str(), __FILE__, __LINE__);
      }
      const T t = static_cast<T>(v);
      if (static_cast<double>(t) != v) {
        ++out.rounded;
        if (v != 0) out.max_rel_rounding = std::max(out.max_rel_rounding, std::fabs(static_cast<double>(t) - v) / std::fabs(v));
      }
      if (!std::isfinite(static_cast<double>(t)))
        throw IoError(ctx + ": value " + std::to_string(v) + " overflows " + precision_name(precision_of<T>()),
                      __FILE__, __LINE__);
      dst[q] = t;
    }
  }
  return out;
}

template FieldData<float> read_field<float>(const FieldInfo&);
template FieldData<double> read_field<double>(const FieldInfo&);

void check_field_coordinates(const HeatProblem& p, const FieldInfo& f, const std::string& where,
                             const std::string& key) {
  for (int a = 0; a < 3; ++a) {
    const std::vector<double>& xf = f.coordinates[a];
    const std::string ax(1, "xyz"[a]);
    if (xf.empty() && (!p.stretched(a) || !f.spacing)) continue;  // uniform both, or no geometry in the file
    if (xf.empty() || !p.stretched(a))
      throw ConfigError(where, key,
                        f.file + ":" + f.dataset + " lies on a grid whose " + ax + " axis is " +
                            (xf.empty() ? "uniform" : "stretched (its /grid/" + ax + ")") + " but the config's is " +
                            (xf.empty() ? "stretched (grid." + ax + ")" : "uniform"),
                        __FILE__, __LINE__);
    for (std::size_t i = 0; i < xf.size() && i < p.coordinates[a].size(); ++i)
      if (std::fabs(xf[i] - p.coordinates[a][i]) > 1e-9 * p.length[a]) {
        char buf[240];
        std::snprintf(buf, sizeof buf, "node %zu along %s is at %.10g m in %s:/grid/%s but at %.10g m in the config",
                      i, ax.c_str(), xf[i], f.file.c_str(), ax.c_str(), p.coordinates[a][i]);
        throw ConfigError(where, key, buf, __FILE__, __LINE__);
      }
  }
}

void apply_field_geometry(RunConfig& c, const FieldInfo& f) {
  const std::string ctx = f.file + ":" + f.dataset;
  HeatProblem& p = c.problem;
  const char* nn[3] = {"nx", "ny", "nz"};
  const char* ln[3] = {"lx", "ly", "lz"};
  if (c.given.grid) {
    if (p.n[0] != f.n[0] || p.n[1] != f.n[1] || p.n[2] != f.n[2])
      throw ConfigError(c.source, "grid",
                        "the config says nx, ny, nz = " + std::to_string(p.n[0]) + ", " + std::to_string(p.n[1]) +
                            ", " + std::to_string(p.n[2]) + " but " + ctx + " has shape (nz, ny, nx) = " +
                            shape_text(f.n) + "; drop the grid section to take the file's",
                        __FILE__, __LINE__);
  } else {
    p.n = f.n;
    // The file's stretched axes, as its /grid gives them (a periodic one
    // would need its period: not in the file, so the config must say it).
    for (int a = 0; a < 3; ++a) {
      if (f.coordinates[a].empty()) continue;
      if (p.periodic(a))
        throw ConfigError(c.source, "grid",
                          ctx + " lies on a stretched periodic " + std::string(1, "xyz"[a]) +
                              " axis, whose period the file does not hold: give grid." + std::string(1, "xyz"[a]) +
                              ": {coordinates: ..., period: ...}",
                          __FILE__, __LINE__);
      p.coordinates[a] = f.coordinates[a];
      p.length[a] = f.coordinates[a].back() - f.coordinates[a].front();
      c.given.length[a] = true;
    }
  }
  check_field_coordinates(p, f, c.source, "grid");
  if (f.spacing) {
    for (int a = 0; a < 3; ++a) {
      const double h_file = (*f.spacing)[a];
      if (p.stretched(a)) continue;  // its coordinates were compared above
      if (c.given.length[a]) {
        const double h_cfg = p.spacing(a);
        if (!close_to(h_cfg, h_file, std::max(h_cfg, h_file)))
          throw ConfigError(c.source, std::string("domain.") + ln[a],
                            "the config gives h_" + std::string(1, "xyz"[a]) + " = " + ln[a] + " / (" + nn[a] +
                                " - 1) = " + std::to_string(h_cfg) + " m but " + f.geometry_source +
                                " says spacing " + fmt3(*f.spacing) + " (x, y, z)",
                            __FILE__, __LINE__);
      } else if (p.n[a] > 1) {  // a flat axis keeps its length (its "spacing" is the slab thickness)
        p.length[a] = h_file * static_cast<double>(p.periodic(a) ? p.n[a] : p.n[a] - 1);
      }
    }
  }
  if (f.origin) {
    if (c.given.origin) {
      for (int a = 0; a < 3; ++a) {
        const double scale = std::max({std::fabs(c.origin[a]), std::fabs((*f.origin)[a]), p.spacing(a)});
        if (p.stretched(a)) continue;  // the coordinates (compared above) say where the axis lies
        if (!close_to(c.origin[a], (*f.origin)[a], scale))
          throw ConfigError(c.source, "domain.origin",
                            "the config gives origin " + fmt3(c.origin) + " but " + f.geometry_source +
                                " says " + fmt3(*f.origin) + " (x, y, z)",
                            __FILE__, __LINE__);
      }
    } else {
      c.origin = *f.origin;
      for (int a = 0; a < 3; ++a)
        if (p.stretched(a)) c.origin[a] = p.coordinates[a].front();
    }
  }
  // Which axes are flat is known now: the checks that needed it.
  settle_grid(c, ctx);
  try {
    p.validate();
  } catch (const Error& e) {
    throw ConfigError(c.source, "", std::string("with the grid of ") + ctx + ": " + e.what(), __FILE__, __LINE__);
  }
  // Where the box came from, said in the run's summary; the default 1 m box
  // (no spacing anywhere) is a guess the run warns about (issue #15, item 3).
  const bool all_lengths = c.given.length[0] && c.given.length[1] && c.given.length[2];
  c.geometry.defaulted = !all_lengths && !f.spacing;
  c.geometry.source =
      (all_lengths ? std::string("lengths from the config (domain)")
       : f.spacing ? "spacing from " + f.geometry_source
                   : "DEFAULT lengths of 1 m (no spacing attribute in " + ctx + " or a /grid group)") +
      ", " +
      (c.given.origin ? std::string("origin from the config")
       : f.origin     ? "origin from " + f.geometry_source
                      : std::string("default origin (0, 0, 0)"));
  c.given.grid = true;  // the resolved config now states the file's grid
  c.given.length = {true, true, true};
  c.given.origin = true;
  c.resolved_yaml = to_yaml(c);
}

}  // namespace adi::io
