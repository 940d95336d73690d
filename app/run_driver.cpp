// adi3d run: planning and the time loop (see run_driver.hpp).
//
// Time is always t = step * dt, never a running sum, so a run restarted from
// a checkpoint (which stores the step) sees exactly the same times, output
// steps and checkpoint steps as an uninterrupted one.

#include "run_driver.hpp"

#include "errors.hpp"
#include "exit_codes.hpp"
#include "log.hpp"
#include "signals.hpp"
#include "util.hpp"

#include <adi/mpi.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <filesystem>
#include <limits>
#include <unistd.h>

namespace adi::app {

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

/// Above this, a distributed run warns that every output and checkpoint
/// gathers the whole field to rank 0 (no parallel HDF5 in this build).
constexpr double kGatherWarnBytes = 4.0 * (1 << 30);

/// Whether a distributed run writes its files collectively (parallel HDF5):
/// when the build has it, unless ADI_PARALLEL_IO=0 asks for the gather to
/// rank 0 (the path of builds without it; for comparison and debugging).
bool collective_io(const AppOptions& a) { return io::parallel_hdf5_built() && a.parallel_io; }

/// Rank 0's provenance on every rank: a collective file's attributes must
/// be the same on all of them (host and start time differ).
void share_provenance(io::Provenance& p) {
  for (std::string* f : {&p.version, &p.git_hash, &p.build_type, &p.cxx_compiler, &p.cuda_compiler, &p.hdf5_version,
                         &p.backend, &p.device, &p.host, &p.command_line, &p.slurm_job_id, &p.start_time,
                         &p.end_time, &p.config_yaml})
    mpi::broadcast(*f);
}

std::string strip_suffix(const std::string& s, std::initializer_list<const char*> suffixes) {
  for (const char* x : suffixes) {
    const std::string e(x);
    if (s.size() > e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0) return s.substr(0, s.size() - e.size());
  }
  return s;
}

/// Input paths in a config are relative to the config's folder.
std::string resolve_input(const io::RunConfig& c, const std::string& p) {
  if (p.empty() || p[0] == '/' || c.base_dir.empty() || c.base_dir == ".") return p;
  return c.base_dir + "/" + p;
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

bool same_file(const std::string& a, const std::string& b) {
  std::error_code e1, e2;
  const fs::path pa = fs::weakly_canonical(a, e1), pb = fs::weakly_canonical(b, e2);
  return !e1 && !e2 ? pa == pb : a == b;
}

/// Creates and removes `path` to learn early (before any allocation or
/// stepping) whether files can be created there.
void probe_create(const std::string& path, const std::string& what) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    if (err == EEXIST) return;  // a stale temporary: it will be replaced
    throw io::IoError(what + ": cannot create " + path + " (" + std::strerror(err) + ")", __FILE__, __LINE__);
  }
  ::close(fd);
  ::unlink(path.c_str());
}

template <class T>
void zero_dirichlet_faces(const HeatProblem& p, std::vector<T>& u) {
  const index_t nx = p.n[0], ny = p.n[1], nz = p.n[2];
  auto fixed = [&](int a, index_t i, index_t n) {
    return (i == 0 && p.lo[a] == Boundary::Dirichlet) || (i == n - 1 && p.hi[a] == Boundary::Dirichlet);
  };
  for (index_t k = 0; k < nz; ++k)
    for (index_t j = 0; j < ny; ++j)
      for (index_t i = 0; i < nx; ++i)
        if (fixed(0, i, nx) || fixed(1, j, ny) || fixed(2, k, nz)) u[i + nx * (j + ny * k)] = T(0);
}

}  // namespace

namespace {

/// Memory a child may use for a file's header; for its data, twice the field
/// more (read_field's copy as double planes and the result).
constexpr double kProbeHeaderBytes = 1024.0 * 1024 * 1024;
/// Seconds a child may take to read a file's header (ADI_READ_TIMEOUT,
/// default 60), and its data (plus the time to read the file at 20 MB/s): a
/// damaged file can make HDF5 loop for ever (tests/fuzz found such files); a
/// slow disk should not stop a run, hence generous. ADI_ISOLATE_READS=0:
/// no child at all.
io::ProbeLimits header_limits(const AppOptions& a) { return {a.isolate_reads, a.read_timeout_s, kProbeHeaderBytes}; }
io::ProbeLimits data_limits(const AppOptions& a, const std::string& path, double field_bytes) {
  std::error_code ec;
  const auto bytes = fs::file_size(path, ec);
  return {a.isolate_reads, a.read_timeout_s + (ec ? 0.0 : static_cast<double>(bytes) / 20e6),
          kProbeHeaderBytes + 2.0 * field_bytes};
}

}  // namespace

RunPlan plan_run(const RunOptions& o) {
  std::vector<std::string> sets = o.sets;
  if (!o.backend.empty()) sets.push_back("backend=" + o.backend);
  if (!o.precision.empty()) sets.push_back("precision=" + o.precision);
  RunPlan plan;
  io::RunConfig& c = plan.config;
  if (!o.restart.empty()) {
    plan.restart = o.restart;
    io::probe_in_child(o.restart, "checkpoint", [&] { (void)io::read_checkpoint_state(o.restart); },
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
    if (c.initial.kind == io::InitialConfig::Kind::File) {
      // The initial file is not read again: what the config left to it comes
      // from the checkpointed run's resolved config, exactly.
      if (!c.given.grid) c.problem.n = stored.problem.n;
      for (int a = 0; a < 3; ++a)
        if (!c.given.length[a]) c.problem.length[a] = stored.problem.length[a];
      if (!c.given.origin) c.origin = stored.origin;
      c.problem.validate();
      c.resolved_yaml = io::to_yaml(c);
    }
    io::check_restart_compatible(o.restart, plan.restart_state, c);
  } else {
    c = o.config.empty() ? io::parse_config(io::default_config_text(), "<built-in heat.yaml>", sets)
                         : io::load_config(o.config, sets);
    if (c.initial.kind == io::InitialConfig::Kind::File) {
      const std::string file = resolve_input(c, c.initial.file);
      io::probe_in_child(file, "initial field", [&] { (void)io::inspect_field(file, c.initial.dataset); },
                         header_limits(o.env.app));
      plan.initial = io::inspect_field(file, c.initial.dataset);
      io::apply_field_geometry(c, *plan.initial);
    }
  }
  plan.output = c.output.file;
  plan.checkpoint = checkpoint_path(c, o.restart);
  plan.ranks = mpi::world_size();
  // The process grid, checked against this run's rank count (the config
  // cannot know it: the same case may run on any number of ranks).
  const std::string where = c.parallel.where.empty() ? c.source : c.parallel.where;
  const auto& g = c.parallel.grid;
  if (plan.ranks == 1) {
    if (!c.parallel.automatic() && g[0] * g[1] * g[2] != 1)
      throw io::ConfigError(where, "parallel.grid",
                            "[" + std::to_string(g[0]) + ", " + std::to_string(g[1]) + ", " + std::to_string(g[2]) +
                                "] needs " + std::to_string(g[0] * g[1] * g[2]) +
                                " MPI ranks, this run has 1 (start it with mpirun -np " +
                                std::to_string(g[0] * g[1] * g[2]) + ", or --set parallel.grid=auto)",
                            __FILE__, __LINE__);
  } else {
    try {
      plan.decomposition = Decomposition::plan(c.problem.n, plan.ranks, g);
    } catch (const InvalidArgument& e) {
      throw io::ConfigError(where, "parallel.grid",
                            std::string(e.what()) + (c.parallel.automatic() ? "" : " (--set parallel.grid=auto lets adi3d choose)"),
                            __FILE__, __LINE__);
    }
  }
  plan.memory = estimate_memory(c, plan.ranks);
  return plan;
}

void probe_inputs(const RunPlan& plan, const AppOptions& a) {
  const double field = plan.memory.field_bytes;
  dispatch_precision(plan.config.precision, [&](auto tag) {
    using T = decltype(tag);
    if (!plan.restart.empty())
      io::probe_in_child(plan.restart, "checkpoint",
                         [&] { (void)io::read_checkpoint_field<T>(plan.restart, plan.restart_state); },
                         data_limits(a, plan.restart, field));
    else if (plan.initial)
      io::probe_in_child(plan.initial->file, "initial field", [&] { (void)io::read_field<T>(*plan.initial); },
                         data_limits(a, plan.initial->file, field));
  });
}

void check_paths(const RunPlan& plan, bool overwrite) {
  const io::RunConfig& c = plan.config;
  if (!plan.output.empty()) {
    if (same_file(plan.output, plan.checkpoint))
      throw io::ConfigError(c.source, "checkpoint.file",
                            "the checkpoint '" + plan.checkpoint + "' would be the output file; choose another name",
                            __FILE__, __LINE__);
    if (!plan.restart.empty() && same_file(plan.output, plan.restart))
      throw io::ConfigError(c.source, "output.file", "is the checkpoint given to --restart", __FILE__, __LINE__);
    const std::string xmf = io::xdmf_path_for(plan.output);
    if (plan.restart.empty() && !overwrite) {
      for (const std::string& f : {plan.output, c.output.xdmf ? xmf : plan.output})
        if (fs::exists(fs::symlink_status(f)))
          throw io::IoError("output file '" + f +
                                "' exists; pass --overwrite to replace it, or --restart CHECKPOINT to continue "
                                "the run that wrote it",
                            __FILE__, __LINE__);
    }
    probe_create(plan.output + ".tmp", "output file '" + plan.output + "'");
  }
  const bool checkpoints_configured =
      !c.checkpoint.file.empty() || c.checkpoint.every_steps > 0 || c.checkpoint.every_seconds > 0;
  if (checkpoints_configured) {
    probe_create(plan.checkpoint + ".tmp", "checkpoint '" + plan.checkpoint + "'");
  } else {
    try {
      probe_create(plan.checkpoint + ".tmp", "checkpoint '" + plan.checkpoint + "'");
    } catch (const io::IoError& e) {
      spdlog::warn("{}; a signal will stop the run without a checkpoint", e.what());
    }
  }
}

template <class T>
RunReport drive(const RunPlan& plan, const RunOptions& o) {
  const io::RunConfig& c = plan.config;
  const HeatProblem& p = c.problem;
  RunReport rep;
  // A distributed run: every rank steps its sub-box. Rank 0 reads the
  // initial data and scatters it. Outputs and checkpoints: with parallel
  // HDF5 every rank writes its box into the one file (collective calls);
  // without it rank 0 gathers the field and writes it alone. Every decision
  // that leads to a collective call (advance, fetch, the writes) is taken
  // from values all ranks agree on.
  const bool distributed = plan.ranks > 1;
  const bool root = mpi::world_rank() == 0;
  const bool collective = distributed && collective_io(o.env.app);
  // Collective runs from the analytic mode: every rank fills its own box, so
  // rank 0 never holds the whole field (with the distributed error at the
  // end, below).
  const bool analytic_boxes =
      collective && plan.restart.empty() && c.initial.kind == io::InitialConfig::Kind::Analytic;

  // ---- initial state (everything is checked before any output exists) ----
  std::vector<T> u;
  index_t s0 = plan.restart.empty() ? 0 : plan.restart_state.step;
  collectively([&] {
    if (!root) return;
    if (!plan.restart.empty()) {
      u = io::read_checkpoint_field<T>(plan.restart, plan.restart_state);
      spdlog::info("restarting from {} at step {} of {} (t = {:.6g} s)", plan.restart, s0, c.steps,
                   static_cast<double>(s0) * p.dt);
    } else if (plan.initial) {
      io::FieldData<T> fd = io::read_field<T>(*plan.initial);
      if (fd.rounded > 0)
        spdlog::warn("{}:{}: {} of {} values lost precision converting {} to {} (largest relative change {:.2e})",
                     plan.initial->file, plan.initial->dataset, fd.rounded, fd.values.size(),
                     precision_name(plan.initial->dtype), precision_name(c.precision), fd.max_rel_rounding);
      u = std::move(fd.values);
      if (!c.initial.boundary_from_file) zero_dirichlet_faces(p, u);
      spdlog::info("initial field from {}:{} ({}{})", plan.initial->file, plan.initial->dataset,
                   precision_name(plan.initial->dtype),
                   c.initial.boundary_from_file ? ", Dirichlet faces keep its boundary values"
                                                : ", Dirichlet faces set to 0");
    } else if (!analytic_boxes) {
      fill_analytic(p, u);
    }
  });
  rep.start_step = s0;

  std::unique_ptr<Stepper<T>> stepper;
  std::optional<io::FieldPart> part;  // this rank's box, for collective writes
  collectively([&] {
    if (distributed) {
      auto ds = mpi::make_distributed_stepper<T>(p, c.backend, c.parallel.grid);
      if (collective) part = io::FieldPart{ds->part().box.begin, ds->part().box.size};
      stepper = std::move(ds);
    } else {
      stepper = make_stepper<T>(p, c.backend);
    }
  });
  rep.backend = backend_name(stepper->backend());
  rep.device = stepper->device_name();
  spdlog::info("backend {} ({}), {}, {} of {} memory{}", rep.backend, rep.device, precision_name(c.precision),
               human_bytes(static_cast<double>(stepper->bytes_allocated())),
               stepper->backend() == Backend::Cpu ? "host" : "device", distributed ? " per rank" : "");
  if (collective) {
    spdlog::info("outputs and checkpoints: parallel HDF5, each of the {} ranks writes its part (collective)",
                 plan.ranks);
  } else if (distributed &&
             (!plan.output.empty() || c.checkpoint.every_steps > 0 || c.checkpoint.every_seconds > 0)) {
    const double bytes = static_cast<double>(p.points()) * sizeof(T);
    if (bytes > kGatherWarnBytes)
      spdlog::warn("outputs and checkpoints gather the whole field ({}) to rank 0, which writes them with serial "
                   "HDF5 (this build has no parallel HDF5): expect a pause per write",
                   human_bytes(bytes));
    else
      spdlog::debug("outputs and checkpoints are gathered to rank 0 ({} per write)", human_bytes(bytes));
  }
  if (analytic_boxes) {
    std::vector<T> box;
    fill_analytic_box(p, part->offset, part->count, box);
    stepper->set_field(box.data());
  } else {
    stepper->scatter_field(root ? u.data() : nullptr);
  }
  if (collective) std::vector<T>().swap(u);  // rank 0 no longer needs the whole field

  io::Provenance prov = io::collect_provenance(o.argv, rep.backend, rep.device, c.resolved_yaml, o.env.app.batch_job);
  if (collective) share_provenance(prov);
  SignalGuard guard;

  const bool have_output = !plan.output.empty();
  std::optional<io::GridFile> out;
  bool reopened = false;
  collectively([&] {
    if (!have_output || (!root && !collective)) return;
    io::GridFile::Options oo;
    oo.path = plan.output;
    oo.xdmf = c.output.xdmf;
    oo.geometry = io::geometry_of(c);
    oo.precision = c.precision;
    oo.compression = c.output.compression;
    oo.provenance = prov;
    oo.part = part;
    // Rank 0 looks (a collective reopen or create must be the same on all).
    double exists = root && !plan.restart.empty() && fs::exists(plan.output) ? 1.0 : 0.0;
    if (collective) mpi::allreduce_max(&exists, 1);
    if (exists > 0) {
      out.emplace(io::GridFile::reopen(oo, s0));
      reopened = true;
      if (out->rolled_back())
        spdlog::warn("{}: the previous run was killed inside a write; the file was restored to its last complete "
                     "step",
                     plan.output);
      spdlog::info("continuing {} ({} steps kept)", plan.output, out->steps().size());
    } else {
      out.emplace(io::GridFile::create(oo));
    }
  });

  const double dt = p.dt;
  auto time_of = [&](index_t s) { return static_cast<double>(s) * dt; };
  // Output every `every_time` seconds: step s is an output step when it is
  // the first whose time reaches the next multiple (stateless, so restarts agree).
  auto time_index = [&](index_t s) {
    return static_cast<long long>(std::floor(time_of(s) / c.output.every_time + 1e-9));
  };
  auto output_due = [&](index_t s) {
    if (!have_output) return false;
    if (s == 0) return c.output.write_initial;
    if (c.output.every_steps > 0 && s % c.output.every_steps == 0) return true;
    if (c.output.every_time > 0 && time_index(s) > time_index(s - 1)) return true;
    return s == c.steps && c.output.write_final;
  };
  // Fault injection for the tests of the NaN guard (docs/BAD_INPUT.md): no
  // valid input makes the scheme produce NaN after a good step (it is
  // unconditionally stable, |g| <= 1), so ADI_FAULT_NAN_AT_STEP=N puts one
  // into the field after step N, loudly.
  const index_t nan_at = o.env.app.fault_nan_at_step;
  index_t max_chunk = 1;
  auto next_stop = [&](index_t s) {
    index_t e = c.steps;
    if (nan_at > s) e = std::min(e, nan_at);
    for (index_t every : {c.output.every_steps, c.checkpoint.every_steps, c.log_every})
      if (every > 0) e = std::min(e, (s / every + 1) * every);
    if (have_output && c.output.every_time > 0) {
      const double k = static_cast<double>(time_index(s) + 1);
      const double guess = std::floor(k * c.output.every_time / dt) - 1.0;
      index_t cand = guess >= static_cast<double>(e) ? e : std::max<index_t>(s + 1, static_cast<index_t>(guess));
      while (cand < e && time_index(cand) <= time_index(s)) ++cand;
      e = std::min(e, cand);
    }
    return std::min(e, s + max_chunk);
  };

  index_t s = s0;
  FieldStats stats;
  // Steps on disk, for the NaN message (a continued output already has some;
  // rank 0 alone writes files and knows them, and its message is the one
  // printed).
  index_t last_output = out && !out->steps().empty() ? out->steps().back().step : -1, last_checkpoint = -1;
  // The field is checked (field_stats: one pass over it, ~1 % of a step)
  // before anything is written from it (outputs, checkpoints, the checkpoint
  // of a signal) and at every log line (log.every steps, or about every 2 s of
  // wall time), so a NaN never reaches a file, the last checkpoint stays the
  // last good state, and a run that went bad stops within a log interval.
  auto numerical_error = [&](const std::string& when) {
    std::string kept;
    if (last_checkpoint >= 0)
      kept += "; the checkpoint " + plan.checkpoint + " (step " + std::to_string(last_checkpoint) +
              ") is the last good state";
    else if (!plan.restart.empty())
      kept += "; the checkpoint " + plan.restart + " (step " + std::to_string(s0) + ") is the last good state";
    if (out && last_output >= 0)
      kept += "; " + plan.output + " holds the steps up to " + std::to_string(last_output);
    const std::string msg = "the field holds NaN or Inf " + when + "; nothing was written from it" + kept;
    // field_stats is reduced over the ranks: all of them see it.
    if (distributed) throw CollectiveError(kNumericalError, "numerical error: " + msg, false, __FILE__, __LINE__);
    ADI_THROW(NumericalError, msg);
  };
  auto check = [&] {
    stats = stepper->field_stats();
    if (!stats.finite)
      numerical_error("after step " + std::to_string(s) + " (t = " + std::to_string(time_of(s)) + " s)");
  };
  // What the writes take: the whole field on rank 0, or (collective) each
  // rank's own box.
  std::vector<T> mine;
  auto fetch_box = [&] {  // collective: this rank's box into `mine`
    mine.resize(static_cast<std::size_t>(part->count[0] * part->count[1] * part->count[2]));
    stepper->get_field(mine.data());
  };
  auto fetch = [&] {  // the stepper's field at step s, checked
    check();
    if (collective) return fetch_box();
    if (root && u.size() != static_cast<std::size_t>(p.points())) u.resize(static_cast<std::size_t>(p.points()));
    stepper->gather_field(root ? u.data() : nullptr);
  };
  // A collective write runs on every rank and they agree on its outcome;
  // a write of rank 0's gathered field runs on rank 0 alone.
  auto together = [&](const std::function<void()>& f) {
    if (collective)
      collectively(f);
    else
      f();
  };
  auto values = [&]() -> const T* { return collective ? mine.data() : u.data(); };
  auto write_output = [&] {
    if (!root && !collective) return;
    CriticalWrite cw;  // a second signal waits for this step and its flush
    together([&] { out->write_step(s, time_of(s), values()); });
    ++rep.outputs_written;
    last_output = s;
  };
  auto write_checkpoint = [&] {
    if (!root && !collective) return;
    io::CheckpointState st;
    st.step = s;
    st.time = time_of(s);
    st.steps_total = c.steps;
    st.precision = c.precision;
    st.geometry = io::geometry_of(c);
    st.config_yaml = c.resolved_yaml;
    together([&] { io::write_checkpoint(plan.checkpoint, st, values(), prov, part ? &*part : nullptr); });
    rep.checkpoint_written = plan.checkpoint;
    last_checkpoint = s;
    spdlog::debug("checkpoint at step {} written to {}", s, plan.checkpoint);
  };

  const bool tty = root && !o.quiet && isatty(STDERR_FILENO);
  bool progress_shown = false;
  auto clear_progress = [&] {
    if (progress_shown) std::fprintf(stderr, "\r%100s\r", "");
    progress_shown = false;
  };
  const auto t0 = Clock::now();
  // On a terminal the progress line shows up after the first chunk.
  auto last_log = tty ? t0 - std::chrono::seconds(1) : t0;
  auto last_ckpt = t0;
  int stop_signal = 0;  // agreed by all ranks after each chunk

  try {
    {
      // After a restart the output may hold step s already: rank 0 decides.
      double first = root && output_due(s) && !out->has_step(s) ? 1.0 : 0.0;
      if (distributed) mpi::allreduce_max(&first, 1);
      if (first > 0) {
        fetch();
        write_output();
      }
    }
    spdlog::info("stepping from step {} to {} (dt = {:.6g} s){}", s, c.steps, dt,
                 have_output ? ", output to " + plan.output : std::string());
    while (s < c.steps) {
      SignalGuard::abort_if_requested();
      if (distributed ? stop_signal != 0 : SignalGuard::stop_requested() != 0) break;
      const index_t target = next_stop(s);
      const auto c0 = Clock::now();
      stepper->advance(target - s);
      double agreed[4] = {seconds(Clock::now() - c0), seconds(Clock::now() - last_ckpt),
                          seconds(Clock::now() - last_log), static_cast<double>(SignalGuard::stop_requested())};
      // One small all-reduce per chunk (about 0.1 s of stepping): the ranks
      // agree on the chunk length, the wall-clock checkpoints and log lines,
      // and on stopping after a signal that reached any of them.
      if (distributed) mpi::allreduce_max(agreed, 4);
      const double took = agreed[0];
      stop_signal = static_cast<int>(agreed[3]);
      // Chunks of about 0.1 s: logging costs nothing per step, and a signal
      // is answered within a chunk.
      const double per_step = took / static_cast<double>(target - s);
      max_chunk = std::clamp<index_t>(static_cast<index_t>(0.1 / std::max(per_step, 1e-9)), 1, index_t(1) << 20);
      s = target;
      if (s == nan_at) {
        spdlog::warn("fault injection (ADI_FAULT_NAN_AT_STEP={}): a NaN put into the field after step {}", nan_at, s);
        if (root && u.size() != static_cast<std::size_t>(p.points())) u.resize(static_cast<std::size_t>(p.points()));
        stepper->gather_field(root ? u.data() : nullptr);
        if (root) u[u.size() / 2] = std::numeric_limits<T>::quiet_NaN();
        stepper->scatter_field(root ? u.data() : nullptr);
      }

      bool fetched = false;
      const auto now = Clock::now();
      if (output_due(s)) {
        fetch();
        fetched = true;
        write_output();
      }
      const bool ck = (c.checkpoint.every_steps > 0 && s % c.checkpoint.every_steps == 0) ||
                      (c.checkpoint.every_seconds > 0 && agreed[1] >= c.checkpoint.every_seconds);
      if (ck) {
        if (!fetched) fetch();
        fetched = true;
        write_checkpoint();
        last_ckpt = Clock::now();
      }
      const bool log_due = c.log_every > 0 ? (s % c.log_every == 0 || s == c.steps)
                                           : (agreed[2] >= (tty ? 0.25 : 2.0) || s == c.steps);
      if (log_due) {
        if (!fetched) check();
        const double el = seconds(now - t0);
        const double rate = static_cast<double>(s - s0) / std::max(el, 1e-9);
        const double eta = static_cast<double>(c.steps - s) / std::max(rate, 1e-9);
        if (tty && c.log_every == 0 && s != c.steps) {
          std::fprintf(stderr, "\r  step %lld/%lld  t = %.4g s  %.1f steps/s  ETA %s  max|u| = %.4g   ",
                       static_cast<long long>(s), static_cast<long long>(c.steps), time_of(s), rate,
                       human_seconds(eta).c_str(), stats.max_abs);
          std::fflush(stderr);
          progress_shown = true;
        } else if (!o.quiet) {
          clear_progress();
          spdlog::info("step {}/{}  t = {:.6g} s  {:.1f} steps/s  ETA {}  max|u| = {:.6g}", s, c.steps, time_of(s),
                       rate, human_seconds(eta), stats.max_abs);
        }
        last_log = now;
      }
    }
    clear_progress();
    rep.end_step = s;
    rep.wall = seconds(Clock::now() - t0);

    if (s < c.steps) {  // stopped by a signal: checkpoint, close the output, ask to be requeued
      rep.interrupted = true;
      rep.signal = distributed ? stop_signal : SignalGuard::stop_requested();
      spdlog::warn("{} received: stopping after step {} of {} (t = {:.6g} s)", signal_name(rep.signal), s, c.steps,
                   time_of(s));
      fetch();
      write_checkpoint();
      if (out) {
        CriticalWrite cw;
        together([&] { out->finish("interrupted"); });
      }
      spdlog::warn("checkpoint written to {}; continue with: adi3d run ... --restart {}", plan.checkpoint,
                   plan.checkpoint);
      return rep;
    }
    if (out) {
      CriticalWrite cw;
      together([&] { out->finish("complete"); });
    }
  } catch (const std::exception& e) {
    clear_progress();
    // A collective file can be closed only by all ranks together: after an
    // error they all raised (CollectiveError); otherwise the job is aborted
    // and the file stays at its last complete step.
    const bool all_ranks_here = !collective || dynamic_cast<const CollectiveError*>(&e) != nullptr;
    if (out && all_ranks_here && (reopened || !out->steps().empty())) {
      try {
        out->finish(std::string("failed: ") + e.what());
      } catch (...) {
        // the original error is what the user needs to see
      }
    }
    throw;
  }

  check();
  rep.stats = stats;
  if (c.initial.kind != io::InitialConfig::Kind::Analytic) return rep;
  const AnalyticMode m = analytic_mode(p);
  const double scales[2] = {std::exp(-m.decay_rate * c.t_end), std::pow(m.amplification, static_cast<double>(c.steps))};
  ErrorNorms* norms[2] = {&rep.exact, &rep.discrete};
  if (collective) {  // each rank its box, then one reduction: no gather (stats were just checked)
    fetch_box();
    for (int q = 0; q < 2; ++q) {
      const ErrorSums e = compare_box_with_mode(p, part->offset, part->count, mine.data(), scales[q]);
      double mx[3] = {e.max_abs, e.ref_max, e.finite ? 0.0 : 1.0}, sum = e.sum_sq;
      mpi::allreduce_max(mx, 3);
      mpi::allreduce_sum(&sum, 1);
      *norms[q] = ErrorSums{mx[0], mx[1], sum, mx[2] == 0.0}.norms(p.points());
    }
    rep.have_error = root;
    return rep;
  }
  if (root && u.size() != static_cast<std::size_t>(p.points())) u.resize(static_cast<std::size_t>(p.points()));
  stepper->gather_field(root ? u.data() : nullptr);
  if (root) {
    rep.have_error = true;
    for (int q = 0; q < 2; ++q) *norms[q] = compare_with_mode(p, u, scales[q]);
  }
  return rep;
}

RunReport execute_run(const RunPlan& plan, const RunOptions& o) {
  return dispatch_precision(plan.config.precision, [&](auto tag) { return drive<decltype(tag)>(plan, o); });
}

}  // namespace adi::app
