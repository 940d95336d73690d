// adi3d run: the paths a run reads and writes (see run_driver.hpp): what
// they are, that none aliases another, that nothing the user has is
// overwritten, a restart that would drop output steps, the locks, and the
// temporaries dead runs left.

#include "run_driver.hpp"

#include "child_reads.hpp"
#include "errors.hpp"
#include "exit_codes.hpp"
#include "heat_flow_log.hpp"
#include "log.hpp"
#include "output_schedule.hpp"
#include "probes.hpp"
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
                                  &c.material.conductivity[2], &c.material.capacity, &c.material.source,
                                  &c.material.regions})
      if (f->given()) ids.push_back(identify("the " + f->key + " field", io::resolve_input(c, f->file), false));
    if (!plan.restart.empty()) ids.push_back(identify("the checkpoint given to --restart", plan.restart, false));
    if (!plan.output.empty()) {
      ids.push_back(identify("output.file", plan.output, true));
      if (c.output.xdmf) ids.push_back(identify("the output's .xmf", io::xdmf_path_for(plan.output), true));
      ids.push_back(identify("the output's journal", io::journal_path_for(plan.output), true));
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
    const std::string journal = io::journal_path_for(plan.output);
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
      targets.push_back(io::journal_path_for(t));
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


}  // namespace adi::app
