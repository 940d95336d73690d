// What a run asks of an existing output file (hdf5.hpp): recovery with its
// journal, the steps and probes it holds, whether a restart can continue
// it, the problem it was written for. The writer is hdf5_output.cpp.

#include "output_queries.hpp"

#include "fsutil.hpp"
#include "h5util.hpp"
#include "output_probes.hpp"

#include <adi/io/hdf5.hpp>
#include <adi/io/identity.hpp>
#include <adi/io/lock.hpp>
#include <adi/io/xdmf.hpp>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

namespace adi::io {

using detail::H5Id;

namespace detail {

void check_output_header(hid_t f, const GridGeometry& geometry, Precision precision, const std::string& ctx,
                         const std::string& advice) {
  if (!detail::has_attr(f, "format") || detail::read_string_attr(f, "format", ctx) != "adi3d-output")
    throw IoError(ctx + ": not an adi3d output file (no format = adi3d-output attribute)" + advice, __FILE__,
                  __LINE__);
  const std::string prec = detail::read_string_attr(f, "precision", ctx);
  if (prec != precision_name(precision))
    throw IoError(ctx + ": holds " + prec + " fields, the run is " + precision_name(precision) + advice, __FILE__,
                  __LINE__);
  const GridGeometry g = detail::read_grid_group(f, ctx);
  for (int a = 0; a < 3; ++a) {
    const double tol = 1e-9 * std::max({std::fabs(g.origin[a]), std::fabs(geometry.origin[a]), g.spacing[a]});
    if (g.n[a] != geometry.n[a] || std::fabs(g.spacing[a] - geometry.spacing[a]) > 1e-9 * g.spacing[a] ||
        std::fabs(g.origin[a] - geometry.origin[a]) > tol)
      throw IoError(ctx + ": its /grid differs from the run's grid" + advice, __FILE__, __LINE__);
  }
}

}  // namespace detail

namespace {
/// The steps of an output file as it is on disk (no recovery).
std::vector<index_t> steps_on_disk(const std::string& path) {
  const std::string ctx = "output file '" + path + "'";
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw IoError(ctx + ": not a readable HDF5 file", __FILE__, __LINE__);
  }
  H5Id file(ADI_H5_CHECK(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), ctx, "cannot open"), H5Fclose);
  const hid_t f = file.get();
  if (!detail::has_attr(f, "format") || detail::read_string_attr(f, "format", ctx) != "adi3d-output")
    throw IoError(ctx + ": not an adi3d output file", __FILE__, __LINE__);
  std::vector<index_t> steps;
  H5Id sg = detail::open_group(f, "/steps", ctx);
  for (const std::string& name : detail::member_names(sg.get(), ctx, "/steps")) {
    const std::string ds = "/steps/" + name + "/u";
    if (!detail::path_exists(f, ds)) continue;  // a write that never completed: nothing to lose
    H5Id d(ADI_H5_CHECK(H5Dopen2(f, ds.c_str(), H5P_DEFAULT), ctx, "cannot open " + ds), H5Dclose);
    steps.push_back(detail::read_int_attr(d.get(), "step", ctx + ":" + ds));
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}
}  // namespace

bool recover_output(const std::string& path, std::vector<std::string>* removed) {
  detail::init_hdf5();
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0)
    throw IoError(path + ": cannot recover it (" + detail::errno_text(errno) + ")", __FILE__, __LINE__);
  if (!S_ISREG(st.st_mode))
    throw IoError(path + ": is " + (S_ISDIR(st.st_mode) ? "a directory" : "not a regular file") +
                      ", not an adi3d output file; nothing was changed",
                  __FILE__, __LINE__);
  // A run that is writing it holds its lock: its journal is live, not a
  // killed run's (lock.hpp). Held while recovering, so no run starts.
  const FileLock lock(path, "output file '" + path + "'");
  const std::string journal = journal_path_for(path);
  if (removed)
    for (const std::string& t : {path, xdmf_path_for(path), journal})
      for (std::string& f : remove_dead_temporaries(t)) removed->push_back(std::move(f));
  if (!detail::file_exists(journal)) {
    try {
      (void)steps_on_disk(path);
    } catch (const IoError& e) {
      throw IoError(std::string(e.what()) + "; there is no journal " + journal +
                        " to undo a write with: the file cannot be recovered; nothing was changed",
                    __FILE__, __LINE__);
    }
    return false;
  }
  // Onto a copy, checked before it replaces the file.
  const std::string tmp = unique_temp_path(path);
  if (!detail::undo_recover_to(path, journal, tmp)) return false;  // a journal with no record yet: removed
  std::vector<index_t> steps;
  try {
    steps = steps_on_disk(tmp);
  } catch (const IoError& e) {
    detail::remove_quietly(tmp);
    throw IoError(path + ": undoing the write with the journal " + journal + " does not give a file that opens (" +
                      e.what() + "); nothing was changed",
                  __FILE__, __LINE__);
  }
  detail::rename_file(tmp, path, "output file '" + path + "'");
  ::unlink(journal.c_str());
  return true;
}

std::vector<index_t> output_file_steps(const std::string& path) {
  detail::init_hdf5();
  detail::undo_recover(path, journal_path_for(path));
  return steps_on_disk(path);
}

std::vector<std::pair<std::string, std::vector<index_t>>> output_file_probes(const std::string& path) {
  detail::init_hdf5();
  detail::undo_recover(path, journal_path_for(path));
  const std::string ctx = "output file '" + path + "'";
  (void)steps_on_disk(path);  // an adi3d output, or IoError
  H5Id file(ADI_H5_CHECK(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), ctx, "cannot open"), H5Fclose);
  std::vector<std::pair<std::string, std::vector<index_t>>> out;
  for (auto& [name, steps] : detail::probe_steps(file.get(), ctx))
    out.emplace_back(name, std::vector<index_t>(steps.begin(), steps.end()));
  return out;
}

void check_output_continuable(const std::string& path, const GridGeometry& g, Precision p) {
  detail::init_hdf5();
  detail::undo_recover(path, journal_path_for(path));
  const std::string ctx = "output file '" + path + "' (continuing it after the restart)";
  const std::string advice = "; move it away to start a new output file";
  const hid_t fid = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (fid < 0) {
    const std::string h5 = detail::hdf5_error_text();
    throw IoError(ctx + ": cannot open (" + (h5.empty() ? "HDF5 error" : h5) + ")" + advice, __FILE__, __LINE__);
  }
  H5Id file(fid, H5Fclose);
  detail::check_output_header(file.get(), g, p, ctx, advice);
}

std::string output_file_problem(const std::string& path) {
  detail::init_hdf5();
  const std::string ctx = "output file '" + path + "'";
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw IoError(ctx + ": not a readable HDF5 file", __FILE__, __LINE__);
  }
  const hid_t fid = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (fid < 0) {
    const std::string h5 = detail::hdf5_error_text();
    throw IoError(ctx + ": cannot open (" + (h5.empty() ? "HDF5 error" : h5) + ")", __FILE__, __LINE__);
  }
  H5Id file(fid, H5Fclose);
  const hid_t f = file.get();
  if (detail::has_attr(f, "problem")) return detail::read_string_attr(f, "problem", ctx);
  // Written before the attribute: the resolved config of the run that made it.
  const std::string config = detail::read_string_dataset(f, "/provenance/config", ctx);
  std::string fields;
  H5Id pg = detail::open_group(f, "/provenance", ctx);
  if (detail::has_attr(pg.get(), "input_fields"))
    fields = detail::read_string_attr(pg.get(), "input_fields", ctx + ":/provenance");
  return problem_items_text(problem_items_of_stored(config, fields, path + ":/provenance/config"));
}

}  // namespace adi::io
