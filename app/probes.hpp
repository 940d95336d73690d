#pragma once
// Probes in `adi3d run` (io/point_probes.hpp): which steps record a row, how
// the few nodes each probe needs are read from the stepper, and where the
// rows go (the output file's /probes/<name>, a CSV).
//
// Reading: a probe needs at most 8 nodes. A single-process stepper reads
// them with Stepper::read_nodes (in place on the CPU, one small copy a node
// from a GPU): no copy of the field. A rank of a distributed run copies its
// own box (Stepper::get_field, no communication) only at steps that record
// and only when it owns a node some probe needs, then one all-reduce of the
// probes' corner values (each owned by exactly one rank, the others add 0)
// gives every rank the same corners, interpolated in one fixed order: the
// same values whatever the rank count (up to the field's own round-off
// differences between rank counts).
//
// Rows are kept in memory and written (flush) before every checkpoint (a
// restart from step s then finds every row up to s), at output steps, and
// at the end; a restart cuts both files to the rows up to its step and
// records on from there (the start step's row is already there).

#include "run_driver.hpp"

#include <adi/io/io.hpp>
#include <adi/solver.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace adi::app {

/// The steps that record: step 0, every `every` steps, the last step.
struct ProbeSchedule {
  index_t every = 0;  ///< 0: no probes
  index_t steps = 0;  ///< the run's last step
  bool due(index_t s) const { return every > 0 && (s == 0 || s % every == 0 || s == steps); }
  /// The first step after s that records (steps + 1: none).
  index_t next_after(index_t s) const;
};
ProbeSchedule probe_schedule(const io::RunConfig& c);

template <class T>
class ProbeRecorder {
 public:
  /// All ranks: `st` is the run's stepper (distributed: this rank's part).
  /// `root` (rank 0) writes the CSV: created here (a restart from
  /// `start_step` keeps the CSV's rows up to it).
  ProbeRecorder(const RunPlan& plan, Stepper<T>& st, bool distributed, bool root, index_t start_step);
  bool active() const { return !stencils_.empty(); }
  bool due(index_t s) const { return active() && schedule_.due(s); }
  /// The loop steps no further than this without recording.
  index_t next_due(index_t s) const { return active() ? schedule_.next_after(s) : schedule_.steps + 1; }
  /// Collective (distributed): the row of step s (the stepper's current state).
  void record(index_t s, double t);
  /// Writes the rows recorded since the last flush: to_output(rows) (the
  /// output file; every rank calls it, as the writers do) and the CSV (rank 0).
  template <class F>
  void flush(F&& to_output) {
    if (rows_.empty()) return;
    to_output(static_cast<const io::ProbeRows&>(rows_));
    if (csv_) csv_->append(rows_);
    rows_.clear();
  }
  const std::vector<io::ProbeStencil>& stencils() const { return stencils_; }

 private:
  Stepper<T>& st_;
  bool distributed_;
  ProbeSchedule schedule_;
  std::vector<io::ProbeStencil> stencils_;
  std::vector<std::size_t> first_;           ///< where probe p's corners start in corners_
  std::vector<double> corners_;              ///< every probe's corner values, in order
  std::vector<std::array<index_t, 3>> mine_; ///< this rank's corner nodes (box-local indices)
  std::vector<std::size_t> slot_;            ///< ... and their place in corners_
  std::vector<T> read_, box_;
  std::optional<io::ProbeCsv> csv_;
  io::ProbeRows rows_;
};

/// The CSV among the run's paths (before anything is written): not the
/// output, checkpoint or an input; an existing one is replaced only with
/// --overwrite and only when it is a probes CSV (a restart continues it);
/// its folder must take a new file; one run per CSV (a lock).
void check_probe_paths(const RunPlan& plan, const RunOptions& o);

/// A restart cuts the probe series (output file and CSV) to the rows up to
/// its step; rows after it that this run would not record again (past its
/// last step, off its schedule, a probe no longer in the config) would be
/// lost: refused (ConfigError) unless `discard_allowed`.
void check_restart_keeps_probes(const RunPlan& plan, bool discard_allowed);

}  // namespace adi::app
