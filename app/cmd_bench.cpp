// adi3d bench: median phase times of the Douglas step, effective bandwidth,
// and the ratio to a copy bandwidth measured in the same run; optionally the
// same step through cuSPARSE, side by side. Performance is measured here,
// never in a unit test.
//
// Under mpirun with several ranks it times the distributed stepper (one
// sub-box per rank; a phase's time is the slowest rank's) and reports how
// much of a step is communication: the host's time in the halo exchange and
// the reduced-system exchanges (staging copies, MPI, waiting for partners;
// with overlap, the default, part of it is hidden behind device work:
// ADI_MPI_OVERLAP=0 shows the plain cost, docs/MPI.md).
// Bandwidths are then per rank (a rank's share of the points), compared with
// the copy bandwidth rank 0 measures on its own device.

#include "commands.hpp"
#include "errors.hpp"
#include "exit_codes.hpp"
#include "log.hpp"
#include "memory.hpp"
#include "util.hpp"

#include <adi/cuda.hpp>
#include <adi/io/config.hpp>
#include <adi/io/result_file.hpp>
#include <adi/line_kernel_plan.hpp>
#include <adi/mpi.hpp>
#include <adi/solver.hpp>
#include <adi/temperature.hpp>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace adi::app {

namespace {

// Bytes of each array of the host copy that sets the CPU floor, STREAM's
// rule: at least four times the last-level cache, so that the copy measures
// memory, not cache (256 MiB, the size used before, is about half of the
// 480 MiB LLC this project's CI machine reports). At least 256 MiB, at most
// an eighth of the physical memory (both arrays: a quarter).
std::size_t host_copy_bytes() {
  const std::size_t floor_bytes = std::size_t(256) << 20;
  long llc = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
  llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  if (llc <= 0) {
    std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index3/size");  // e.g. "491520K"
    long v = 0;
    char unit = 0;
    if (f >> v) {
      f >> unit;
      llc = v * (unit == 'K' ? 1024L : unit == 'M' ? 1024L * 1024L : 1L);
    }
  }
  std::size_t bytes = std::max(floor_bytes, 4 * static_cast<std::size_t>(std::max(llc, 0L)));
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) bytes = std::min(bytes, static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 8);
  return std::max(bytes, std::size_t(64) << 20) >> 20 << 20;  // whole MiB
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}
double minimum(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()); }

std::array<index_t, 3> parse_size(const std::string& s) {
  std::array<index_t, 3> n{};
  std::stringstream ss(s);
  std::string part;
  int q = 0;
  while (std::getline(ss, part, 'x')) {
    if (q == 3) ADI_THROW(InvalidArgument, "--size '" + s + "': expected N or NXxNYxNZ");
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(part.c_str(), &end, 10);
    // (strtoll clamps a longer number to 2^63 - 1 and sets ERANGE: refused
    // like any extent past the cap, not run as the clamped size)
    if (part.empty() || *end || v < 3 || errno == ERANGE || v > io::kMaxGridExtent)
      ADI_THROW(InvalidArgument, "--size '" + s + "': extents must be integers from 3 to " +
                                     std::to_string(io::kMaxGridExtent) + " (grid.nx's range)");
    n[q++] = v;
  }
  if (q == 1) n[1] = n[2] = n[0];
  else if (q != 3) ADI_THROW(InvalidArgument, "--size '" + s + "': expected N or NXxNYxNZ");
  return n;
}

std::array<int, 3> parse_grid(const std::string& s) {
  if (s.empty() || s == "auto") return {{0, 0, 0}};
  std::array<int, 3> g{};
  std::stringstream ss(s);
  std::string part;
  int q = 0;
  while (std::getline(ss, part, 'x')) {
    char* end = nullptr;
    const long v = std::strtol(part.c_str(), &end, 10);
    if (q == 3 || part.empty() || *end || v < 1)
      ADI_THROW(InvalidArgument, "--grid '" + s + "': expected 1xPYxPZ (ranks along x, y, z)");
    g[q++] = static_cast<int>(v);
  }
  if (q != 3) ADI_THROW(InvalidArgument, "--grid '" + s + "': expected 1xPYxPZ (ranks along x, y, z)");
  return g;
}

/// The analytic mode on this rank's box (the whole grid for a plain stepper).
template <class T>
std::vector<T> analytic_box(const HeatProblem& p, const Box& b) {
  const AnalyticMode m = analytic_mode(p);
  std::vector<T> u(static_cast<std::size_t>(b.points()));
  for (index_t k = 0; k < b.size[2]; ++k)
    for (index_t j = 0; j < b.size[1]; ++j)
      for (index_t i = 0; i < b.size[0]; ++i)
        u[i + b.size[0] * (j + b.size[1] * k)] =
            static_cast<T>(analytic_shape(p, m, b.begin[0] + i, b.begin[1] + j, b.begin[2] + k));
  return u;
}

/// A smooth field computed where it is read (no array: a 512^3 bench needs
/// no extra GiB): base (1 + amp sin(2 pi i / n) ...) over the grid.
class SmoothField final : public FieldSource {
 public:
  SmoothField(std::string name, std::array<index_t, 3> n, double base, double amp)
      : name_(std::move(name)), n_(n), base_(base), amp_(amp) {}
  std::string name() const override { return name_; }
  void read(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& size, double* out) const override {
    const double tau = 6.283185307179586;
    for (index_t k = 0; k < size[2]; ++k)
      for (index_t j = 0; j < size[1]; ++j)
        for (index_t i = 0; i < size[0]; ++i) {
          const double s = std::sin(tau * static_cast<double>(lo[0] + i) / static_cast<double>(n_[0])) *
                           std::cos(tau * static_cast<double>(lo[1] + j) / static_cast<double>(n_[1])) *
                           std::sin(tau * static_cast<double>(lo[2] + k) / static_cast<double>(n_[2]) + 0.5);
          *out++ = base_ * (1.0 + amp_ * s);
        }
  }

 private:
  std::string name_;
  std::array<index_t, 3> n_;
  double base_, amp_;
};

/// The region ids of `--material tables`: 0 below the middle z plane, 1 above.
class HalfSpaces final : public FieldSource {
 public:
  explicit HalfSpaces(std::array<index_t, 3> n) : n_(n) {}
  std::string name() const override { return "bench regions"; }
  void read(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& size, double* out) const override {
    for (index_t k = 0; k < size[2]; ++k)
      for (index_t q = 0; q < size[0] * size[1]; ++q) *out++ = lo[2] + k < n_[2] / 2 ? 0.0 : 1.0;
  }

 private:
  std::array<index_t, 3> n_;
};

/// The benchmarked problem: the classic one (constant, dirichlet), or the
/// general one with the material and faces asked for (#16, #17).
HeatProblem bench_problem(const std::array<index_t, 3>& n, const std::string& material, const std::string& faces,
                          const std::string& scheme, const std::string& nonlinear, const std::string& stretch) {
  HeatProblem p;
  p.nonlinear = nonlinear == "extrapolated"          ? NonlinearStep::Extrapolated
                : nonlinear == "predictor-corrector" ? NonlinearStep::PredictorCorrector
                                                     : NonlinearStep::Iterate;
  p.n = n;
  p.dt = 1e-4;
  p.scheme = scheme == "douglas" ? SchemeType::Douglas : scheme == "strang" ? SchemeType::Strang : SchemeType::Auto;
  if (material == "field") {
    const auto k = std::make_shared<SmoothField>("bench K field", n, 1.0, 0.5);
    p.material.conductivity = {k, k, k};
    p.material.source = std::make_shared<SmoothField>("bench q field", n, 10.0, 1.0);
  } else if (material == "tables") {
    // Copper's K(T) over silicon's K(T) and c(T) (examples/power_device.yaml's
    // tables), a heat source field: the nonlinear step (temperature_stepper.hpp)
    // from a field near 300 K (the start set below).
    TemperatureMaterial cu, si;
    cu.name = "copper";
    cu.conductivity.fill(PropertyTable{{250.0, 400.0, 600.0}, {406.0, 393.0, 379.0}});
    cu.capacity = PropertyTable::constant_value(3.45e6);
    si.name = "silicon";
    si.conductivity.fill(PropertyTable{{250.0, 300.0, 350.0, 400.0, 500.0, 600.0}, {191.0, 148.0, 119.0, 98.9, 76.2, 61.9}});
    si.capacity = PropertyTable{{250.0, 300.0, 400.0, 600.0}, {1.55e6, 1.66e6, 1.79e6, 1.93e6}};
    auto st = std::make_shared<TemperatureState>(n, std::make_shared<HalfSpaces>(n),
                                                 std::vector<TemperatureMaterial>{cu, si}, true);
    p.material.temperature = st;
    for (int a = 0; a < 3; ++a)
      if (!p.flat(a)) p.material.conductivity[static_cast<std::size_t>(a)] = st->conductivity(a);
    p.material.capacity = st->capacity();
    p.material.source = std::make_shared<SmoothField>("bench q field", n, 1e7, 1.0);
    p.dt = 1e-3;
  }
  if (faces == "mixed") {
    p.lo = p.hi = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Robin};
    for (FaceData* d : {&p.lo_data[0], &p.hi_data[0]}) d->value_from_initial = false, d->value = 0.25;
    for (FaceData* d : {&p.lo_data[1], &p.hi_data[1]}) d->flux = 2.0;
    for (FaceData* d : {&p.lo_data[2], &p.hi_data[2]}) d->h = 5.0, d->ambient = 0.1;
  } else if (faces == "robin") {
    p.lo.fill(Boundary::Robin);
    p.hi.fill(Boundary::Robin);
    for (int a = 0; a < 3; ++a)
      for (FaceData* d : {&p.lo_data[a], &p.hi_data[a]}) d->h = 5.0, d->ambient = 0.1;
  } else if (faces == "periodic") {
    p.lo.fill(Boundary::Periodic);
    p.hi.fill(Boundary::Periodic);
  }
  // Stretched axes (#56): gaps growing geometrically from the lo face, the
  // last 10 times the first; a periodic axis a smooth wave of gaps 0.5 to
  // 1.5 of their mean (its coordinates end at node 0's image).
  for (char c : stretch) {
    const int a = c - 'x';
    if (p.flat(a)) continue;
    const index_t cells = p.periodic(a) ? p.n[a] : p.n[a] - 1;
    const double r = std::pow(10.0, 1.0 / static_cast<double>(std::max<index_t>(cells - 1, 1)));
    std::vector<double> x(static_cast<std::size_t>(cells) + 1, 0.0);
    for (index_t i = 1; i <= cells; ++i) {
      const double t = static_cast<double>(i) / static_cast<double>(cells);
      x[static_cast<std::size_t>(i)] = p.periodic(a) ? t + 0.5 / (2.0 * 3.14159265358979323846) *
                                                               std::sin(2.0 * 3.14159265358979323846 * t)
                                                     : (std::pow(r, static_cast<double>(i)) - 1.0) /
                                                           (std::pow(r, static_cast<double>(cells)) - 1.0);
    }
    x.back() = 1.0;
    p.length[a] = 1.0;
    p.coordinates[a] = x;
  }
  return p;
}

/// The words per point a phase of the general path has to move when the
/// material or the source is a field (#16: each phase against its own
/// floor): the right-hand side reads u, every distinct K field, the 1/c and
/// q fields, and writes w; a solve along a reads w, K_a and 1/c and writes
/// w; the z solve with the update also reads and writes u. Constant
/// coefficients give the classic 2 / 2 / 2 / 3 (9 a step).
double own_words(const HeatProblem& p, Phase ph) {
  const Material& m = p.material;
  if (p.scheme_in_use() == SchemeType::Strang) {
    // A factor along a (split.hpp): its right-hand side reads u, K_a, 1/c
    // and q and writes w; its solve reads w, K_a and 1/c and adds into u
    // (reads and writes it). The Dirichlet terms (Rhs) touch the faces only.
    auto factor = [&](int a) {
      if (p.flat(a)) return 0.0;
      const double k = m.conductivity[static_cast<std::size_t>(a)] ? 1.0 : 0.0, c = m.capacity_varies() ? 1.0 : 0.0;
      return (2.0 + k + c + (m.source ? 1.0 : 0.0)) + (3.0 + k + c);
    };
    switch (ph) {
      case Phase::Rhs: return 0.0;
      case Phase::SolveX: return factor(0);
      case Phase::SolveY: return factor(1);
      case Phase::SolveZ: return factor(2);
      case Phase::RhsSolveX: return factor(0);
      case Phase::Step: return 2 * factor(0) + 2 * factor(1) + factor(2);
    }
    return 0.0;
  }
  const double c = m.capacity_varies() ? 1.0 : 0.0;
  auto k_of = [&](int a) { return !p.flat(a) && m.conductivity[static_cast<std::size_t>(a)] ? 1.0 : 0.0; };
  double k_distinct = 0.0;
  for (int a = 0; a < 3; ++a) {
    const auto& k = m.conductivity[static_cast<std::size_t>(a)];
    bool seen = false;
    for (int b = 0; b < a; ++b) seen = seen || (k_of(b) > 0 && m.conductivity[static_cast<std::size_t>(b)] == k);
    if (k_of(a) > 0 && !seen) k_distinct += 1.0;
  }
  const double rhs = 2.0 + k_distinct + c + (m.source ? 1.0 : 0.0);
  const double x = 2.0 + k_of(0) + c, y = 2.0 + k_of(1) + c, z = 3.0 + k_of(2) + c;
  switch (ph) {
    case Phase::Rhs: return rhs;
    case Phase::SolveX: return x;
    case Phase::SolveY: return y;
    case Phase::SolveZ: return z;
    case Phase::RhsSolveX: return rhs + x - 2.0;  // w stays on chip between them
    case Phase::Step: return rhs + x + y + z;
  }
  return 0.0;
}

/// "2", "3.25": a word count as printed in the phase table.
std::string words_text(double w) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", w);
  return b;
}

struct PhaseRow {
  std::string name;
  double median_ms, min_ms;
  double words;        // words per point in the convention (2 per phase, 8 per step)
  double moved_words;  // words the phase actually has to move
};

}  // namespace

int cmd_bench(const BenchOptions& o) {
  const int ranks = mpi::world_size();
  const bool root = mpi::world_rank() == 0, distributed = ranks > 1;
  std::vector<Precision> precs;
  Backend be = Backend::Cpu;
  std::array<int, 3> grid{{0, 0, 0}};
  collectively([&] {
    if (o.precision == "both") precs = {Precision::F32, Precision::F64};
    else precs = {parse_precision(o.precision)};
    be = resolve_backend(parse_backend(o.backend));
    if (be == Backend::Cuda && !cuda_unavailable_reason().empty())
      ADI_THROW(BackendUnavailable, "backend 'cuda' is not available: " + cuda_unavailable_reason());
    if (o.reps < 1) ADI_THROW(InvalidArgument, "--reps must be >= 1");
    if (!o.baseline.empty() && o.baseline != "cusparse")
      ADI_THROW(InvalidArgument, "--baseline '" + o.baseline + "': the only baseline is cusparse");
    if (!o.baseline.empty() && be != Backend::Cuda)
      ADI_THROW(InvalidArgument, "--baseline cusparse needs the cuda backend");
    if (!o.baseline.empty() && distributed)
      ADI_THROW(InvalidArgument, "--baseline cusparse runs on one GPU: run it without mpirun");
    grid = parse_grid(o.grid);
    if (o.material != "constant" && o.material != "field" && o.material != "tables")
      ADI_THROW(InvalidArgument, "--material '" + o.material + "': expected constant, field or tables");
    if (!o.nonlinear.empty() && o.material != "tables")
      ADI_THROW(InvalidArgument, "--nonlinear needs --material tables (the only bench case with a nonlinear step)");
    if (!o.nonlinear.empty() && o.nonlinear != "iterate" && o.nonlinear != "predictor-corrector" &&
        o.nonlinear != "extrapolated")
      ADI_THROW(InvalidArgument,
                "--nonlinear '" + o.nonlinear + "': expected iterate, predictor-corrector or extrapolated");
    if (o.scheme != "auto" && o.scheme != "douglas" && o.scheme != "strang")
      ADI_THROW(InvalidArgument, "--scheme '" + o.scheme + "': expected auto, douglas or strang");
    if (o.faces != "dirichlet" && o.faces != "mixed" && o.faces != "robin" && o.faces != "periodic")
      ADI_THROW(InvalidArgument, "--faces '" + o.faces + "': expected dirichlet, mixed, robin or periodic");
    if (!o.baseline.empty() && o.faces == "periodic")
      ADI_THROW(InvalidArgument, "--baseline cusparse has no periodic faces (cuSPARSE has no batched cyclic solver): "
                                 "use --faces dirichlet, mixed or robin");
    if (o.warmup < 0) ADI_THROW(InvalidArgument, "--warmup must be >= 0");
    for (std::size_t q = 0; q < o.stretch.size(); ++q)
      if ((o.stretch[q] != 'x' && o.stretch[q] != 'y' && o.stretch[q] != 'z') ||
          o.stretch.find(o.stretch[q]) != q)
        ADI_THROW(InvalidArgument, "--stretch '" + o.stretch + "': expected axes among x, y, z, each once (e.g. z, xz)");
    if (!o.stretch.empty() && !o.baseline.empty())
      ADI_THROW(InvalidArgument, "--baseline cusparse builds uniform rows: run it without --stretch");
    // Every size in every precision as `run --dry-run` checks a run: one that
    // does not fit is refused now, naming it, not by a bad_alloc (or a CUDA
    // allocation error) after the sizes before it have been timed.
    for (const std::string& size : o.sizes)
      for (Precision prec : precs) {
        io::RunConfig c;
        c.problem = bench_problem(parse_size(size), o.material, o.faces, o.scheme, o.nonlinear, o.stretch);
        c.precision = prec;
        c.backend = be;
        try {
          check_memory(estimate_memory(c, ranks, o.solver));
        } catch (const InsufficientMemory& e) {
          ADI_THROW(InsufficientMemory, "--size " + size + " in " + precision_name(prec) + ": " + e.what());
        }
      }
    // Before minutes of timing, not after: rank 0 writes the JSON.
    if (root && !o.json.empty()) io::check_result_file(o.json, "benchmark JSON", o.overwrite);
  });

  // Copy bandwidth of the same memory, in this run: 1 GiB each way on the
  // GPU (far beyond L2), four times the last-level cache on the host
  // (host_copy_bytes). Under MPI rank 0 measures alone, on the device it
  // will use (the first of its node).
  const std::size_t copy_bytes = be == Backend::Cuda ? (std::size_t(1) << 30) : host_copy_bytes();
  // Five repetitions of a copy of several GiB are as steady as twenty of
  // 256 MiB were, in a quarter of the time.
  const int copy_reps = be != Backend::Cuda && copy_bytes > (std::size_t(512) << 20) ? 5 : 20;
  double copy_bw = 0.0;
  if (root) copy_bw = copy_bandwidth(be, copy_bytes, copy_reps);
  mpi::barrier();
  std::string device;
  if (be == Backend::Cuda) {
    const auto devs = cuda_devices();
    device = devs.empty() ? "?" : devs.front().name;
  } else {
    HeatProblem tiny;
    StepperSpec cpu;
    cpu.backend = Backend::Cpu;
    cpu.options = o.solver;
    device = make_stepper<double>(tiny, cpu)->device_name();
  }
  if (root) {
    std::printf("adi3d bench: %s (%s backend), copy bandwidth %.3f TB/s (copy of %s, read + write, median of %d)\n",
                device.c_str(), backend_name(be), copy_bw / 1e12,
                human_bytes(static_cast<double>(copy_bytes)).c_str(), copy_reps);
    if (distributed)
      std::printf("MPI: %d ranks; phase times are the slowest rank's, bandwidths per rank (its share of the points) "
                  "against rank 0's copy bandwidth\n",
                  ranks);
  }

  std::ostringstream js;
  js << "{\n  \"device\": \"" << json_escape(device) << "\",\n  \"backend\": \"" << backend_name(be)
     << "\",\n  \"copy_bandwidth_Bps\": " << copy_bw << ",\n  \"adi3d\": \"" << ADI_VERSION << " " << ADI_GIT_HASH
     << "\",\n  \"reps\": " << o.reps << ",\n  \"ranks\": " << ranks << ",\n  \"cases\": [";
  bool first_case = true;
  for (const std::string& size : o.sizes) {
    const auto n = parse_size(size);
    for (Precision prec : precs) {
      const HeatProblem p = bench_problem(n, o.material, o.faces, o.scheme, o.nonlinear, o.stretch);
      const bool fields = p.material.lines_vary() || p.material.source != nullptr ||
                          p.scheme_in_use() == SchemeType::Strang;
      const double points = static_cast<double>(p.points()) / ranks;  // per rank
      const double word = prec == Precision::F32 ? 4.0 : 8.0;
      std::vector<PhaseRow> rows;
      std::string kernels, notes;
      double mem_bytes = 0;  // the stepper's field arrays (per rank)
      double moved_points = points;  // the nodes a step moves (Stepper::moved_extents), per rank
      std::array<index_t, 3> moved_n = p.n;
      double comm[5] = {0, 0, 0, 0, 0};  // halo, reduced, both, step (ms per step), share: max over ranks
      dispatch_precision(prec, [&](auto tag) {
        using T = decltype(tag);
        StepperSpec spec;
        spec.backend = be;
        spec.distributed = distributed;
        spec.grid = grid;
        spec.options = o.solver;
        std::unique_ptr<Stepper<T>> st;
        collectively([&] { st = make_stepper<T>(p, spec); });
        // A distributed stepper also reports its box and communication times.
        auto* dst = dynamic_cast<mpi::DistributedStepper<T>*>(st.get());
        Box box;
        box.size = p.n;
        if (dst) box = dst->part().box;
        kernels = st->device_name();
        mem_bytes = static_cast<double>(st->bytes_allocated());
        moved_n = st->moved_extents();
        moved_points = static_cast<double>(moved_n[0] * moved_n[1] * moved_n[2]) / ranks;
        // The share of those x nodes the y and z solves move (below 1 where
        // they leave a Dirichlet high x face's node out, Stepper::moved_yz_lanes).
        const double lane_share = static_cast<double>(st->moved_yz_lanes()) / static_cast<double>(moved_n[0]);
        // The fraction of the grid's nodes a step moves: below 1 where the
        // stepper skips Dirichlet y / z faces. The convention's words stay
        // per grid node; the words a phase moves are scaled by it.
        const double moved_share = moved_points / points;
        std::vector<T> u = analytic_box<T>(p, box);
        // Tables hold temperatures near 300 K: the same shape about 300 K.
        if (p.material.temperature)
          for (T& v : u) v = static_cast<T>(300.0 + 20.0 * static_cast<double>(v));
        st->set_field(u.data());
        // Words per point: the convention counts 2 per phase of the
        // unfused step (rhs, x, y, z) and 8 per step; what a phase really has
        // to move: z+update 3 (reads D and u, writes u), rhs+x 2 (reads u,
        // writes D: the fused pair), so a fused step moves 7, an unfused 9.
        // With a material or source field every phase counts its own words
        // (own_words), for the efficiency and the floor alike.
        // Each phase once (the Strang step runs its x and y factors twice).
        std::vector<Phase> order;
        for (Phase ph : st->phases())
          if (std::find(order.begin(), order.end(), ph) == order.end()) order.push_back(ph);
        order.push_back(Phase::Step);
        const bool fused = std::find(order.begin(), order.end(), Phase::RhsSolveX) != order.end();
        for (Phase ph : order) {
          double conv = ph == Phase::Step ? 8.0 : ph == Phase::RhsSolveX ? 4.0 : 2.0;
          double moved = ph == Phase::Step ? (fused ? 7.0 : 9.0) : ph == Phase::SolveZ ? 3.0 : 2.0;
          if (fields) conv = moved = own_words(p, ph);
          // A classic CUDA solve moves what its kernel moves: the long-line
          // kernel 3 1/4 words (4 1/4 with the update), the generic one 4
          // (adi::solve_words). Shown beside the convention, which the
          // efficiency keeps.
          const int solve_axis = ph == Phase::SolveX ? 0 : ph == Phase::SolveY ? 1 : ph == Phase::SolveZ ? 2 : -1;
          if (be == Backend::Cuda && !distributed && !fields) {
            auto extra = [&](int a) {
              if (p.periodic(a)) return 0.0;
              return solve_words(plan_line_kernel(moved_n[a], static_cast<Axis>(a), a == 0, sizeof(T), o.solver)) - 2.0;
            };
            if (solve_axis >= 0) moved += extra(solve_axis);
            if (ph == Phase::Step)
              for (int a = 0; a < 3; ++a) moved += extra(a);
            // The y and z solves' words on the lanes they move: the whole
            // phase, or the step's y (2) and z + update (3) parts.
            const double yz = ph == Phase::SolveY || ph == Phase::SolveZ ? moved
                              : ph == Phase::Step                        ? 5.0 + extra(1) + extra(2)
                                                                         : 0.0;
            moved -= (1.0 - lane_share) * yz;
            // The RHS reads u over the box and the face rows it skips (its
            // ghosts): one word a grid node, whatever the share.
            const bool reads_faces = ph == Phase::Rhs || ph == Phase::RhsSolveX || ph == Phase::Step;
            moved = moved * moved_share + (reads_faces ? 1.0 - moved_share : 0.0);
          }
          std::vector<double> ms;
          if (ph == Phase::Step && dst) {
            // The communication share of the same steps that are timed.
            for (int r = 0; r < o.warmup; ++r) st->run_phase(ph);
            dst->reset_comm_times();
            ms = st->time_phase(ph, 0, o.reps);
            const mpi::CommTimes c = dst->comm_times();
            const double k = 1e3 / static_cast<double>(std::max<index_t>(c.steps, 1));
            comm[0] = c.halo * k;
            comm[1] = c.reduced * k;
            comm[2] = (c.halo + c.reduced) * k;
            comm[3] = c.step * k;
            comm[4] = c.step > 0 ? (c.halo + c.reduced) / c.step : 0.0;
            mpi::allreduce_max(comm, 5);
          } else {
            ms = st->time_phase(ph, o.warmup, o.reps);
          }
          rows.push_back({phase_name(ph), median(ms), minimum(ms), conv, moved});
          if (ph == Phase::Step) notes = st->step_notes();
          // Keep the field meaningful between phases: a full step resets the cycle.
          st->set_field(u.data());
        }
      });
      if (!root) continue;
      std::printf("\ncase %lld x %lld x %lld, %s, %s, material %s, faces %s, scheme %s%s\n  kernels: %s\n",
                  static_cast<long long>(n[0]), static_cast<long long>(n[1]), static_cast<long long>(n[2]),
                  precision_name(prec), backend_name(be), o.material.c_str(), o.faces.c_str(),
                  scheme_name(p.scheme_in_use()), o.stretch.empty() ? "" : (", stretched " + o.stretch).c_str(),
                  kernels.c_str());
      std::printf("  %-9s %10s %10s %9s %11s %8s\n", "phase", "median ms", "min ms", "words/pt",
                  distributed ? "GB/s/rank" : "eff GB/s", "% copy");
      js << (first_case ? "" : ",") << "\n    {\"size\": [" << n[0] << ", " << n[1] << ", " << n[2]
         << "], \"precision\": \"" << precision_name(prec) << "\", \"material\": \"" << o.material
         << "\", \"faces\": \"" << o.faces << "\", \"stretched\": \"" << o.stretch
         << "\", \"scheme\": \"" << scheme_name(p.scheme_in_use())
         << "\", \"kernels\": \"" << json_escape(kernels)
         << "\", \"phases\": [";
      first_case = false;
      for (std::size_t q = 0; q < rows.size(); ++q) {
        const PhaseRow& r = rows[q];
        const double bw = r.words * word * points / (r.median_ms * 1e-3);
        std::printf("  %-9s %10.4f %10.4f %9s %11.1f %7.1f%%\n", r.name.c_str(), r.median_ms, r.min_ms,
                    (words_text(r.words) + (r.moved_words != r.words ? " (" + words_text(r.moved_words) + ")" : ""))
                        .c_str(),
                    bw / 1e9, 100.0 * bw / copy_bw);
        js << (q ? "," : "") << "\n      {\"phase\": \"" << r.name << "\", \"median_ms\": " << r.median_ms
           << ", \"min_ms\": " << r.min_ms << ", \"words_per_point\": " << r.words
           << ", \"moved_words_per_point\": " << r.moved_words << ", \"effective_Bps\": " << bw
           << ", \"ratio_to_copy\": " << bw / copy_bw
           << ", \"ratio_to_copy_own_words\": " << bw / copy_bw * r.moved_words / r.words << "}";
      }
      // The same efficiency on the words each phase itself moves, where they
      // differ from the convention (z + update 3, rhs+x 2, a long-line solve
      // 3.25, the step 9 or 7): how close a phase is to its own floor.
      std::string own;
      for (const PhaseRow& r : rows)
        if (r.moved_words != r.words) {
          const double bw = r.moved_words * word * points / (r.median_ms * 1e-3);
          char buf[96];
          std::snprintf(buf, sizeof buf, "%s%s %.1f %% of %s", own.empty() ? "" : ", ", r.name.c_str(),
                        100.0 * bw / copy_bw, words_text(r.moved_words).c_str());
          own += buf;
        }
      if (!own.empty()) std::printf("  %% copy on a phase's own words: %s\n", own.c_str());
      const double floor_words = rows.back().words;  // 8 (the convention), or the field step's own words
      const double floor_ms = floor_words * word * points / copy_bw * 1e3;
      const double step_ms = rows.back().median_ms;
      if (fields)
        std::printf("  %d-word floor (each phase's own words: the fields it reads) at the measured copy bandwidth: "
                    "%.4f ms; step / floor = %.2f\n",
                    static_cast<int>(floor_words), floor_ms, step_ms / floor_ms);
      if (p.material.temperature)
        std::printf("  tables: the step is the nonlinear step (%s: %s and the coefficients' evaluations, "
                    "docs/SCHEMES.md); its floor above is one linear step's\n  %s\n",
                    nonlinear_step_name(p.nonlinear),
                    p.nonlinear == NonlinearStep::Iterate              ? "two or more linear steps"
                    : p.nonlinear == NonlinearStep::PredictorCorrector ? "two linear steps"
                                                                       : "one linear step after the first",
                    notes.c_str());
      if (!fields)
        std::printf("  8-word floor at the measured copy bandwidth: %.4f ms; step / floor = %.2f\n", floor_ms,
                    step_ms / floor_ms);
      // A step that skips the Dirichlet y / z faces has a floor of its own:
      // 8 words a node it moves. Both ratios are printed; the first is the
      // convention every earlier measurement used.
      const double moved_floor_ms = floor_words * word * moved_points / copy_bw * 1e3;
      if (moved_points < points)
        std::printf("  the step moves the %lld x %lld x %lld nodes between the Dirichlet y / z faces (%.1f %% of the "
                    "grid; ADI_SKIP_FIXED=0: all): %d-word floor on them %.4f ms; step / that floor = %.2f\n",
                    static_cast<long long>(moved_n[0]), static_cast<long long>(moved_n[1]),
                    static_cast<long long>(moved_n[2]), 100.0 * moved_points / points, static_cast<int>(floor_words),
                    moved_floor_ms, step_ms / moved_floor_ms);
      // The padding's cost in memory: two packed grids are 2 words a point.
      std::printf("  memory: %s%s, %.3f words a point (two packed grids: 2)\n", human_bytes(mem_bytes).c_str(),
                  distributed ? " a rank" : "", mem_bytes / (word * points));
      js << "\n    ], \"bytes_allocated\": " << mem_bytes << ", \"floor_words\": " << floor_words << ", \"floor_ms\": " << floor_ms
         << ", \"step_over_floor\": " << step_ms / floor_ms << ", \"moved_points\": " << moved_points
         << ", \"step_over_moved_floor\": " << step_ms / moved_floor_ms;
      if (distributed) {
        std::printf("  communication per step (slowest rank): halo %.4f ms, reduced systems %.4f ms, together "
                    "%.4f ms of a %.4f ms step = %.1f%% (max over ranks %.1f%%)\n",
                    comm[0], comm[1], comm[2], comm[3], comm[3] > 0 ? 100.0 * comm[2] / comm[3] : 0.0,
                    100.0 * comm[4]);
        js << ", \"comm\": {\"halo_ms\": " << comm[0] << ", \"reduced_ms\": " << comm[1]
           << ", \"comm_ms\": " << comm[2] << ", \"step_ms\": " << comm[3] << ", \"share\": " << comm[4] << "}";
      }
      if (!o.baseline.empty()) {
        const cuda::BaselineTimings b = dispatch_precision(prec, [&](auto tag) {
          return cuda::cusparse_baseline<decltype(tag)>(p, o.warmup, std::max(5, o.reps / 2));
        });
        const double bstep = median(b.step);
        std::printf("  cuSPARSE baseline (coefficients in memory): rhs %.3f, x %.3f, y %.3f, z %.3f, update %.3f,"
                    " step %.3f ms -> adi3d is %.1fx faster (baseline result vs adi3d: max rel diff %.1e)\n",
                    median(b.rhs), median(b.x), median(b.y), median(b.z), median(b.update), bstep, bstep / step_ms,
                    b.max_rel_diff);
        js << ", \"cusparse\": {\"rhs_ms\": " << median(b.rhs) << ", \"x_ms\": " << median(b.x)
           << ", \"y_ms\": " << median(b.y) << ", \"z_ms\": " << median(b.z) << ", \"update_ms\": " << median(b.update)
           << ", \"step_ms\": " << bstep << ", \"speedup\": " << bstep / step_ms
           << ", \"max_rel_diff\": " << b.max_rel_diff << "}";
      }
      js << "}";
      std::fflush(stdout);
    }
  }
  js << "\n  ]\n}\n";
  if (root && !o.json.empty()) {
    io::write_result_file(o.json, js.str(), "benchmark JSON", o.overwrite);
  }
  std::fflush(stdout);
  mpi::barrier();
  return kOk;
}

}  // namespace adi::app
