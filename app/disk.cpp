// adi3d run: the disk space a run will write, against the free space
// (disk.hpp).

#include "disk.hpp"

#include "log.hpp"
#include "output_schedule.hpp"
#include "util.hpp"

#include <adi/io/io.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sys/stat.h>
#include <sys/statvfs.h>

namespace adi::app {

namespace {

namespace fs = std::filesystem;

/// HDF5's share of an output step beyond the field (group, dataset header,
/// chunk index, attributes) and the .xmf's lines for it: measured 4.6 KiB a
/// step on outputs of 11 and 201 steps (fp32 and fp64), rounded up.
constexpr double kStepOverhead = 5.0 * 1024;
/// An output's fixed part (/grid with its coordinates, /provenance) and a
/// checkpoint's beyond its field: measured 12 KiB and 16 KiB, rounded up.
constexpr double kFileOverhead = 64.0 * 1024;
/// Beyond this many steps the outputs are counted by arithmetic (an upper
/// bound) instead of asking the schedule step by step.
constexpr index_t kCountStepByStep = 20'000'000;

/// Output steps a run from `start` writes (the start step too, when due: a
/// restart writes it when the file lacks it), or an upper bound of them.
index_t count_outputs(const io::RunConfig& c, index_t start) {
  const OutputSchedule s(c, true);
  const index_t steps = s.steps();
  if (steps - start <= kCountStepByStep) {
    index_t n = 0;
    for (index_t k = start; k <= steps; ++k) n += s.output_due(k) ? 1 : 0;
    return n;
  }
  const io::OutputConfig& o = c.output;
  double n = (o.write_initial && start == 0 ? 1.0 : 0.0) + (o.write_final ? 1.0 : 0.0);
  if (o.every_steps > 0)
    n += std::floor(static_cast<double>(steps) / static_cast<double>(o.every_steps)) -
         std::floor(static_cast<double>(start) / static_cast<double>(o.every_steps));
  if (o.every_time > 0)
    n += std::floor(c.t_end / o.every_time) - std::floor(static_cast<double>(start) * c.problem.dt / o.every_time) + 1;
  return static_cast<index_t>(std::min(n, static_cast<double>(steps - start + 1)));
}

/// The folder a file goes to, absolute (what a user compares with `df`).
std::string folder_of(const std::string& path) {
  const fs::path p(path);
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(fs::absolute(p.parent_path().empty() ? fs::path(".") : p.parent_path(), ec), ec);
  return ec ? (p.parent_path().empty() ? std::string(".") : p.parent_path().string()) : folder.string();
}

double file_size(const std::string& path) {
  std::error_code ec;
  const auto n = fs::file_size(path, ec);
  return ec ? 0.0 : static_cast<double>(n);
}

std::string percent(double need, double avail) {
  const double pc = avail > 0 ? 100.0 * need / avail : 100.0;
  if (pc < 1) return "< 1 %";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f %%", pc);
  return buf;
}

/// "output run.h5 (...), checkpoint run.ckpt.h5 (...)": what needs the space on one volume.
std::string what_is_written(const DiskEstimate& d, const DiskEstimate::Volume& v) {
  std::string s;
  for (const auto& f : d.files)
    if (std::find(v.files.begin(), v.files.end(), f.path) != v.files.end())
      s += (s.empty() ? "" : "; ") + f.role + " " + f.path + ": " + f.detail;
  return s;
}

double available(const DiskEstimate::Volume& v) { return v.free + v.freed; }

}  // namespace

DiskEstimate estimate_disk(const RunPlan& plan, bool overwrite) {
  const io::RunConfig& c = plan.config;
  const HeatProblem& p = c.problem;
  const double points = static_cast<double>(p.points());
  const double word = c.precision == Precision::F32 ? 4.0 : 8.0;
  const double field = points * word;
  const index_t start = plan.restart.empty() ? 0 : plan.restart_state.step;
  DiskEstimate d;
  std::vector<std::pair<DiskEstimate::File, double>> files;  // and what --overwrite frees there
  if (!plan.output.empty()) {
    DiskEstimate::File f;
    f.role = "output";
    f.path = plan.output;
    const index_t steps = count_outputs(c, start);
    const std::size_t fields = plan.restart.empty() ? io::named_fields(c).size() : 0;
    // The heat flux (output.fields) is three more values a node each step;
    // probe rows (24 bytes each) are noise beside a field.
    const double step = field * (c.output.heat_flux ? 4.0 : 1.0);
    f.bytes = static_cast<double>(steps) * (step + kStepOverhead) + static_cast<double>(fields) * points * 8.0 +
              (plan.restart.empty() ? kFileOverhead : 0.0);
    f.detail = std::to_string(steps) + (steps == 1 ? " step of " : " steps of ") + human_bytes(step) + " (" +
               std::to_string(p.n[0]) + " x " + std::to_string(p.n[1]) + " x " + std::to_string(p.n[2]) + " " +
               precision_name(c.precision) + (c.output.heat_flux ? ", u and heat_flux" : "") + ")" +
               (fields ? " + " + std::to_string(fields) + " material field" + (fields == 1 ? "" : "s") + " (float64)"
                       : std::string()) +
               ", about " + human_bytes(f.bytes) +
               (c.output.compression > 0 ? " before compression (output.compression = " +
                                               std::to_string(c.output.compression) + ")"
                                         : std::string());
    const double freed = overwrite && plan.restart.empty()
                             ? file_size(plan.output) + file_size(io::xdmf_path_for(plan.output))
                             : 0.0;
    files.emplace_back(f, freed);
  }
  if (!plan.config.solve.steady) {  // (a steady solve writes none)
    // A checkpoint replaces the previous one through a temporary file: two
    // exist for a moment (one is there already when the file exists).
    DiskEstimate::File f;
    f.role = "checkpoint";
    f.path = plan.checkpoint;
    // An extrapolated nonlinear step's checkpoints hold the previous field too.
    const bool previous = plan.config.problem.nonlinear == NonlinearStep::Extrapolated &&
                          (plan.config.material.temperature || plan.config.problem.radiates());
    const double one = (previous ? 2.0 : 1.0) * field + kFileOverhead;
    const bool exists = file_size(plan.checkpoint) > 0;
    f.bytes = exists ? one : 2.0 * one;
    f.detail = human_bytes(one) + (exists ? " (its replacement while it is written)"
                                          : ", twice while a new one replaces it: " + human_bytes(f.bytes));
    files.emplace_back(f, 0.0);
  }
  for (const auto& [f, freed] : files) {
    d.files.push_back(f);
    const std::string folder = folder_of(f.path);
    struct stat st {};
    const bool known = ::stat(folder.c_str(), &st) == 0;
    DiskEstimate::Volume* v = nullptr;
    for (auto& w : d.volumes) {
      struct stat ws {};
      if (known && ::stat(w.folder.c_str(), &ws) == 0 && ws.st_dev == st.st_dev) v = &w;
    }
    if (!v) {
      d.volumes.emplace_back();
      v = &d.volumes.back();
      v->folder = folder;
      struct statvfs vfs {};
      if (known && ::statvfs(folder.c_str(), &vfs) == 0)
        v->free = static_cast<double>(vfs.f_bavail) * static_cast<double>(vfs.f_frsize);
    }
    v->files.push_back(f.path);
    v->need += f.bytes;
    v->freed += freed;
    if (f.role == "output" && c.output.compression > 0) v->compressed = true;
  }
  return d;
}

std::string describe_disk(const DiskEstimate& d) {
  std::string s;
  for (const auto& f : d.files) s += "# disk: " + f.role + " " + f.path + ": " + f.detail + "\n";
  for (const auto& v : d.volumes) {
    s += "# disk: " + human_bytes(v.need) + " on the file system of " + v.folder + ", ";
    if (v.free < 0) {
      s += "free space unknown\n";
      continue;
    }
    s += human_bytes(v.free) + " free";
    if (v.freed > 0) s += " (+ " + human_bytes(v.freed) + " of the output --overwrite replaces)";
    const double avail = available(v);
    if (v.need > avail)
      s += v.compressed ? ": may not fit (the estimate is before compression)"
                        : ": DOES NOT FIT (the run is refused, exit 3, unless --force)";
    else if (v.need > kDiskWarnFraction * avail)
      s += ": fits, but takes " + percent(v.need, avail) + " of the free space";
    else
      s += ": fits (" + percent(v.need, avail) + " of the free space)";
    s += "\n";
  }
  return s;
}

void check_disk(const DiskEstimate& d, bool force) {
  for (const auto& v : d.volumes) {
    if (v.free < 0) continue;
    const double avail = available(v);
    const std::string what = "the run writes about " + human_bytes(v.need) + " to the file system of " + v.folder +
                             " (" + what_is_written(d, v) + "), which has " + human_bytes(avail) + " free";
    if (v.need > avail) {
      if (v.compressed) {
        spdlog::warn("{}: it may not fit (the estimate is before output.compression)", what);
      } else if (force) {
        spdlog::warn("{}: it cannot fit; --force: running anyway (the run stops with exit 3 when the disk is full; "
                     "the output keeps its complete steps)",
                     what);
      } else {
        throw io::IoError(what + ": it cannot fit; write fewer steps (output.every, output.every_time), turn on "
                                 "output.compression, choose a file system with more room, or pass --force to run "
                                 "anyway",
                          __FILE__, __LINE__);
      }
    } else if (v.need > kDiskWarnFraction * avail) {
      spdlog::warn("{}: it takes {} of the free space", what, percent(v.need, avail));
    }
  }
}

}  // namespace adi::app
