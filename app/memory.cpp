#include "memory.hpp"

#include <adi/factory.hpp>
#include <adi/steady.hpp>

#include "util.hpp"

#include <adi/line_kernel_plan.hpp>
#include <adi/step_plan.hpp>

#include <algorithm>
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
  m.backend = resolve_backend(c.backend);
  m.ranks = ranks;
  const double points = static_cast<double>(c.problem.n[0]) * static_cast<double>(c.problem.n[1]) *
                        static_cast<double>(c.problem.n[2]);
  m.field_bytes = points * (c.precision == Precision::F32 ? 4.0 : 8.0);
  const double slack = 32.0 * 1024 * 1024;
  // The stepper's two fields: a whole grid, or rank 0's sub-box: 1/ranks of
  // the grid, plus the node more that uneven splits give the first ranks
  // and the ghost planes (a quarter more bounds both for boxes of 8 planes).
  const double stepper_field = ranks > 1 ? 1.25 * m.field_bytes / ranks : m.field_bytes;
  // Material and source fields: one array each in the stepper (an isotropic
  // conductivity is one array for the three axes), beside u and the work array.
  std::vector<const FieldSource*> distinct;
  const Material& mat = c.problem.material;
  const bool constant_tables = plan_step(c.problem).constant_tables();
  for (const FieldSource* f : {mat.conductivity[0].get(), mat.conductivity[1].get(), mat.conductivity[2].get(),
                               mat.capacity.get(), mat.source.get()})
    if (f && std::find(distinct.begin(), distinct.end(), f) == distinct.end()) distinct.push_back(f);
  m.material_fields = static_cast<int>(distinct.size());
  double stepper_arrays = 2.0 + m.material_fields;
  // Padded rows (SolverOptions::device_row_pitch): a grid's size over the packed one.
  const std::size_t elem_bytes = c.precision == Precision::F32 ? 4 : 8;
  const auto row_padding = [&](const SolverOptions& so) {
    return static_cast<double>(so.device_row_pitch(c.problem.n[0], elem_bytes)) /
           static_cast<double>(c.problem.n[0]);
  };
  if (m.backend == Backend::Cuda) {
    m.host_bytes = m.field_bytes + slack;
    if (!constant_tables && ranks == 1) {
      // The general CUDA path (solver/cuda/general): open x lines of 2 to
      // 1024 rows are solved in place; others (periodic, which may, or
      // longer) on the x-y transposed grid: one more work grid, and the x
      // conductivity and 1/c fields once more, transposed. Lines longer than
      // 1024 rows are solved one per thread, with a scratch grid (two with a
      // periodic axis). The fields pass through the host once, in double and
      // in the run's precision.
      const index_t nx = c.problem.n[0];
      const bool x_in_place = !c.problem.periodic(0) && nx >= 2 && nx <= 1024;
      if (!x_in_place) stepper_arrays += 1.0 + (mat.conductivity[0] ? 1.0 : 0.0) + (mat.capacity ? 1.0 : 0.0);
      bool long_lines = false;
      for (int a = 0; a < 3; ++a) long_lines = long_lines || c.problem.n[a] > 1024;
      if (long_lines) stepper_arrays += 2.0;
      m.host_bytes += m.material_fields * (points * 8.0 + m.field_bytes);
    }
    if (!constant_tables && ranks > 1) {
      // A GPU rank of the general path (solver/cuda/general/general_local_cuda.cu):
      // along its split axis three scratch grids (the interior's alpha, beta
      // and the sweep's c'), and per line of it 8 + 22 P values (its reduced
      // rows, their all-gather over P ranks and the reduced system's scratch
      // of 2P unknowns), i.e. (8 + 22 P) P / n fields for lines of n nodes
      // cut P ways: P = ranks and the shorter of y and z bound it. Each field
      // passes through the host once, as the box in double and in the run's
      // precision.
      const double n_split = static_cast<double>(std::max<index_t>(1, std::min(c.problem.n[1], c.problem.n[2])));
      stepper_arrays += 3.0 + (8.0 + 22.0 * ranks) * ranks / n_split;
      m.host_bytes += m.material_fields * stepper_field * (1.0 + 8.0 / (c.precision == Precision::F32 ? 4.0 : 8.0));
    }
    {
      // The classic line kernels (constant K and c, whatever the faces):
      // lines no block holds take the long-line kernel
      // (adi::LineKernelFamily::Long), whose solver keeps its reduced rows,
      // 2 per segment of kLongI rows, i.e. 2 ceil(n / kLongI) / n of a
      // field for that axis, and its nested reduced solve (the same rule
      // again) a little more. Counted for every problem: an upper bound.
      const std::size_t elem = c.precision == Precision::F32 ? 4 : 8;
      for (int a = 0; a < 3; ++a) {
        const index_t n = c.problem.n[a];
        const LineKernelPlan p = plan_line_kernel(n, static_cast<Axis>(a), a == 0, elem);
        if (p.family == LineKernelFamily::Long) stepper_arrays += 1.1 * 2.0 * p.S / static_cast<double>(n);
      }
    }
    // Device rows are padded (128 bytes by default): x lines of 3 fp32
    // nodes take 32 elements a row.
    m.device_bytes = stepper_arrays * stepper_field * row_padding(solver);
    SolverOptions rows16 = solver;
    rows16.row_align = 16;
    m.device_bytes_rows16 = stepper_arrays * stepper_field * row_padding(rows16);
    const auto devs = cuda_devices();
    if (!devs.empty()) {
      m.device_total = static_cast<double>(devs[0].global_memory);
      m.device_name = devs[0].name;
    }
  } else {
    // A rank of the general CPU path whose axis is split keeps the interior's
    // coefficients of the two reduced unknowns (alpha, beta: two more
    // arrays) when its lines differ (a K or 1/c field); with constant
    // coefficients they are one line's worth (solver/cpu/general_local_cpu.cpp).
    if (ranks > 1 && !constant_tables && mat.lines_vary()) stepper_arrays += 2.0;
    // The classic CPU stepper pads its rows only where ADI_ROW_ALIGN asks.
    const double pad = solver.row_align > 0 && constant_tables && ranks == 1 ? row_padding(solver) : 1.0;
    m.host_bytes = m.field_bytes + stepper_arrays * stepper_field * pad + slack;
    // A collective output file: each rank writes its part of every material
    // field once, from one part-sized float64 buffer (io/src/hdf5_output.cpp).
    if (ranks > 1 && m.material_fields > 0)
      m.host_bytes += stepper_field * 8.0 / (c.precision == Precision::F32 ? 4.0 : 8.0);
  }
  if (c.solve.steady) {
    // solve: steady (steady.hpp): one stepper for each of its sweep
    // parameters (at most kSteadyMaxParameters, counted so) beside the run's (the general path's arrays each, device or
    // host as the backend's), and on the host this rank's share of the
    // Krylov vectors in double: V and Z of a restart cycle of 50 (101) and
    // 8 work vectors.
    const SteadyOptions so;
    const double share = points * 8.0 / ranks;
    m.host_bytes += (2.0 * so.restart + 1.0 + 8.0) * share;
    if (m.backend == Backend::Cuda)
      m.device_bytes *= 1.0 + kSteadyMaxParameters, m.device_bytes_rows16 *= 1.0 + kSteadyMaxParameters;
    else
      m.host_bytes += kSteadyMaxParameters * stepper_arrays * stepper_field;
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
