#include "memory.hpp"

#include <adi/factory.hpp>
#include <adi/io/hdf5.hpp>

#include "util.hpp"

#include <fstream>
#include <sstream>

namespace adi::app {

namespace {

/// MemAvailable from /proc/meminfo in bytes, -1 if unknown.
double mem_available() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  double kib = -1;
  std::string unit;
  while (f >> key) {
    if (key == "MemAvailable:") {
      f >> kib >> unit;
      return kib * 1024.0;
    }
    std::getline(f, unit);
  }
  return -1;
}

double read_number(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  if (!(f >> s) || s == "max") return -1;
  try {
    return std::stod(s);
  } catch (...) {
    return -1;
  }
}

/// Room left under this process' memory cgroup (Slurm confines jobs this
/// way; MemAvailable sees the whole node). -1 when there is no limit.
double cgroup_room(std::string& source) {
  std::ifstream f("/proc/self/cgroup");
  std::string line;
  while (std::getline(f, line)) {
    // cgroup v2: "0::/path"; v1: "N:memory:/path" (possibly "N:memory,xyz:/path").
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string ctrl = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    std::string limit_file, usage_file;
    if (ctrl.empty()) {
      limit_file = "/sys/fs/cgroup" + path + "/memory.max";
      usage_file = "/sys/fs/cgroup" + path + "/memory.current";
    } else if (("," + ctrl + ",").find(",memory,") != std::string::npos) {
      limit_file = "/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes";
      usage_file = "/sys/fs/cgroup/memory" + path + "/memory.usage_in_bytes";
    } else {
      continue;
    }
    const double limit = read_number(limit_file);
    if (limit <= 0 || limit > 1e18) continue;  // "max" or the v1 "unlimited" sentinel
    const double used = read_number(usage_file);
    source = limit_file;
    return limit - (used > 0 ? used : 0);
  }
  return -1;
}

}  // namespace

MemoryEstimate estimate_memory(const io::RunConfig& c, int ranks, const SolverOptions& solver) {
  MemoryEstimate m;
  // Auto as the run resolves it (a stretched grid: the CPU even where a GPU is, choose_backend).
  m.backend = c.problem.any_stretched() && c.backend == Backend::Auto ? Backend::Cpu : resolve_backend(c.backend);
  m.ranks = ranks;
  // The stepper's (and a steady solve's) arrays, as the backend models them.
  const StepperFootprint f = stepper_footprint(c.problem, m.backend, c.precision, ranks, solver, c.solve.steady);
  m.field_bytes = f.field_bytes;
  m.material_fields = f.material_fields;
  // Beside them: the run's own copy of the field (initial data, outputs,
  // checkpoints; rank 0 gathers the whole field) and 32 MiB for libraries
  // and I/O buffers.
  const double slack = 32.0 * 1024 * 1024;
  m.host_bytes = m.field_bytes + f.host_bytes + slack;
  m.device_bytes = f.device_bytes;
  m.device_bytes_rows16 = f.device_bytes_rows16;
  if (m.backend == Backend::Cuda) {
    const auto devs = cuda_devices();
    if (!devs.empty()) {
      m.device_total = static_cast<double>(devs[0].global_memory);
      m.device_name = devs[0].name;
    }
  } else if (ranks > 1) {
    // A collective output file's material parts (io).
    const double part_points = f.stepper_field / (c.precision == Precision::F32 ? 4.0 : 8.0);
    m.host_bytes += io::material_parts_buffer_bytes(part_points, m.material_fields);
  }
  m.host_available = mem_available();
  m.host_limit_source = "/proc/meminfo MemAvailable";
  std::string src;
  const double room = cgroup_room(src);
  if (room >= 0 && (m.host_available < 0 || room < m.host_available)) {
    m.host_available = room;
    m.host_limit_source = src;
  }
  return m;
}

void check_memory(const MemoryEstimate& m) {
  if (m.host_available >= 0 && m.host_bytes > m.host_available)
    ADI_THROW(InsufficientMemory, "the run needs " + human_bytes(m.host_bytes) + " of host memory (" +
                                      human_bytes(m.field_bytes) + " per field), only " +
                                      human_bytes(m.host_available) + " is available (" + m.host_limit_source +
                                      "); nothing was allocated");
  if (m.device_total >= 0 && m.device_bytes > m.device_total)
    ADI_THROW(InsufficientMemory, "the run needs " + human_bytes(m.device_bytes) + " of device memory (" +
                                      human_bytes(m.field_bytes) + " per field), " + m.device_name + " has " +
                                      human_bytes(m.device_total) + " in total; nothing was allocated" +
                                      (m.device_bytes_rows16 < m.device_bytes && m.device_bytes_rows16 <= m.device_total
                                           ? " (rows padded to 16 bytes, ADI_ROW_ALIGN=16, would need " +
                                                 human_bytes(m.device_bytes_rows16) + ", with slower y and z solves)"
                                           : ""));
}

std::string describe_memory(const MemoryEstimate& m) {
  std::ostringstream s;
  // "needed" is the planning estimate (fields, work arrays, buffers and a
  // 32 MiB allowance), an upper bound; the run's log line "allocated by the
  // stepper" counts the stepper's own arrays only, hence smaller.
  s << "# memory: one field " << human_bytes(m.field_bytes) << "; host " << human_bytes(m.host_bytes)
    << " needed" << (m.ranks > 1 ? " by rank 0" : "") << " (estimate for the whole run, with a 32 MiB allowance), ";
  if (m.host_available >= 0)
    s << human_bytes(m.host_available) << " available (" << m.host_limit_source << ")";
  else
    s << "available unknown";
  s << "\n";
  if (m.material_fields > 0)
    s << "# memory: " << m.material_fields << " material/source field" << (m.material_fields == 1 ? "" : "s")
      << " counted (" << human_bytes(m.material_fields * m.field_bytes) << ")\n";
  if (m.backend == Backend::Cuda) {
    s << "# memory: device " << human_bytes(m.device_bytes) << " needed" << (m.ranks > 1 ? " per rank" : "")
      << ", ";
    if (m.device_total >= 0)
      s << m.device_name << " has " << human_bytes(m.device_total) << " in total\n";
    else
      s << "no CUDA device visible\n";
  }
  const bool fits = (m.host_available < 0 || m.host_bytes <= m.host_available) &&
                    (m.device_total < 0 || m.device_bytes <= m.device_total);
  s << "# memory: " << (fits ? "fits" : "DOES NOT FIT") << " (backend " << backend_name(m.backend) << ")\n";
  return s.str();
}

}  // namespace adi::app
