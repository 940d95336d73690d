// The probe series of an output file (output_probes.hpp).

#include "output_probes.hpp"

#include "h5par.hpp"

#include <cstdint>

namespace adi::io::detail {

namespace {

struct Row {
  long long step;
  double time;
  double value;
};

/// The compound type of a row, in memory (native) or in the file (little endian).
H5Id row_type(bool file, const std::string& ctx) {
  H5Id t(ADI_H5_CHECK(H5Tcreate(H5T_COMPOUND, file ? 24 : sizeof(Row)), ctx, "cannot create a compound type"),
         H5Tclose);
  ADI_H5_CHECK(H5Tinsert(t.get(), "step", file ? 0 : HOFFSET(Row, step), file ? H5T_STD_I64LE : H5T_NATIVE_LLONG),
               ctx, "cannot build the probe row type");
  ADI_H5_CHECK(H5Tinsert(t.get(), "time", file ? 8 : HOFFSET(Row, time), file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE),
               ctx, "cannot build the probe row type");
  ADI_H5_CHECK(
      H5Tinsert(t.get(), "value", file ? 16 : HOFFSET(Row, value), file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE), ctx,
      "cannot build the probe row type");
  return t;
}

H5Id open_dataset(hid_t file, const std::string& path, const std::string& ctx) {
  return H5Id(ADI_H5_CHECK(H5Dopen2(file, path.c_str(), H5P_DEFAULT), ctx, "cannot open " + path), H5Dclose);
}

hsize_t rows_of(hid_t d, const std::string& ctx, const std::string& path) {
  H5Id space(ADI_H5_CHECK(H5Dget_space(d), ctx, "cannot read the shape of " + path), H5Sclose);
  hsize_t n = 0;
  if (H5Sget_simple_extent_ndims(space.get()) != 1 || H5Sget_simple_extent_dims(space.get(), &n, nullptr) != 1)
    throw IoError(ctx + ": " + path + " is not a probe series (a 1-D table)", __FILE__, __LINE__);
  return n;
}

/// The step column of a series.
std::vector<long long> read_steps(hid_t d, hsize_t n, const std::string& ctx, const std::string& path) {
  std::vector<long long> steps(static_cast<std::size_t>(n));
  if (n == 0) return steps;
  H5Id t(ADI_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(long long)), ctx, "cannot create a compound type"), H5Tclose);
  ADI_H5_CHECK(H5Tinsert(t.get(), "step", 0, H5T_NATIVE_LLONG), ctx, "cannot build a compound type");
  ADI_H5_CHECK(H5Dread(d, t.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, steps.data()), ctx,
               "cannot read the steps of " + path);
  return steps;
}

}  // namespace

std::vector<ProbeScan> scan_probes(hid_t file, long long restart_step, const std::string& ctx) {
  std::vector<ProbeScan> out;
  if (!path_exists(file, "/probes")) return out;
  H5Id g = open_group(file, "/probes", ctx);
  for (const std::string& name : member_names(g.get(), ctx, "/probes")) {
    const std::string path = "/probes/" + name;
    H5Id d = open_dataset(file, path, ctx);
    ProbeScan s;
    s.name = name;
    const auto x = read_doubles_attr(d.get(), "position", 3, ctx + ":" + path);
    for (int a = 0; a < 3; ++a) s.x[a] = x[a];
    const hsize_t n = rows_of(d.get(), ctx, path);
    s.rows = static_cast<long long>(n);
    // Rows are in step order: the kept ones come first.
    for (const long long st : read_steps(d.get(), n, ctx, path)) {
      if (st > restart_step) break;
      ++s.kept;
    }
    out.push_back(s);
  }
  return out;
}

std::vector<std::pair<std::string, std::vector<long long>>> probe_steps(hid_t file, const std::string& ctx) {
  std::vector<std::pair<std::string, std::vector<long long>>> out;
  if (!path_exists(file, "/probes")) return out;
  H5Id g = open_group(file, "/probes", ctx);
  for (const std::string& name : member_names(g.get(), ctx, "/probes")) {
    const std::string path = "/probes/" + name;
    H5Id d = open_dataset(file, path, ctx);
    out.emplace_back(name, read_steps(d.get(), rows_of(d.get(), ctx, path), ctx, path));
  }
  return out;
}

void create_probe_series(hid_t file, const std::vector<ProbeSeries>& probes, const std::string& ctx) {
  if (probes.empty()) return;
  H5Id g;
  if (path_exists(file, "/probes")) {
    g = open_group(file, "/probes", ctx);
  } else {
    g = create_group(file, "probes", ctx);
    write_attr(g.get(), "interpolation", std::string("trilinear in the nodal field; exact at nodes"), ctx);
    write_attr(g.get(), "columns", std::string("step, time [s] (= step * dt), value (the unit of u)"), ctx);
  }
  const H5Id ft = row_type(true, ctx);
  for (const ProbeSeries& p : probes) {
    if (path_exists(g.get(), p.name)) continue;
    const hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = kProbeChunkRows;
    H5Id space(ADI_H5_CHECK(H5Screate_simple(1, &zero, &unlimited), ctx, "cannot create a dataspace"), H5Sclose);
    H5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    ADI_H5_CHECK(H5Pset_chunk(dcpl.get(), 1, &chunk), ctx, "cannot set the chunk shape");
    H5Id d(ADI_H5_CHECK(H5Dcreate2(g.get(), p.name.c_str(), ft.get(), space.get(), H5P_DEFAULT, dcpl.get(),
                                   H5P_DEFAULT),
                        ctx, "cannot create /probes/" + p.name),
           H5Dclose);
    write_attr(d.get(), "position", p.x, ctx);
  }
}

void truncate_probe_series(hid_t file, const std::string& name, long long rows, const std::string& ctx) {
  const std::string path = "/probes/" + name;
  H5Id d = open_dataset(file, path, ctx);
  const hsize_t n = static_cast<hsize_t>(rows);
  ADI_H5_CHECK(H5Dset_extent(d.get(), &n), ctx, "cannot cut " + path);
}

void append_probe_rows(hid_t file, const std::vector<ProbeSeries>& probes, const ProbeRows& rows, bool par, bool root,
                       const std::string& ctx) {
  if (rows.empty() || probes.empty()) return;
  const hsize_t add = rows.size();
  const H5Id mt = row_type(false, ctx);
  const H5Id xfer = par ? detail::par::dxpl(ctx) : H5Id(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  std::vector<Row> buf(rows.size());
  for (std::size_t p = 0; p < probes.size(); ++p) {
    const std::string path = "/probes/" + probes[p].name;
    H5Id d = open_dataset(file, path, ctx);
    const hsize_t have = rows_of(d.get(), ctx, path);
    const hsize_t total = have + add;
    ADI_H5_CHECK(H5Dset_extent(d.get(), &total), ctx, "cannot extend " + path);
    for (std::size_t r = 0; r < rows.size(); ++r)
      buf[r] = {static_cast<long long>(rows.steps[r]), rows.times[r], rows.values[r * rows.probes + p]};
    H5Id fspace(ADI_H5_CHECK(H5Dget_space(d.get()), ctx, "cannot read the shape of " + path), H5Sclose);
    H5Id mspace(ADI_H5_CHECK(H5Screate_simple(1, &add, nullptr), ctx, "cannot create a dataspace"), H5Sclose);
    if (root) {
      ADI_H5_CHECK(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, &have, nullptr, &add, nullptr), ctx,
                   "cannot select rows of " + path);
    } else {  // a collective write: the other ranks take part and write nothing
      ADI_H5_CHECK(H5Sselect_none(fspace.get()), ctx, "cannot select");
      ADI_H5_CHECK(H5Sselect_none(mspace.get()), ctx, "cannot select");
    }
    ADI_H5_CHECK(H5Dwrite(d.get(), mt.get(), mspace.get(), fspace.get(), xfer.get(), buf.data()), ctx,
                 "cannot write " + path);
    ADI_H5_CHECK(d.close(), ctx, "cannot write " + path);
  }
}

}  // namespace adi::io::detail
