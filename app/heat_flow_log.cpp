// The heat-flow table, CSV and summary of adi3d run (heat_flow_log.hpp).

#include "heat_flow_log.hpp"

#include <adi/io/lock.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace adi::app {

namespace fs = std::filesystem;

std::vector<std::string> heat_flow_table_columns() {
  std::vector<std::string> c = {"step", "time"};
  for (const std::string& s : heat_flow_columns()) c.push_back(s);
  return c;
}

std::vector<std::pair<std::string, std::string>> heat_flow_table_attributes(const HeatProblem& p) {
  std::string kinds;
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < 2; ++s) kinds += (kinds.empty() ? "" : ",") + heat_flow_face_kind(p, a, s);
  return {{"units", "step: 1, time: s, the others: W (into the body; dE/dt the rate of change of stored energy)"},
          {"face_kinds", kinds},
          {"definition", "docs/USER_GUIDE.md, Heat flows"}};
}

std::vector<double> heat_flow_row(index_t step, double time, const HeatFlows& f) {
  std::vector<double> r = {static_cast<double>(step), time};
  for (const double v : f.values()) r.push_back(v);
  return r;
}

std::string heat_flow_csv_path(const io::RunConfig& c, const std::string& output) {
  if (!c.diagnostics.heat_flows || !c.diagnostics.csv) return "";
  if (!c.diagnostics.csv_file.empty()) return c.diagnostics.csv_file;
  const fs::path base = !output.empty() ? fs::path(output) : fs::path(fs::path(c.source).filename());
  fs::path p = base;
  p.replace_extension();
  return p.string() + ".heat_flows.csv";
}

namespace {
std::string header_of(const HeatProblem& p) {
  std::string h = "# adi3d heat flows [W into the body]; faces:";
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < 2; ++s)
      h += std::string(" ") + heat_flow_face_name(a, s) + " " + heat_flow_face_kind(p, a, s);
  h += "\n";
  const auto cols = heat_flow_table_columns();
  for (std::size_t q = 0; q < cols.size(); ++q) h += (q ? "," : "") + cols[q];
  return h + "\n";
}
}  // namespace

HeatFlowCsv::HeatFlowCsv(std::string path, const HeatProblem& p, bool overwrite, bool restart, index_t restart_step)
    : path_(std::move(path)), header_(header_of(p)) {
  if (path_.empty()) return;
  const fs::file_status st = fs::symlink_status(path_);
  if (!fs::exists(st)) return;
  const std::string what = "diagnostics.csv '" + path_ + "'";
  if (!fs::is_regular_file(st)) throw io::IoError(what + " exists and is not a regular file", __FILE__, __LINE__);
  std::ifstream in(path_);
  std::string first;
  std::getline(in, first);
  const bool ours = first.rfind("# adi3d heat flows", 0) == 0;
  if (restart) {
    if (!ours)
      throw io::IoError(what + " exists and is not a heat-flow CSV adi3d wrote; move it away or choose another name",
                        __FILE__, __LINE__);
    std::string line;
    std::getline(in, line);  // the column names
    while (std::getline(in, line)) {
      const long long s = std::strtoll(line.c_str(), nullptr, 10);
      if (s > restart_step) break;
      lines_.push_back(line);
      steps_.push_back(static_cast<index_t>(s));
    }
    return;
  }
  if (!overwrite)
    throw io::IoError(what + " exists; pass --overwrite to replace it, or --restart CHECKPOINT to continue the run "
                             "that wrote it",
                      __FILE__, __LINE__);
  if (!ours)
    throw io::IoError(what + " exists and is not a heat-flow CSV adi3d wrote: --overwrite replaces only those; move it "
                             "away or choose another name",
                      __FILE__, __LINE__);
}

void HeatFlowCsv::append(const std::vector<double>& row) {
  if (!active()) return;
  const index_t step = static_cast<index_t>(row[0]);
  while (!steps_.empty() && steps_.back() >= step) {
    steps_.pop_back();
    lines_.pop_back();
  }
  std::ostringstream s;
  s << static_cast<long long>(step);
  char buf[40];
  for (std::size_t q = 1; q < row.size(); ++q) {
    std::snprintf(buf, sizeof buf, ",%.17g", row[q]);
    s << buf;
  }
  lines_.push_back(s.str());
  steps_.push_back(step);
  write();
}

void HeatFlowCsv::write() const {
  const std::string tmp = io::unique_temp_path(path_);
  const std::string what = "diagnostics.csv '" + path_ + "'";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << header_;
    for (const std::string& l : lines_) out << l << '\n';
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw io::IoError(what + ": cannot write " + tmp + " (" + std::strerror(errno) + ")", __FILE__, __LINE__);
    }
  }
  if (std::rename(tmp.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw io::IoError(what + ": cannot rename " + tmp + " to it (" + std::strerror(err) + ")", __FILE__, __LINE__);
  }
}

std::string heat_flow_summary(const HeatProblem& p, const HeatFlows& f, index_t step, double time) {
  std::ostringstream s;
  char buf[256];
  std::snprintf(buf, sizeof buf, "  heat flows  at step %lld (t = %.6g s), W into the body:\n",
                static_cast<long long>(step), time);
  s << buf;
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side) {
      const std::string kind = heat_flow_face_kind(p, a, side);
      if (kind == "none") continue;
      std::snprintf(buf, sizeof buf, "              %-3s %-11s %+.6e\n", heat_flow_face_name(a, side), kind.c_str(),
                    f.face[a][side]);
      s << buf;
    }
  std::snprintf(buf, sizeof buf,
                "              source          %+.6e\n              dE/dt           %+.6e\n"
                "              residual        %+.3e (%.2e of the largest term)\n",
                f.source, f.dEdt, f.residual(), f.relative_residual());
  s << buf;
  return s.str();
}

}  // namespace adi::app
