#pragma once
// The heat flows of a run (diagnostics.heat_flows: adi/heat_flows.hpp) as
// the app records them: a row per output step into the output file's
// /diagnostics/heat_flows and, with diagnostics.csv, a CSV file; a block of
// the run summary. The measuring itself is collective (all ranks); what is
// here is rank 0's bookkeeping and text.
#include <adi/heat_flows.hpp>
#include <adi/io/config.hpp>
#include <adi/io/hdf5.hpp>

#include <string>
#include <utility>
#include <vector>

namespace adi::app {

/// The table's dataset in the output file.
inline constexpr const char* kHeatFlowDataset = "/diagnostics/heat_flows";

/// "step", "time", then HeatFlows::values()' names.
std::vector<std::string> heat_flow_table_columns();
/// The table's attributes: units and the kind of each face.
std::vector<std::pair<std::string, std::string>> heat_flow_table_attributes(const HeatProblem& p);
/// One row: step, time, the nine values.
std::vector<double> heat_flow_row(index_t step, double time, const HeatFlows& f);

/// Where diagnostics.csv writes ("" when off): its file name, or beside the
/// output (run.h5 -> run.heat_flows.csv), or after the config without an
/// output (case.yaml -> case.heat_flows.csv in the working directory).
std::string heat_flow_csv_path(const io::RunConfig& c, const std::string& output);

/// The CSV of a run: all its rows rewritten to a temporary and renamed over
/// the file at every output step, so a reader (or a killed run) never sees
/// half a file. A restart keeps the rows up to its step from the file it
/// finds and goes on after them.
class HeatFlowCsv {
 public:
  HeatFlowCsv() = default;
  /// Checks the path before the run (IoError): an existing file is refused
  /// unless `overwrite` or a restart (which continues it: it must then be a
  /// heat-flow CSV, whose rows after `restart_step` are dropped).
  HeatFlowCsv(std::string path, const HeatProblem& p, bool overwrite, bool restart, index_t restart_step);
  bool active() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  void append(const std::vector<double>& row);

 private:
  void write() const;
  std::string path_, header_;
  std::vector<std::string> lines_;
  std::vector<index_t> steps_;
};

/// The run summary's lines (two-space indent, like the others).
std::string heat_flow_summary(const HeatProblem& p, const HeatFlows& f, index_t step, double time);

}  // namespace adi::app
