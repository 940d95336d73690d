// adi3d run: the plan (see run_driver.hpp): the config or the checkpoint's,
// the initial file's header and grid, memory; the inputs read once in a
// child; the problem's identity against a checkpoint's and an output's.

#include "run_driver.hpp"

#include "child_reads.hpp"
#include "errors.hpp"
#include "exit_codes.hpp"
#include "heat_flow_log.hpp"
#include "log.hpp"
#include "signals.hpp"
#include "util.hpp"

#include <adi/energy_guard.hpp>
#include <adi/mpi.hpp>
#include <adi/steady.hpp>
#include <adi/stepper_heat_flows.hpp>

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <iomanip>
#include <sstream>
#include <filesystem>
#include <limits>
#include <sys/stat.h>
#include <unistd.h>

namespace adi::app {

namespace {

namespace fs = std::filesystem;

std::string strip_suffix(const std::string& s, std::initializer_list<const char*> suffixes) {
  for (const char* x : suffixes) {
    const std::string e(x);
    if (s.size() > e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0) return s.substr(0, s.size() - e.size());
  }
  return s;
}

/// checkpoint.file, else the restart file itself, else next to the output
/// ("run.h5" -> "run.ckpt.h5"), else after the config ("heat.yaml" -> "heat.ckpt.h5").
std::string checkpoint_path(const io::RunConfig& c, const std::string& restart) {
  if (!c.checkpoint.file.empty()) return c.checkpoint.file;
  if (!restart.empty()) return restart;
  if (!c.output.file.empty()) return strip_suffix(c.output.file, {".h5", ".hdf5", ".hdf"}) + ".ckpt.h5";
  std::string stem = c.source;
  if (stem.empty() || stem[0] == '<') return "heat.ckpt.h5";
  stem = stem.substr(stem.find_last_of('/') == std::string::npos ? 0 : stem.find_last_of('/') + 1);
  return strip_suffix(stem, {".yaml", ".yml"}) + ".ckpt.h5";
}

}  // namespace

RunPlan plan_run(const RunOptions& o) {
  std::vector<std::string> sets = o.sets;
  // --backend / --precision are --set backend= / precision=; given both
  // ways they are one key given twice (io::parse_config refuses that too,
  // but would name the shorthand as a --set).
  auto shorthand = [&](const std::string& key, const std::string& value) {
    if (value.empty()) return;
    for (const std::string& s : o.sets)
      if (s.rfind(key + "=", 0) == 0)
        throw io::ConfigError("--" + key + " " + value, key,
                              "given twice on the command line (--set " + s + "); give it once", __FILE__, __LINE__);
    sets.push_back(key + "=" + value);
  };
  shorthand("backend", o.backend);
  shorthand("precision", o.precision);
  // A flag that does nothing here is a mistake to name, not to ignore.
  if (o.restart.empty() && o.discard_after_checkpoint)
    throw io::ConfigError("--discard-after-checkpoint", "",
                          "only with --restart: it allows a restart to delete output steps after the checkpoint that "
                          "it will not write again, and without --restart there is nothing to discard; remove it",
                          __FILE__, __LINE__);
  // Not an error: a batch script that passes --overwrite to its first run
  // passes it to the requeued one too (which adds --restart).
  if (!o.restart.empty() && o.overwrite)
    spdlog::warn("--overwrite has no effect with --restart: the run continues its output file (a restart never "
                 "replaces it)");
  RunPlan plan;
  io::RunConfig& c = plan.config;
  if (!o.restart.empty()) {
    plan.restart = o.restart;
    // A FIFO or a device would block the read (until the time-out) or never
    // end: refused by what it is, before a byte is read.
    io::require_regular_input(o.restart, "the checkpoint given to --restart");
    probe_read(o.restart, "checkpoint", [&] { (void)io::read_checkpoint_state(o.restart); },
                       header_limits(o.env.app));
    plan.restart_state = io::read_checkpoint_state(o.restart);
    const io::RunConfig stored =
        io::parse_config(plan.restart_state.config_yaml, o.restart + ":/provenance/config");
    if (o.config.empty()) {
      c = io::parse_config(plan.restart_state.config_yaml, o.restart + ":/provenance/config", sets);
      const auto slash = o.restart.find_last_of('/');
      c.base_dir = slash == std::string::npos ? "." : o.restart.substr(0, slash == 0 ? 1 : slash);
    } else {
      c = io::load_config(o.config, sets);
    }
    if (c.solve.steady)
      throw io::ConfigError("--restart " + o.restart, "solve",
                            "a steady solve is not restarted (it writes no checkpoints and starts from initial:); "
                            "remove --restart, or remove solve: steady to continue the transient run",
                            __FILE__, __LINE__);
    if (c.initial.kind == io::InitialConfig::Kind::File) {
      // The initial file is not read again: what the config left to it comes
      // from the checkpointed run's resolved config, exactly.
      if (!c.given.grid) {
        c.problem.n = stored.problem.n;
        c.problem.coordinates = stored.problem.coordinates;  // a stretched axis the file gave
      }
      for (int a = 0; a < 3; ++a)
        if (!c.given.length[a]) c.problem.length[a] = stored.problem.length[a];
      if (!c.given.origin) c.origin = stored.origin;
      io::settle_grid(c, o.restart + " (the grid its run took from " + c.initial.file + ")");
      c.problem.validate();
      c.resolved_yaml = io::to_yaml(c);
    }
    // The time axis: the checkpoint's, or a new segment where dt changes.
    io::resolve_restart_time(c, plan.restart_state);
    io::check_restart_compatible(o.restart, plan.restart_state, c);
    if (io::faces_read_initial(c) && c.initial.kind == io::InitialConfig::Kind::File) {
      const std::string file = io::resolve_input(c, c.initial.file);
      io::require_regular_input(file, "the initial field");
      probe_read(file, "initial field", [&] { (void)io::inspect_field(file, c.initial.dataset); },
                 header_limits(o.env.app));
    }
    io::attach_face_values(c, std::nullopt);
    plan.from_analytic = c.initial.kind == io::InitialConfig::Kind::Analytic &&
                         stored.initial.kind == io::InitialConfig::Kind::Analytic;
  } else {
    c = o.config.empty() ? io::parse_config(io::default_config_text(), "<built-in heat.yaml>", sets)
                         : io::load_config(o.config, sets);
    plan.from_analytic = c.initial.kind == io::InitialConfig::Kind::Analytic;
    if (c.initial.kind == io::InitialConfig::Kind::File) {
      const std::string file = io::resolve_input(c, c.initial.file);
      io::require_regular_input(file, "the initial field");
      probe_read(file, "initial field", [&] { (void)io::inspect_field(file, c.initial.dataset); },
                         header_limits(o.env.app));
      plan.initial = io::inspect_field(file, c.initial.dataset);
      io::apply_field_geometry(c, *plan.initial);
    }
    io::attach_face_values(c, plan.initial);
  }
  if (c.solve.steady) {
    const std::string why = steady_state_refusal(c.problem);
    if (!why.empty())
      throw io::ConfigError(c.solve.where.empty() ? c.source : c.solve.where, "solve", "no steady state: " + why,
                            __FILE__, __LINE__);
  }
  // The material and source fields: headers, shapes and geometry now (a
  // bad one stops the run before anything is allocated); values as read.
  // Their headers are read in a child first, as every input's (probe.hpp).
  // (Temperature-dependent materials read the region field itself.)
  io::FieldRef none;
  io::FieldRef* regions_ref = c.material.temperature ? &c.material.regions : &none;
  for (const io::FieldRef* f : {&c.material.conductivity[0], &c.material.conductivity[1],
                                &c.material.conductivity[2], &c.material.capacity, &c.material.source, regions_ref}) {
    if (!f->given() || (f != &c.material.conductivity[0] && f->file == c.material.conductivity[0].file &&
                        f->dataset == c.material.conductivity[0].dataset))
      continue;  // an isotropic field: once
    // Named as attach_fields names them ("the conductivity field").
    const bool regions = f->by_region != nullptr || f == &c.material.regions;
    const std::string kind = regions                                        ? "region"
                             : f->key.rfind("material.conductivity", 0) == 0 ? "conductivity"
                             : f->key == "material.heat_capacity"           ? "heat capacity"
                                                                            : "heat source";
    const std::string file = io::resolve_input(c, f->file), what = "the " + kind + " field";
    io::require_regular_input(file, what);
    probe_read(file, what, [&] { (void)io::inspect_field(file, f->dataset, what, regions); },
               header_limits(o.env.app));
  }
  io::attach_fields(c, o.env.app.parallel_io);
  (void)io::locate_probes(c);  // the grid is final: a probe outside the box is a ConfigError now
  plan.output = c.output.file;
  plan.checkpoint = checkpoint_path(c, o.restart);
  plan.heat_flow_csv = heat_flow_csv_path(c, plan.output);
  plan.ranks = mpi::world_size();
  // The process grid, checked against this run's rank count (the config
  // cannot know it: the same case may run on any number of ranks).
  const std::string where = c.parallel.where.empty() ? c.source : c.parallel.where;
  const auto& g = c.parallel.grid;
  if (plan.ranks == 1) {
    io::check_single_process(c, "start it with mpirun -np N, or --set parallel.grid=auto");
  } else {
    try {
      plan.decomposition = Decomposition::plan(c.problem.n, plan.ranks, g);
    } catch (const InvalidArgument& e) {
      throw io::ConfigError(where, "parallel.grid",
                            std::string(e.what()) + (c.parallel.automatic() ? "" : " (--set parallel.grid=auto lets adi3d choose)"),
                            __FILE__, __LINE__);
    }
  }
  plan.memory = estimate_memory(c, plan.ranks, o.env.solver);
  return plan;
}

void probe_inputs(const RunPlan& plan, const AppOptions& a) {
  const double field = plan.memory.field_bytes;
  dispatch_precision(plan.config.precision, [&](auto tag) {
    using T = decltype(tag);
    if (!plan.restart.empty())
      probe_read(plan.restart, "checkpoint",
                         [&] {
                           (void)io::read_checkpoint_field<T>(plan.restart, plan.restart_state);
                           (void)io::read_checkpoint_previous<T>(plan.restart, plan.restart_state);
                         },
                         data_limits(a, plan.restart, plan.restart_state.has_previous ? 2 * field : field));
    else if (plan.initial)
      probe_read(plan.initial->file, "initial field", [&] { (void)io::read_field<T>(*plan.initial); },
                         data_limits(a, plan.initial->file, field));
  });
  // The material and source fields likewise, and the initial field where
  // moving faces read it again: a damaged file that crashes HDF5 stops the
  // run with an IoError, a bad value is found before anything is written
  // (their checksum reads every plane), and the checksum comes back for the
  // problem's identity and the provenance. A signal stops the read (75).
  auto fields = io::named_fields(plan.config);
  if (plan.config.problem.initial_field) fields.emplace_back("initial", plan.config.problem.initial_field);
  for (const auto& [key, f] : fields)
    if (const auto* h = dynamic_cast<const io::Hdf5Field*>(f.get()))
      h->adopt_checksum(probe_result(h->info().file, h->what() + " field", [h = h] { return h->checksum(); },
                                     data_limits(a, h->info().file, field)));
    else if (const auto* g = dynamic_cast<const io::RegionField*>(f.get()))  // reads every id: an unknown one stops here
      g->adopt_checksum(probe_result(g->ids().info().file, "region field", [g = g] { return g->checksum(); },
                                     data_limits(a, g->ids().info().file, field)));
}

void identify_problem(RunPlan& plan, const AppOptions& a) {
  const io::RunConfig& c = plan.config;
  const std::vector<io::ProblemItem> items = io::problem_items(c);
  plan.problem = io::problem_items_text(items);
  plan.problem_hash = io::problem_hash(items);
  if (!plan.restart.empty()) io::check_same_problem(plan.restart, plan.restart_state, items);
  if (plan.output_problem) {
    const std::string diff =
        io::first_difference(io::parse_problem_items(*plan.output_problem), "the output file", items, "this run");
    if (!diff.empty())
      throw io::ConfigError(plan.output, "output.file",
                            "was written for another problem, and a run continues only its own output: " + diff +
                                "; choose another output.file, or move the file away",
                            __FILE__, __LINE__);
    // What a restart's reopen checks first: the grid and precision.
    const io::GridGeometry g = io::geometry_of(c);
    const Precision prec = c.precision;
    probe_read(plan.output, "output file", [&] { io::check_output_continuable(plan.output, g, prec); },
               header_limits(a));
    io::check_output_continuable(plan.output, g, prec);
  }
}

}  // namespace adi::app
