// Probes in adi3d run (probes.hpp).

#include "probes.hpp"

#include "log.hpp"

#include <adi/mpi.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace adi::app {

// The locks of this process' run (run_driver.cpp).
std::vector<io::FileLock>& run_locks();

namespace {
namespace fs = std::filesystem;

/// Every `every` steps, the last step and step 0: the same rule for every
/// run of the case, so that a restart records the rows an uninterrupted run
/// would have.
}  // namespace

index_t ProbeSchedule::next_after(index_t s) const {
  if (every <= 0 || s >= steps) return steps + 1;
  const index_t next = (s / every + 1) * every;
  return std::min(next, steps);
}

ProbeSchedule probe_schedule(const io::RunConfig& c) {
  ProbeSchedule s;
  s.every = c.probes.any() ? c.probes.every : 0;
  s.steps = c.steps;
  return s;
}

template <class T>
ProbeRecorder<T>::ProbeRecorder(const RunPlan& plan, Stepper<T>& st, bool distributed, bool root, index_t start_step)
    : st_(st), distributed_(distributed), schedule_(probe_schedule(plan.config)) {
  const io::RunConfig& c = plan.config;
  if (!c.probes.any()) return;
  stencils_ = io::locate_probes(c);
  // This rank's box: the whole grid, or its part of a distributed run.
  std::array<index_t, 3> begin{{0, 0, 0}}, size = c.problem.n;
  if (distributed) {
    const Box& b = dynamic_cast<const mpi::DistributedStepper<T>&>(st).part().box;
    begin = b.begin;
    size = b.size;
  }
  for (const io::ProbeStencil& s : stencils_) {
    first_.push_back(corners_.size());
    for (int q = 0; q < s.corners(); ++q) {
      const auto k = s.corner(q);
      bool in = true;
      std::array<index_t, 3> local{};
      for (int a = 0; a < 3; ++a) {
        local[a] = k[a] - begin[a];
        in = in && local[a] >= 0 && local[a] < size[a];
      }
      if (in) {
        mine_.push_back(local);
        slot_.push_back(corners_.size());
      }
      corners_.push_back(0.0);
    }
  }
  read_.resize(mine_.size());
  if (root) {
    const std::string csv = io::probes_csv_path(c);
    std::vector<std::string> names;
    for (const auto& s : stencils_) names.push_back(s.name);
    if (!csv.empty()) csv_.emplace(csv, names, plan.restart.empty() ? index_t(-1) : start_step);
  }
  rows_.probes = stencils_.size();
  std::string where;
  for (const auto& s : stencils_)
    spdlog::debug("probe {} at ({}, {}, {}) m: nodes ({}, {}, {}) .. ({}, {}, {}), weights ({}, {}, {})", s.name, s.x[0],
                  s.x[1], s.x[2], s.lo[0], s.lo[1], s.lo[2], s.hi[0], s.hi[1], s.hi[2], s.w[0], s.w[1], s.w[2]);
  const std::string csv = io::probes_csv_path(c);
  spdlog::info("{} probe{} recorded every {} step{}{}{}", stencils_.size(), stencils_.size() == 1 ? "" : "s",
               schedule_.every, schedule_.every == 1 ? "" : "s",
               c.output.file.empty() ? "" : " into " + c.output.file + ":/probes", csv.empty() ? "" : ", " + csv);
}

template <class T>
void ProbeRecorder<T>::record(index_t s, double t) {
  std::fill(corners_.begin(), corners_.end(), 0.0);
  if (!distributed_) {
    st_.read_nodes(mine_.data(), mine_.size(), read_.data());
  } else if (!mine_.empty()) {
    // This rank's box, only at a recorded step and only where it owns a
    // corner (a local copy: no communication).
    const Box& b = dynamic_cast<const mpi::DistributedStepper<T>&>(st_).part().box;
    box_.resize(static_cast<std::size_t>(b.points()));
    st_.get_field(box_.data());
    for (std::size_t q = 0; q < mine_.size(); ++q) {
      const auto& k = mine_[q];
      read_[q] = box_[static_cast<std::size_t>(k[0] + b.size[0] * (k[1] + b.size[1] * k[2]))];
    }
  }
  for (std::size_t q = 0; q < mine_.size(); ++q) corners_[slot_[q]] = static_cast<double>(read_[q]);
  // Each corner is one rank's: the others add 0, which changes no value.
  if (distributed_) mpi::allreduce_sum(corners_.data(), static_cast<int>(corners_.size()));
  rows_.steps.push_back(s);
  rows_.times.push_back(t);
  for (std::size_t p = 0; p < stencils_.size(); ++p)
    rows_.values.push_back(io::interpolate(stencils_[p], corners_.data() + first_[p]));
}

template class ProbeRecorder<float>;
template class ProbeRecorder<double>;

namespace {

bool same_path(const std::string& a, const std::string& b) {
  std::error_code e1, e2;
  if (fs::exists(a, e1) && fs::exists(b, e2) && fs::equivalent(a, b, e1)) return true;
  const fs::path pa = fs::weakly_canonical(fs::absolute(a, e1), e1), pb = fs::weakly_canonical(fs::absolute(b, e2), e2);
  return !e1 && !e2 ? pa == pb : a == b;
}

/// The steps of a probes CSV's lines ({} without the file).
std::vector<index_t> csv_steps(const std::string& path) {
  std::vector<index_t> v;
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return v;
  while (std::getline(in, line)) {
    char* end = nullptr;
    const long long s = std::strtoll(line.c_str(), &end, 10);
    if (end == line.c_str() || *end != ',') break;
    v.push_back(static_cast<index_t>(s));
  }
  return v;
}

bool looks_like_probes_csv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  return std::getline(in, line) && line.rfind("step,time,", 0) == 0;
}

}  // namespace

void check_probe_paths(const RunPlan& plan, const RunOptions& o) {
  const io::RunConfig& c = plan.config;
  const std::string csv = io::probes_csv_path(c);
  if (csv.empty()) return;
  // Every other path of the run: the CSV must be none of them.
  std::vector<std::pair<std::string, std::string>> others = {{"output.file", plan.output},
                                                             {"checkpoint.file", plan.checkpoint},
                                                             {"the config", o.config},
                                                             {"the checkpoint given to --restart", plan.restart}};
  if (!plan.output.empty()) {
    others.emplace_back("the output's .xmf", io::xdmf_path_for(plan.output));
    others.emplace_back("the output's journal", io::journal_path_for(plan.output));
  }
  if (plan.initial) others.emplace_back("the initial field", plan.initial->file);
  for (const io::FieldRef* f : {&c.material.conductivity[0], &c.material.conductivity[1], &c.material.conductivity[2],
                                &c.material.capacity, &c.material.source})
    if (f->given()) others.emplace_back("the " + f->key + " field", io::resolve_input(c, f->file));
  for (const auto& [role, path] : others)
    if (!path.empty() && same_path(csv, path))
      throw io::ConfigError(c.source, "probes.csv",
                            "'" + csv + "' names the same file as " + role + " '" + path +
                                "'; the run would overwrite it: choose another name",
                            __FILE__, __LINE__);
  run_locks().emplace_back(csv, "probes CSV '" + csv + "'");
  std::error_code ec;
  const auto st = fs::symlink_status(csv, ec);
  if (fs::exists(st)) {
    if (!fs::is_regular_file(st))
      throw io::IoError("probes CSV '" + csv + "' exists and is not a regular file; adi3d replaces only files it "
                        "wrote itself: choose another name",
                        __FILE__, __LINE__);
    if (plan.restart.empty() && !o.overwrite)
      throw io::IoError("probes CSV '" + csv +
                            "' exists; pass --overwrite to replace it, or --restart CHECKPOINT to continue the run "
                            "that wrote it",
                        __FILE__, __LINE__);
    if (!looks_like_probes_csv(csv))
      throw io::IoError("probes CSV '" + csv +
                            "' exists and is not a probes CSV adi3d wrote (its first line is not step,time,...): "
                            "move it away or choose another probes.csv",
                        __FILE__, __LINE__);
  }
  // Its folder takes a new file (before any step).
  const std::string tmp = io::unique_temp_path(csv);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    throw io::IoError("probes CSV '" + csv + "': cannot create " + tmp + " (" + std::strerror(err) + ")", __FILE__,
                      __LINE__);
  }
  ::close(fd);
  ::unlink(tmp.c_str());
}

void check_restart_keeps_probes(const RunPlan& plan, bool discard_allowed) {
  if (plan.restart.empty()) return;
  const io::RunConfig& c = plan.config;
  const ProbeSchedule sched = probe_schedule(c);
  const index_t from = plan.restart_state.step;
  std::map<std::string, bool> configured;
  for (const auto& p : c.probes.points) configured[p.name] = true;
  auto kept = [&](const std::string& name, index_t s) {
    return s <= from || (configured.count(name) && s <= sched.steps && sched.due(s));
  };
  std::vector<std::string> lost;
  std::error_code ec;
  if (!plan.output.empty() && fs::exists(fs::symlink_status(plan.output, ec))) {
    std::vector<std::pair<std::string, std::vector<index_t>>> series;
    try {
      series = io::output_file_probes(plan.output);
    } catch (const io::IoError&) {
      series.clear();  // reopen() says what is wrong with the file
    }
    for (const auto& [name, steps] : series) {
      index_t n = 0;
      for (const index_t s : steps) n += kept(name, s) ? 0 : 1;
      if (n) lost.push_back(std::to_string(n) + " row" + (n == 1 ? "" : "s") + " of " + plan.output + ":/probes/" + name);
    }
  }
  const std::string csv = io::probes_csv_path(c);
  if (!csv.empty() && fs::exists(fs::symlink_status(csv, ec))) {
    index_t n = 0;
    for (const index_t s : csv_steps(csv)) n += s <= from || (s <= sched.steps && sched.due(s)) ? 0 : 1;
    if (n) lost.push_back(std::to_string(n) + " row" + (n == 1 ? "" : "s") + " of " + csv);
  }
  if (lost.empty()) return;
  std::string what;
  for (const auto& l : lost) what += (what.empty() ? "" : ", ") + l;
  if (discard_allowed) {
    spdlog::warn("discarding probe rows recorded after the checkpoint's step {}: {} (--discard-after-checkpoint)", from,
                 what);
    return;
  }
  throw io::ConfigError(plan.restart, "--restart",
                        "continuing from step " + std::to_string(from) + " would delete probe rows recorded after it (" +
                            what + ") that this run (" + std::to_string(sched.steps) + " steps, probes.every " +
                            std::to_string(sched.every) +
                            ") would not record again; pass --discard-after-checkpoint to delete them",
                        __FILE__, __LINE__);
}

}  // namespace adi::app
