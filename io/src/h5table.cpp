// Time series tables of an output file (h5table.hpp).

#include "h5table.hpp"

namespace adi::io::detail {

namespace {

hsize_t rows_of(hid_t d, const std::string& ctx) {
  H5Id space(ADI_H5_CHECK(H5Dget_space(d), ctx, "cannot read a table's extent"), H5Sclose);
  hsize_t dims[2] = {0, 0};
  ADI_H5_CHECK(H5Sget_simple_extent_dims(space.get(), dims, nullptr), ctx, "cannot read a table's extent");
  return dims[0];
}

hsize_t columns_of(hid_t d, const std::string& ctx) {
  H5Id space(ADI_H5_CHECK(H5Dget_space(d), ctx, "cannot read a table's extent"), H5Sclose);
  hsize_t dims[2] = {0, 0};
  ADI_H5_CHECK(H5Sget_simple_extent_dims(space.get(), dims, nullptr), ctx, "cannot read a table's extent");
  return dims[1];
}

/// The rows to keep: those before the first whose step is > last (steps
/// only grow within a table).
hsize_t rows_up_to(hid_t d, double last, const std::string& ctx) {
  const hsize_t rows = rows_of(d, ctx);
  if (rows == 0) return 0;
  std::vector<double> steps(rows);
  H5Id space(ADI_H5_CHECK(H5Dget_space(d), ctx, "cannot read a table"), H5Sclose);
  const hsize_t start[2] = {0, 0}, count[2] = {rows, 1};
  ADI_H5_CHECK(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), ctx,
               "cannot select a table's steps");
  H5Id mem(H5Screate_simple(1, &rows, nullptr), H5Sclose);
  ADI_H5_CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, mem.get(), space.get(), H5P_DEFAULT, steps.data()), ctx,
               "cannot read a table's steps");
  hsize_t keep = 0;
  while (keep < rows && steps[keep] <= last) ++keep;
  return keep;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

}  // namespace

void append_table_row(hid_t file, const std::string& path, const std::vector<std::string>& columns,
                      const std::vector<std::pair<std::string, std::string>>& attributes,
                      const std::vector<double>& row, bool writer, const std::string& ctx) {
  const hsize_t cols = static_cast<hsize_t>(row.size());
  H5Id d;
  if (path_exists(file, path)) {
    d = H5Id(ADI_H5_CHECK(H5Dopen2(file, path.c_str(), H5P_DEFAULT), ctx, "cannot open " + path), H5Dclose);
    if (columns_of(d.get(), ctx) != cols)
      throw IoError(ctx + ": " + path + " has " + std::to_string(columns_of(d.get(), ctx)) +
                        " columns, this run writes " + std::to_string(cols),
                    __FILE__, __LINE__);
  } else {
    const std::string parent = path.substr(0, path.find_last_of('/'));
    if (!parent.empty() && !path_exists(file, parent)) create_group(file, parent, ctx);
    const hsize_t dims[2] = {0, cols}, maxdims[2] = {H5S_UNLIMITED, cols}, chunk[2] = {64, cols};
    H5Id space(H5Screate_simple(2, dims, maxdims), H5Sclose);
    H5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    ADI_H5_CHECK(H5Pset_chunk(dcpl.get(), 2, chunk), ctx, "cannot set a table's chunks");
    d = H5Id(ADI_H5_CHECK(H5Dcreate2(file, path.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, dcpl.get(),
                                     H5P_DEFAULT),
                          ctx, "cannot create " + path),
             H5Dclose);
    write_attr(d.get(), "columns", joined(columns), ctx);
    for (const auto& [name, value] : attributes) write_attr(d.get(), name.c_str(), value, ctx);
  }
  const hsize_t keep = rows_up_to(d.get(), row[0] - 0.5, ctx);
  const hsize_t ext[2] = {keep + 1, cols};
  ADI_H5_CHECK(H5Dset_extent(d.get(), ext), ctx, "cannot extend " + path);
  H5Id space(ADI_H5_CHECK(H5Dget_space(d.get()), ctx, "cannot select a row of " + path), H5Sclose);
  const hsize_t start[2] = {keep, 0}, count[2] = {1, cols};
  H5Id mem(H5Screate_simple(1, &cols, nullptr), H5Sclose);
  if (writer) {
    ADI_H5_CHECK(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), ctx,
                 "cannot select a row of " + path);
  } else {
    H5Sselect_none(space.get());
    H5Sselect_none(mem.get());
  }
  ADI_H5_CHECK(H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, mem.get(), space.get(), H5P_DEFAULT, row.data()), ctx,
               "cannot write a row of " + path);
}

void truncate_tables(hid_t file, const std::string& group, long long last_step, const std::string& ctx) {
  if (!path_exists(file, group)) return;
  H5Id g = open_group(file, group, ctx);
  for (const std::string& name : member_names(g.get(), ctx, group)) {
    H5Id obj(ADI_H5_CHECK(H5Oopen(g.get(), name.c_str(), H5P_DEFAULT), ctx, "cannot open " + group + "/" + name),
             H5Oclose);
    if (H5Iget_type(obj.get()) != H5I_DATASET) continue;
    H5Id d(ADI_H5_CHECK(H5Dopen2(g.get(), name.c_str(), H5P_DEFAULT), ctx, "cannot open " + group + "/" + name),
           H5Dclose);
    H5Id space(ADI_H5_CHECK(H5Dget_space(d.get()), ctx, "cannot read " + name), H5Sclose);
    if (H5Sget_simple_extent_ndims(space.get()) != 2) continue;
    const hsize_t keep = rows_up_to(d.get(), static_cast<double>(last_step) + 0.5, ctx);
    if (keep == rows_of(d.get(), ctx)) continue;
    const hsize_t ext[2] = {keep, columns_of(d.get(), ctx)};
    ADI_H5_CHECK(H5Dset_extent(d.get(), ext), ctx, "cannot shorten " + group + "/" + name);
  }
}

}  // namespace adi::io::detail
