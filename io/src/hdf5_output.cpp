// The output file of a run (GridFile): see hdf5.hpp and docs/IO.md for the
// layout and for why it is written the way it is.

#include "h5par.hpp"
#include "h5table.hpp"
#include "fsutil.hpp"
#include "h5util.hpp"
#include "output_probes.hpp"
#include "output_queries.hpp"

#include <adi/io/hdf5.hpp>
#include <adi/io/identity.hpp>
#include <adi/io/lock.hpp>
#include <adi/io/xdmf.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>

namespace adi::io {

using detail::H5Id;

std::string step_dataset(index_t step) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "/steps/%06lld/u", static_cast<long long>(step));
  return buf;
}

std::string heat_flux_dataset(index_t step) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "/steps/%06lld/heat_flux", static_cast<long long>(step));
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
  bool par = false;     // written by all ranks together (o.part)
  bool root = true;     // renames, journals, writes the sidecar: rank 0 (the only rank of a serial file)
  std::vector<OutputStep> steps;
  std::vector<std::string> materials;  // the /material/ datasets the file holds (listed in the sidecar)
  std::string provenance_group = "/provenance";  // where this run's end_time goes
  double need = 1 << 20;  // bytes the last write needed (about): for a failure's disk-space note
  bool changing = false;  // a write under way has begun to change the file (not only checked it)
  // Parallel, rank 0: the raw data of the steps in the file. No change ever
  // writes there (a step is written once, into new space), so a change's
  // journal (begin_change) holds everything else.
  std::vector<detail::ByteRange> raw;

  std::string what() const { return "output file '" + o.path + "'"; }

  /// A write failed: the file may be inconsistent on disk. Never leave it
  /// under its final name: a temporary is removed, a live file moved aside.
  /// Parallel: every rank is here together (guarded agrees on failures).
  [[noreturn]] void fail(const std::string& reason) {
    file.reset();  // close what can be closed; errors here are expected
    H5Eclear2(H5E_DEFAULT);
    closed = true;
    // The cause users act on: HDF5 over MPI-IO says only "file write failed".
    std::string msg = reason + detail::space_note(o.path, need, reason);
    if (root && live) {
      // Back to the last complete step (the journal holds what the failed
      // write overwrote), then aside: the final name never holds a file that
      // failed, and the moved file still opens.
      bool undone = false;
      try {
        undone = detail::undo_recover(o.path, journal);
      } catch (const IoError&) {
      }
      // Never over an earlier run's failed file: the first free name.
      std::string aside = o.path + ".failed";
      for (int k = 1; detail::file_exists(aside) && k < 1000; ++k)
        aside = o.path + ".failed." + std::to_string(k);
      if (!detail::file_exists(aside) && std::rename(o.path.c_str(), aside.c_str()) == 0)
        msg += undone      ? "; the file, back at its last complete step, was moved to " + aside
               : !changing ? "; the file, unchanged since its last complete step, was moved to " + aside
                           : "; the incomplete file was moved to " + aside;
      if (o.xdmf) detail::remove_quietly(xmf);
    } else if (root) {
      detail::remove_quietly(tmp);
      msg += "; no output file was left";
    }
    if (par) detail::par::bcast(msg);  // the same words on every rank
    throw IoError(msg, __FILE__, __LINE__);
  }

  /// Runs a change to the file; on failure (on any rank) fails it.
  template <class F>
  void guarded(F&& f) {
    try {
      detail::par::together(par, f);
    } catch (const IoError& e) {
      fail(e.what());
    }
  }

  /// Parallel, live file: before a collective change, rank 0 journals every
  /// byte the change could overwrite (undo_snapshot): HDF5 updates metadata
  /// in place, and MPI-IO leaves no driver of ours below it to journal each
  /// overwrite as the serial file's driver does. Serial: the driver journals
  /// as the change goes (undo_vfd.cpp).
  void begin_change() {
    if (!par || !live) return;
    detail::par::agree([&] {
      if (root) detail::undo_snapshot(o.path, journal, raw, what());
    });
  }

  /// Flushes; once the file is live, the flushed state is committed: a
  /// process killed after this point finds it again. While the file is a
  /// temporary nothing is journaled (a kill leaves only the temporary), so a
  /// journal never refers to another file than o.path.
  void flush(const std::string& context) {
    ADI_H5_CHECK(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), context, "cannot flush");
    if (live) commit(context);
  }
  void commit(const std::string& context) {
    if (par)  // every rank's flush has returned (agree): the state on disk is whole
      detail::par::agree([&] {
        if (root) detail::undo_drop(journal);
      });
    else
      detail::undo_commit(file.get(), context);
  }

  /// The file's first complete step: from now on it is worth keeping.
  void publish() {
    detail::par::together(par, [&] {
      if (!root) return;
      detail::fsync_path(tmp);
      detail::rename_file(tmp, o.path, what());
    });
    live = true;
  }

  H5Id access_plist(const std::string& context) const {
    return par ? detail::par::fapl(context) : detail::undo_fapl(journal, context);
  }

  void rewrite_xdmf() {
    if (!o.xdmf || !root) return;
    std::vector<std::string> fields;
    for (const auto& name : materials) fields.push_back("/material/" + name);
    write_xdmf(xmf, detail::base_name(o.path), o.geometry, o.precision, steps, fields);
  }

  static std::unique_ptr<Impl> make(const Options& o) {
    detail::init_hdf5();
    auto im = std::make_unique<Impl>();
    im->o = o;
    im->xmf = xdmf_path_for(o.path);
    im->journal = journal_path_for(o.path);
    im->par = o.part.has_value();
    if (im->par && !detail::par::built())
      throw IoError(im->what() + ": a collective write needs parallel HDF5, which this adi3d was built without",
                    __FILE__, __LINE__);
    im->root = detail::par::rank() == 0 || !im->par;
    // Unique: another process' temporary is never touched (rank 0's name).
    im->tmp = unique_temp_path(o.path);
    if (im->par) detail::par::bcast(im->tmp);
    return im;
  }
};

bool parallel_hdf5_built() { return detail::par::built(); }

GridFile::GridFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GridFile::GridFile(GridFile&&) noexcept = default;
GridFile& GridFile::operator=(GridFile&&) noexcept = default;

GridFile::~GridFile() {
  if (!impl_ || impl_->closed) return;
  impl_->file.reset();  // parallel: every rank gets here together (see Options::part)
  H5Eclear2(H5E_DEFAULT);
  if (!impl_->live && impl_->root) detail::remove_quietly(impl_->tmp);
}

namespace {
/// /material/<name>: each field once, float64, plane by plane from its source
/// (which checks the values as it reads them), with its source and checksum.
void write_material(hid_t f, const GridFile::Options& o, const std::string& ctx) {
  H5Id g = detail::create_group(f, "material", ctx);
  const auto& n = o.geometry.n;
  const hsize_t dims[3] = {static_cast<hsize_t>(n[2]), static_cast<hsize_t>(n[1]), static_cast<hsize_t>(n[0])};
  std::vector<double> plane(static_cast<std::size_t>(n[0] * n[1]));
  for (const auto& field : o.fields) {
    // Not a structured binding: ADI_H5_CHECK's lambda captures the name
    // (C++17 cannot capture a binding; clang, the fuzz build, refuses it).
    const std::string& name = field.first;
    const auto& src = field.second;
    H5Id space(H5Screate_simple(3, dims, nullptr), H5Sclose);
    H5Id d(ADI_H5_CHECK(H5Dcreate2(g.get(), name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                                   H5P_DEFAULT),
                        ctx, "cannot create dataset /material/" + name),
           H5Dclose);
    const hsize_t count[3] = {1, dims[1], dims[2]};
    const hsize_t m = static_cast<hsize_t>(plane.size());
    H5Id mspace(H5Screate_simple(1, &m, nullptr), H5Sclose);
    for (index_t k = 0; k < n[2]; ++k) {
      src->read({{0, 0, k}}, {{n[0], n[1], 1}}, plane.data());
      const hsize_t start[3] = {static_cast<hsize_t>(k), 0, 0};
      ADI_H5_CHECK(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), ctx,
                   "cannot select a plane");
      ADI_H5_CHECK(H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, mspace.get(), space.get(), H5P_DEFAULT, plane.data()), ctx,
                   "cannot write /material/" + name);
    }
    detail::write_attr(d.get(), "source", src->name(), ctx);
    detail::write_attr(d.get(), "checksum", src->checksum(), ctx);
  }
}

/// The same file layout written by every rank together (Options::part):
/// each rank reads its own part of a field and writes it as its hyperslab,
/// collectively, so no rank ever holds a whole field. The part is read (and
/// its values checked) before the field's collective calls and a failure is
/// agreed first: a rank that cannot read never leaves the others waiting
/// inside a collective write. The checksum is rank 0's (provenance computed
/// it there already), so every rank writes the same attribute.
void write_material_parts(hid_t f, const GridFile::Options& o, const std::string& ctx) {
  H5Id g = detail::create_group(f, "material", ctx);
  const auto& n = o.geometry.n;
  const FieldPart& p = *o.part;
  const hsize_t dims[3] = {static_cast<hsize_t>(n[2]), static_cast<hsize_t>(n[1]), static_cast<hsize_t>(n[0])};
  const detail::par::PartSpaces sel = detail::par::part_spaces(n, p, ctx);
  const H5Id xfer = detail::par::dxpl(ctx);
  std::vector<double> part(static_cast<std::size_t>(p.count[0] * p.count[1] * p.count[2]));
  for (const auto& field : o.fields) {
    const std::string& name = field.first;  // (not a binding: ADI_H5_CHECK's lambda captures it)
    const auto& src = field.second;
    detail::par::agree([&] {
      if (!part.empty()) src->read(p.offset, p.count, part.data());
    });
    std::string sum = detail::par::rank() == 0 ? src->checksum() : std::string();
    detail::par::bcast(sum);
    H5Id space(H5Screate_simple(3, dims, nullptr), H5Sclose);
    H5Id d(ADI_H5_CHECK(H5Dcreate2(g.get(), name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                                   H5P_DEFAULT),
                        ctx, "cannot create dataset /material/" + name),
           H5Dclose);
    ADI_H5_CHECK(H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, sel.mem.get(), sel.file.get(), xfer.get(), part.data()), ctx,
                 "cannot write /material/" + name);
    detail::write_attr(d.get(), "source", src->name(), ctx);
    detail::write_attr(d.get(), "checksum", sum, ctx);
  }
}
}  // namespace

GridFile GridFile::create(const Options& o) {
  // The .xmf names datasets "<file name>:/steps/..." and XDMF readers split
  // that at the first colon (the config refuses such names; so does this,
  // for the Python Problem's write).
  if (o.xdmf && detail::base_name(o.path).find(':') != std::string::npos)
    throw IoError("output file '" + o.path + "': a name with ':' cannot be named by its .xmf sidecar (readers split "
                      "<file>:/dataset at the first ':'); choose another name, or write no .xmf",
                  __FILE__, __LINE__);
  auto im = Impl::make(o);
  // A killed run's unfinished write to the file this one replaces: undo it
  // first, so the old file is whole until the new one takes its name.
  // Its metadata and the material fields, before anything is written.
  im->need = (64.0 * 1024) + 8.0 * static_cast<double>(o.geometry.n[0] * o.geometry.n[1] * o.geometry.n[2]) *
                                 static_cast<double>(o.fields.size());
  detail::par::together(im->par, [&] {
    if (!im->root) return;
    detail::undo_recover(o.path, im->journal);
    detail::probe_creatable(im->tmp, im->what());
    detail::require_space(im->tmp, im->need, im->what());
  });
  im->guarded([&] {
    H5Id fapl = im->access_plist(im->what());
    im->file = H5Id(ADI_H5_CHECK(H5Fcreate(im->tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), im->what(),
                                 "cannot create " + im->tmp),
                    H5Fclose);
    const hid_t f = im->file.get();
    detail::write_attr(f, "format", std::string("adi3d-output"), im->what());
    detail::write_attr(f, "format_version", 1LL, im->what());
    detail::write_attr(f, "precision", std::string(precision_name(o.precision)), im->what());
    detail::write_attr(f, "status", std::string("running"), im->what());
    if (!o.problem.empty()) {
      detail::write_attr(f, "problem", o.problem, im->what());
      detail::write_attr(f, "problem_hash", o.problem_hash, im->what());
    }
    detail::write_grid_group(f, o.geometry, im->what());
    detail::write_provenance(f, "provenance", o.provenance, im->what());
    detail::create_group(f, "steps", im->what());
    detail::create_probe_series(f, o.probes, im->what());
    if (!o.fields.empty()) {
      if (im->par)
        write_material_parts(f, o, im->what());
      else
        write_material(f, o, im->what());
    }
    im->flush(im->what());
  });
  for (const auto& field : o.fields) im->materials.push_back(field.first);
  return GridFile(std::move(im));
}

namespace {

/// What reopen() found in an output file (read without changing it).
struct ReopenScan {
  bool rolled_back = false;
  std::vector<OutputStep> kept;         // steps up to the restart step, in order
  std::vector<std::string> drop;        // /steps members to delete
  std::vector<std::string> materials;   // the /material/ datasets (an older collective file has none)
  std::string restart_group;            // "restart_NNN", the first free name
  std::vector<detail::ByteRange> raw;   // the kept steps' raw data (parallel)
  std::vector<detail::ProbeScan> probes;  // the probe series and the rows each keeps
};

ReopenScan scan_for_reopen(const GridFile::Options& o, index_t restart_step, const std::string& ctx,
                           const std::string& journal, bool extents) {
  const std::string advice = "; move it away to start a new output file";
  ReopenScan r;
  // The run that wrote it may have been killed inside a write: back to its
  // last complete step first.
  r.rolled_back = detail::undo_recover(o.path, journal);
  if (H5Fis_hdf5(o.path.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw IoError(ctx + ": not a readable HDF5 file" + advice, __FILE__, __LINE__);
  }
  const hid_t fid = H5Fopen(o.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (fid < 0) {
    const std::string h5 = detail::hdf5_error_text();
    throw IoError(ctx + ": cannot open (" + (h5.empty() ? "HDF5 error" : h5) + ")" + advice, __FILE__, __LINE__);
  }
  H5Id file(fid, H5Fclose);
  const hid_t f = file.get();
  detail::check_output_header(f, o.geometry, o.precision, ctx, advice);
  // Steps after the checkpoint are written again by the restarted run.
  H5Id sg = detail::open_group(f, "/steps", ctx);
  for (const std::string& name : detail::member_names(sg.get(), ctx, "/steps")) {
    const std::string ds = "/steps/" + name + "/u";
    if (!detail::path_exists(f, ds)) {  // a group without data: a write that never completed
      r.drop.emplace_back(name);
      continue;
    }
    H5Id d(ADI_H5_CHECK(H5Dopen2(f, ds.c_str(), H5P_DEFAULT), ctx, "cannot open " + ds), H5Dclose);
    const index_t step = detail::read_int_attr(d.get(), "step", ctx + ":" + ds);
    const double time = detail::read_double_attr(d.get(), "time", ctx + ":" + ds);
    if (step > restart_step) {
      r.drop.emplace_back(name);
    } else {
      const std::string flux = heat_flux_dataset(step);
      const bool has_flux = detail::path_exists(f, "/steps/" + name + "/heat_flux");
      r.kept.push_back({step, time, ds, has_flux ? "/steps/" + name + "/heat_flux" : std::string()});
      if (extents) detail::chunk_extents(d.get(), r.raw, ctx + ":" + ds);
      if (extents && has_flux) {
        H5Id q(ADI_H5_CHECK(H5Dopen2(f, r.kept.back().heat_flux.c_str(), H5P_DEFAULT), ctx, "cannot open " + flux),
               H5Dclose);
        detail::chunk_extents(q.get(), r.raw, ctx + ":" + r.kept.back().heat_flux);
      }
    }
  }
  // A series records one point: one of the same name elsewhere is refused,
  // before anything changes.
  r.probes = detail::scan_probes(f, static_cast<long long>(restart_step), ctx);
  for (const auto& have : r.probes)
    for (const ProbeSeries& want : o.probes)
      if (want.name == have.name && want.x != have.x) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "(%.17g, %.17g, %.17g) m, this run's probe at (%.17g, %.17g, %.17g) m",
                      have.x[0], have.x[1], have.x[2], want.x[0], want.x[1], want.x[2]);
        throw ConfigError(o.path, "probes.points." + want.name,
                          std::string("the output's series /probes/") + want.name + " is at " + buf +
                              ": a series records one point; give the probe another name, or move the output away",
                          __FILE__, __LINE__);
      }
  std::sort(r.kept.begin(), r.kept.end(), [](const OutputStep& a, const OutputStep& b) { return a.step < b.step; });
  // The sidecar lists the material the file holds, whatever this run's
  // config says (the file keeps the first run's /material/).
  if (detail::path_exists(f, "/material")) {
    H5Id mg = detail::open_group(f, "/material", ctx);
    for (const std::string& name : detail::member_names(mg.get(), ctx, "/material")) {
      // H5Oopen + H5Iget_type: the same calls in HDF5 1.10 to 1.14.
      H5Id obj(ADI_H5_CHECK(H5Oopen(mg.get(), name.c_str(), H5P_DEFAULT), ctx, "cannot open /material/" + name),
               H5Oclose);
      if (H5Iget_type(obj.get()) == H5I_DATASET) r.materials.push_back(name);
    }
  }
  H5Id pg = detail::open_group(f, "/provenance", ctx);
  char rname[32];
  for (int k = 1;; ++k) {
    std::snprintf(rname, sizeof rname, "restart_%03d", k);
    if (!detail::path_exists(pg.get(), rname)) break;
  }
  r.restart_group = rname;
  return r;
}

/// The scan as text and back, to hand rank 0's scan to the other ranks
/// (times with 17 digits: exact).
std::string encode(const ReopenScan& r) {
  std::string s = std::string(r.rolled_back ? "1" : "0") + "\n" + r.restart_group + "\n";
  char buf[128];
  for (const auto& k : r.kept) {
    std::snprintf(buf, sizeof buf, "k %lld %.17g ", static_cast<long long>(k.step), k.time);
    s += buf + k.dataset + "\n";
    if (!k.heat_flux.empty()) s += "f " + k.heat_flux + "\n";  // of the step before
  }
  for (const auto& p : r.probes) {
    std::snprintf(buf, sizeof buf, "p %lld %lld %.17g %.17g %.17g ", p.rows, p.kept, p.x[0], p.x[1], p.x[2]);
    s += buf + p.name + "\n";
  }
  for (const auto& d : r.drop) s += "d " + d + "\n";
  for (const auto& m : r.materials) s += "m " + m + "\n";
  return s;
}

ReopenScan decode(const std::string& s) {
  ReopenScan r;
  std::size_t at = 0;
  auto line = [&] {
    const std::size_t e = s.find('\n', at);
    std::string l = s.substr(at, e - at);
    at = e + 1;
    return l;
  };
  r.rolled_back = line() == "1";
  r.restart_group = line();
  while (at < s.size()) {
    const std::string l = line();
    if (l.compare(0, 2, "d ") == 0) {
      r.drop.push_back(l.substr(2));
    } else if (l.compare(0, 2, "m ") == 0) {
      r.materials.push_back(l.substr(2));
    } else if (l.compare(0, 2, "f ") == 0) {
      r.kept.back().heat_flux = l.substr(2);
    } else if (l.compare(0, 2, "p ") == 0) {
      detail::ProbeScan p;
      int used = 0;
      std::sscanf(l.c_str(), "p %lld %lld %lf %lf %lf %n", &p.rows, &p.kept, &p.x[0], &p.x[1], &p.x[2], &used);
      p.name = l.substr(static_cast<std::size_t>(used));
      r.probes.push_back(p);
    } else {
      long long step = 0;
      double time = 0;
      int used = 0;
      std::sscanf(l.c_str(), "k %lld %lf %n", &step, &time, &used);
      r.kept.push_back({static_cast<index_t>(step), time, l.substr(static_cast<std::size_t>(used)), std::string()});
    }
  }
  return r;
}

}  // namespace

GridFile GridFile::reopen(const Options& o, index_t restart_step) {
  auto im = Impl::make(o);
  const std::string ctx = "output file '" + o.path + "' (continuing it after the restart)";
  const std::string advice = "; move it away to start a new output file";
  // First read what is there without changing anything (rank 0), then the
  // change: a journaled transaction like any step's write.
  ReopenScan scan;
  detail::par::together(im->par, [&] {
    if (!im->root) return;
    scan = scan_for_reopen(o, restart_step, ctx, im->journal, im->par);
    if (im->par) detail::undo_snapshot(o.path, im->journal, scan.raw, ctx);
  });
  if (im->par) {
    std::string text = im->root ? encode(scan) : std::string();
    detail::par::bcast(text);
    if (!im->root) scan = decode(text);
  }
  im->rolled_back = scan.rolled_back;
  im->steps = scan.kept;
  im->materials = scan.materials;
  im->raw = std::move(scan.raw);
  im->live = true;
  im->provenance_group = "/provenance/" + scan.restart_group;
  auto change = [&] {
    H5Id fapl = im->access_plist(ctx);
    const hid_t fid = H5Fopen(o.path.c_str(), H5F_ACC_RDWR, fapl.get());
    if (fid < 0) {
      const std::string h5 = detail::hdf5_error_text();
      throw IoError(ctx + ": cannot open for writing (" + (h5.empty() ? "HDF5 error" : h5) + ")" + advice, __FILE__,
                    __LINE__);
    }
    im->file = H5Id(fid, H5Fclose);
    const hid_t f = im->file.get();
    H5Id pg = detail::open_group(f, "/provenance", ctx);
    detail::write_provenance(pg.get(), scan.restart_group, o.provenance, ctx);
    pg.reset();
    detail::write_attr(f, "status", std::string("running"), ctx);
    // Deleted last: the space they free is then not reused within this
    // change, whose journal (parallel) does not hold their raw data.
    H5Id sg = detail::open_group(f, "/steps", ctx);
    for (const auto& name : scan.drop)
      ADI_H5_CHECK(H5Ldelete(sg.get(), name.c_str(), H5P_DEFAULT), ctx, "cannot delete /steps/" + name);
    sg.reset();
    // Probe rows after the restart step are recorded again, like the steps.
    for (const auto& p : scan.probes)
      if (p.kept < p.rows) detail::truncate_probe_series(f, p.name, p.kept, ctx);
    detail::create_probe_series(f, o.probes, ctx);
    detail::truncate_tables(f, "/diagnostics", static_cast<long long>(restart_step), ctx);
    im->flush(im->what());
  };
  try {
    detail::par::together(im->par, change);
  } catch (const IoError&) {
    im->file.reset();
    im->closed = true;  // leave the file as it was found (its journal undoes a partial change)
    throw;
  }
  im->rewrite_xdmf();
  return GridFile(std::move(im));
}

namespace {
/// The dataset creation properties of a step's field: chunks of whole x rows
/// (about 1 MiB), shuffle + gzip when asked for. components > 0: a vector
/// field (z, y, x, components), a node's components in one chunk.
detail::H5Id step_dcpl(const GridFile::Options& o, std::size_t elem, hsize_t components, const std::string& ctx) {
  using detail::H5Id;
  H5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  const auto c3 = detail::chunk_shape(o.geometry.n, elem * (components > 0 ? components : 1));
  const hsize_t chunk[4] = {c3[0], c3[1], c3[2], components};
  ADI_H5_CHECK(H5Pset_chunk(dcpl.get(), components > 0 ? 4 : 3, chunk), ctx, "cannot set the chunk shape");
  if (o.compression > 0) {
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0)
      throw IoError(ctx + ": this HDF5 library has no gzip (deflate) filter; set output.compression: 0", __FILE__,
                    __LINE__);
    ADI_H5_CHECK(H5Pset_shuffle(dcpl.get()), ctx, "cannot set the shuffle filter");
    ADI_H5_CHECK(H5Pset_deflate(dcpl.get(), static_cast<unsigned>(o.compression)), ctx, "cannot set the gzip filter");
  }
  return dcpl;
}
}  // namespace

template <class T>
void GridFile::write_step(index_t step, double time, const T* values, const T* heat_flux) {
  Impl& im = *impl_;
  ADI_REQUIRE(!im.closed, "GridFile::write_step after finish or failure");
  ADI_REQUIRE(precision_of<T>() == im.o.precision, "GridFile::write_step: precision differs from the file's");
  ADI_REQUIRE(!has_step(step), "GridFile::write_step: step already written");
  const std::string ds = step_dataset(step);
  const std::string ctx = im.what() + ", step " + std::to_string(step);
  std::vector<detail::ByteRange> extents;
  // About what the step takes on disk (compressed: unknown, a margin only).
  const double raw = static_cast<double>(sizeof(T)) * static_cast<double>(im.o.geometry.n[0]) *
                     static_cast<double>(im.o.geometry.n[1]) * static_cast<double>(im.o.geometry.n[2]);
  im.need = (im.o.compression > 0 ? 256.0 * 1024 : raw) + 64.0 * 1024;
  // Agreed before any collective call (a change of its own: the body below
  // agrees inside it): a full disk found inside HDF5 on one rank leaves the
  // ranks in different calls of the library.
  im.changing = false;
  im.guarded([&] {
    if (im.root) detail::require_space(im.live ? im.o.path : im.tmp, im.need, ctx);
  });
  im.changing = true;
  im.guarded([&] {
    im.begin_change();
    const hid_t f = im.file.get();
    const std::string grp = ds.substr(0, ds.size() - 2);
    H5Id g(ADI_H5_CHECK(H5Gcreate2(f, grp.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), ctx,
                        "cannot create group " + grp),
           H5Gclose);
    const auto& n = im.o.geometry.n;
    const hsize_t dims[3] = {static_cast<hsize_t>(n[2]), static_cast<hsize_t>(n[1]), static_cast<hsize_t>(n[0])};
    H5Id space(H5Screate_simple(3, dims, nullptr), H5Sclose);
    const H5Id dcpl = step_dcpl(im.o, sizeof(T), 0, ctx);
    H5Id d(ADI_H5_CHECK(H5Dcreate2(g.get(), "u", detail::file_type(im.o.precision), space.get(), H5P_DEFAULT,
                                   dcpl.get(), H5P_DEFAULT),
                        ctx, "cannot create dataset " + ds),
           H5Dclose);
    if (im.par) {
      // Each rank its hyperslab, collectively (filtered chunks need that):
      // HDF5 assembles chunks that several ranks share.
      const detail::par::PartSpaces sel = detail::par::part_spaces(n, *im.o.part, ctx);
      const H5Id xfer = detail::par::dxpl(ctx);
      ADI_H5_CHECK(H5Dwrite(d.get(), detail::mem_type(im.o.precision), sel.mem.get(), sel.file.get(), xfer.get(),
                            values),
                   ctx, "cannot write " + ds);
    } else {
      ADI_H5_CHECK(H5Dwrite(d.get(), detail::mem_type(im.o.precision), H5S_ALL, H5S_ALL, H5P_DEFAULT, values), ctx,
                   "cannot write " + ds);
    }
    detail::write_attr(d.get(), "time", time, ctx);
    detail::write_attr(d.get(), "step", static_cast<long long>(step), ctx);
    if (im.par) detail::chunk_extents(d.get(), extents, ctx);  // collective metadata reads: every rank
    ADI_H5_CHECK(d.close(), ctx, "cannot write " + ds);  // closing writes the last chunk
    if (heat_flux) {
      const std::string qs = heat_flux_dataset(step);
      const hsize_t qdims[4] = {dims[0], dims[1], dims[2], 3};
      H5Id qspace(H5Screate_simple(4, qdims, nullptr), H5Sclose);
      const H5Id qdcpl = step_dcpl(im.o, sizeof(T), 3, ctx);
      H5Id q(ADI_H5_CHECK(H5Dcreate2(g.get(), "heat_flux", detail::file_type(im.o.precision), qspace.get(),
                                     H5P_DEFAULT, qdcpl.get(), H5P_DEFAULT),
                          ctx, "cannot create dataset " + qs),
             H5Dclose);
      if (im.par) {
        const detail::par::PartSpaces sel = detail::par::part_spaces(n, *im.o.part, ctx, 3);
        const H5Id xfer = detail::par::dxpl(ctx);
        ADI_H5_CHECK(H5Dwrite(q.get(), detail::mem_type(im.o.precision), sel.mem.get(), sel.file.get(), xfer.get(),
                              heat_flux),
                     ctx, "cannot write " + qs);
      } else {
        ADI_H5_CHECK(H5Dwrite(q.get(), detail::mem_type(im.o.precision), H5S_ALL, H5S_ALL, H5P_DEFAULT, heat_flux),
                     ctx, "cannot write " + qs);
      }
      detail::write_attr(q.get(), "time", time, ctx);
      detail::write_attr(q.get(), "step", static_cast<long long>(step), ctx);
      detail::write_attr(q.get(), "units", std::string("W/m^2"), ctx);
      detail::write_attr(q.get(), "components", std::string("qx, qy, qz (the last axis): q = -K grad u"), ctx);
      if (im.par) detail::chunk_extents(q.get(), extents, ctx);
      ADI_H5_CHECK(q.close(), ctx, "cannot write " + qs);
    }
    ADI_H5_CHECK(g.close(), ctx, "cannot close group " + grp);
    im.flush(ctx);
    if (!im.live) {
      im.publish();
      if (!im.par) detail::undo_commit(im.file.get(), ctx);
    }
  });
  if (im.root) im.raw.insert(im.raw.end(), extents.begin(), extents.end());
  im.steps.push_back({step, time, ds, heat_flux ? heat_flux_dataset(step) : std::string()});
  std::sort(im.steps.begin(), im.steps.end(), [](const OutputStep& a, const OutputStep& b) { return a.step < b.step; });
  im.rewrite_xdmf();
}

template void GridFile::write_step<float>(index_t, double, const float*, const float*);
template void GridFile::write_step<double>(index_t, double, const double*, const double*);

void GridFile::append_probes(const ProbeRows& rows) {
  Impl& im = *impl_;
  ADI_REQUIRE(!im.closed, "GridFile::append_probes after finish or failure");
  if (rows.empty() || im.o.probes.empty()) return;
  ADI_REQUIRE(rows.probes == im.o.probes.size(), "GridFile::append_probes: one value a probe");
  const std::string ctx = im.what() + ", probes at steps " + std::to_string(rows.steps.front()) + " to " +
                          std::to_string(rows.steps.back());
  im.guarded([&] {
    im.begin_change();
    detail::append_probe_rows(im.file.get(), im.o.probes, rows, im.par, im.root, ctx);
    im.flush(ctx);
    // Rows are data: a file that holds some is kept under its name (a
    // checkpoint written after them relies on finding them on a restart).
    if (!im.live) {
      im.publish();
      if (!im.par) detail::undo_commit(im.file.get(), ctx);
    }
  });
}

bool GridFile::rolled_back() const { return impl_->rolled_back; }

bool GridFile::has_step(index_t step) const {
  return std::any_of(impl_->steps.begin(), impl_->steps.end(), [&](const OutputStep& s) { return s.step == step; });
}

const std::vector<OutputStep>& GridFile::steps() const { return impl_->steps; }

void GridFile::append_row(const std::string& path, const std::vector<std::string>& columns,
                          const std::vector<std::pair<std::string, std::string>>& attributes,
                          const std::vector<double>& row) {
  Impl& im = *impl_;
  ADI_REQUIRE(!im.closed, "GridFile::append_row after finish or failure");
  ADI_REQUIRE(!row.empty() && row.size() == columns.size(), "GridFile::append_row: a row of the table's columns");
  const std::string ctx = im.what() + ", " + path;
  im.changing = true;
  im.guarded([&] {
    im.begin_change();
    detail::append_table_row(im.file.get(), path, columns, attributes, row, im.root, ctx);
    im.flush(ctx);
  });
}
const std::string& GridFile::path() const { return impl_->o.path; }

void GridFile::set_status(const std::string& status) {
  Impl& im = *impl_;
  if (im.closed) return;
  std::string end = status == "running" ? std::string() : utc_now_iso8601();
  if (im.par) detail::par::bcast(end);  // attributes must be the same on every rank
  im.changing = true;
  im.guarded([&] {
    im.begin_change();
    detail::write_attr(im.file.get(), "status", status, im.what());
    H5Id pg = detail::open_group(im.file.get(), im.provenance_group, im.what());
    detail::write_attr(pg.get(), "end_time", end, im.what());
    pg.reset();
    im.flush(im.what());
  });
}

void GridFile::write_steady(const SteadyRecord& r) {
  Impl& im = *impl_;
  if (im.closed) return;
  im.changing = true;
  im.guarded([&] {
    im.begin_change();
    const std::string ctx = im.what();
    H5Id g = detail::create_group(im.file.get(), "steady", ctx);
    detail::write_attr(g.get(), "converged", static_cast<long long>(r.converged ? 1 : 0), ctx);
    detail::write_attr(g.get(), "iterations", r.iterations, ctx);
    detail::write_attr(g.get(), "relative_residual", r.residual, ctx);
    detail::write_attr(g.get(), "tolerance", r.tolerance, ctx);
    detail::write_attr(g.get(), "imbalance_W", r.imbalance_W, ctx);
    std::vector<double> rows;
    for (const auto& [it, res] : r.history) {
      rows.push_back(static_cast<double>(it));
      rows.push_back(res);
    }
    const hsize_t dims[2] = {static_cast<hsize_t>(r.history.size()), 2};
    H5Id space(H5Screate_simple(2, dims, nullptr), H5Sclose);
    H5Id d(ADI_H5_CHECK(H5Dcreate2(g.get(), "residual", H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                                   H5P_DEFAULT),
                        ctx, "cannot create dataset /steady/residual"),
           H5Dclose);
    // (a collective file: every rank writes the same rows, as the string datasets)
    if (!rows.empty())
      ADI_H5_CHECK(H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()), ctx,
                   "cannot write /steady/residual");
    detail::write_attr(d.get(), "columns", std::string("sweeps, relative residual"), ctx);
    ADI_H5_CHECK(d.close(), ctx, "cannot write /steady/residual");
    ADI_H5_CHECK(g.close(), ctx, "cannot close group /steady");
    im.flush(ctx);
  });
}

void GridFile::finish(const std::string& status) {
  Impl& im = *impl_;
  if (im.closed) return;
  set_status(status);
  im.guarded([&] {
    im.begin_change();  // parallel: closing may still write metadata
    ADI_H5_CHECK(im.file.close(), im.what(), "cannot close");
    if (!im.live) {
      im.publish();
    } else if (im.par) {
      im.commit(im.what());
      if (im.root) detail::fsync_path(im.o.path);
    } else {
      detail::fsync_path(im.o.path);
    }
  });
  im.closed = true;
  im.rewrite_xdmf();
}

double material_parts_buffer_bytes(double part_points, int material_fields) {
  // write_material_parts: one std::vector<double> of the part, reused field by field.
  return material_fields > 0 ? part_points * 8.0 : 0.0;
}

}  // namespace adi::io
