// adi3d run: load a case, step it, report.

#include "commands.hpp"
#include "exit_codes.hpp"
#include "log.hpp"
#include "util.hpp"

#include <adi/io/io.hpp>
#include <adi/solver.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <unistd.h>

namespace adi::app {

namespace {

using Clock = std::chrono::steady_clock;

struct RunResult {
  double wall = 0.0;
  FieldStats stats;
  bool have_error = false;
  ErrorNorms exact, discrete;
};

template <class T>
RunResult run_case(const io::RunConfig& c) {
  const HeatProblem& p = c.problem;
  auto stepper = make_stepper<T>(p, c.backend);
  spdlog::info("backend {} ({}), {}, {} of device/host memory", backend_name(stepper->backend()),
               stepper->device_name(), precision_name(c.precision),
               human_bytes(static_cast<double>(stepper->bytes_allocated())));
  std::vector<T> u;
  fill_analytic(p, u);
  stepper->set_field(u.data());

  const bool tty = isatty(STDERR_FILENO);
  const auto t0 = Clock::now();
  auto last_log = t0;
  index_t s = 0;
  while (s < c.steps) {
    // Step in chunks so that logging costs nothing per step.
    const index_t chunk = c.log_every > 0 ? std::min(c.log_every, c.steps - s) : std::min<index_t>(c.steps - s, 16);
    stepper->advance(chunk);
    s += chunk;
    const auto now = Clock::now();
    const double since = std::chrono::duration<double>(now - last_log).count();
    if ((c.log_every > 0 && s % c.log_every == 0) || (c.log_every == 0 && since >= 2.0) || s == c.steps) {
      const double el = std::chrono::duration<double>(now - t0).count();
      const double rate = static_cast<double>(s) / std::max(el, 1e-9);
      const double eta = static_cast<double>(c.steps - s) / std::max(rate, 1e-9);
      const FieldStats st = stepper->field_stats();
      if (!st.finite)
        ADI_THROW(NumericalError, "the field holds NaN or Inf after step " + std::to_string(s) +
                                      " (t = " + std::to_string(static_cast<double>(s) * p.dt) + " s)");
      if (tty && c.log_every == 0 && s != c.steps) {
        std::fprintf(stderr, "\r  step %lld/%lld  t = %.4g s  %.1f steps/s  ETA %s  max|u| = %.4g   ",
                     static_cast<long long>(s), static_cast<long long>(c.steps), static_cast<double>(s) * p.dt,
                     rate, human_seconds(eta).c_str(), st.max_abs);
        std::fflush(stderr);
      } else {
        spdlog::info("step {}/{}  t = {:.6g} s  {:.1f} steps/s  ETA {}  max|u| = {:.6g}", s, c.steps,
                     static_cast<double>(s) * p.dt, rate, human_seconds(eta), st.max_abs);
      }
      last_log = now;
    }
  }
  if (tty && c.log_every == 0) std::fprintf(stderr, "\r%80s\r", "");
  RunResult r;
  r.wall = std::chrono::duration<double>(Clock::now() - t0).count();
  r.stats = stepper->field_stats();
  if (!r.stats.finite) ADI_THROW(NumericalError, "the field holds NaN or Inf at the end of the run");
  stepper->get_field(u.data());
  if (c.initial.kind == io::InitialConfig::Kind::Analytic) {
    const AnalyticMode m = analytic_mode(p);
    r.have_error = true;
    r.exact = compare_with_mode(p, u, std::exp(-m.decay_rate * c.t_end));
    r.discrete = compare_with_mode(p, u, std::pow(m.amplification, static_cast<double>(c.steps)));
  }
  return r;
}

}  // namespace

int cmd_run(const RunOptions& o) {
  std::vector<std::string> sets = o.sets;
  if (!o.backend.empty()) sets.push_back("backend=" + o.backend);
  if (!o.precision.empty()) sets.push_back("precision=" + o.precision);
  const io::RunConfig c = o.config.empty() ? io::parse_config(io::default_config_text(), "<built-in heat.yaml>", sets)
                                           : io::load_config(o.config, sets);
  const HeatProblem& p = c.problem;
  if (o.dry_run) {
    std::printf("%s", c.resolved_yaml.c_str());
    return kOk;
  }
  if (c.initial.kind != io::InitialConfig::Kind::Analytic)
    ADI_THROW(InvalidArgument, c.source + ": initial: reading the initial field from HDF5 is not available in this build");

  spdlog::info("case {}: {} x {} x {} nodes, {} steps of dt = {:.6g} s to t = {:.6g} s, theta = {}", c.source, p.n[0],
               p.n[1], p.n[2], c.steps, p.dt, c.t_end, p.theta);
  const RunResult r = dispatch_precision(c.precision, [&](auto tag) { return run_case<decltype(tag)>(c); });

  const double node_steps = static_cast<double>(p.points()) * static_cast<double>(c.steps);
  std::printf("adi3d run: %s\n", c.source.c_str());
  std::printf("  grid        %lld x %lld x %lld nodes, h = (%.4g, %.4g, %.4g) m\n", static_cast<long long>(p.n[0]),
              static_cast<long long>(p.n[1]), static_cast<long long>(p.n[2]), p.spacing(0), p.spacing(1),
              p.spacing(2));
  std::printf("  backend     %s, %s\n", backend_name(resolve_backend(c.backend)), precision_name(c.precision));
  std::printf("  time        %lld steps of dt = %.6g s, t = %.6g s, theta = %g\n", static_cast<long long>(c.steps),
              p.dt, c.t_end, p.theta);
  std::printf("  wall time   %.3f s (%.1f steps/s, %.1f Mnode-steps/s)\n", r.wall,
              static_cast<double>(c.steps) / std::max(r.wall, 1e-9), node_steps / std::max(r.wall, 1e-9) / 1e6);
  std::printf("  max|u|      %.6e\n", r.stats.max_abs);
  if (r.have_error) {
    std::printf("  error vs exact solution      max %.3e  rms %.3e  (max relative %.3e)\n", r.exact.max_abs,
                r.exact.rms, r.exact.rel_max());
    std::printf("  difference from g^n U(0)     max relative %.3e  (round-off check)\n", r.discrete.rel_max());
  }
  return kOk;
}

}  // namespace adi::app
