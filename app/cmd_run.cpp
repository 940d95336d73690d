// adi3d run: plan (config, restart, initial file, memory), check the output
// paths, run the time loop (run_driver.cpp), print a summary.

#include "commands.hpp"
#include "disk.hpp"
#include "errors.hpp"
#include "exit_codes.hpp"
#include "heat_flow_log.hpp"
#include "log.hpp"
#include "output_schedule.hpp"
#include "roundoff.hpp"
#include "run_driver.hpp"
#include "signals.hpp"
#include "util.hpp"

#include <adi/factory.hpp>
#include <adi/mpi.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace adi::app {

namespace {

/// Below this fraction of its initial amplitude the analytic solution counts
/// as decayed: the summary gives errors relative to the initial amplitude.
constexpr double kDecayedBelow = 1e-3;

/// The accuracy warning of high_frequency_damping (scheme.hpp): large mesh
/// ratios leave grid-scale features of the data nearly undamped. The scheme
/// stays stable, so this is a warning, not an error.
void warn_if_high_frequencies_poorly_damped(const io::RunConfig& c) {
  const HeatProblem& p = c.problem;
  // The figures below are of the constant coefficients: with K or c fields
  // they would describe numbers the run does not use.
  if (p.material.lines_vary()) return;
  const HighFrequencyDamping d = high_frequency_damping(p);
  if (!d.poor) return;
  // A flat axis (n = 1) has no lines and no mesh ratio: nothing is solved
  // along it, so neither its lambda (L as a "spacing") nor its name belongs here.
  std::string axes, names, lambdas;
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a)) continue;
    if (d.axes[a]) axes += std::string(axes.empty() ? "" : ", ") + "xyz"[a];
    names += std::string(names.empty() ? "" : ", ") + "xyz"[a];
    lambdas += (lambdas.empty() ? "" : ", ") + fmt::format("{:.3g}", p.mesh_ratio(a));
  }
  if (axes.empty()) return;
  char advice[160] = "";
  if (d.dt_ok > 0)
    std::snprintf(advice, sizeof advice, "; time.dt <= %.3g s (or a coarser grid) avoids this", d.dt_ok);
  // The analytic initial field is one smooth mode: nothing there to damp.
  const bool smooth = c.initial.kind == io::InitialConfig::Kind::Analytic;
  spdlog::log(smooth ? spdlog::level::info : spdlog::level::warn,
              "lambda = alpha dt / h^2 = ({}) ({}) is large: the Douglas scheme (theta = "
              "{}) damps the grid's highest frequencies (along {}) by only |g| = {:.3f} per step where the exact "
              "solution damps them by {:.1e}, so sharp features of the field decay slowly{}{} (accuracy, not "
              "stability{})",
              lambdas, names, p.theta, axes, std::fabs(d.g), d.exact,
              d.g < 0 ? " and flip sign every step" : "", advice,
              smooth ? "; the analytic initial field is smooth, so not here" : "");
}

/// The Douglas step chosen by hand for a problem whose axis operators do not
/// commute (K or c a field) in 3D: not unconditionally stable there
/// (docs/SCHEMES.md); the energy guard stops a run whose energy grows where
/// it cannot, but a problem with data has no such check.
void warn_if_douglas_with_fields(const io::RunConfig& c) {
  const HeatProblem& p = c.problem;
  int live = 0;
  for (int a = 0; a < 3; ++a) live += p.flat(a) ? 0 : 1;
  if (p.scheme_in_use() != SchemeType::Douglas || !p.material.lines_vary() || live < 3) return;
  spdlog::warn("scheme.type: douglas with a material field in 3D: the Douglas step is not unconditionally stable "
               "when the axis operators do not commute (its spectral radius reaches 100 for an inclusion at large "
               "dt); scheme.type: strang (the default for material fields) is stable for every material");
}

/// What the run does differently from the numbers the user wrote (issue
/// #15, item 6): time.t_end shortens dt so that the run ends exactly there,
/// and output.every_time outputs land on the first step at or after each
/// multiple. One line each, in the log and (as comments) in --dry-run.
std::vector<std::string> time_adjustment_notes(const RunPlan& plan) {
  const io::RunConfig& c = plan.config;
  std::vector<std::string> notes;
  auto num = [](double v) { return fmt::format("{:.6g}", v); };
  if (c.dt_given > 0 && c.dt_given != c.problem.dt)
    notes.push_back(fmt::format("time.dt = {} s shortened to {} s so that {} steps end exactly at time.t_end = {} s",
                                num(c.dt_given), num(c.problem.dt), c.steps, num(c.t_end)));
  const OutputSchedule schedule(c, !plan.output.empty());
  if (schedule.outputs_off_time()) {
    std::string list;
    const auto off = schedule.off_time_outputs(3);
    for (const auto& o : off)
      list += fmt::format("{}{} at t = {}", list.empty() ? "" : ", ", num(o.requested), num(o.actual));
    const double r = c.output.every_time / c.problem.dt;
    notes.push_back(fmt::format(
        "output.every_time = {} s is not a whole number of steps of dt = {} s ({:.4g} steps): each output is "
        "written at the first step at or after its time, up to one dt late ({}{}); for exact times choose "
        "time.dt = every_time / n (e.g. {} s)",
        num(c.output.every_time), num(c.problem.dt), r, list, off.size() == 3 ? ", ..." : "",
        num(c.output.every_time / std::ceil(r))));
  }
  return notes;
}

void warn_if_geometry_is_a_guess(const RunPlan& plan) {
  if (!plan.initial || !plan.config.geometry.defaulted) return;
  const HeatProblem& p = plan.config.problem;
  spdlog::warn("the initial field {}:{} carries no spacing (no 'spacing' attribute on the dataset, no /grid group) "
               "and the config sets no domain lengths: the box is taken as 1 m along each axis, h = ({:.4g}, "
               "{:.4g}, {:.4g}) m. If that is not your grid, set domain: {{lx: ..., ly: ..., lz: ...}} or write "
               "spacing = (hx, hy, hz) (and origin) on the dataset (docs/USER_GUIDE.md, grid conventions)",
               plan.initial->file, plan.initial->dataset, p.spacing(0), p.spacing(1), p.spacing(2));
}

void print_summary(const RunPlan& plan, const RunReport& r, const RoundoffVerdict& roundoff) {
  const io::RunConfig& c = plan.config;
  const HeatProblem& p = c.problem;
  const index_t done = r.end_step - r.start_step;
  const double node_steps = static_cast<double>(p.points()) * static_cast<double>(done);
  std::printf("adi3d run: %s\n", c.source.c_str());
  // A stretched axis: its smallest and largest gap.
  std::string h;
  for (int a = 0; a < 3; ++a) {
    double lo = p.spacing(a), hi = lo;
    if (p.stretched(a)) {
      lo = p.min_gap(a);
      hi = lo;
      for (index_t i = 0; i + 1 < static_cast<index_t>(p.coordinates[a].size()); ++i) hi = std::max(hi, p.gap(a, i));
    }
    h += (a ? ", " : "") + fmt::format("{:.4g}", lo) + (p.stretched(a) ? fmt::format(" to {:.4g}", hi) : "");
  }
  std::printf("  grid        %lld x %lld x %lld nodes, h = (%s) m%s\n", static_cast<long long>(p.n[0]),
              static_cast<long long>(p.n[1]), static_cast<long long>(p.n[2]), h.c_str(),
              p.any_stretched() ? " (stretched)" : "");
  if (plan.initial) std::printf("  geometry    %s\n", c.geometry.source.c_str());
  std::printf("  backend     %s (%s), %s\n", r.backend.c_str(), r.device.c_str(), precision_name(c.precision));
  if (r.steady) {
    std::printf("  steady      %s in %lld sweeps: relative residual %.3e (tolerance %.3g), imbalance %.6g W\n",
                r.steady_converged ? "converged" : "NOT converged", static_cast<long long>(r.steady_iterations),
                r.steady_residual, c.solve.tolerance, r.steady_imbalance_W);
    std::printf("  wall time   %.3f s\n", r.wall);
    if (!plan.output.empty()) std::printf("  output      %s (the steady state, and /steady)\n", plan.output.c_str());
    std::printf("  max|u|      %.6e\n", r.stats.max_abs);
    if (r.heat_flows) {
      std::printf("%s", heat_flow_summary(p, *r.heat_flows, 0, c.axis.t0).c_str());
      if (!plan.heat_flow_csv.empty()) std::printf("  heat flows  CSV %s\n", plan.heat_flow_csv.c_str());
    }
    return;
  }
  if (c.axis.s0 > 0)  // a restart changed dt: the steps since then have this dt
    std::printf("  time        %lld steps; dt = %.6g s from step %lld (t = %.6g s), t = %.6g s, theta = %g\n",
                static_cast<long long>(c.steps), p.dt, static_cast<long long>(c.axis.s0), c.axis.t0, c.t_end, p.theta);
  else
    std::printf("  time        %lld steps of dt = %.6g s, t = %.6g s, theta = %g\n", static_cast<long long>(c.steps),
                p.dt, c.t_end, p.theta);
  if (r.start_step > 0)
    std::printf("  restart     from %s at step %lld\n", plan.restart.c_str(), static_cast<long long>(r.start_step));
  if (r.stopped_at_rate >= 0)
    std::printf("  stopped     at step %lld (t = %.6g s): max|u^(n+1) - u^n| / dt = %.3e K/s < time.stop_rate %.3g\n",
                static_cast<long long>(r.stopped_at_rate), c.axis.time_of(r.stopped_at_rate, p.dt), r.final_rate,
                c.solve.stop_rate);
  else if (c.solve.stop_rate > 0 && !r.interrupted)
    std::printf("  stop rate   not reached: max|u^(n+1) - u^n| / dt = %.3e K/s at the end (time.stop_rate %.3g)\n",
                r.final_rate, c.solve.stop_rate);
  std::printf("  wall time   %.3f s for %lld steps (%.1f steps/s, %.1f Mnode-steps/s)\n", r.wall,
              static_cast<long long>(done), static_cast<double>(done) / std::max(r.wall, 1e-9),
              node_steps / std::max(r.wall, 1e-9) / 1e6);
  if (!plan.output.empty())
    std::printf("  output      %s (%lld %s written by this run)\n", plan.output.c_str(),
                static_cast<long long>(r.outputs_written), r.outputs_written == 1 ? "step" : "steps");
  if (!r.checkpoint_written.empty()) std::printf("  checkpoint  %s\n", r.checkpoint_written.c_str());
  if (r.interrupted) {
    std::printf("  INTERRUPTED by %s after step %lld of %lld: continue with --restart %s\n", signal_name(r.signal),
                static_cast<long long>(r.end_step), static_cast<long long>(c.steps), r.checkpoint_written.c_str());
    return;
  }
  std::printf("  max|u|      %.6e\n", r.stats.max_abs);
  if (r.heat_flows) {
    std::printf("%s", heat_flow_summary(p, *r.heat_flows, r.end_step, c.t_end).c_str());
    if (!plan.heat_flow_csv.empty()) std::printf("  heat flows  CSV %s\n", plan.heat_flow_csv.c_str());
  }
  if (r.have_error) {
    // Relative to the exact solution's max while it is still of the order of
    // the initial amplitude; once it has decayed to almost nothing (a thin
    // block after many time constants: 5e-56), an error relative to what is
    // left reads like a failure (0.84) and says nothing a user needs, so the
    // error is then given relative to the initial amplitude, with the decay.
    if (r.exact_decay >= kDecayedBelow) {
      std::printf("  error vs exact solution      max %.3e  rms %.3e  (max relative %.3e)\n", r.exact.max_abs,
                  r.exact.rms, r.exact.rel_max());
    } else {
      const double initial = r.exact_decay > 0 ? r.exact.ref_max / r.exact_decay : 1.0;
      std::printf("  error vs exact solution      max %.3e  rms %.3e  (relative to the initial amplitude %.4g: %.3e)\n",
                  r.exact.max_abs, r.exact.rms, initial, r.exact.max_abs / initial);
      if (r.exact_decay > 0)
        std::printf("  decay       the exact solution has decayed to %.3g of its initial amplitude by t = %.6g s "
                    "(time constant %.4g s)\n",
                    r.exact_decay, c.t_end, c.t_end / -std::log(r.exact_decay));
      else
        std::printf("  decay       the exact solution has decayed below 1e-308 of its initial amplitude by t = %.6g s\n",
                    c.t_end);
    }
    std::printf("  difference from g^n U(0)     max relative %.3e  (round-off check: ", roundoff.value);
    if (roundoff.kind == RoundoffVerdict::Kind::NotChecked)
      std::printf("not checked, %s)\n", roundoff.note.c_str());
    else
      std::printf("%s, tolerance %.2g)\n", roundoff.missed() ? "MISSED" : "ok", roundoff.tolerance);
  }
}

/// A fingerprint of an input file as this rank sees it: its size, its
/// modification time and a checksum of its first and last 64 KiB (cheap,
/// and files that differ differ there: HDF5 keeps its metadata at the start,
/// the data runs to the end), or why it cannot be read.
std::string input_fingerprint(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::string("cannot be read (") + std::strerror(errno) + ")";
  std::uint64_t h = 1469598103934665603ull;
  if (std::FILE* f = S_ISREG(st.st_mode) ? std::fopen(path.c_str(), "rb") : nullptr) {
    std::vector<unsigned char> buf(65536);
    auto take = [&](long at) {
      if (std::fseek(f, at, SEEK_SET) != 0) return;
      const std::size_t n = std::fread(buf.data(), 1, buf.size(), f);
      for (std::size_t q = 0; q < n; ++q) h = (h ^ buf[q]) * 1099511628211ull;
    };
    take(0);
    if (st.st_size > 65536) take(static_cast<long>(st.st_size) - 65536);
    std::fclose(f);
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "%lld bytes, modified %lld.%09ld, fnv1a64 %016llx", static_cast<long long>(st.st_size),
                static_cast<long long>(st.st_mtim.tv_sec), static_cast<long>(st.st_mtim.tv_nsec),
                static_cast<unsigned long long>(h));
  return buf;
}

/// What every rank of a distributed run must agree on before it does
/// anything collective, item by item: the resolved config (grid, steps,
/// output, ...), the command-line choices, the ADI_* settings that change
/// what the ranks do, the working folder (relative paths resolve against
/// it) and the input files as each rank sees them (a rank started in
/// another folder reads other field files). Ranks started with different
/// ones used to hang until killed, then fail with a misleading message.
std::vector<std::pair<std::string, std::string>> run_identity(const RunPlan& plan, const RunOptions& o) {
  std::vector<std::pair<std::string, std::string>> items;
  items.emplace_back("the resolved config", plan.config.resolved_yaml);
  items.emplace_back("the command line", "restart: " + plan.restart + "; output: " + plan.output + "; checkpoint: " +
                                             plan.checkpoint + "; overwrite: " + std::to_string(o.overwrite) +
                                             "; discard: " + std::to_string(o.discard_after_checkpoint) +
                                             "; dry-run: " + std::to_string(o.dry_run));
  items.emplace_back("the ADI_* environment", o.env.solver.describe() + "\n" + o.env.app.describe());
  char cwd[4096] = "";
  if (!::getcwd(cwd, sizeof cwd)) std::snprintf(cwd, sizeof cwd, "(unknown: %s)", std::strerror(errno));
  items.emplace_back("the working folder", cwd);
  const io::RunConfig& c = plan.config;
  std::vector<std::string> inputs;
  if (!o.config.empty()) inputs.push_back(o.config);
  if (!plan.restart.empty()) inputs.push_back(plan.restart);
  if (c.initial.kind == io::InitialConfig::Kind::File) inputs.push_back(io::resolve_input(c, c.initial.file));
  for (const io::FieldRef* f : {&c.material.conductivity[0], &c.material.conductivity[1],
                                &c.material.conductivity[2], &c.material.capacity, &c.material.source})
    if (f->given()) inputs.push_back(io::resolve_input(c, f->file));
  for (const std::string& f : inputs) {
    const std::string name = "the input file " + f;
    if (std::none_of(items.begin(), items.end(), [&](const auto& it) { return it.first == name; }))
      items.emplace_back(name, input_fingerprint(f));
  }
  return items;
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

/// Collective: every rank compares its identity with rank 0's, item by item;
/// a difference stops every rank with exit 2 and one message, from the
/// highest rank that differs, naming the first item it differs in (and both
/// values, where they are one short line).
void agree_on_the_run(const RunPlan& plan, const RunOptions& o) {
  if (plan.ranks <= 1) return;
  const auto items = run_identity(plan, o);
  // Rank 0's items as "name\tvalue-or-hash" lines.
  std::string mine, root_text;
  for (const auto& [name, value] : items) {
    char h[24];
    std::snprintf(h, sizeof h, "%016llx", static_cast<unsigned long long>(fnv1a(value)));
    mine += name + "\t" + h + "\t" + (value.find('\n') == std::string::npos && value.size() < 300 ? value : "") + "\n";
  }
  root_text = mine;
  mpi::broadcast(root_text);
  const int rank = mpi::world_rank();
  std::string detail;
  if (root_text != mine) {
    std::istringstream a(root_text), b(mine);
    std::string la, lb;
    while (std::getline(b, lb)) {
      if (!std::getline(a, la)) la.clear();
      if (la == lb) continue;
      const auto split = [](const std::string& l) {
        std::vector<std::string> f;
        std::istringstream in(l);
        for (std::string x; std::getline(in, x, '\t');) f.push_back(x);
        f.resize(3);
        return f;
      };
      const auto fa = split(la), fb = split(lb);
      detail = fb[0];
      if (fa[0] == fb[0] && !fa[2].empty() && !fb[2].empty())
        detail += " (rank " + std::to_string(rank) + ": " + fb[2] + "; rank 0: " + fa[2] + ")";
      break;
    }
    if (detail.empty()) detail = "the number of input files";
  }
  double highest = detail.empty() ? -1.0 : static_cast<double>(rank);
  double count = detail.empty() ? 0.0 : 1.0;
  mpi::allreduce_max(&highest, 1);
  mpi::allreduce_sum(&count, 1);
  if (highest < 0) return;
  const std::string msg = "error: the MPI ranks were started with different runs: " +
                          std::to_string(static_cast<int>(count)) + " of " + std::to_string(plan.ranks) +
                          " ranks (the highest: rank " + std::to_string(static_cast<int>(highest)) +
                          ") differ from rank 0; rank " + std::to_string(static_cast<int>(highest)) +
                          " differs in " + detail +
                          "; start every rank with the same config, options, environment and working folder, "
                          "reading the same files";
  if (rank == static_cast<int>(highest)) {
    std::fprintf(stderr, "adi3d: %s\n", printable(msg, 1000).c_str());
    std::fflush(stderr);
  }
  mpi::barrier();
  throw CollectiveError(kUsageError, msg, true, __FILE__, __LINE__);
}

}  // namespace

int cmd_run(const RunOptions& o) {
  // Nothing below allocates a field or writes a file until the plan, the
  // memory check and the path checks have passed. In a distributed run
  // every rank plans (the same config, the same result); rank 0 checks
  // memory and paths, and all ranks agree before going on (errors.hpp).
  const bool root = mpi::world_rank() == 0;
  RunPlan plan;
  collectively([&] { plan = plan_run(o); });
  agree_on_the_run(plan, o);
  if (!o.dry_run) stop_if_signalled("while reading the config and the inputs");
  const io::RunConfig& c = plan.config;
  const HeatProblem& p = c.problem;
  if (root)
    for (const std::string& w : c.warnings) spdlog::warn("{}", w);
  if (root && !c.solve.steady) warn_if_high_frequencies_poorly_damped(c);
  if (root && !c.solve.steady) warn_if_douglas_with_fields(c);
  if (root) warn_if_geometry_is_a_guess(plan);
  if (root && c.solve.stop_rate > 0 && p.scheme_in_use() == SchemeType::Strang)
    spdlog::warn("time.stop_rate with the strang scheme: the state a split scheme settles to differs from the steady "
                 "state by an error that grows with dt (docs/SCHEMES.md \"Limits\"; 43 % on a chip case at dt = 2 s); "
                 "for the steady state use solve: steady");
  if (o.dry_run) {
    // Resolved as the run resolves it, failing where it would fail: the
    // backend (no CUDA device: the run's exit 6), the checkpoint's name,
    // memory (exit 7) and the output paths (exit 3).
    Backend backend = Backend::Cpu;
    collectively([&] { backend = choose_backend(p, c.backend); });
    if (root) {
      std::printf("%s", c.resolved_yaml.c_str());
      std::string why;
      if (c.backend == Backend::Auto)
        why = backend == Backend::Cuda ? " (auto: a CUDA device is visible)"
                                       : " (auto: " + cuda_unavailable_reason() + ")";
      std::printf("# resolved: backend %s%s\n", backend_name(backend), why.c_str());
      if (plan.initial) std::printf("# resolved: geometry: %s\n", c.geometry.source.c_str());
      if (c.solve.steady)
        std::printf("# resolved: a steady solve (no time steps, no checkpoints)\n");
      else
      std::printf("# resolved: checkpoint %s%s\n", plan.checkpoint.c_str(),
                  c.checkpoint.every_steps > 0 || c.checkpoint.every_seconds > 0
                      ? ""
                      : " (written on SIGTERM/SIGUSR1/SIGINT; checkpoint.every or every_seconds for periodic ones)");
      if (!plan.heat_flow_csv.empty()) std::printf("# resolved: heat flows CSV %s\n", plan.heat_flow_csv.c_str());
      for (const auto& n : time_adjustment_notes(plan)) std::printf("# time: %s\n", n.c_str());
      if (plan.decomposition) std::printf("# parallel: %s\n", plan.decomposition->describe().c_str());
      std::printf("%s", describe_memory(plan.memory).c_str());
      std::fflush(stdout);
    }
    // Every check the run makes before its first step (memory, locks,
    // paths, journals, the values of every input field, the problem against
    // a checkpoint's and an output's), without the work and without changing
    // a file (no temporaries removed).
    collectively([&] {
      if (!root) return;
      check_memory(plan.memory);
      check_paths(plan, o);
      // After the path checks: the disk's lines name folders that exist.
      const DiskEstimate disk = estimate_disk(plan, o.overwrite);
      std::printf("%s", describe_disk(disk).c_str());
      std::fflush(stdout);
      check_disk(disk, o.force);
      probe_inputs(plan, o.env.app);
      identify_problem(plan, o.env.app);
    });
    // A signal is a stop here too (75), as in the run before its first step.
    stop_if_signalled("during the dry run");
    if (root) std::printf("# checked: memory, output and checkpoint paths and locks, every input's values%s\n",
                          plan.restart.empty() ? "" : ", the problem against the checkpoint's");
    return kOk;
  }
  collectively([&] {
    if (!root) return;
    check_memory(plan.memory);
    check_paths(plan, o);
    check_disk(estimate_disk(plan, o.overwrite), o.force);
    probe_inputs(plan, o.env.app);
    identify_problem(plan, o.env.app);
    remove_dead_temporaries(plan);
  });
  // Rank 0's identity of the problem on every rank (a collective file's
  // attributes are the same on all of them).
  if (plan.ranks > 1) {
    mpi::broadcast(plan.problem);
    mpi::broadcast(plan.problem_hash);
  }
  stop_if_signalled("while checking the inputs");

  spdlog::debug("resolved config:\n{}", c.resolved_yaml);
  if (c.solve.steady)
    spdlog::info("case {}: {} x {} x {} nodes, steady state", c.source, p.n[0], p.n[1], p.n[2]);
  else
    spdlog::info("case {}: {} x {} x {} nodes, {} steps of dt = {:.6g} s to t = {:.6g} s, theta = {}", c.source,
                 p.n[0], p.n[1], p.n[2], c.steps, p.dt, c.t_end, p.theta);
  if (plan.decomposition) spdlog::info("MPI: {}", plan.decomposition->describe());
  if (root)
    for (const auto& n : time_adjustment_notes(plan)) spdlog::info("{}", n);
  const RunReport r = execute_run(plan, o);
  // The round-off check of a run from the analytic mode (roundoff.hpp):
  // missing it means the stepper did not take the Douglas step (exit 4).
  RoundoffVerdict roundoff;
  if (r.have_error) roundoff = roundoff_verdict(r.discrete, c.precision, c.steps);
  if (r.have_error && c.axis.s0 > 0) {
    // g^n holds for n steps of one dt: a restart changed dt at step s0.
    roundoff.kind = RoundoffVerdict::Kind::NotChecked;
    roundoff.note = "dt changed on restart at step " + std::to_string(c.axis.s0);
  }
  // SIGPIPE is ignored (signals.hpp): a closed stdout fails here instead of
  // killing a run whose files are complete; say so, and exit 3.
  bool summary_failed = false;
  if (root) {
    print_summary(plan, r, roundoff);
    errno = 0;
    summary_failed = std::fflush(stdout) != 0 || std::ferror(stdout);
    if (summary_failed)
      std::fprintf(stderr,
                   "adi3d: error: the run %s and its files are written, but its summary could not be written to "
                   "stdout (%s)\n",
                   r.interrupted ? "stopped with a checkpoint" : "is complete", std::strerror(errno ? errno : EPIPE));
  }
  double missed = roundoff.missed() ? 1.0 : 0.0;  // rank 0's verdict, on every rank
  if (plan.ranks > 1) mpi::allreduce_max(&missed, 1);
  if (root && roundoff.missed())
    std::fprintf(stderr,
                 "adi3d: error: round-off check missed: after %lld steps the field differs from g^n U(0) by %.3e "
                 "relative, above the tolerance %.2g of %s (the stepper did not take the Douglas step it should)\n",
                 static_cast<long long>(c.steps), roundoff.value, roundoff.tolerance, precision_name(c.precision));
  if (plan.ranks > 1) {
    // mpirun ends the whole job as soon as one rank exits with a non-zero
    // code (75 after a signal): nobody leaves before rank 0 has written its
    // files and printed the summary.
    std::fflush(stdout);
    std::fflush(stderr);
    mpi::barrier();
  }
  if (r.interrupted) return kCheckpointed;
  if (missed > 0) return kValidationFailed;
  return summary_failed ? kIoError : kOk;
}

}  // namespace adi::app
