// adi3d run: planning and the time loop (see run_driver.hpp).
//
// Time is always t = step * dt, never a running sum, so a run restarted from
// a checkpoint (which stores the step) sees exactly the same times, output
// steps and checkpoint steps as an uninterrupted one.

#include "run_driver.hpp"


#include "errors.hpp"
#include "exit_codes.hpp"
#include "heat_flux_output.hpp"
#include "heat_flow_log.hpp"
#include "log.hpp"
#include "output_schedule.hpp"
#include "probes.hpp"
#include "progress.hpp"
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
                         &p.end_time, &p.config_yaml, &p.fields, &p.time_segments})
    mpi::broadcast(*f);
}

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
    throw io::IoError(what + ": cannot create " + path + " (" + std::strerror(err) + ")", __FILE__, __LINE__);
  }
  ::close(fd);
  ::unlink(path.c_str());
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
/// A signal stops the read (the child is killed) and the run (exit 75).
bool signalled() { return SignalGuard::stop_requested() != 0; }
io::ProbeLimits header_limits(const AppOptions& a) {
  return {a.isolate_reads, a.read_timeout_s, kProbeHeaderBytes, signalled};
}
io::ProbeLimits data_limits(const AppOptions& a, const std::string& path, double field_bytes) {
  std::error_code ec;
  const auto bytes = fs::file_size(path, ec);
  return {a.isolate_reads, a.read_timeout_s + (ec ? 0.0 : static_cast<double>(bytes) / 20e6),
          kProbeHeaderBytes + 2.0 * field_bytes, signalled};
}
/// A signal during a read in a child is a stop (exit 75), not an I/O error.
[[noreturn]] void stopped_while_reading(const std::string& file, const std::string& what) {
  throw StoppedBySignal(std::string(signal_name(SignalGuard::stop_requested())) + " received while reading " + file +
                            " (" + what + "): stopped before the first step; nothing was written (run the same "
                            "command again)",
                        __FILE__, __LINE__);
}
void probe_read(const std::string& file, const std::string& what, const std::function<void()>& read,
                const io::ProbeLimits& limits) {
  try {
    io::probe_in_child(file, what, read, limits);
  } catch (const io::ProbeInterrupted&) {
    stopped_while_reading(file, what);
  }
}
std::string probe_result(const std::string& file, const std::string& what, const std::function<std::string()>& read,
                         const io::ProbeLimits& limits) {
  try {
    return io::probe_result_in_child(file, what, read, limits);
  } catch (const io::ProbeInterrupted&) {
    stopped_while_reading(file, what);
  }
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
      if (!c.given.grid) c.problem.n = stored.problem.n;
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
  for (const io::FieldRef* f : {&c.material.conductivity[0], &c.material.conductivity[1],
                                &c.material.conductivity[2], &c.material.capacity, &c.material.source}) {
    if (!f->given() || (f != &c.material.conductivity[0] && f->file == c.material.conductivity[0].file &&
                        f->dataset == c.material.conductivity[0].dataset))
      continue;  // an isotropic field: once
    // Named as attach_fields names them ("the conductivity field").
    const std::string kind = f->key.rfind("material.conductivity", 0) == 0 ? "conductivity"
                             : f->key == "material.heat_capacity"           ? "heat capacity"
                                                                            : "heat source";
    const std::string file = io::resolve_input(c, f->file), what = "the " + kind + " field";
    io::require_regular_input(file, what);
    probe_read(file, what, [&] { (void)io::inspect_field(file, f->dataset, what); }, header_limits(o.env.app));
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
                         [&] { (void)io::read_checkpoint_field<T>(plan.restart, plan.restart_state); },
                         data_limits(a, plan.restart, field));
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

namespace {

std::string list_steps(const std::vector<index_t>& v) {
  std::string s;
  const std::size_t shown = std::min<std::size_t>(v.size(), 12);
  for (std::size_t q = 0; q < shown; ++q) s += (q ? ", " : "") + std::to_string(v[q]);
  if (shown < v.size()) s += ", ... (" + std::to_string(v.size()) + " in all)";
  return s;
}

/// A restart continues the output from the checkpoint's step: the steps the
/// file holds after it are deleted and written again. Those the restarted
/// run will not write again (past its last step, or no longer on its output
/// schedule) would be lost for good: refused unless asked for.
void check_restart_keeps_outputs(const RunPlan& plan, bool discard_allowed) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(plan.output, ec))) return;
  std::vector<index_t> held;
  try {
    held = io::output_file_steps(plan.output);
  } catch (const io::IoError&) {
    return;  // reopen() says what is wrong with it, before changing it
  }
  const OutputSchedule schedule(plan.config, true);
  const index_t from = plan.restart_state.step;
  std::vector<index_t> lost;
  for (const index_t s : held)
    if (s > from && (s > schedule.steps() || !schedule.output_due(s))) lost.push_back(s);
  if (lost.empty()) return;
  if (discard_allowed) {
    spdlog::warn("{}: discarding the steps {} written after the checkpoint's step {} (--discard-after-checkpoint)",
                 plan.output, list_steps(lost), from);
    return;
  }
  throw io::ConfigError(
      plan.restart, "--restart",
      "continuing from step " + std::to_string(from) + " would delete the steps " + list_steps(lost) + " of " +
          plan.output + ", which this run (" + std::to_string(schedule.steps()) +
          " steps) would not write again; pass --discard-after-checkpoint to delete them, or choose another "
          "output.file",
      __FILE__, __LINE__);
}

}  // namespace

namespace {

/// What a path names, resolved before anything is written: the folder's
/// real path plus the name (symlinks, "..", relative folders), and the
/// device and inode of what is there (hard links, a symlink's target).
struct PathId {
  std::string role;  ///< "output.file", "the initial field", ...
  std::string path;  ///< as given
  bool written = false;
  std::string name;  ///< realpath(folder) + "/" + name
  bool exists = false, is_link = false;
  dev_t dev = 0;
  ino_t ino = 0;
  mode_t mode = 0;  ///< of the name itself (lstat)
};

PathId identify(const std::string& role, const std::string& path, bool written) {
  PathId id;
  id.role = role;
  id.path = path;
  id.written = written;
  const fs::path p(path);
  std::error_code ec;
  fs::path folder = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  fs::path real = fs::canonical(folder, ec);
  id.name = (ec ? fs::weakly_canonical(fs::absolute(folder, ec), ec) : real).string() + "/" + p.filename().string();
  struct stat ls, st;
  if (::lstat(path.c_str(), &ls) == 0) {
    id.exists = true;
    id.mode = ls.st_mode;
    id.is_link = S_ISLNK(ls.st_mode);
    if (::stat(path.c_str(), &st) == 0) {
      id.dev = st.st_dev;
      id.ino = st.st_ino;
    } else {
      id.dev = ls.st_dev;
      id.ino = ls.st_ino;
    }
  }
  return id;
}

bool aliases(const PathId& a, const PathId& b) {
  return a.name == b.name || (a.exists && b.exists && a.dev == b.dev && a.ino == b.ino);
}

const char* kind_of(mode_t m, bool link) {
  if (link) return "a symbolic link";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
  if (S_ISFIFO(m)) return "a pipe";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

/// Refuses every pair of the run's paths that name the same file (only the
/// checkpoint may be the checkpoint given to --restart), and a file to be
/// written that exists and is not a regular file: nothing is replaced but
/// what adi3d itself wrote there (checked by the callers).
void check_no_aliases(const std::vector<PathId>& ids) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const PathId& a = ids[i];
    if (a.written && a.exists && (a.is_link || !S_ISREG(a.mode)))
      throw io::IoError(a.role + " '" + a.path + "' exists and is " + kind_of(a.mode, a.is_link) +
                            "; adi3d replaces only regular files it wrote itself: choose another name",
                        __FILE__, __LINE__);
    for (std::size_t j = 0; j < i; ++j) {
      const PathId& b = ids[j];
      if (!a.written && !b.written) continue;
      if (a.role == "checkpoint.file" && b.role == "the checkpoint given to --restart") continue;
      if (aliases(a, b))
        throw io::ConfigError(a.path, a.role,
                              "names the same file as " + b.role + " '" + b.path + "' (" + a.name +
                                  "); the run would overwrite it: choose another name",
                              __FILE__, __LINE__);
    }
  }
}

/// An existing file adi3d would replace must be what adi3d wrote there:
/// read in a child (it may be anything) and checked.
void require_adi3d_file(const std::string& path, const std::string& role, const std::function<void()>& check,
                        const AppOptions& a) {
  probe_read(path, role, check, header_limits(a));
  check();
}

bool looks_like_adi3d_xdmf(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char buf[512] = {};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  const std::string head(buf, n);
  return head.rfind("<?xml", 0) == 0 && head.find("<Xdmf") != std::string::npos;
}

}  // namespace

/// The locks of this process' run (lock.hpp), held until it exits.
std::vector<io::FileLock>& run_locks() {
  static std::vector<io::FileLock> locks;
  return locks;
}

/// The files whose locks this run holds (their dead processes' temporaries
/// may be removed): the output, the checkpoint.
std::vector<std::string>& locked_targets() {
  static std::vector<std::string> t;
  return t;
}

void check_paths(RunPlan& plan, const RunOptions& o) {
  const bool overwrite = o.overwrite, discard_after_checkpoint = o.discard_after_checkpoint;
  const io::RunConfig& c = plan.config;
  // First, one run per file: a second run on the same output or checkpoint
  // fails here, having touched nothing (the checks below may repair a
  // killed run's file, and the run then writes it).
  if (!plan.output.empty()) {
    run_locks().emplace_back(plan.output, "output file '" + plan.output + "'");
    locked_targets().push_back(plan.output);
  }
  const bool checkpoints_wanted =
      !c.checkpoint.file.empty() || c.checkpoint.every_steps > 0 || c.checkpoint.every_seconds > 0;
  if (plan.output.empty() || !same_file(plan.output, plan.checkpoint)) {
    try {
      run_locks().emplace_back(plan.checkpoint, "checkpoint '" + plan.checkpoint + "'");
      locked_targets().push_back(plan.checkpoint);
    } catch (const io::IoError& e) {
      // Not configured: written only on a signal, to a default name that
      // runs of one config share (heat.yaml -> heat.ckpt.h5). Those runs
      // are not refused; the one that is signalled replaces it atomically.
      if (checkpoints_wanted || !plan.restart.empty()) throw;
      spdlog::warn("{}; a checkpoint written on a signal may replace the other run's", e.what());
    }
  }
  // Every path the run reads or writes, resolved, before anything is written.
  {
    std::vector<PathId> ids;
    if (!o.config.empty()) ids.push_back(identify("the config", o.config, false));
    if (plan.initial) ids.push_back(identify("the initial field", plan.initial->file, false));
    // The material and source fields are inputs too: an output or checkpoint
    // named like one would replace it.
    for (const io::FieldRef* f : {&c.material.conductivity[0], &c.material.conductivity[1],
                                  &c.material.conductivity[2], &c.material.capacity, &c.material.source})
      if (f->given()) ids.push_back(identify("the " + f->key + " field", io::resolve_input(c, f->file), false));
    if (!plan.restart.empty()) ids.push_back(identify("the checkpoint given to --restart", plan.restart, false));
    if (!plan.output.empty()) {
      ids.push_back(identify("output.file", plan.output, true));
      if (c.output.xdmf) ids.push_back(identify("the output's .xmf", io::xdmf_path_for(plan.output), true));
      ids.push_back(identify("the output's journal", plan.output + ".journal", true));
    }
    ids.push_back(identify("checkpoint.file", plan.checkpoint, true));
    if (!plan.heat_flow_csv.empty()) ids.push_back(identify("diagnostics.csv", plan.heat_flow_csv, true));
    check_no_aliases(ids);
    for (const PathId& id : ids) {
      if (!id.written || !id.exists) continue;
      if (id.role == "output.file" && !plan.restart.empty()) {
        // A restart continues an adi3d output of its problem, grid and
        // precision: identify_problem compares what is read here, after the
        // checkpoint's problem (whose difference is the cause to name first).
        auto read = [p = id.path] {
          (void)io::output_file_steps(p);
          return io::output_file_problem(p);
        };
        (void)probe_result(id.path, "output file", read, header_limits(o.env.app));
        plan.output_problem = read();
      } else if (id.role == "output.file" && overwrite) {
        // --overwrite replaces an adi3d output only.
        require_adi3d_file(id.path, "output file", [p = id.path] { (void)io::output_file_steps(p); }, o.env.app);
      } else if (id.role == "the output's .xmf" && (overwrite || !plan.restart.empty())) {
        if (!looks_like_adi3d_xdmf(id.path))
          throw io::IoError("the output's .xmf '" + id.path +
                                "' exists and is not an XDMF file adi3d wrote; move it away or choose another "
                                "output.file",
                            __FILE__, __LINE__);
      } else if (id.role == "checkpoint.file" && !same_file(id.path, plan.restart)) {
        // Replaced by the run's first checkpoint: only a checkpoint of the
        // same case (grid and precision: what a restart would need) may be.
        require_adi3d_file(
            id.path, "checkpoint",
            [&c, p = id.path] {
              const io::CheckpointState st = io::read_checkpoint_state(p);
              if (st.geometry.n != c.problem.n || st.precision != c.precision)
                throw io::IoError(p + ": checkpoint.file exists and is a checkpoint of another run (another grid "
                                      "or precision); move it away or choose another checkpoint.file",
                                  __FILE__, __LINE__);
            },
            o.env.app);
      }
    }
  }
  if (!plan.output.empty()) {
    if (same_file(plan.output, plan.checkpoint))
      throw io::ConfigError(c.source, "checkpoint.file",
                            "the checkpoint '" + plan.checkpoint + "' would be the output file; choose another name",
                            __FILE__, __LINE__);
    if (!plan.restart.empty() && same_file(plan.output, plan.restart))
      throw io::ConfigError(c.source, "output.file", "is the checkpoint given to --restart", __FILE__, __LINE__);
    const std::string xmf = io::xdmf_path_for(plan.output);
    // A journal without its file (the file was moved or deleted after its
    // run was killed): the run would stop on it when it creates the file.
    const std::string journal = plan.output + ".journal";
    if (fs::exists(fs::symlink_status(journal)) && !fs::exists(fs::symlink_status(plan.output)))
      throw io::IoError("output file '" + plan.output + "': its journal " + journal +
                            " exists but the file does not (left by a killed run whose file was moved or deleted); "
                            "it is not ours to remove: move it away; nothing was changed",
                        __FILE__, __LINE__);
    if (plan.restart.empty() && !overwrite) {
      for (const std::string& f : {plan.output, c.output.xdmf ? xmf : plan.output})
        if (fs::exists(fs::symlink_status(f)))
          throw io::IoError("output file '" + f +
                                "' exists; pass --overwrite to replace it, or --restart CHECKPOINT to continue "
                                "the run that wrote it",
                            __FILE__, __LINE__);
    }
    if (!plan.restart.empty()) check_restart_keeps_outputs(plan, discard_after_checkpoint);
    probe_create(io::unique_temp_path(plan.output), "output file '" + plan.output + "'");
  }
  check_probe_paths(plan, o);  // probes.hpp
  check_restart_keeps_probes(plan, discard_after_checkpoint);
  if (!plan.heat_flow_csv.empty()) {
    // Refuses an existing file the run may not replace or continue (IoError).
    (void)HeatFlowCsv(plan.heat_flow_csv, c.problem, overwrite, !plan.restart.empty(), plan.restart_state.step);
    probe_create(io::unique_temp_path(plan.heat_flow_csv), "diagnostics.csv '" + plan.heat_flow_csv + "'");
  }
  const bool checkpoints_configured =
      !c.checkpoint.file.empty() || c.checkpoint.every_steps > 0 || c.checkpoint.every_seconds > 0;
  if (checkpoints_configured) {
    probe_create(io::unique_temp_path(plan.checkpoint), "checkpoint '" + plan.checkpoint + "'");
  } else {
    try {
      probe_create(io::unique_temp_path(plan.checkpoint), "checkpoint '" + plan.checkpoint + "'");
    } catch (const io::IoError& e) {
      spdlog::warn("{}; a signal will stop the run without a checkpoint", e.what());
    }
  }
}

void remove_dead_temporaries(const RunPlan& plan) {
  std::vector<std::string> targets;
  for (const std::string& t : locked_targets()) {
    targets.push_back(t);
    if (t == plan.output) {  // the output's lock covers its .xmf and journal
      targets.push_back(io::xdmf_path_for(t));
      targets.push_back(t + ".journal");
    }
  }
  std::vector<std::string> removed;
  for (const std::string& t : targets)
    for (std::string& f : io::remove_dead_temporaries(t)) removed.push_back(std::move(f));
  if (removed.empty()) return;
  std::string list;
  for (std::size_t q = 0; q < removed.size() && q < 8; ++q) list += (q ? ", " : "") + removed[q];
  if (removed.size() > 8) list += ", ... (" + std::to_string(removed.size()) + " in all)";
  spdlog::info("removed {} {} that killed adi3d runs left (their processes are gone, this run holds the files' "
               "locks): {}",
               removed.size(), removed.size() == 1 ? "temporary" : "temporaries", list);
}

// ---------------------------------------------------------------------------
// execute_run, in named parts: the run mode, the initial state, the stepper,
// the field as the writers see it, the writers, the step loop and the final
// errors. The schedule (which steps write what) is output_schedule.hpp, the
// progress lines progress.hpp.
//
// A distributed run: every rank steps its sub-box. Rank 0 reads the initial
// data and scatters it. Outputs and checkpoints: with parallel HDF5 every
// rank writes its box into the one file (collective calls); without it rank
// 0 gathers the field and writes it alone. Every decision that leads to a
// collective call (advance, fetch, the writes) is taken from values all
// ranks agree on.
// ---------------------------------------------------------------------------

namespace {

/// How this rank takes part in the run (the flags are the same on every rank
/// but `root`).
struct RunMode {
  bool distributed = false;     ///< several ranks, one sub-box each
  bool root = true;             ///< rank 0: reads the inputs, writes gathered fields, prints
  bool collective = false;      ///< every rank writes its own box (parallel HDF5)
  /// A collective run from the analytic mode: every rank fills its own box,
  /// so rank 0 never holds the whole field (and the final errors are
  /// reduced over the ranks).
  bool analytic_boxes = false;
  /// This rank calls the writers (rank 0 alone when the field is gathered).
  bool writes() const { return root || collective; }
};

RunMode run_mode(const RunPlan& plan, const AppOptions& a) {
  RunMode m;
  m.distributed = plan.ranks > 1;
  m.root = mpi::world_rank() == 0;
  m.collective = m.distributed && collective_io(a);
  m.analytic_boxes =
      m.collective && plan.restart.empty() && plan.config.initial.kind == io::InitialConfig::Kind::Analytic;
  return m;
}

// ---- collective I/O that does not finish ---------------------------------------

/// A distributed run's collective writes (and the agreements around them)
/// block until every rank takes part. A rank that failed outside them, or
/// hangs in HDF5 on a full disk, used to leave the others waiting for ever.
/// While a collective write is under way a watchdog thread waits for it:
///   * this rank met an HDF5 error in it (io::io_error_note): after
///     kFailureGrace seconds more it names that error (a full disk: "No space
///     left on device") and ends this rank with exit 3. A failure inside a
///     collective HDF5 call on one rank can leave that rank in the clean-up
///     and another inside the library, each waiting for the other;
///   * otherwise, past ADI_COLLECTIVE_TIMEOUT: it says so and ends this rank
///     with exit 3 (a rank that truly hangs).
/// mpirun then ends the job. Files stay as a kill leaves them: the output at
/// its last complete step (journal, `adi3d recover`), the checkpoint the
/// previous one.
constexpr double kFailureGrace = 5.0;

class CollectiveWatch {
 public:
  CollectiveWatch(bool on, double timeout_s, std::string what, std::string file = "") {
    if (!on) return;
    io::clear_io_error_note();
    state_ = std::make_shared<State>();
    state_->what = std::move(what);
    auto st = state_;
    const auto deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
    thread_ = std::thread([st, deadline, timeout_s, file] {
      std::unique_lock<std::mutex> lock(st->m);
      Clock::time_point failed_at{};
      std::string note;
      for (;;) {
        const auto now = Clock::now();
        if (note.empty()) {
          note = io::io_error_note();
          if (!note.empty()) failed_at = now;
        }
        const auto limit = note.empty() ? deadline
                                        : std::min(deadline, failed_at + std::chrono::duration_cast<Clock::duration>(
                                                                             std::chrono::duration<double>(kFailureGrace)));
        if (now >= limit) break;
        const auto wake = std::min(limit, now + std::chrono::milliseconds(250));
        if (st->cv.wait_until(lock, wake, [&] { return st->done; })) return;
      }
      if (!note.empty()) {
        const double need = 1 << 20;
        std::fprintf(stderr,
                     "adi3d: [rank %d] error: %s%s; %s failed on this rank and the ranks could not finish it together "
                     "(they wait in different calls of the HDF5 library): stopping the job (exit 3); the output stays "
                     "at its last complete step (adi3d recover, or the restart, undoes the rest), the previous "
                     "checkpoint is unchanged\n",
                     mpi::world_rank(), printable(note, 600).c_str(),
                     file.empty() ? "" : printable(io::disk_space_note(file, need, note), 200).c_str(),
                     st->what.c_str());
      } else {
        std::fprintf(stderr,
                     "adi3d: [rank %d] error: %s did not complete on every rank within %.0f s "
                     "(ADI_COLLECTIVE_TIMEOUT): another rank failed or hangs in it; stopping the job (exit 3); the "
                     "output stays at its last complete step, the previous checkpoint is unchanged\n",
                     mpi::world_rank(), st->what.c_str(), timeout_s);
      }
      std::fflush(stderr);
      ::_exit(kIoError);
    });
  }
  ~CollectiveWatch() {
    if (!state_) return;
    {
      std::lock_guard<std::mutex> lock(state_->m);
      state_->done = true;
    }
    state_->cv.notify_all();
    thread_.join();
  }
  CollectiveWatch(const CollectiveWatch&) = delete;
  CollectiveWatch& operator=(const CollectiveWatch&) = delete;

 private:
  struct State {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::string what;
  };
  std::shared_ptr<State> state_;
  std::thread thread_;
};

// ---- the initial state ------------------------------------------------------

template <class T>
struct InitialState {
  std::vector<T> field;  ///< the whole field on rank 0 (empty elsewhere, and with analytic boxes)
  index_t step = 0;      ///< 0, or the checkpoint's step
};

/// The checkpoint, the initial HDF5 field or the analytic mode, read on rank
/// 0 (collective: every rank learns whether it worked). Everything is read
/// and checked before any output exists.
template <class T>
InitialState<T> load_initial_state(const RunPlan& plan, const RunMode& m) {
  const io::RunConfig& c = plan.config;
  const HeatProblem& p = c.problem;
  InitialState<T> st;
  st.step = plan.restart.empty() ? 0 : plan.restart_state.step;
  collectively([&] {
    if (!m.root) return;
    if (!plan.restart.empty()) {
      st.field = io::read_checkpoint_field<T>(plan.restart, plan.restart_state);
      spdlog::info("restarting from {} at step {} of {} (t = {:.6g} s)", plan.restart, st.step, c.steps,
                   plan.restart_state.time);
      if (c.axis.s0 == st.step && st.step > 0 && c.axis.dt_before > 0)
        spdlog::info("time step changed on restart: dt = {:.6g} s from step {} (was {:.6g} s): a new segment of the "
                     "time axis, t = {:.6g} s + (step - {}) x dt (recorded in the provenance: time_segments)",
                     p.dt, st.step, c.axis.dt_before, c.axis.t0, c.axis.s0);
    } else if (plan.initial) {
      io::FieldData<T> fd = io::initial_values<T>(c, plan.initial);
      if (fd.rounded > 0)
        spdlog::warn("{}:{}: {} of {} values lost precision converting {} to {} (largest relative change {:.2e})",
                     plan.initial->file, plan.initial->dataset, fd.rounded, fd.values.size(),
                     precision_name(plan.initial->dtype), precision_name(c.precision), fd.max_rel_rounding);
      st.field = std::move(fd.values);
      spdlog::info("initial field from {}:{} ({}{})", plan.initial->file, plan.initial->dataset,
                   precision_name(plan.initial->dtype),
                   c.initial.boundary_from_file ? ", Dirichlet faces keep its boundary values"
                                                : ", Dirichlet faces set to 0");
    } else if (c.initial.kind == io::InitialConfig::Kind::Uniform) {
      st.field = io::initial_values<T>(c, plan.initial).values;
      spdlog::info("initial field: {} everywhere", c.initial.value);
    } else if (!m.analytic_boxes) {
      st.field = io::initial_values<T>(c, plan.initial).values;
    }
  });
  return st;
}

// ---- the stepper --------------------------------------------------------------

/// This rank's box of the grid: the whole grid for one process.
template <class T>
io::FieldPart rank_box(const Stepper<T>& st, bool distributed, const std::array<index_t, 3>& n) {
  if (!distributed) return io::FieldPart{{{0, 0, 0}}, n};
  const auto& box = dynamic_cast<const mpi::DistributedStepper<T>&>(st).part().box;
  return io::FieldPart{box.begin, box.size};
}
template <class T>
index_t rank_points(const Stepper<T>& st, bool distributed, const std::array<index_t, 3>& n) {
  const io::FieldPart b = rank_box(st, distributed, n);
  return b.count[0] * b.count[1] * b.count[2];
}

template <class T>
struct RunStepper {
  std::unique_ptr<Stepper<T>> stepper;
  std::optional<io::FieldPart> part;  ///< this rank's box, for collective writes
};

/// The serial or distributed stepper of the plan (collective), with the
/// environment's solver options; logs what it runs on and how files are written.
template <class T>
RunStepper<T> build_stepper(const RunPlan& plan, const RunMode& m, const SolverOptions& options) {
  const io::RunConfig& c = plan.config;
  StepperSpec spec;
  spec.backend = c.backend;
  spec.distributed = m.distributed;
  spec.grid = c.parallel.grid;
  spec.options = options;
  RunStepper<T> rs;
  collectively([&] {
    rs.stepper = make_stepper<T>(io::stepper_problem(c, plan.initial), spec);
    if (m.collective) rs.part = rank_box(*rs.stepper, true, c.problem.n);
  });
  const Stepper<T>& st = *rs.stepper;
  spdlog::info("backend {} ({}), {}, {} of {} memory allocated by the stepper{}", backend_name(st.backend()), st.device_name(),
               precision_name(c.precision), human_bytes(static_cast<double>(st.bytes_allocated())),
               st.backend() == Backend::Cpu ? "host" : "device", m.distributed ? " per rank" : "");
  if (m.collective) {
    spdlog::info("outputs and checkpoints: parallel HDF5, each of the {} ranks writes its part (collective)",
                 plan.ranks);
  } else if (m.distributed &&
             (!plan.output.empty() || c.checkpoint.every_steps > 0 || c.checkpoint.every_seconds > 0)) {
    const double bytes = static_cast<double>(c.problem.points()) * sizeof(T);
    if (bytes > kGatherWarnBytes)
      spdlog::warn("outputs and checkpoints gather the whole field ({}) to rank 0, which writes them with serial "
                   "HDF5 (this build has no parallel HDF5): expect a pause per write",
                   human_bytes(bytes));
    else
      spdlog::debug("outputs and checkpoints are gathered to rank 0 ({} per write)", human_bytes(bytes));
  }
  return rs;
}

/// Puts the initial state into the stepper (collective): each rank's box of
/// the analytic mode, or rank 0's field scattered.
template <class T>
void place_initial_state(RunStepper<T>& rs, InitialState<T>& init, const RunMode& m, const HeatProblem& p) {
  if (m.analytic_boxes) {
    std::vector<T> box;
    fill_analytic_box(p, rs.part->offset, rs.part->count, box);
    rs.stepper->set_field(box.data());
  } else {
    rs.stepper->scatter_field(m.root ? init.field.data() : nullptr);
  }
  if (m.collective) std::vector<T>().swap(init.field);  // rank 0 no longer needs the whole field
}

// ---- the field as the writers see it ------------------------------------------

/// The stepper's field brought to the host for a write: the whole field on
/// rank 0 (gathered), or with collective writes this rank's own box.
template <class T>
class FieldBuffer {
 public:
  FieldBuffer(Stepper<T>& st, const RunMode& m, const HeatProblem& p, const std::optional<io::FieldPart>& part,
              std::vector<T> whole)
      : st_(st), m_(m), points_(static_cast<std::size_t>(p.points())), part_(part), whole_(std::move(whole)) {}

  /// Collective: the field at the current step into values().
  void fetch() {
    if (m_.collective) return fetch_box();
    gather();
  }
  /// Collective: this rank's box (collective writes, the distributed errors).
  void fetch_box() {
    box_.resize(static_cast<std::size_t>(part_->count[0] * part_->count[1] * part_->count[2]));
    st_.get_field(box_.data());
  }
  /// Collective: the whole field on rank 0.
  std::vector<T>& gather() {
    if (m_.root && whole_.size() != points_) whole_.resize(points_);
    st_.gather_field(m_.root ? whole_.data() : nullptr);
    return whole_;
  }
  /// Collective: rank 0's whole field (as gather() left it) back into the stepper.
  void scatter() { st_.scatter_field(m_.root ? whole_.data() : nullptr); }

  const T* values() const { return m_.collective ? box_.data() : whole_.data(); }
  const std::vector<T>& box() const { return box_; }

 private:
  Stepper<T>& st_;
  const RunMode& m_;
  std::size_t points_;
  const std::optional<io::FieldPart>& part_;
  std::vector<T> whole_, box_;
};

// ---- the writers ----------------------------------------------------------------

/// The output file and the checkpoints, and what they hold (for the messages
/// of a failed run). Called on every rank; only the ranks that write (rank 0,
/// or all with collective I/O) touch files. A collective write runs on every
/// rank and they agree on its outcome (collectively).
template <class T>
class RunWriters {
 public:
  RunWriters(const RunPlan& plan, const RunMode& m, io::Provenance prov, const std::optional<io::FieldPart>& part,
             const AppOptions& a)
      : plan_(plan), m_(m), prov_(std::move(prov)), part_(part), a_(a) {}

  /// Creates the output, or after a restart continues it (collective).
  void open(index_t start_step) {
    const io::RunConfig& c = plan_.config;
    const CollectiveWatch watch(m_.collective && !plan_.output.empty(), a_.collective_timeout_s,
                                "opening " + plan_.output + " (collective)", plan_.output);
    collectively([&] {
      if (plan_.output.empty() || !m_.writes()) return;
      io::GridFile::Options oo;
      oo.path = plan_.output;
      oo.xdmf = c.output.xdmf;
      oo.geometry = io::geometry_of(c);
      oo.precision = c.precision;
      oo.compression = c.output.compression;
      oo.provenance = prov_;
      oo.part = part_;
      oo.fields = io::named_fields(c);
      oo.probes = io::probe_series(c);
      oo.problem = plan_.problem;
      oo.problem_hash = plan_.problem_hash;
      // Rank 0 looks (a collective reopen or create must be the same on all).
      double exists = m_.root && !plan_.restart.empty() && fs::exists(plan_.output) ? 1.0 : 0.0;
      if (m_.collective) mpi::allreduce_max(&exists, 1);
      if (exists > 0) {
        out_.emplace(io::GridFile::reopen(oo, start_step));
        reopened_ = true;
        if (out_->rolled_back())
          spdlog::warn("{}: the previous run was killed inside a write; the file was restored to its last complete "
                       "step",
                       plan_.output);
        spdlog::info("continuing {} ({} steps kept)", plan_.output, out_->steps().size());
      } else {
        out_.emplace(io::GridFile::create(oo));
      }
    });
    // Steps on disk, for the NaN message (a continued output already has some).
    if (out_ && !out_->steps().empty()) last_output_ = out_->steps().back().step;
  }

  /// The steady solve's record (collective).
  void write_steady(const io::GridFile::SteadyRecord& r) {
    if (!m_.writes() || !out_) return;
    CriticalWrite cw;
    together([&] { out_->write_steady(r); }, "the steady solve's record in " + plan_.output, plan_.output);
  }

  /// Rank 0: the output file exists and holds step s already (a restart).
  bool output_holds(index_t s) const { return out_ && out_->has_step(s); }

  /// Probe rows (probes.hpp) into the output, if there is one.
  void write_probes(const io::ProbeRows& rows) {
    if (!m_.writes() || !out_) return;
    CriticalWrite cw;
    together([&] { out_->append_probes(rows); }, "the collective write of probe rows to " + plan_.output,
             plan_.output);
  }

  void write_output(index_t s, double t, const T* values, const T* heat_flux = nullptr) {
    if (!m_.writes() || !out_) return;  // (no output file: heat flows alone schedule output steps)
    CriticalWrite cw;  // a second signal waits for this step and its flush
    together([&] { out_->write_step(s, t, values, heat_flux); },
             "the collective write of step " + std::to_string(s) + " to " + plan_.output, plan_.output);
    ++outputs_written_;
    last_output_ = s;
  }

  /// A row of the output's heat-flow table (collective like a step).
  void write_heat_flows(const HeatProblem& p, const std::vector<double>& row) {
    if (!m_.writes() || !out_) return;
    CriticalWrite cw;
    together([&] { out_->append_row(kHeatFlowDataset, heat_flow_table_columns(), heat_flow_table_attributes(p), row); },
             "the collective write of the heat flows of step " + std::to_string(static_cast<long long>(row[0])) +
                 " to " + plan_.output,
             plan_.output);
  }

  void write_checkpoint(index_t s, double t, const T* values) {
    if (!m_.writes()) return;
    const io::RunConfig& c = plan_.config;
    io::CheckpointState st;
    st.step = s;
    st.time = t;
    st.dt = c.problem.dt;
    st.axis = c.axis;
    st.problem = plan_.problem;
    st.problem_hash = plan_.problem_hash;
    st.steps_total = c.steps;
    st.precision = c.precision;
    st.geometry = io::geometry_of(c);
    st.config_yaml = c.resolved_yaml;
    together([&] { io::write_checkpoint(plan_.checkpoint, st, values, prov_, part_ ? &*part_ : nullptr); },
             "the collective checkpoint of step " + std::to_string(s) + " to " + plan_.checkpoint, plan_.checkpoint);
    checkpoint_written_ = plan_.checkpoint;
    last_checkpoint_ = s;
    spdlog::debug("checkpoint at step {} written to {}", s, plan_.checkpoint);
  }

  /// Closes the output with its final status ("complete", "interrupted").
  void finish(const std::string& status) {
    if (!out_) return;
    CriticalWrite cw;
    together([&] { out_->finish(status); }, "closing " + plan_.output, plan_.output);
  }

  /// After an error: marks the output "failed: <why>" where that is safe.
  /// A collective file can be closed only by all ranks together: after an
  /// error they all raised (CollectiveError); otherwise the job is aborted
  /// and the file stays at its last complete step.
  void fail(const std::exception& e) noexcept {
    const bool all_ranks_here = !m_.collective || dynamic_cast<const CollectiveError*>(&e) != nullptr;
    if (!out_ || !all_ranks_here || (!reopened_ && out_->steps().empty())) return;
    try {
      out_->finish(std::string("failed: ") + e.what());
    } catch (...) {
      // the original error is what the user needs to see
    }
  }

  /// "; the checkpoint ... (step N) is the last good state; run.h5 holds the
  /// steps up to M": what a run that went bad leaves (rank 0's view).
  std::string last_good_state(index_t start_step) const {
    std::string kept;
    if (last_checkpoint_ >= 0)
      kept += "; the checkpoint " + plan_.checkpoint + " (step " + std::to_string(last_checkpoint_) +
              ") is the last good state";
    else if (!plan_.restart.empty())
      kept += "; the checkpoint " + plan_.restart + " (step " + std::to_string(start_step) + ") is the last good state";
    if (out_ && last_output_ >= 0) kept += "; " + plan_.output + " holds the steps up to " + std::to_string(last_output_);
    return kept;
  }

  index_t outputs_written() const { return outputs_written_; }
  const std::string& checkpoint_written() const { return checkpoint_written_; }

 private:
  void together(const std::function<void()>& f, const std::string& what, const std::string& file) {
    if (!m_.collective) {
      f();
      return;
    }
    const CollectiveWatch watch(true, a_.collective_timeout_s, what, file);
    // Test hook (docs/BAD_INPUT.md): one rank hangs, as in a stuck write.
    if (a_.fault_stall_rank == mpi::world_rank() && !stalled_) {
      stalled_ = true;
      spdlog::warn("fault injection (ADI_FAULT_STALL_RANK={}): this rank hangs before {}", a_.fault_stall_rank, what);
      for (;;) ::pause();
    }
    collectively(f);
  }

  const RunPlan& plan_;
  const RunMode& m_;
  io::Provenance prov_;
  const std::optional<io::FieldPart>& part_;
  const AppOptions& a_;
  bool stalled_ = false;
  std::optional<io::GridFile> out_;
  bool reopened_ = false;
  index_t last_output_ = -1, last_checkpoint_ = -1, outputs_written_ = 0;
  std::string checkpoint_written_;
};

// ---- the heat flows -------------------------------------------------------------

/// diagnostics.heat_flows (heat_flow_log.hpp): measured at the output steps
/// on every rank (collective), a row into the output file and the CSV.
template <class T>
class HeatFlowRecording {
 public:
  HeatFlowRecording(Stepper<T>& st, RunWriters<T>& writers, const RunPlan& plan, const RunMode& m, bool overwrite)
      : st_(st), writers_(writers), plan_(plan), m_(m) {
    if (!plan.config.diagnostics.heat_flows) return;
    meter_.emplace(make_heat_flow_meter(st));
    if (m.root)
      csv_ = HeatFlowCsv(plan.heat_flow_csv, plan.config.problem, overwrite, !plan.restart.empty(),
                         plan.restart_state.step);
  }
  bool on() const { return meter_.has_value(); }

  /// Collective: the flows now.
  HeatFlows measure() { return measure_heat_flows(st_, *meter_); }

  /// Collective: the flows of output step s, recorded.
  void record(index_t s, double t) {
    if (!on()) return;
    const HeatFlows f = measure();
    const std::vector<double> row = heat_flow_row(s, t, f);
    writers_.write_heat_flows(plan_.config.problem, row);
    if (m_.root) csv_.append(row);
    spdlog::debug("heat flows at step {}: faces {:.6g} {:.6g} {:.6g} {:.6g} {:.6g} {:.6g} W, source {:.6g} W, dE/dt "
                  "{:.6g} W, residual {:.3g} ({:.2g} relative)",
                  s, f.face[0][0], f.face[0][1], f.face[1][0], f.face[1][1], f.face[2][0], f.face[2][1], f.source,
                  f.dEdt, f.residual(), f.relative_residual());
  }

 private:
  Stepper<T>& st_;
  RunWriters<T>& writers_;
  const RunPlan& plan_;
  const RunMode& m_;
  std::optional<HeatFlowMeter> meter_;
  HeatFlowCsv csv_;
};

// ---- the step loop ------------------------------------------------------------

struct LoopEnd {
  index_t step = 0;  ///< the last step done
  int signal = 0;    ///< the signal that stopped the run early (0: it reached the end)
  double wall = 0.0;
  FieldStats stats;  ///< of the last check
  bool stopped_by_rate = false;  ///< time.stop_rate ended the run (at `step`)
  double rate = -1.0;            ///< the last max|u^{n+1} - u^n| / dt measured (-1: none)
};

/// Advances the stepper from `start` to the last step in chunks of about
/// 0.1 s, stopping at every scheduled step (outputs, checkpoints, log lines)
/// and at wall-clock checkpoints, until done or a signal asks to stop.
///
/// The field is checked (field_stats: one pass over it, ~1 % of a step)
/// before anything is written from it (outputs, checkpoints, the checkpoint
/// of a signal) and at every log line (log.every steps, or about every 2 s of
/// wall time), so a NaN never reaches a file, the last checkpoint stays the
/// last good state, and a run that went bad stops within a log interval.
template <class T>
class StepLoop {
 public:
  StepLoop(Stepper<T>& st, FieldBuffer<T>& field, RunWriters<T>& writers, ProgressReporter& progress,
           const OutputSchedule& schedule, const RunMode& m, const RunPlan& plan, const AppOptions& a, index_t start,
           EnergyGuard guard, ProbeRecorder<T>& probes, HeatFluxOutput<T>& flux)
      : st_(st), field_(field), writers_(writers), progress_(progress), schedule_(schedule), m_(m), plan_(plan),
        nan_at_(a.fault_nan_at_step), start_(start), s_(start), guard_(std::move(guard)), probes_(probes),
        flux_(flux) {}

  /// The output of the start step, unless the file has it (a restart).
  void write_start() {
    // A restart's start step has its probe row already (written before the checkpoint).
    if (plan_.restart.empty() && probes_.due(s_)) probes_.record(s_, schedule_.time_of(s_));
    double first = m_.root && schedule_.output_due(s_) && !writers_.output_holds(s_) ? 1.0 : 0.0;
    if (m_.distributed) mpi::allreduce_max(&first, 1);
    if (first > 0) {
      fetch();
      write_output(s_);
    }
  }

  /// Probe rows recorded so far into their files (probes.hpp): before every
  /// checkpoint, so that a restart from it finds the rows up to its step.
  void flush_probes() {
    probes_.flush([&](const io::ProbeRows& rows) { writers_.write_probes(rows); });
  }

  /// diagnostics.heat_flows: recorded at every output step.
  void record_heat_flows(HeatFlowRecording<T>* r) { flows_ = r && r->on() ? r : nullptr; }

  LoopEnd run() {
    const auto t0 = progress_.started();
    auto last_ckpt = t0;
    int stop_signal = 0;  // agreed by all ranks after each chunk
    index_t max_chunk = 1;
    const io::CheckpointConfig& ck = plan_.config.checkpoint;
    while (s_ < schedule_.steps()) {
      SignalGuard::abort_if_requested();
      if (m_.distributed ? stop_signal != 0 : SignalGuard::stop_requested() != 0) break;
      index_t target = std::min({schedule_.next_event(s_), s_ + max_chunk, probes_.next_due(s_)});
      if (nan_at_ > s_) target = std::min(target, nan_at_);
      // time.stop_rate: the chunk's last step is taken alone, from a copy of
      // the field before it, at output steps and every kRateEvery steps: steps
      // fixed by the schedule, so every rank checks at the same step and a
      // run stops at the same step however fast it runs.
      const double stop_rate = plan_.config.solve.stop_rate;
      if (stop_rate > 0) target = std::min(target, (s_ / kRateEvery + 1) * kRateEvery);
      const bool rate_now = stop_rate > 0 && (schedule_.output_due(target) || target == schedule_.steps() ||
                                              target % kRateEvery == 0);
      const auto c0 = Clock::now();
      double rate = -1.0;
      if (rate_now) {
        if (target - s_ > 1) st_.advance(target - 1 - s_);
        rate = step_rate();
      } else {
        st_.advance(target - s_);
      }
      double agreed[4] = {seconds(Clock::now() - c0), seconds(Clock::now() - last_ckpt),
                          progress_.since_last_line(Clock::now()), static_cast<double>(SignalGuard::stop_requested())};
      // One small all-reduce per chunk (about 0.1 s of stepping): the ranks
      // agree on the chunk length, the wall-clock checkpoints and log lines,
      // and on stopping after a signal that reached any of them.
      if (m_.distributed) mpi::allreduce_max(agreed, 4);
      stop_signal = static_cast<int>(agreed[3]);
      // Chunks of about 0.1 s: logging costs nothing per step, and a signal
      // is answered within a chunk.
      const double per_step = agreed[0] / static_cast<double>(target - s_);
      max_chunk = std::clamp<index_t>(static_cast<index_t>(0.1 / std::max(per_step, 1e-9)), 1, index_t(1) << 20);
      s_ = target;
      if (s_ == nan_at_) inject_nan();

      bool fetched = false;
      const auto now = Clock::now();
      const double t = schedule_.time_of(s_);
      if (probes_.due(s_)) probes_.record(s_, t);
      if (schedule_.output_due(s_)) {
        fetch();
        fetched = true;
        write_output(s_);
      }
      if (schedule_.checkpoint_due(s_) || (ck.every_seconds > 0 && agreed[1] >= ck.every_seconds)) {
        if (!fetched) fetch();
        fetched = true;
        flush_probes();
        writers_.write_checkpoint(s_, t, field_.values());
        last_ckpt = Clock::now();
      }
      if (progress_.due(s_, agreed[2])) {
        if (!fetched) check();
        fetched = true;
        progress_.line(s_, stats_.max_abs, now);
      }
      // The energy guard looks at every chunk (one pass over the field per
      // ~0.1 s of stepping), so an unstable run stops within a chunk.
      if (guard_.active() && !fetched) check();
      if (rate >= 0.0) {
        last_rate_value_ = rate;
        spdlog::debug("step {}: max|u^(n+1) - u^n| / dt = {:.6g} K/s (time.stop_rate {:.6g})", s_, rate, stop_rate);
        if (rate < stop_rate) {
          stopped_by_rate_ = true;
          // The state it stopped at is the answer: in the output and the probes.
          if (probes_.active() && !probes_.due(s_)) probes_.record(s_, t);
          if (!schedule_.output_due(s_)) {
            fetch();
            write_output(s_);  // (also the probe rows and heat flows; no file: those alone)
          }
          spdlog::info("step {} (t = {:.6g} s): max|u^(n+1) - u^n| / dt = {:.3e} K/s is below time.stop_rate = "
                       "{:.3g} K/s: the run stops here",
                       s_, t, rate, stop_rate);
          break;
        }
      }
    }
    progress_.clear();
    LoopEnd end;
    end.step = s_;
    end.wall = seconds(Clock::now() - t0);
    if (s_ < schedule_.steps() && !stopped_by_rate_)
      end.signal = m_.distributed ? stop_signal : SignalGuard::stop_requested();
    end.stats = stats_;
    end.stopped_by_rate = stopped_by_rate_;
    end.rate = last_rate_value_;
    return end;
  }

  /// Collective: the field's statistics; NaN or Inf stops the run (exit 5),
  /// an energy that grows where it cannot (EnergyGuard) too (exit 4), with
  /// what on disk is still good.
  void check() {
    stats_ = st_.field_stats();
    if (stats_.finite) {
      const std::string grew = guard_.observe(stats_, s_, schedule_.time_of(s_));
      if (grew.empty()) return;
      // field_stats is reduced over the ranks: all of them see it.
      throw CollectiveError(kValidationFailed,
                            "numerical error: " + grew + "; nothing was written from it" +
                                writers_.last_good_state(start_),
                            false, __FILE__, __LINE__);
    }
    const std::string msg = "the field holds NaN or Inf after step " + std::to_string(s_) +
                            " (t = " + std::to_string(schedule_.time_of(s_)) +
                            " s); nothing was written from it" + writers_.last_good_state(start_);
    // field_stats is reduced over the ranks: all of them see it.
    if (m_.distributed) throw CollectiveError(kNumericalError, "numerical error: " + msg, false, __FILE__, __LINE__);
    ADI_THROW(NumericalError, msg);
  }

  /// Collective: the field at the current step, checked, into the buffer.
  void fetch() {
    check();
    field_.fetch();
  }

  /// Collective: the output of step s from the fetched field (with its heat
  /// flux when asked for), and the probe rows recorded up to it.
  void write_output(index_t s) {
    const double t = schedule_.time_of(s);
    writers_.write_output(s, t, field_.values(), flux_.compute(t, field_.values()));
    flush_probes();
    if (flows_) flows_->record(s, t);
  }

  const FieldStats& stats() const { return stats_; }

 private:
  using Clock = std::chrono::steady_clock;

  /// Collective: one step, and max|u^{n+1} - u^n| / dt over it (every rank
  /// compares its own box; the maximum over the ranks).
  double step_rate() {
    if (prev_.empty()) {
      prev_.resize(static_cast<std::size_t>(rank_points(st_, m_.distributed, plan_.config.problem.n)));
      cur_.resize(prev_.size());
    }
    st_.get_field(prev_.data());
    st_.advance(1);
    st_.get_field(cur_.data());
    double d = 0.0;
    for (std::size_t q = 0; q < cur_.size(); ++q)
      d = std::max(d, std::fabs(static_cast<double>(cur_[q]) - static_cast<double>(prev_[q])));
    if (!std::isfinite(d)) d = std::numeric_limits<double>::infinity();  // (the NaN guard reports it next)
    if (m_.distributed) mpi::allreduce_max(&d, 1);
    return d / plan_.config.problem.dt;
  }

  // Fault injection for the tests of the NaN guard (docs/BAD_INPUT.md): no
  // valid input makes the default schemes produce NaN after a good step
  // (both are unconditionally stable where they are the default,
  // docs/SCHEMES.md), so ADI_FAULT_NAN_AT_STEP=N puts one into the field
  // after step N, loudly.
  void inject_nan() {
    spdlog::warn("fault injection (ADI_FAULT_NAN_AT_STEP={}): a NaN put into the field after step {}", nan_at_, s_);
    std::vector<T>& u = field_.gather();
    if (m_.root) u[u.size() / 2] = std::numeric_limits<T>::quiet_NaN();
    field_.scatter();
  }

  Stepper<T>& st_;
  FieldBuffer<T>& field_;
  RunWriters<T>& writers_;
  ProgressReporter& progress_;
  const OutputSchedule& schedule_;
  const RunMode& m_;
  const RunPlan& plan_;
  index_t nan_at_, start_, s_;
  FieldStats stats_;
  EnergyGuard guard_;
  static constexpr index_t kRateEvery = 1000;  ///< time.stop_rate: checked at least this often [steps]
  std::vector<T> prev_, cur_;  ///< time.stop_rate: this rank's box before and after a step
  bool stopped_by_rate_ = false;
  double last_rate_value_ = -1.0;
  ProbeRecorder<T>& probes_;
  HeatFluxOutput<T>& flux_;
  HeatFlowRecording<T>* flows_ = nullptr;
};

// ---- the final errors -----------------------------------------------------------

/// The field against the analytic solution (exact, and the discrete g^n U(0)
/// of the round-off check) after a completed run from the analytic mode
/// (collective; the norms are rank 0's). With collective I/O each rank
/// compares its box and one reduction combines them: no gather.
template <class T>
void analytic_errors(FieldBuffer<T>& field, const RunMode& m, const io::RunConfig& c,
                     const std::optional<io::FieldPart>& part, RunReport& rep) {
  const HeatProblem& p = c.problem;
  const AnalyticMode mode = analytic_mode(p);
  // The mode from its start (time.start) to the end; g^n only on one time
  // axis segment (a restart that changed dt: cmd_run does not judge it).
  const double scales[2] = {std::exp(-mode.decay_rate * (c.t_end - c.t_start)),
                            std::pow(mode.amplification, static_cast<double>(c.steps))};
  ErrorNorms* norms[2] = {&rep.exact, &rep.discrete};
  rep.exact_decay = scales[0];
  if (m.collective) {
    field.fetch_box();
    for (int q = 0; q < 2; ++q) {
      const ErrorSums e = compare_box_with_mode(p, part->offset, part->count, field.box().data(), scales[q]);
      double mx[3] = {e.max_abs, e.ref_max, e.finite ? 0.0 : 1.0}, sum = e.sum_sq;
      mpi::allreduce_max(mx, 3);
      mpi::allreduce_sum(&sum, 1);
      *norms[q] = ErrorSums{mx[0], mx[1], sum, mx[2] == 0.0}.norms(p.points());
    }
    rep.have_error = m.root;
    return;
  }
  const std::vector<T>& u = field.gather();
  if (!m.root) return;
  rep.have_error = true;
  for (int q = 0; q < 2; ++q) *norms[q] = compare_with_mode(p, u, scales[q]);
}

}  // namespace

template <class T>
RunReport drive(const RunPlan& plan, const RunOptions& o) {
  const io::RunConfig& c = plan.config;
  const RunMode m = run_mode(plan, o.env.app);
  RunReport rep;

  InitialState<T> init = load_initial_state<T>(plan, m);
  rep.start_step = init.step;
  RunStepper<T> rs = build_stepper<T>(plan, m, o.env.solver);
  rep.backend = backend_name(rs.stepper->backend());
  rep.device = rs.stepper->device_name();
  // The energy guard watches problems that feed no energy in (energy_guard.hpp):
  // whether the faces that keep the initial field's values are 0 is read off
  // rank 0's field (the analytic mode's sine modes vanish there).
  double faces_zero = m.analytic_boxes || (m.root && field_faces_zero(c.problem, init.field)) ? 1.0 : 0.0;
  if (m.distributed) mpi::allreduce_max(&faces_zero, 1);
  const bool guarded = energy_cannot_grow(c.problem, faces_zero > 0.0);
  // A problem with data: the energy may grow only as fast as the data feed
  // it (energy_guard.hpp: DataBound), from this rank's box, over the ranks.
  DataBound bound;
  if (!guarded) {
    const io::FieldPart box = rank_box(*rs.stepper, m.distributed, c.problem.n);
    DataBoundParts parts;
    collectively([&] { parts = data_bound_parts(c.problem, box.offset, box.count); });
    double u_max = m.analytic_boxes ? 1.0 : 0.0;
    if (m.root)
      for (const T v : init.field) u_max = std::max(u_max, std::fabs(static_cast<double>(v)));
    double mx[4] = {-parts.c_min, parts.c_max, parts.k_max, u_max}, q2 = parts.q2;
    if (m.distributed) {
      mpi::allreduce_max(mx, 4);
      mpi::allreduce_sum(&q2, 1);
    }
    parts = DataBoundParts{q2, -mx[0], mx[1], mx[2]};
    bound = data_bound(c.problem, parts, mx[3]);
  }
  place_initial_state(rs, init, m, c.problem);
  // Time-dependent data (tables, moving faces) are evaluated at the time of
  // the step on the run's axis (t0 + (step - s0) dt; step * dt from t = 0):
  // a restart that keeps dt continues the uninterrupted run's times exactly,
  // one that changes it starts a new segment at the checkpoint's time. A
  // fresh start sets the Dirichlet faces to their values at time.start (a
  // `value:` face, a table with f != 1 there); a restart's field holds them.
  rs.stepper->set_time_origin(c.axis.t0, c.axis.s0);
  rs.stepper->set_step_index(init.step);
  if (plan.restart.empty()) rs.stepper->impose_boundary_values();

  io::Provenance prov =
      io::collect_provenance(o.argv, rep.backend, rep.device, c.resolved_yaml, o.env.app.batch_job);
  if (m.root)
    for (const auto& [key, f] : io::named_fields(c)) prov.fields += key + " = " + f->name() + " " + f->checksum() + "\n";
  prov.time_segments = c.axis.segments;
  if (m.collective) share_provenance(prov);
  stop_if_signalled("while setting up the run");
  RunWriters<T> writers(plan, m, std::move(prov), rs.part, o.env.app);
  writers.open(init.step);

  // Without an output file the heat flows alone have output steps (the
  // first and the last: output.every needs a file).
  const OutputSchedule schedule(c, !plan.output.empty() || c.diagnostics.heat_flows);
  FieldBuffer<T> field(*rs.stepper, m, c.problem, rs.part, std::move(init.field));
  ProgressReporter progress(schedule, m.root && !o.quiet && isatty(STDERR_FILENO), o.quiet, rep.start_step);
  // Probes (their CSV) and the heat flux's conductivity: set up on every rank, failures agreed.
  std::optional<ProbeRecorder<T>> probes;
  std::optional<HeatFluxOutput<T>> flux;
  collectively([&] {
    probes.emplace(plan, *rs.stepper, m.distributed, m.root, rep.start_step);
    flux.emplace(c, m.root, rs.part, plan.decomposition);
  });
  const bool f32 = c.precision == Precision::F32;
  StepLoop<T> loop(*rs.stepper, field, writers, progress, schedule, m, plan, o.env.app, rep.start_step,
                   guarded ? EnergyGuard(true, f32, c.problem) : EnergyGuard(bound, f32, c.problem), *probes, *flux);
  if (guarded)
    spdlog::debug("energy guard on: no source and no inflow, the energy sum w c u^2 may not grow");
  else
    spdlog::debug("energy guard on: sqrt(sum w c u^2) may grow by at most {:.6g} a second (and {:.6g} for the "
                  "Dirichlet nodes), x {}",
                  bound.rate, bound.dirichlet, EnergyGuard::kDataBoundMargin);
  HeatFlowRecording<T> flows(*rs.stepper, writers, plan, m, o.overwrite);
  loop.record_heat_flows(&flows);
  try {
    loop.check();  // the energy the guard starts from
    loop.write_start();
    spdlog::info("stepping from step {} to {} (dt = {:.6g} s){}", rep.start_step, c.steps, c.problem.dt,
                 plan.output.empty() ? std::string() : ", output to " + plan.output);
    const LoopEnd end = loop.run();
    rep.end_step = end.step;
    rep.wall = end.wall;
    rep.final_rate = end.rate;
    if (end.stopped_by_rate) rep.stopped_at_rate = end.step;
    if (end.signal != 0) {  // stopped by a signal: checkpoint, close the output, ask to be requeued
      rep.interrupted = true;
      rep.signal = end.signal;
      spdlog::warn("{} received: stopping after step {} of {} (t = {:.6g} s)", signal_name(rep.signal), end.step,
                   c.steps, schedule.time_of(end.step));
      loop.fetch();
      loop.flush_probes();
      writers.write_checkpoint(end.step, schedule.time_of(end.step), field.values());
      writers.finish("interrupted");
      spdlog::warn("checkpoint written to {}; continue with: adi3d run ... --restart {}", plan.checkpoint,
                   plan.checkpoint);
    } else {
      loop.flush_probes();
      writers.finish("complete");
    }
  } catch (const std::exception& e) {
    progress.clear();
    writers.fail(e);
    throw;
  }
  rep.outputs_written = writers.outputs_written();
  rep.checkpoint_written = writers.checkpoint_written();
  if (rep.interrupted) return rep;

  loop.check();
  rep.stats = loop.stats();
  if (flows.on()) rep.heat_flows = flows.measure();
  // (a run that time.stop_rate ended early is not at the time the mode is compared at)
  if (plan.from_analytic && rep.stopped_at_rate < 0) analytic_errors(field, m, c, rs.part, rep);
  return rep;
}

/// solve: steady (steady.hpp): the run's stepper holds the start (initial
/// field, Dirichlet data) and finally the steady state, which is written as
/// the output's only step (step 0, t = time.start) with the solve's record
/// (/steady). The iteration builds its own steppers (one per sweep
/// parameter) on the same backend and ranks.
template <class T>
RunReport drive_steady(const RunPlan& plan, const RunOptions& o) {
  const io::RunConfig& c = plan.config;
  const RunMode m = run_mode(plan, o.env.app);
  RunReport rep;
  rep.steady = true;
  InitialState<T> init = load_initial_state<T>(plan, m);
  RunStepper<T> rs = build_stepper<T>(plan, m, o.env.solver);
  rep.backend = backend_name(rs.stepper->backend());
  rep.device = rs.stepper->device_name();
  place_initial_state(rs, init, m, c.problem);
  rs.stepper->set_time_origin(c.axis.t0, c.axis.s0);
  rs.stepper->set_step_index(0);
  rs.stepper->impose_boundary_values();
  std::vector<T> u(static_cast<std::size_t>(rank_points(*rs.stepper, m.distributed, c.problem.n)));
  rs.stepper->get_field(u.data());

  io::Provenance prov =
      io::collect_provenance(o.argv, rep.backend, rep.device, c.resolved_yaml, o.env.app.batch_job);
  if (m.root)
    for (const auto& [key, f] : io::named_fields(c)) prov.fields += key + " = " + f->name() + " " + f->checksum() + "\n";
  if (m.collective) share_provenance(prov);
  stop_if_signalled("while setting up the run");

  StepperSpec spec;
  spec.backend = c.backend;
  spec.distributed = m.distributed;
  spec.grid = c.parallel.grid;
  spec.options = o.env.solver;
  SteadyOptions so;
  so.tolerance = c.solve.tolerance;
  so.max_iterations = c.solve.max_iterations;
  spdlog::info("steady solve: flexible GMRES with ADI sweeps as the preconditioner, to a relative residual of {:.3g} "
               "(at most {} sweeps)",
               so.tolerance, so.max_iterations);
  const auto t0 = Clock::now();
  SteadyResult sr;
  collectively([&] {
    sr = solve_steady<T>(io::stepper_problem(c, plan.initial), spec, u, so, [&](index_t it, double r) {
      spdlog::info("steady: {} sweeps, relative residual {:.3e}", it, r);
      // A signal ends the solve between restart cycles (it keeps no state to continue from).
      stop_if_signalled("during the steady solve (a steady solve writes no checkpoint: run it again)");
    });
  });
  rep.wall = seconds(Clock::now() - t0);
  rep.steady_converged = sr.converged;
  rep.steady_iterations = sr.iterations;
  rep.steady_residual = sr.residual;
  rep.steady_imbalance_W = sr.imbalance_W;
  rs.stepper->set_field(u.data());

  RunWriters<T> writers(plan, m, std::move(prov), rs.part, o.env.app);
  writers.open(0);
  FieldBuffer<T> field(*rs.stepper, m, c.problem, rs.part, std::move(init.field));
  rep.stats = rs.stepper->field_stats();
  try {
    if (!rep.stats.finite)
      throw CollectiveError(kNumericalError,
                            "numerical error: the steady solve produced NaN or Inf; nothing was written from it",
                            false, __FILE__, __LINE__);
    field.fetch();
    // The steady state's heat flux and probe values, when asked for (step 0).
    std::optional<ProbeRecorder<T>> probes;
    std::optional<HeatFluxOutput<T>> flux;
    collectively([&] {
      probes.emplace(plan, *rs.stepper, m.distributed, m.root, 0);
      flux.emplace(c, m.root, rs.part, plan.decomposition);
    });
    if (!plan.output.empty())
      writers.write_output(0, c.axis.t0, field.values(), flux->compute(c.axis.t0, field.values()));
    if (probes->active()) {
      probes->record(0, c.axis.t0);
      probes->flush([&](const io::ProbeRows& rows) { writers.write_probes(rows); });
    }
    // The steady state's heat flows: they balance the source to the tolerance.
    HeatFlowRecording<T> flows(*rs.stepper, writers, plan, m, o.overwrite);
    if (flows.on()) {
      flows.record(0, c.axis.t0);
      rep.heat_flows = flows.measure();
    }
    io::GridFile::SteadyRecord rec;
    rec.converged = sr.converged;
    rec.iterations = static_cast<long long>(sr.iterations);
    rec.residual = sr.residual;
    rec.tolerance = so.tolerance;
    rec.imbalance_W = sr.imbalance_W;
    for (std::size_t q = 0; q < sr.history.size(); ++q)
      rec.history.emplace_back(static_cast<long long>(sr.history_iterations[q]), sr.history[q]);
    writers.write_steady(rec);
    if (!sr.converged) {
      // The last iterate is kept (marked failed): a user may want to look at it.
      std::ostringstream msg;
      msg << "the steady solve did not converge: relative residual " << std::scientific << std::setprecision(3)
          << sr.residual << std::defaultfloat << " after " << sr.iterations << " sweeps (solve.steady.tolerance "
          << so.tolerance << ", solve.steady.max_iterations " << so.max_iterations << ")"
          << (plan.output.empty() ? std::string() : "; the last iterate is in " + plan.output + " (status failed)")
          << "; raise max_iterations or loosen the tolerance";
      throw CollectiveError(kValidationFailed, msg.str(), false, __FILE__, __LINE__);
    }
    writers.finish("complete");
  } catch (const std::exception& e) {
    writers.fail(e);
    throw;
  }
  rep.outputs_written = writers.outputs_written();
  return rep;
}

RunReport execute_run(const RunPlan& plan, const RunOptions& o) {
  return dispatch_precision(plan.config.precision, [&](auto tag) {
    return plan.config.solve.steady ? drive_steady<decltype(tag)>(plan, o) : drive<decltype(tag)>(plan, o);
  });
}

}  // namespace adi::app
