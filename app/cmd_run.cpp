// adi3d run: plan (config, restart, initial file, memory), check the output
// paths, run the time loop (run_driver.cpp), print a summary.

#include "commands.hpp"
#include "exit_codes.hpp"
#include "log.hpp"
#include "run_driver.hpp"
#include "signals.hpp"
#include "util.hpp"

#include <algorithm>
#include <cstdio>

namespace adi::app {

int cmd_run(const RunOptions& o) {
  // Nothing below allocates a field or writes a file until the plan, the
  // memory check and the path checks have passed.
  const RunPlan plan = plan_run(o);
  const io::RunConfig& c = plan.config;
  const HeatProblem& p = c.problem;
  if (o.dry_run) {
    std::printf("%s", c.resolved_yaml.c_str());
    std::printf("%s", describe_memory(plan.memory).c_str());
    check_memory(plan.memory);
    return kOk;
  }
  check_memory(plan.memory);
  check_paths(plan, o.overwrite);
  probe_inputs(plan);

  spdlog::debug("resolved config:\n{}", c.resolved_yaml);
  spdlog::info("case {}: {} x {} x {} nodes, {} steps of dt = {:.6g} s to t = {:.6g} s, theta = {}", c.source, p.n[0],
               p.n[1], p.n[2], c.steps, p.dt, c.t_end, p.theta);
  const RunReport r = execute_run(plan, o);

  const index_t done = r.end_step - r.start_step;
  const double node_steps = static_cast<double>(p.points()) * static_cast<double>(done);
  std::printf("adi3d run: %s\n", c.source.c_str());
  std::printf("  grid        %lld x %lld x %lld nodes, h = (%.4g, %.4g, %.4g) m\n", static_cast<long long>(p.n[0]),
              static_cast<long long>(p.n[1]), static_cast<long long>(p.n[2]), p.spacing(0), p.spacing(1),
              p.spacing(2));
  std::printf("  backend     %s (%s), %s\n", r.backend.c_str(), r.device.c_str(), precision_name(c.precision));
  std::printf("  time        %lld steps of dt = %.6g s, t = %.6g s, theta = %g\n", static_cast<long long>(c.steps),
              p.dt, c.t_end, p.theta);
  if (r.start_step > 0)
    std::printf("  restart     from %s at step %lld\n", plan.restart.c_str(), static_cast<long long>(r.start_step));
  std::printf("  wall time   %.3f s for %lld steps (%.1f steps/s, %.1f Mnode-steps/s)\n", r.wall,
              static_cast<long long>(done), static_cast<double>(done) / std::max(r.wall, 1e-9),
              node_steps / std::max(r.wall, 1e-9) / 1e6);
  if (!plan.output.empty())
    std::printf("  output      %s (%lld steps written by this run)\n", plan.output.c_str(),
                static_cast<long long>(r.outputs_written));
  if (!r.checkpoint_written.empty()) std::printf("  checkpoint  %s\n", r.checkpoint_written.c_str());
  if (r.interrupted) {
    std::printf("  INTERRUPTED by %s after step %lld of %lld: continue with --restart %s\n", signal_name(r.signal),
                static_cast<long long>(r.end_step), static_cast<long long>(c.steps), r.checkpoint_written.c_str());
    return kCheckpointed;
  }
  std::printf("  max|u|      %.6e\n", r.stats.max_abs);
  if (r.have_error) {
    std::printf("  error vs exact solution      max %.3e  rms %.3e  (max relative %.3e)\n", r.exact.max_abs,
                r.exact.rms, r.exact.rel_max());
    std::printf("  difference from g^n U(0)     max relative %.3e  (round-off check)\n", r.discrete.rel_max());
  }
  return kOk;
}

}  // namespace adi::app
