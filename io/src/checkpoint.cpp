// Checkpoints: written to a temporary, fsync'ed and renamed (see checkpoint.hpp).

#include "h5par.hpp"
#include "h5util.hpp"

#include <adi/io/checkpoint.hpp>
#include <adi/io/lock.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <sstream>
#include <sys/stat.h>

namespace adi::io {

using detail::H5Id;

namespace {
constexpr long long kFormatVersion = 1;

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
  char out[24];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

namespace {
std::string state_hash(const CheckpointState& s) { return checkpoint_state_hash(s); }
}  // namespace

template <class T>
void write_checkpoint(const std::string& path, const CheckpointState& s, const T* field, const Provenance& prov,
                      const FieldPart* part) {
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
  try {
    together([&] {
      if (root) detail::probe_creatable(tmp, what);
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
      detail::write_attr(f, "step", static_cast<long long>(s.step), what);
      detail::write_attr(f, "time", s.time, what);
      detail::write_attr(f, "steps_total", static_cast<long long>(s.steps_total), what);
      detail::write_attr(f, "precision", std::string(precision_name(s.precision)), what);
      detail::write_attr(f, "state_hash", state_hash(s), what);
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
      H5Id d(ADI_H5_CHECK(H5Dcreate2(f, "u", detail::file_type(s.precision), space.get(), H5P_DEFAULT, dcpl.get(),
                                     H5P_DEFAULT),
                          what, "cannot create dataset /u"),
             H5Dclose);
      if (par) {
        const detail::par::PartSpaces sel = detail::par::part_spaces(n, *part, what);
        const H5Id xfer = detail::par::dxpl(what);
        ADI_H5_CHECK(H5Dwrite(d.get(), detail::mem_type(s.precision), sel.mem.get(), sel.file.get(), xfer.get(),
                              field),
                     what, "cannot write /u");
      } else {
        ADI_H5_CHECK(H5Dwrite(d.get(), detail::mem_type(s.precision), H5S_ALL, H5S_ALL, H5P_DEFAULT, field), what,
                     "cannot write /u");
      }
      ADI_H5_CHECK(d.close(), what, "cannot write /u");  // closing writes the last chunk
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
    throw IoError(std::string(e.what()) + "; the previous checkpoint (if any) is unchanged", __FILE__, __LINE__);
  }
}

template void write_checkpoint<float>(const std::string&, const CheckpointState&, const float*, const Provenance&,
                                      const FieldPart*);
template void write_checkpoint<double>(const std::string&, const CheckpointState&, const double*, const Provenance&,
                                       const FieldPart*);

namespace {
H5Id open_checkpoint(const std::string& path) {
  detail::init_hdf5();
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    throw IoError(path + ": cannot open checkpoint (" + detail::errno_text(err) + ")", __FILE__, __LINE__);
  }
  if (S_ISDIR(st.st_mode)) throw IoError(path + ": is a directory, expected a checkpoint file", __FILE__, __LINE__);
  const htri_t is = H5Fis_hdf5(path.c_str());
  if (is <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw IoError(path + ": not a checkpoint (not an HDF5 file)", __FILE__, __LINE__);
  }
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    const std::string h5 = detail::hdf5_error_text();
    throw IoError(path + ": cannot open checkpoint: the file is truncated or damaged" +
                      (h5.empty() ? "" : " (HDF5: " + h5 + ")"),
                  __FILE__, __LINE__);
  }
  return H5Id(f, H5Fclose);
}
}  // namespace

CheckpointState read_checkpoint_state(const std::string& path) {
  H5Id file = open_checkpoint(path);
  const hid_t f = file.get();
  const std::string ctx = path;
  if (!detail::has_attr(f, "format") || detail::read_string_attr(f, "format", ctx) != "adi3d-checkpoint")
    throw IoError(path + ": not an adi3d checkpoint (no format = adi3d-checkpoint attribute)", __FILE__, __LINE__);
  const long long version = detail::read_int_attr(f, "format_version", ctx);
  if (version != kFormatVersion)
    throw IoError(path + ": checkpoint format version " + std::to_string(version) + ", this adi3d reads version " +
                      std::to_string(kFormatVersion),
                  __FILE__, __LINE__);
  CheckpointState s;
  s.step = detail::read_int_attr(f, "step", ctx);
  s.time = detail::read_double_attr(f, "time", ctx);
  s.steps_total = detail::read_int_attr(f, "steps_total", ctx);
  const std::string prec = detail::read_string_attr(f, "precision", ctx);
  if (prec == "float32") s.precision = Precision::F32;
  else if (prec == "float64") s.precision = Precision::F64;
  else throw IoError(path + ": attribute 'precision': expected float32 or float64, got '" + prec + "'", __FILE__, __LINE__);
  s.geometry = detail::read_grid_group(f, ctx);
  s.config_yaml = detail::read_string_dataset(f, "/provenance/config", ctx);
  if (s.step < 0) throw IoError(path + ": attribute 'step' is negative", __FILE__, __LINE__);
  if (!detail::has_attr(f, "state_hash"))
    throw IoError(path + ": the checkpoint has no state_hash attribute (written by an older adi3d, or edited): its "
                      "step and time cannot be trusted",
                  __FILE__, __LINE__);
  if (detail::read_string_attr(f, "state_hash", ctx) != state_hash(s))
    throw IoError(path + ": the checkpoint's step, time, steps_total, precision or config do not match its "
                      "state_hash: the file was edited or damaged",
                  __FILE__, __LINE__);

  // The field: present, the right type and shape (read later, with checksums).
  if (!detail::path_exists(f, "/u")) throw IoError(path + ": dataset /u is missing", __FILE__, __LINE__);
  H5Id d(ADI_H5_CHECK(H5Dopen2(f, "/u", H5P_DEFAULT), ctx, "cannot open /u"), H5Dclose);
  H5Id space(H5Dget_space(d.get()), H5Sclose);
  hsize_t dims[3] = {0, 0, 0};
  if (H5Sget_simple_extent_ndims(space.get()) != 3 || H5Sget_simple_extent_dims(space.get(), dims, nullptr) != 3 ||
      dims[0] != static_cast<hsize_t>(s.geometry.n[2]) || dims[1] != static_cast<hsize_t>(s.geometry.n[1]) ||
      dims[2] != static_cast<hsize_t>(s.geometry.n[0]))
    throw IoError(path + ": dataset /u does not have the shape /grid describes", __FILE__, __LINE__);
  // The field's checksum is what makes a flipped bit an error instead of a
  // wrong restart: a /u without it is not trusted.
  H5Id dcpl(H5Dget_create_plist(d.get()), H5Pclose);
  unsigned flags = 0;
  std::size_t nelem = 0;
  unsigned config = 0;
  if (dcpl.get() < 0 ||
      H5Pget_filter_by_id2(dcpl.get(), H5Z_FILTER_FLETCHER32, &flags, &nelem, nullptr, 0, nullptr, &config) < 0) {
    H5Eclear2(H5E_DEFAULT);
    throw IoError(path + ": dataset /u has no Fletcher-32 checksum: a damaged field could not be detected, so the "
                      "checkpoint is not trusted",
                  __FILE__, __LINE__);
  }
  H5Id type(H5Dget_type(d.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_FLOAT ||
      H5Tget_size(type.get()) != (s.precision == Precision::F32 ? 4u : 8u) || !detail::is_standard_number(type.get()))
    throw IoError(path + ": dataset /u is not " + prec, __FILE__, __LINE__);
  return s;
}

template <class T>
std::vector<T> read_checkpoint_field(const std::string& path, const CheckpointState& s) {
  if (precision_of<T>() != s.precision)
    throw IoError(path + ": the checkpoint holds " + std::string(precision_name(s.precision)) +
                      " data, the run is " + precision_name(precision_of<T>()),
                  __FILE__, __LINE__);
  H5Id file = open_checkpoint(path);
  H5Id d(ADI_H5_CHECK(H5Dopen2(file.get(), "/u", H5P_DEFAULT), path, "cannot open /u"), H5Dclose);
  std::vector<T> u(static_cast<std::size_t>(s.geometry.n[0] * s.geometry.n[1] * s.geometry.n[2]));
  ADI_H5_CHECK(H5Dread(d.get(), detail::mem_type(s.precision), H5S_ALL, H5S_ALL, H5P_DEFAULT, u.data()), path,
               "cannot read the field /u: the checkpoint is truncated or damaged");
  for (std::size_t q = 0; q < u.size(); ++q)
    if (!std::isfinite(static_cast<double>(u[q])))
      throw IoError(path + ": the checkpointed field holds NaN or Inf", __FILE__, __LINE__);
  return u;
}

template std::vector<float> read_checkpoint_field<float>(const std::string&, const CheckpointState&);
template std::vector<double> read_checkpoint_field<double>(const std::string&, const CheckpointState&);

void check_restart_compatible(const std::string& path, const CheckpointState& s, const RunConfig& c) {
  const RunConfig old = parse_config(s.config_yaml, path + ":/provenance/config");
  const HeatProblem& a = old.problem;
  const HeatProblem& b = c.problem;
  auto fail = [&](const std::string& what) {
    throw ConfigError(path, "", "cannot continue this run from the checkpoint: " + what, __FILE__, __LINE__);
  };
  auto str3 = [](const auto& v) {
    std::ostringstream o;
    o.precision(17);
    o << v[0] << " x " << v[1] << " x " << v[2];
    return o.str();
  };
  if (a.n != b.n) fail("it was written for a " + str3(a.n) + " grid, the config has " + str3(b.n));
  if (a.length != b.length) fail("domain lengths differ: checkpoint " + str3(a.length) + ", config " + str3(b.length));
  if (old.origin != c.origin) fail("domain.origin differs");
  if (a.alpha != b.alpha) fail("diffusivity differs: checkpoint " + str3(a.alpha) + ", config " + str3(b.alpha));
  if (a.lo != b.lo || a.hi != b.hi) fail("boundary conditions differ");
  if (a.theta != b.theta) {
    std::ostringstream o;
    o.precision(17);
    o << "scheme.theta differs: checkpoint theta = " << a.theta << ", config theta = " << b.theta;
    fail(o.str());
  }
  if (a.dt != b.dt) {
    std::ostringstream o;
    o.precision(17);
    o << "time step differs: checkpoint dt = " << a.dt << " s, config dt = " << b.dt << " s";
    fail(o.str());
  }
  if (old.precision != c.precision || s.precision != c.precision)
    fail(std::string("precision differs: checkpoint ") + precision_name(s.precision) + ", config " +
         precision_name(c.precision));
  // Time is step x dt, never stored state a restart takes on trust.
  const double t = static_cast<double>(s.step) * a.dt;
  if (!(std::fabs(s.time - t) <= 1e-12 * std::max(std::fabs(t), a.dt)))
    throw IoError(path + ": the checkpoint says step " + std::to_string(s.step) + " at time " + std::to_string(s.time) +
                      " s, but step x dt = " + std::to_string(t) + " s: the file was edited or damaged",
                  __FILE__, __LINE__);
  if (s.steps_total != old.steps || s.step > old.steps)
    throw IoError(path + ": the checkpoint's step or steps_total disagrees with its config (time.steps = " +
                      std::to_string(old.steps) + "): the file was edited or damaged",
                  __FILE__, __LINE__);
  if (s.step > c.steps)
    fail("it is at step " + std::to_string(s.step) + ", beyond the run's " + std::to_string(c.steps) + " steps");
  for (int a3 = 0; a3 < 3; ++a3)
    if (s.geometry.n[a3] != b.n[a3]) fail("its /grid differs from its config");
}

}  // namespace adi::io
