// The output file of a run (GridFile): see hdf5.hpp and docs/IO.md for the
// layout and for why it is written the way it is.

#include "h5util.hpp"

#include <adi/io/hdf5.hpp>
#include <adi/io/xdmf.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace adi::io {

using detail::H5Id;

std::string step_dataset(index_t step) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "/steps/%06lld/u", static_cast<long long>(step));
  return buf;
}

std::string xdmf_path_for(const std::string& h5_path) {
  for (const char* ext : {".h5", ".hdf5", ".hdf", ".he5"}) {
    const std::string e(ext);
    if (h5_path.size() > e.size() && h5_path.compare(h5_path.size() - e.size(), e.size(), e) == 0)
      return h5_path.substr(0, h5_path.size() - e.size()) + ".xmf";
  }
  return h5_path + ".xmf";
}

struct GridFile::Impl {
  Options o;
  std::string tmp, xmf, journal;
  H5Id file;
  bool live = false;    // the file is under its final name
  bool closed = false;  // finished or failed: no more writes
  bool rolled_back = false;  // reopen undid a killed run's unfinished write
  std::vector<OutputStep> steps;
  std::string provenance_group = "/provenance";  // where this run's end_time goes

  std::string what() const { return "output file '" + o.path + "'"; }

  /// A write failed: the file may be inconsistent on disk. Never leave it
  /// under its final name: a temporary is removed, a live file moved aside.
  [[noreturn]] void fail(const std::string& reason) {
    file.reset();  // close what can be closed; errors here are expected
    H5Eclear2(H5E_DEFAULT);
    closed = true;
    std::string msg = reason;
    if (live) {
      // Back to the last complete step (the journal holds what the failed
      // write overwrote), then aside: the final name never holds a file that
      // failed, and the moved file still opens.
      bool undone = false;
      try {
        undone = detail::undo_recover(o.path, journal);
      } catch (const IoError&) {
      }
      const std::string aside = o.path + ".failed";
      if (std::rename(o.path.c_str(), aside.c_str()) == 0)
        msg += undone ? "; the file, back at its last complete step, was moved to " + aside
                      : "; the incomplete file was moved to " + aside;
      if (o.xdmf) detail::remove_quietly(xmf);
    } else {
      detail::remove_quietly(tmp);
      msg += "; no output file was left";
    }
    throw IoError(msg, __FILE__, __LINE__);
  }

  template <class F>
  void guarded(F&& f) {
    try {
      f();
    } catch (const IoError& e) {
      fail(e.what());
    }
  }

  /// Flushes; once the file is live, the flushed state is committed: a
  /// process killed after this point finds it again (undo_vfd.cpp). While the
  /// file is a temporary nothing is journaled (a kill leaves only the
  /// temporary), so a journal never refers to another file than o.path.
  void flush(const std::string& context) {
    ADI_H5_CHECK(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), context, "cannot flush");
    if (live) detail::undo_commit(file.get(), context);
  }

  void rewrite_xdmf() {
    if (o.xdmf) write_xdmf(xmf, detail::base_name(o.path), o.geometry, o.precision, steps);
  }
};

GridFile::GridFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GridFile::GridFile(GridFile&&) noexcept = default;
GridFile& GridFile::operator=(GridFile&&) noexcept = default;

GridFile::~GridFile() {
  if (!impl_ || impl_->closed) return;
  impl_->file.reset();
  H5Eclear2(H5E_DEFAULT);
  if (!impl_->live) detail::remove_quietly(impl_->tmp);
}

GridFile GridFile::create(const Options& o) {
  detail::init_hdf5();
  auto im = std::make_unique<Impl>();
  im->o = o;
  im->tmp = o.path + ".tmp";
  im->xmf = xdmf_path_for(o.path);
  im->journal = detail::journal_path_for(o.path);
  // A killed run's unfinished write to the file this one replaces: undo it
  // first, so the old file is whole until the new one takes its name.
  detail::undo_recover(o.path, im->journal);
  detail::probe_creatable(im->tmp, im->what());
  im->guarded([&] {
    H5Id fapl = detail::undo_fapl(im->journal, im->what());
    im->file = H5Id(ADI_H5_CHECK(H5Fcreate(im->tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), im->what(),
                                 "cannot create " + im->tmp),
                    H5Fclose);
    const hid_t f = im->file.get();
    detail::write_attr(f, "format", std::string("adi3d-output"), im->what());
    detail::write_attr(f, "format_version", 1LL, im->what());
    detail::write_attr(f, "precision", std::string(precision_name(o.precision)), im->what());
    detail::write_attr(f, "status", std::string("running"), im->what());
    detail::write_grid_group(f, o.geometry, im->what());
    detail::write_provenance(f, "provenance", o.provenance, im->what());
    detail::create_group(f, "steps", im->what());
    im->flush(im->what());
  });
  return GridFile(std::move(im));
}

GridFile GridFile::reopen(const Options& o, index_t restart_step) {
  detail::init_hdf5();
  auto im = std::make_unique<Impl>();
  im->o = o;
  im->tmp = o.path + ".tmp";
  im->xmf = xdmf_path_for(o.path);
  im->journal = detail::journal_path_for(o.path);
  const std::string ctx = "output file '" + o.path + "' (continuing it after the restart)";
  const std::string advice = "; move it away to start a new output file";
  // The run that wrote it may have been killed inside a write: back to its
  // last complete step first.
  im->rolled_back = detail::undo_recover(o.path, im->journal);
  if (H5Fis_hdf5(o.path.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw IoError(ctx + ": not a readable HDF5 file" + advice, __FILE__, __LINE__);
  }
  H5Id fapl = detail::undo_fapl(im->journal, ctx);
  const hid_t fid = H5Fopen(o.path.c_str(), H5F_ACC_RDWR, fapl.get());
  if (fid < 0) {
    const std::string h5 = detail::hdf5_error_text();
    throw IoError(ctx + ": cannot open for writing (" + (h5.empty() ? "HDF5 error" : h5) + ")" + advice, __FILE__,
                  __LINE__);
  }
  im->file = H5Id(fid, H5Fclose);
  im->live = true;
  const hid_t f = im->file.get();
  try {
    if (!detail::has_attr(f, "format") || detail::read_string_attr(f, "format", ctx) != "adi3d-output")
      throw IoError(ctx + ": not an adi3d output file (no format = adi3d-output attribute)" + advice, __FILE__,
                    __LINE__);
    const std::string prec = detail::read_string_attr(f, "precision", ctx);
    if (prec != precision_name(o.precision))
      throw IoError(ctx + ": holds " + prec + " fields, the run is " + precision_name(o.precision) + advice,
                    __FILE__, __LINE__);
    const GridGeometry g = detail::read_grid_group(f, ctx);
    for (int a = 0; a < 3; ++a) {
      const double tol = 1e-9 * std::max({std::fabs(g.origin[a]), std::fabs(o.geometry.origin[a]), g.spacing[a]});
      if (g.n[a] != o.geometry.n[a] || std::fabs(g.spacing[a] - o.geometry.spacing[a]) > 1e-9 * g.spacing[a] ||
          std::fabs(g.origin[a] - o.geometry.origin[a]) > tol)
        throw IoError(ctx + ": its /grid differs from the run's grid" + advice, __FILE__, __LINE__);
    }
    // Steps after the checkpoint are written again by the restarted run.
    H5Id sg = detail::open_group(f, "/steps", ctx);
    H5G_info_t info;
    ADI_H5_CHECK(H5Gget_info(sg.get(), &info), ctx, "cannot list /steps");
    std::vector<std::string> names;
    for (hsize_t q = 0; q < info.nlinks; ++q) {
      char name[256];
      ADI_H5_CHECK(H5Lget_name_by_idx(sg.get(), ".", H5_INDEX_NAME, H5_ITER_INC, q, name, sizeof name, H5P_DEFAULT),
                   ctx, "cannot list /steps");
      names.emplace_back(name);
    }
    for (const auto& name : names) {
      const std::string ds = "/steps/" + name + "/u";
      if (!detail::path_exists(f, ds)) {  // a group without data: a write that never completed
        H5Ldelete(sg.get(), name.c_str(), H5P_DEFAULT);
        continue;
      }
      H5Id d(ADI_H5_CHECK(H5Dopen2(f, ds.c_str(), H5P_DEFAULT), ctx, "cannot open " + ds), H5Dclose);
      const index_t step = detail::read_int_attr(d.get(), "step", ctx + ":" + ds);
      const double time = detail::read_double_attr(d.get(), "time", ctx + ":" + ds);
      d.reset();
      if (step > restart_step) {
        ADI_H5_CHECK(H5Ldelete(sg.get(), name.c_str(), H5P_DEFAULT), ctx, "cannot delete " + ds);
      } else {
        im->steps.push_back({step, time, ds});
      }
    }
    std::sort(im->steps.begin(), im->steps.end(),
              [](const OutputStep& a, const OutputStep& b) { return a.step < b.step; });
    H5Id pg = detail::open_group(f, "/provenance", ctx);
    int r = 1;
    char rname[32];
    for (;; ++r) {
      std::snprintf(rname, sizeof rname, "restart_%03d", r);
      if (!detail::path_exists(pg.get(), rname)) break;
    }
    Provenance p = o.provenance;
    detail::write_provenance(pg.get(), rname, p, ctx);
    detail::write_attr(f, "status", std::string("running"), ctx);
    im->provenance_group = std::string("/provenance/") + rname;
    im->flush(im->what());
    im->rewrite_xdmf();
  } catch (const IoError&) {
    im->closed = true;  // leave the file as it was found (modulo dropped steps)
    throw;
  }
  return GridFile(std::move(im));
}

template <class T>
void GridFile::write_step(index_t step, double time, const T* values) {
  Impl& im = *impl_;
  ADI_REQUIRE(!im.closed, "GridFile::write_step after finish or failure");
  ADI_REQUIRE(precision_of<T>() == im.o.precision, "GridFile::write_step: precision differs from the file's");
  ADI_REQUIRE(!has_step(step), "GridFile::write_step: step already written");
  const std::string ds = step_dataset(step);
  const std::string ctx = im.what() + ", step " + std::to_string(step);
  im.guarded([&] {
    const hid_t f = im.file.get();
    const std::string grp = ds.substr(0, ds.size() - 2);
    H5Id g(ADI_H5_CHECK(H5Gcreate2(f, grp.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), ctx,
                        "cannot create group " + grp),
           H5Gclose);
    const auto& n = im.o.geometry.n;
    const hsize_t dims[3] = {static_cast<hsize_t>(n[2]), static_cast<hsize_t>(n[1]), static_cast<hsize_t>(n[0])};
    H5Id space(H5Screate_simple(3, dims, nullptr), H5Sclose);
    H5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    const auto chunk = detail::chunk_shape(n, sizeof(T));
    ADI_H5_CHECK(H5Pset_chunk(dcpl.get(), 3, chunk.data()), ctx, "cannot set the chunk shape");
    if (im.o.compression > 0) {
      if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0)
        throw IoError(ctx + ": this HDF5 library has no gzip (deflate) filter; set output.compression: 0",
                      __FILE__, __LINE__);
      ADI_H5_CHECK(H5Pset_shuffle(dcpl.get()), ctx, "cannot set the shuffle filter");
      ADI_H5_CHECK(H5Pset_deflate(dcpl.get(), static_cast<unsigned>(im.o.compression)), ctx,
                   "cannot set the gzip filter");
    }
    H5Id d(ADI_H5_CHECK(H5Dcreate2(g.get(), "u", detail::file_type(im.o.precision), space.get(), H5P_DEFAULT,
                                   dcpl.get(), H5P_DEFAULT),
                        ctx, "cannot create dataset " + ds),
           H5Dclose);
    ADI_H5_CHECK(H5Dwrite(d.get(), detail::mem_type(im.o.precision), H5S_ALL, H5S_ALL, H5P_DEFAULT, values), ctx,
                 "cannot write " + ds);
    detail::write_attr(d.get(), "time", time, ctx);
    detail::write_attr(d.get(), "step", static_cast<long long>(step), ctx);
    ADI_H5_CHECK(d.close(), ctx, "cannot write " + ds);  // closing writes the last chunk
    ADI_H5_CHECK(g.close(), ctx, "cannot close group " + grp);
    im.flush(ctx);
    if (!im.live) {
      // The first complete step: from now on the file is worth keeping.
      detail::fsync_path(im.tmp);
      detail::rename_file(im.tmp, im.o.path, im.what());
      im.live = true;
      detail::undo_commit(im.file.get(), ctx);
    }
  });
  im.steps.push_back({step, time, ds});
  std::sort(im.steps.begin(), im.steps.end(), [](const OutputStep& a, const OutputStep& b) { return a.step < b.step; });
  im.rewrite_xdmf();
}

template void GridFile::write_step<float>(index_t, double, const float*);
template void GridFile::write_step<double>(index_t, double, const double*);

bool GridFile::rolled_back() const { return impl_->rolled_back; }

bool recover_output(const std::string& path) {
  detail::init_hdf5();
  return detail::undo_recover(path, detail::journal_path_for(path));
}

bool GridFile::has_step(index_t step) const {
  return std::any_of(impl_->steps.begin(), impl_->steps.end(), [&](const OutputStep& s) { return s.step == step; });
}

const std::vector<OutputStep>& GridFile::steps() const { return impl_->steps; }
const std::string& GridFile::path() const { return impl_->o.path; }

void GridFile::set_status(const std::string& status) {
  Impl& im = *impl_;
  if (im.closed) return;
  im.guarded([&] {
    detail::write_attr(im.file.get(), "status", status, im.what());
    H5Id pg = detail::open_group(im.file.get(), im.provenance_group, im.what());
    detail::write_attr(pg.get(), "end_time", status == "running" ? std::string() : utc_now_iso8601(), im.what());
    pg.reset();
    im.flush(im.what());
  });
}

void GridFile::finish(const std::string& status) {
  Impl& im = *impl_;
  if (im.closed) return;
  set_status(status);
  im.guarded([&] {
    ADI_H5_CHECK(im.file.close(), im.what(), "cannot close");
    if (!im.live) {
      detail::fsync_path(im.tmp);
      detail::rename_file(im.tmp, im.o.path, im.what());
      im.live = true;
    } else {
      detail::fsync_path(im.o.path);
    }
  });
  im.closed = true;
  im.rewrite_xdmf();
}

}  // namespace adi::io
