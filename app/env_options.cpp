// The ADI_* environment, read once (see env_options.hpp).

#include "env_options.hpp"

#include <adi/error.hpp>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <sstream>

namespace adi::app {

namespace {

class EnvReader {
 public:
  explicit EnvReader(const EnvLookup& lookup) : lookup_(lookup) {}

  /// The value, or nullptr when unset or empty (both keep the default).
  const char* get(const char* name) const {
    const char* v = lookup_ ? lookup_(name) : std::getenv(name);
    return v && *v ? v : nullptr;
  }

  /// 0 or 1.
  bool flag(const char* name, bool fallback) const {
    const char* v = get(name);
    if (!v) return fallback;
    const std::string s(v);
    if (s == "0") return false;
    if (s == "1") return true;
    fail(name, v, "expected 0 or 1");
  }

  /// An integer in lo..hi (decimal, nothing around it).
  long long integer(const char* name, long long fallback, long long lo, long long hi, const std::string& what) const {
    const char* v = get(name);
    if (!v) return fallback;
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(v, &end, 10);
    const bool digits = (*v >= '0' && *v <= '9') || ((*v == '-' || *v == '+') && v[1] >= '0' && v[1] <= '9');
    if (!digits || *end || errno == ERANGE || x < lo || x > hi) fail(name, v, "expected " + what);
    return x;
  }

  /// One of `allowed`.
  int one_of(const char* name, int fallback, std::initializer_list<int> allowed, const std::string& what) const {
    const char* v = get(name);
    if (!v) return fallback;
    for (int a : allowed)
      if (std::to_string(a) == v) return a;
    fail(name, v, "expected " + what);
  }

  /// A finite number > 0.
  double positive(const char* name, double fallback, const std::string& what) const {
    const char* v = get(name);
    if (!v) return fallback;
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(v, &end);
    if (end == v || *end || errno == ERANGE || !std::isfinite(x) || !(x > 0) || std::isspace(static_cast<unsigned char>(*v)))
      fail(name, v, "expected " + what);
    return x;
  }

  [[noreturn]] static void fail(const char* name, const char* value, const std::string& why) {
    ADI_THROW(InvalidArgument, std::string(name) + "='" + printable(value, 60) + "' in the environment: " + why);
  }

 private:
  const EnvLookup& lookup_;
};

constexpr long long kIntMax = 2147483647;

}  // namespace

EnvOptions read_env_options(const EnvLookup& lookup) {
  const EnvReader e(lookup);
  EnvOptions o;
  SolverOptions& s = o.solver;
  s.cuda_device = static_cast<int>(e.integer("ADI_CUDA_DEVICE", s.cuda_device, 0, kIntMax, "a device index >= 0"));
  s.cuda_sync = e.flag("ADI_CUDA_SYNC", s.cuda_sync);
  s.x_seg = static_cast<int>(
      e.integer("ADI_X_SEG", s.x_seg, 0, 64, "rows per thread of the x line kernel, 0..64 (0: the planner's choice)"));
  s.yz_seg = static_cast<int>(e.integer("ADI_YZ_SEG", s.yz_seg, 0, 64,
                                        "rows per thread of the y/z line kernel, 0..64 (0: the planner's choice)"));
  s.lanes_const = e.flag("ADI_LANES_CONST", s.lanes_const);
  s.lanes_pairs = e.flag("ADI_LANES_PAIRS", s.lanes_pairs);
  s.rhs_vec = e.one_of("ADI_RHS_VEC", s.rhs_vec, {0, 2, 4}, "0, 2 or 4 (points per thread of the RHS kernel)");
  s.rhs_ahead = e.one_of("ADI_RHS_AHEAD", s.rhs_ahead, {2, 4, 8}, "2, 4 or 8 (planes the RHS kernel loads ahead)");
  s.fuse_rhs = e.flag("ADI_FUSE_RHS", s.fuse_rhs);
  s.fused_planes = static_cast<int>(e.integer("ADI_FUSED_PLANES", s.fused_planes, 0, 65536,
                                              "steps a block of the fused RHS + x kernel takes, 0..65536 (0: an equal share)"));
  s.cuda_graph = e.flag("ADI_CUDA_GRAPH", s.cuda_graph);
  s.skip_fixed = e.flag("ADI_SKIP_FIXED", s.skip_fixed);
  s.skip_face_lane = e.flag("ADI_SKIP_FACE_LANE", s.skip_face_lane);
  s.short_lines = e.flag("ADI_SHORT_LINES", s.short_lines);
  s.lanes_half_tiles = e.flag("ADI_LANES_HALF_TILES", s.lanes_half_tiles);
  s.row_align = e.one_of("ADI_ROW_ALIGN", s.row_align, {0, 16, 32, 64, 128, 256},
                         "0, 16, 32, 64, 128 or 256 (bytes each row of the field starts on; 0: the planner's choice)");
  s.general_segmented = e.flag("ADI_GENERAL_SEGMENTED", s.general_segmented);
  s.general_x_in_place = e.flag("ADI_GENERAL_X_IN_PLACE", s.general_x_in_place);
  s.general_x_transpose = e.flag("ADI_GENERAL_X_TRANSPOSE", s.general_x_transpose);
  s.long_lines = e.flag("ADI_LONG_LINES", s.long_lines);
  s.line_blocks = e.flag("ADI_LINE_BLOCKS", s.line_blocks);
  s.fused_tiles = e.flag("ADI_FUSED_TILES", s.fused_tiles);
  s.classic_rings = e.flag("ADI_CLASSIC_RINGS", s.classic_rings);
  s.mpi_overlap = e.flag("ADI_MPI_OVERLAP", s.mpi_overlap);
  s.mpi_batches = static_cast<int>(
      e.integer("ADI_MPI_BATCHES", s.mpi_batches, 1, kIntMax, "a number of batches >= 1 (lines per exchange)"));

  AppOptions& a = o.app;
  a.parallel_io = e.flag("ADI_PARALLEL_IO", a.parallel_io);
  a.read_timeout_s = e.positive("ADI_READ_TIMEOUT", a.read_timeout_s, "seconds > 0");
  a.fault_nan_at_step = e.integer("ADI_FAULT_NAN_AT_STEP", a.fault_nan_at_step, 1, std::numeric_limits<index_t>::max(),
                                  "a step >= 1");
  a.isolate_reads = e.flag("ADI_ISOLATE_READS", a.isolate_reads);
  a.collective_timeout_s = e.positive("ADI_COLLECTIVE_TIMEOUT", a.collective_timeout_s, "seconds > 0");
  a.fault_stall_rank = static_cast<int>(e.integer("ADI_FAULT_STALL_RANK", a.fault_stall_rank, 0, kIntMax, "a rank >= 0"));
  // Slurm's own variables: recorded as they are (provenance), not parsed.
  if (const char* j = e.get("SLURM_JOB_ID")) {
    a.batch_job = j;
    if (const char* t = e.get("SLURM_ARRAY_TASK_ID")) a.batch_job += std::string(" array task ") + t;
    if (const char* r = e.get("SLURM_RESTART_COUNT")) a.batch_job += std::string(" restart ") + r;
  }
  return o;
}

std::string AppOptions::describe() const {
  const AppOptions d{};
  std::ostringstream s;
  auto line = [&](const char* env, const char* name, auto v, auto dv) {
    s << "  " << name << " = " << v << (v == dv ? "" : "   (set by " + std::string(env) + ")") << "\n";
  };
  line("ADI_PARALLEL_IO", "parallel_io", parallel_io, d.parallel_io);
  line("ADI_READ_TIMEOUT", "read_timeout_s", read_timeout_s, d.read_timeout_s);
  line("ADI_FAULT_NAN_AT_STEP", "fault_nan_at_step", fault_nan_at_step, d.fault_nan_at_step);
  line("ADI_ISOLATE_READS", "isolate_reads", isolate_reads, d.isolate_reads);
  line("ADI_COLLECTIVE_TIMEOUT", "collective_timeout_s", collective_timeout_s, d.collective_timeout_s);
  line("ADI_FAULT_STALL_RANK", "fault_stall_rank", fault_stall_rank, d.fault_stall_rank);
  s << "  batch_job = " << (batch_job.empty() ? "(none)" : batch_job)
    << (batch_job.empty() ? "" : "   (from SLURM_JOB_ID)") << "\n";
  return s.str();
}

}  // namespace adi::app
