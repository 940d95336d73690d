// adi3d bench: median phase times of the Douglas step, effective bandwidth,
// and the ratio to a copy bandwidth measured in the same run; optionally the
// same step through cuSPARSE, side by side. Performance is measured here,
// never in a unit test.

#include "commands.hpp"
#include "exit_codes.hpp"
#include "log.hpp"
#include "util.hpp"

#include <adi/cuda.hpp>
#include <adi/solver.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace adi::app {

namespace {

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
    const long long v = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end || v < 3) ADI_THROW(InvalidArgument, "--size '" + s + "': extents must be integers >= 3");
    n[q++] = v;
  }
  if (q == 1) n[1] = n[2] = n[0];
  else if (q != 3) ADI_THROW(InvalidArgument, "--size '" + s + "': expected N or NXxNYxNZ");
  return n;
}

struct PhaseRow {
  std::string name;
  double median_ms, min_ms;
  double words;        // words per point in the convention (2 per phase, 8 per step)
  double moved_words;  // words the phase actually has to move
};

}  // namespace

int cmd_bench(const BenchOptions& o) {
  std::vector<Precision> precs;
  if (o.precision == "both") precs = {Precision::F32, Precision::F64};
  else precs = {parse_precision(o.precision)};
  const Backend be = resolve_backend(parse_backend(o.backend));
  if (be == Backend::Cuda && !cuda_unavailable_reason().empty())
    ADI_THROW(BackendUnavailable, "backend 'cuda' is not available: " + cuda_unavailable_reason());
  if (o.reps < 1) ADI_THROW(InvalidArgument, "--reps must be >= 1");
  if (!o.baseline.empty() && o.baseline != "cusparse")
    ADI_THROW(InvalidArgument, "--baseline '" + o.baseline + "': the only baseline is cusparse");
  if (!o.baseline.empty() && be != Backend::Cuda)
    ADI_THROW(InvalidArgument, "--baseline cusparse needs the cuda backend");

  // Copy bandwidth of the same memory, in this run: 1 GiB each way on the
  // GPU (far beyond L2), 256 MiB on the host.
  const std::size_t copy_bytes = be == Backend::Cuda ? (std::size_t(1) << 30) : (std::size_t(1) << 28);
  const double copy_bw = copy_bandwidth(be, copy_bytes, 20);
  std::string device;
  if (be == Backend::Cuda) {
    const auto devs = cuda_devices();
    device = devs.empty() ? "?" : devs.front().name;
  } else {
    HeatProblem tiny;
    device = make_stepper<double>(tiny, Backend::Cpu)->device_name();
  }
  std::printf("adi3d bench: %s (%s backend), copy bandwidth %.3f TB/s (copy of %s, read + write, median of 20)\n",
              device.c_str(), backend_name(be), copy_bw / 1e12, human_bytes(static_cast<double>(copy_bytes)).c_str());

  std::ostringstream js;
  js << "{\n  \"device\": \"" << json_escape(device) << "\",\n  \"backend\": \"" << backend_name(be)
     << "\",\n  \"copy_bandwidth_Bps\": " << copy_bw << ",\n  \"adi3d\": \"" << ADI_VERSION << " " << ADI_GIT_HASH
     << "\",\n  \"reps\": " << o.reps << ",\n  \"cases\": [";
  bool first_case = true;
  for (const std::string& size : o.sizes) {
    const auto n = parse_size(size);
    for (Precision prec : precs) {
      HeatProblem p;
      p.n = n;
      p.dt = 1e-4;
      const double points = static_cast<double>(p.points());
      const double word = prec == Precision::F32 ? 4.0 : 8.0;
      std::vector<PhaseRow> rows;
      std::string kernels;
      dispatch_precision(prec, [&](auto tag) {
        using T = decltype(tag);
        auto st = make_stepper<T>(p, be);
        kernels = st->device_name();
        std::vector<T> u;
        fill_analytic(p, u);
        st->set_field(u.data());
        // Words per point: the convention counts 2 per phase of the
        // unfused step (rhs, x, y, z) and 8 per step; what a phase really has
        // to move: z+update 3 (reads D and u, writes u), rhs+x 2 (reads u,
        // writes D: the fused pair), so a fused step moves 7, an unfused 9.
        std::vector<Phase> order = st->phases();
        order.push_back(Phase::Step);
        const bool fused = std::find(order.begin(), order.end(), Phase::RhsSolveX) != order.end();
        for (Phase ph : order) {
          const auto ms = st->time_phase(ph, o.warmup, o.reps);
          const double conv = ph == Phase::Step ? 8.0 : ph == Phase::RhsSolveX ? 4.0 : 2.0;
          const double moved = ph == Phase::Step ? (fused ? 7.0 : 9.0) : ph == Phase::SolveZ ? 3.0 : 2.0;
          rows.push_back({phase_name(ph), median(ms), minimum(ms), conv, moved});
          // Keep the field meaningful between phases: a full step resets the cycle.
          st->set_field(u.data());
        }
      });
      std::printf("\ncase %lld x %lld x %lld, %s, %s\n  kernels: %s\n", static_cast<long long>(n[0]),
                  static_cast<long long>(n[1]), static_cast<long long>(n[2]), precision_name(prec), backend_name(be),
                  kernels.c_str());
      std::printf("  %-9s %10s %10s %9s %11s %8s\n", "phase", "median ms", "min ms", "words/pt", "eff GB/s",
                  "% copy");
      js << (first_case ? "" : ",") << "\n    {\"size\": [" << n[0] << ", " << n[1] << ", " << n[2]
         << "], \"precision\": \"" << precision_name(prec) << "\", \"kernels\": \"" << json_escape(kernels)
         << "\", \"phases\": [";
      first_case = false;
      for (std::size_t q = 0; q < rows.size(); ++q) {
        const PhaseRow& r = rows[q];
        const double bw = r.words * word * points / (r.median_ms * 1e-3);
        std::printf("  %-9s %10.4f %10.4f %9s %11.1f %7.1f%%\n", r.name.c_str(), r.median_ms, r.min_ms,
                    (std::to_string(static_cast<int>(r.words)) +
                     (r.moved_words != r.words ? " (" + std::to_string(static_cast<int>(r.moved_words)) + ")" : ""))
                        .c_str(),
                    bw / 1e9, 100.0 * bw / copy_bw);
        js << (q ? "," : "") << "\n      {\"phase\": \"" << r.name << "\", \"median_ms\": " << r.median_ms
           << ", \"min_ms\": " << r.min_ms << ", \"words_per_point\": " << r.words
           << ", \"moved_words_per_point\": " << r.moved_words << ", \"effective_Bps\": " << bw
           << ", \"ratio_to_copy\": " << bw / copy_bw << "}";
      }
      const double floor_ms = 8.0 * word * points / copy_bw * 1e3;
      const double step_ms = rows.back().median_ms;
      std::printf("  8-word floor at the measured copy bandwidth: %.4f ms; step / floor = %.2f\n", floor_ms,
                  step_ms / floor_ms);
      js << "\n    ], \"floor_ms\": " << floor_ms << ", \"step_over_floor\": " << step_ms / floor_ms;
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
  if (!o.json.empty()) {
    std::ofstream f(o.json);
    f << js.str();
    if (!f) ADI_THROW(Error, "cannot write " + o.json);
  }
  return kOk;
}

}  // namespace adi::app
