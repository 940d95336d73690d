// Provenance: collected once per run, stored in outputs and checkpoints.

#include "h5util.hpp"

#include <adi/io/provenance.hpp>
#include <adi/version.hpp>

#include <hdf5.h>

#include <ctime>
#include <unistd.h>

namespace adi::io {

std::string utc_now_iso8601() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789_-+=.,/:@%") == std::string::npos;
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

std::string hdf5_library_version() {
  detail::init_hdf5();
  unsigned maj = 0, min = 0, rel = 0;
  H5get_libversion(&maj, &min, &rel);
  return std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel);
}

Provenance collect_provenance(const std::vector<std::string>& argv, const std::string& backend,
                              const std::string& device, const std::string& config_yaml,
                              const std::string& batch_job) {
  Provenance p;
  p.version = ADI_VERSION;
  p.git_hash = ADI_GIT_HASH;
  p.build_type = ADI_BUILD_TYPE;
  p.cxx_compiler = ADI_CXX_COMPILER;
  p.cuda_compiler = ADI_WITH_CUDA ? ADI_CUDA_COMPILER : "not built";
  p.hdf5_version = hdf5_library_version();
  p.backend = backend;
  p.device = device;
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) p.host = host;
  p.command_line = shell_join(argv);
  p.slurm_job_id = batch_job;
  p.start_time = utc_now_iso8601();
  p.config_yaml = config_yaml;
  return p;
}

namespace detail {
void write_provenance(hid_t loc, const std::string& name, const Provenance& p, const std::string& context) {
  H5Id g = create_group(loc, name, context);
  const std::pair<const char*, const std::string*> fields[] = {
      {"adi3d_version", &p.version},   {"git_hash", &p.git_hash},         {"build_type", &p.build_type},
      {"cxx_compiler", &p.cxx_compiler}, {"cuda_compiler", &p.cuda_compiler}, {"hdf5_version", &p.hdf5_version},
      {"backend", &p.backend},         {"device", &p.device},             {"host", &p.host},
      {"command_line", &p.command_line}, {"slurm_job_id", &p.slurm_job_id}, {"start_time", &p.start_time},
      {"end_time", &p.end_time}};
  for (const auto& f : fields) write_attr(g.get(), f.first, *f.second, context);
  write_string_dataset(g.get(), "config", p.config_yaml, context);
  // Only when there are some: the provenance of other runs stays as it was.
  if (!p.fields.empty()) write_attr(g.get(), "input_fields", p.fields, context);
  if (!p.time_segments.empty()) write_attr(g.get(), "time_segments", p.time_segments, context);
}
}  // namespace detail

}  // namespace adi::io
