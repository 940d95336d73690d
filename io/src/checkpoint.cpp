// Checkpoints: written to a temporary, fsync'ed and renamed (see checkpoint.hpp).

#include "h5par.hpp"
#include "fsutil.hpp"
#include "h5util.hpp"

#include <adi/io/checkpoint.hpp>
#include <adi/io/lock.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <sys/stat.h>

namespace adi::io {

using detail::H5Id;

namespace {
constexpr long long kFormatVersion = 2;

/// The header a restart trusts (step, time, steps, precision, config),
/// hashed (64-bit FNV-1a) into the attribute `state_hash`: Fletcher-32
/// covers only the field, and an edited `step` would otherwise be continued
/// with the wrong time (issue #14).
}  // namespace

std::string checkpoint_state_hash(const CheckpointState& s) {
  char head[96];
  std::snprintf(head, sizeof head, "%lld %.17g %lld %s\n", static_cast<long long>(s.step), s.time,
                static_cast<long long>(s.steps_total), precision_name(s.precision));
  std::uint64_t h = 1469598103934665603ull;
  for (const std::string* t : {&s.config_yaml}) {
    for (const char* p = head; *p; ++p) h = (h ^ static_cast<unsigned char>(*p)) * 1099511628211ull;
    for (const char c : *t) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  // Version 2: the time axis and the problem too (version 1's hash is the
  // above alone, so its checkpoints still verify).
  if (s.format_version >= 2) {
    char axis[160];
    std::snprintf(axis, sizeof axis, "\n%.17g %.17g %lld %.17g\n", s.dt, s.axis.t0,
                  static_cast<long long>(s.axis.s0), s.axis.dt_before);
    for (const std::string& t : {std::string(axis), s.axis.segments, s.problem, s.problem_hash})
      for (const char c : t + "\n") h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  char out[24];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

namespace {
std::string state_hash(const CheckpointState& s) { return checkpoint_state_hash(s); }
}  // namespace

template <class T>
void write_checkpoint(const std::string& path, const CheckpointState& s, const T* field, const Provenance& prov,
                      const FieldPart* part, const T* previous) {
  detail::init_hdf5();
  ADI_REQUIRE(precision_of<T>() == s.precision, "write_checkpoint: precision differs from the state's");
  const std::string what = "checkpoint '" + path + "'";
  const bool par = part != nullptr;  // collective: see the header
  if (par && !detail::par::built())
    throw IoError(what + ": a collective write needs parallel HDF5, which this adi3d was built without", __FILE__,
                  __LINE__);
  // Unique: another process' temporary is never touched (rank 0's name).
  std::string tmp = unique_temp_path(path);
  if (par) detail::par::bcast(tmp);
  const bool root = !par || detail::par::rank() == 0;
  // Parallel: every rank makes the same calls; each step's failure is agreed
  // (par::agree) before the next collective one.
  auto together = [&](const std::function<void()>& f) { detail::par::together(par, f); };
  double need = 1 << 20;
  try {
    // The whole field in a temporary beside the old checkpoint: refused
    // before any (collective) HDF5 call if the disk cannot hold it.
    need = 64.0 * 1024 + (previous ? 2.0 : 1.0) * static_cast<double>(sizeof(T)) *
                              static_cast<double>(s.geometry.n[0]) * static_cast<double>(s.geometry.n[1]) *
                              static_cast<double>(s.geometry.n[2]);
    together([&] {
      if (!root) return;
      detail::probe_creatable(tmp, what);
      detail::require_space(tmp, need, what);
    });
    together([&] {
      H5Id fapl = par ? detail::par::fapl(what) : H5Id(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
      H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG);
      H5Id file(ADI_H5_CHECK(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), what,
                             "cannot create " + tmp),
                H5Fclose);
      const hid_t f = file.get();
      detail::write_attr(f, "format", std::string("adi3d-checkpoint"), what);
      detail::write_attr(f, "format_version", kFormatVersion, what);
      CheckpointState v = s;
      v.format_version = static_cast<int>(kFormatVersion);  // written as the current version
      detail::write_attr(f, "step", static_cast<long long>(v.step), what);
      detail::write_attr(f, "time", v.time, what);
      detail::write_attr(f, "dt", v.dt, what);
      detail::write_attr(f, "time_origin", v.axis.t0, what);
      detail::write_attr(f, "step_origin", static_cast<long long>(v.axis.s0), what);
      detail::write_attr(f, "dt_before", v.axis.dt_before, what);
      detail::write_attr(f, "time_segments", v.axis.segments, what);
      detail::write_attr(f, "steps_total", static_cast<long long>(v.steps_total), what);
      detail::write_attr(f, "precision", std::string(precision_name(v.precision)), what);
      detail::write_attr(f, "problem", v.problem, what);
      detail::write_attr(f, "problem_hash", v.problem_hash, what);
      detail::write_attr(f, "state_hash", state_hash(v), what);
      detail::write_grid_group(f, s.geometry, what);
      Provenance p = prov;
      p.config_yaml = s.config_yaml;
      detail::write_provenance(f, "provenance", p, what);

      const auto& n = s.geometry.n;
      const hsize_t dims[3] = {static_cast<hsize_t>(n[2]), static_cast<hsize_t>(n[1]), static_cast<hsize_t>(n[0])};
      H5Id space(H5Screate_simple(3, dims, nullptr), H5Sclose);
      H5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
      const auto chunk = detail::chunk_shape(n, sizeof(T));
      ADI_H5_CHECK(H5Pset_chunk(dcpl.get(), 3, chunk.data()), what, "cannot set the chunk shape");
      // A checksum per chunk: a damaged checkpoint is an error, never a wrong restart.
      ADI_H5_CHECK(H5Pset_fletcher32(dcpl.get()), what, "cannot set the Fletcher-32 filter");
      auto write_field = [&](const char* name, const T* values) {
        const std::string ds = std::string("/") + name;
        H5Id d(ADI_H5_CHECK(H5Dcreate2(f, name, detail::file_type(s.precision), space.get(), H5P_DEFAULT,
                                       dcpl.get(), H5P_DEFAULT),
                            what, "cannot create dataset " + ds),
               H5Dclose);
        if (par) {
          const detail::par::PartSpaces sel = detail::par::part_spaces(n, *part, what);
          const H5Id xfer = detail::par::dxpl(what);
          ADI_H5_CHECK(H5Dwrite(d.get(), detail::mem_type(s.precision), sel.mem.get(), sel.file.get(), xfer.get(),
                                values),
                       what, "cannot write " + ds);
        } else {
          ADI_H5_CHECK(H5Dwrite(d.get(), detail::mem_type(s.precision), H5S_ALL, H5S_ALL, H5P_DEFAULT, values),
                       what, "cannot write " + ds);
        }
        ADI_H5_CHECK(d.close(), what, "cannot write " + ds);  // closing writes the last chunk
      };
      write_field("u", field);
      if (previous) write_field("u_previous", previous);
      ADI_H5_CHECK(file.close(), what, "cannot close " + tmp);
    });
    together([&] {  // every rank has closed it: whole on disk
      if (!root) return;
      detail::fsync_path(tmp);
      detail::rename_file(tmp, path, what);
    });
  } catch (const IoError& e) {
    H5Eclear2(H5E_DEFAULT);
    if (root) detail::remove_quietly(tmp);
    throw IoError(std::string(e.what()) + detail::space_note(path, need, e.what()) +
                      "; the previous checkpoint (if any) is unchanged",
                  __FILE__, __LINE__);
  }
}

template void write_checkpoint<float>(const std::string&, const CheckpointState&, const float*, const Provenance&,
                                      const FieldPart*, const float*);
template void write_checkpoint<double>(const std::string&, const CheckpointState&, const double*, const Provenance&,
                                       const FieldPart*, const double*);

namespace {
H5Id open_checkpoint(const std::string& path) {
  detail::init_hdf5();
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    throw IoError(path + ": cannot open checkpoint (" + detail::errno_text(err) + ")", __FILE__, __LINE__);
  }
  if (S_ISDIR(st.st_mode)) throw IoError(path + ": is a directory, expected a checkpoint file", __FILE__, __LINE__);
  detail::require_regular_input(path, "the checkpoint");
  const htri_t is = H5Fis_hdf5(path.c_str());
  if (is <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw IoError(path + ": not a checkpoint (not an HDF5 file)", __FILE__, __LINE__);
  }
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0)
    throw IoError(path + ": cannot open checkpoint: " + detail::open_failure_words(detail::hdf5_error_text()),
                  __FILE__, __LINE__);
  return H5Id(f, H5Fclose);
}
}  // namespace

namespace {
// A checkpoint's field dataset: present, (nz, ny, nx) of the grid, with its
// Fletcher-32 checksum, of the checkpoint's precision.
void check_field_dataset(hid_t f, const char* name, const CheckpointState& s, const std::string& path,
                         const std::string& prec) {
  const std::string ctx = path, ds = std::string("dataset ") + name;
  if (!detail::path_exists(f, name)) throw IoError(path + ": " + ds + " is missing", __FILE__, __LINE__);
  H5Id d(ADI_H5_CHECK(H5Dopen2(f, name, H5P_DEFAULT), ctx, "cannot open " + std::string(name)), H5Dclose);
  H5Id space(H5Dget_space(d.get()), H5Sclose);
  hsize_t dims[3] = {0, 0, 0};
  if (H5Sget_simple_extent_ndims(space.get()) != 3 || H5Sget_simple_extent_dims(space.get(), dims, nullptr) != 3 ||
      dims[0] != static_cast<hsize_t>(s.geometry.n[2]) || dims[1] != static_cast<hsize_t>(s.geometry.n[1]) ||
      dims[2] != static_cast<hsize_t>(s.geometry.n[0]))
    throw IoError(path + ": " + ds + " does not have the shape /grid describes", __FILE__, __LINE__);
  // The field's checksum is what makes a flipped bit an error instead of a
  // wrong restart: a field without it is not trusted.
  H5Id dcpl(H5Dget_create_plist(d.get()), H5Pclose);
  unsigned flags = 0;
  std::size_t nelem = 0;
  unsigned config = 0;
  if (dcpl.get() < 0 ||
      H5Pget_filter_by_id2(dcpl.get(), H5Z_FILTER_FLETCHER32, &flags, &nelem, nullptr, 0, nullptr, &config) < 0) {
    H5Eclear2(H5E_DEFAULT);
    throw IoError(path + ": " + ds + " has no Fletcher-32 checksum: a damaged field could not be detected, so the "
                      "checkpoint is not trusted",
                  __FILE__, __LINE__);
  }
  H5Id type(H5Dget_type(d.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_FLOAT ||
      H5Tget_size(type.get()) != (s.precision == Precision::F32 ? 4u : 8u) || !detail::is_standard_number(type.get()))
    throw IoError(path + ": " + ds + " is not " + prec, __FILE__, __LINE__);
}
}  // namespace

CheckpointState read_checkpoint_state(const std::string& path) {
  H5Id file = open_checkpoint(path);
  const hid_t f = file.get();
  const std::string ctx = path;
  if (!detail::has_attr(f, "format") || detail::read_string_attr(f, "format", ctx) != "adi3d-checkpoint")
    throw IoError(path + ": not an adi3d checkpoint (no format = adi3d-checkpoint attribute)", __FILE__, __LINE__);
  const long long version = detail::read_int_attr(f, "format_version", ctx);
  if (version != 1 && version != kFormatVersion)
    throw IoError(path + ": checkpoint format version " + std::to_string(version) + ", this adi3d reads versions 1 and " +
                      std::to_string(kFormatVersion),
                  __FILE__, __LINE__);
  CheckpointState s;
  s.format_version = static_cast<int>(version);
  s.step = detail::read_int_attr(f, "step", ctx);
  s.time = detail::read_double_attr(f, "time", ctx);
  s.steps_total = detail::read_int_attr(f, "steps_total", ctx);
  if (version >= 2) {
    s.dt = detail::read_double_attr(f, "dt", ctx);
    s.axis.t0 = detail::read_double_attr(f, "time_origin", ctx);
    s.axis.s0 = detail::read_int_attr(f, "step_origin", ctx);
    s.axis.dt_before = detail::read_double_attr(f, "dt_before", ctx);
    s.axis.segments = detail::read_string_attr(f, "time_segments", ctx);
    s.problem = detail::read_string_attr(f, "problem", ctx);
    s.problem_hash = detail::read_string_attr(f, "problem_hash", ctx);
  }
  const std::string prec = detail::read_string_attr(f, "precision", ctx);
  if (prec == "float32") s.precision = Precision::F32;
  else if (prec == "float64") s.precision = Precision::F64;
  else throw IoError(path + ": attribute 'precision': expected float32 or float64, got '" + prec + "'", __FILE__, __LINE__);
  s.geometry = detail::read_grid_group(f, ctx);
  s.config_yaml = detail::read_string_dataset(f, "/provenance/config", ctx);
  if (detail::path_exists(f, "/provenance")) {
    H5Id pg = detail::open_group(f, "/provenance", ctx);
    if (detail::has_attr(pg.get(), "input_fields"))
      s.input_fields = detail::read_string_attr(pg.get(), "input_fields", ctx + ":/provenance");
  }
  if (s.step < 0) throw IoError(path + ": attribute 'step' is negative", __FILE__, __LINE__);
  if (!detail::has_attr(f, "state_hash"))
    throw IoError(path + ": the checkpoint has no state_hash attribute (written by an older adi3d, or edited): its "
                      "step and time cannot be trusted",
                  __FILE__, __LINE__);
  if (detail::read_string_attr(f, "state_hash", ctx) != state_hash(s))
    throw IoError(path + ": the checkpoint's step, time, steps_total, precision or config do not match its "
                      "state_hash: the file was edited or damaged",
                  __FILE__, __LINE__);

  // The fields: present, the right type and shape (read later, with checksums).
  check_field_dataset(f, "/u", s, path, prec);
  s.has_previous = detail::path_exists(f, "/u_previous");
  if (s.has_previous) check_field_dataset(f, "/u_previous", s, path, prec);
  return s;
}

namespace {
template <class T>
std::vector<T> read_field_dataset(const std::string& path, const CheckpointState& s, const char* name) {
  if (precision_of<T>() != s.precision)
    throw IoError(path + ": the checkpoint holds " + std::string(precision_name(s.precision)) +
                      " data, the run is " + precision_name(precision_of<T>()),
                  __FILE__, __LINE__);
  const std::string ds(name);
  H5Id file = open_checkpoint(path);
  H5Id d(ADI_H5_CHECK(H5Dopen2(file.get(), name, H5P_DEFAULT), path, "cannot open " + ds), H5Dclose);
  std::vector<T> u(static_cast<std::size_t>(s.geometry.n[0] * s.geometry.n[1] * s.geometry.n[2]));
  ADI_H5_CHECK(H5Dread(d.get(), detail::mem_type(s.precision), H5S_ALL, H5S_ALL, H5P_DEFAULT, u.data()), path,
               "cannot read the field " + ds + ": the checkpoint is truncated or damaged");
  for (std::size_t q = 0; q < u.size(); ++q)
    if (!std::isfinite(static_cast<double>(u[q])))
      throw IoError(path + ": the checkpointed field " + ds + " holds NaN or Inf", __FILE__, __LINE__);
  return u;
}
}  // namespace

template <class T>
std::vector<T> read_checkpoint_field(const std::string& path, const CheckpointState& s) {
  return read_field_dataset<T>(path, s, "/u");
}
template <class T>
std::vector<T> read_checkpoint_previous(const std::string& path, const CheckpointState& s) {
  if (!s.has_previous) return {};
  return read_field_dataset<T>(path, s, "/u_previous");
}

template std::vector<float> read_checkpoint_field<float>(const std::string&, const CheckpointState&);
template std::vector<double> read_checkpoint_field<double>(const std::string&, const CheckpointState&);
template std::vector<float> read_checkpoint_previous<float>(const std::string&, const CheckpointState&);
template std::vector<double> read_checkpoint_previous<double>(const std::string&, const CheckpointState&);

namespace {
std::string num17(double v) {
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

/// The checkpoint's config (what the run that wrote it resolved).
RunConfig stored_config(const std::string& path, const CheckpointState& s) {
  return parse_config(s.config_yaml, path + ":/provenance/config");
}

/// Version 1 had no axis: t = step x dt with the config's dt.
double checkpoint_dt(const CheckpointState& s, const RunConfig& old) {
  return s.format_version >= 2 ? s.dt : old.problem.dt;
}
}  // namespace

std::vector<ProblemItem> CheckpointState::problem_items(const std::string& name) const {
  if (format_version >= 2) return parse_problem_items(problem);
  return problem_items_of_stored(config_yaml, input_fields, name + ":/provenance/config");
}

void resolve_restart_time(RunConfig& c, const CheckpointState& s) {
  const RunConfig old = parse_config(s.config_yaml, "<checkpoint config>");
  const double dt_ck = checkpoint_dt(s, old);
  // The checkpoint's own axis, if the config's dt resolves on it to the
  // checkpoint's dt: the uninterrupted run's times, bit for bit.
  c.axis = s.axis;
  resolve_time(c);
  if (c.problem.dt == dt_ck) {
    c.resolved_yaml = to_yaml(c);
    return;
  }
  // Another dt: a new segment from the checkpoint's step and time.
  TimeAxis axis;
  axis.t0 = s.time;
  axis.s0 = s.step;
  axis.dt_before = dt_ck;
  const std::string before = s.axis.segments.empty()
                                 ? "step " + std::to_string(s.axis.s0) + ": t = " + num17(s.axis.t0) +
                                       " s, dt = " + num17(dt_ck) + " s"
                                 : s.axis.segments;
  c.axis = axis;
  resolve_time(c);
  c.axis.segments = before + "; step " + std::to_string(s.step) + ": t = " + num17(s.time) + " s, dt = " +
                    num17(c.problem.dt) + " s";
  c.resolved_yaml = to_yaml(c);
}

void check_restart_compatible(const std::string& path, const CheckpointState& s, const RunConfig& c) {
  const RunConfig old = stored_config(path, s);
  auto fail = [&](const std::string& what) {
    throw ConfigError(path, "", "cannot continue this run from the checkpoint: " + what, __FILE__, __LINE__);
  };
  auto str3 = [](const auto& v) {
    std::ostringstream o;
    o.precision(17);
    o << "[" << v[0] << ", " << v[1] << ", " << v[2] << "]";
    return o.str();
  };
  if (old.precision != c.precision || s.precision != c.precision)
    fail(std::string("precision differs: checkpoint ") + precision_name(s.precision) + ", config " +
         precision_name(c.precision) + " (a restart continues the field bit for bit, in its precision)");
  // The grid first (the rest of the problem once the fields are read:
  // check_same_problem): a field of another shape cannot continue.
  if (old.problem.n != c.problem.n) fail("grid differs: checkpoint " + str3(old.problem.n) + ", config " + str3(c.problem.n));
  for (int a3 = 0; a3 < 3; ++a3)
    if (s.geometry.n[a3] != old.problem.n[a3])
      throw IoError(path + ": its /grid differs from its config: the file was edited or damaged", __FILE__, __LINE__);
  // Time is t0 + (step - s0) dt on the axis the checkpoint records (version
  // 1: step x dt), never a stored number a restart takes on trust.
  const double dt = checkpoint_dt(s, old);
  const double t = s.axis.time_of(s.step, dt);
  if (!(dt > 0) || s.step < s.axis.s0 ||
      !(std::fabs(s.time - t) <= 1e-12 * std::max({std::fabs(t), std::fabs(s.axis.t0), dt})))
    throw IoError(path + ": the checkpoint says step " + std::to_string(s.step) + " at time " + std::to_string(s.time) +
                      " s, but its time axis (t = " + num17(s.axis.t0) + " s at step " + std::to_string(s.axis.s0) +
                      ", dt = " + num17(dt) + " s) puts it at t = " + std::to_string(t) +
                      " s: the file was edited or damaged",
                  __FILE__, __LINE__);
  if (s.steps_total != old.steps || s.step > old.steps)
    throw IoError(path + ": the checkpoint's step or steps_total disagrees with its config (time.steps = " +
                      std::to_string(old.steps) + "): the file was edited or damaged",
                  __FILE__, __LINE__);
  if (s.format_version >= 2 && s.problem_hash != problem_hash(parse_problem_items(s.problem)))
    throw IoError(path + ": the checkpoint's problem does not match its problem_hash: the file was edited or damaged",
                  __FILE__, __LINE__);
  if (s.step > c.steps)
    fail("it is at step " + std::to_string(s.step) + " (t = " + num17(s.time) + " s), beyond the run's end (step " +
         std::to_string(c.steps) + ", t = " + num17(c.t_end) + " s): give a later time.t_end or more time.steps");
}

void check_same_problem(const std::string& path, const CheckpointState& s, const std::vector<ProblemItem>& items) {
  const std::string diff = first_difference(s.problem_items(path), "checkpoint", items, "config");
  if (diff.empty()) return;
  throw ConfigError(path, "",
                    "cannot continue this run from the checkpoint: " + diff +
                        " (a restart continues the same problem; what may change: time.dt, time.steps / t_end, "
                        "output and checkpoint settings, docs/USER_GUIDE.md \"Restarts\")",
                    __FILE__, __LINE__);
}

}  // namespace adi::io
