#pragma once
// adi3d run: how a rank takes part in the run (RunMode), the field as the
// writers see it (FieldBuffer), the output file and the checkpoints
// (RunWriters) and the heat flows recorded at the output steps
// (HeatFlowRecording). Internal to run_driver.cpp (templates on the real type).

#include "collective_watch.hpp"
#include "errors.hpp"
#include "heat_flow_log.hpp"
#include "log.hpp"
#include "run_driver.hpp"
#include "signals.hpp"

#include <adi/mpi.hpp>
#include <adi/stepper_heat_flows.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

namespace adi::app::run_detail {

namespace fs = std::filesystem;

/// Whether a distributed run writes its files collectively (parallel HDF5):
/// when the build has it, unless ADI_PARALLEL_IO=0 asks for the gather to
/// rank 0 (the path of builds without it; for comparison and debugging).
inline bool collective_io(const AppOptions& a) { return io::parallel_hdf5_built() && a.parallel_io; }

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

inline RunMode run_mode(const RunPlan& plan, const AppOptions& a) {
  RunMode m;
  m.distributed = plan.ranks > 1;
  m.root = mpi::world_rank() == 0;
  m.collective = m.distributed && collective_io(a);
  m.analytic_boxes =
      m.collective && plan.restart.empty() && plan.config.initial.kind == io::InitialConfig::Kind::Analytic;
  return m;
}


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

  /// Collective: the field of the step before, where the stepper keeps one
  /// for its next step (Stepper::exchange_previous_field: a checkpoint's
  /// /u_previous), laid out as values(); nullptr where it keeps none.
  /// values() is unchanged.
  const T* fetch_previous() {
    if (!st_.has_previous_field()) return nullptr;
    whole_.swap(previous_whole_);
    box_.swap(previous_box_);
    st_.exchange_previous_field();
    fetch();
    st_.exchange_previous_field();
    whole_.swap(previous_whole_);
    box_.swap(previous_box_);
    return m_.collective ? previous_box_.data() : previous_whole_.data();
  }

  const T* values() const { return m_.collective ? box_.data() : whole_.data(); }
  const std::vector<T>& box() const { return box_; }

 private:
  Stepper<T>& st_;
  const RunMode& m_;
  std::size_t points_;
  const std::optional<io::FieldPart>& part_;
  std::vector<T> whole_, box_;
  std::vector<T> previous_whole_, previous_box_;  // fetch_previous
};


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

  /// `previous`: FieldBuffer::fetch_previous (nullptr: none).
  void write_checkpoint(index_t s, double t, const T* values, const T* previous) {
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
    together([&] { io::write_checkpoint(plan_.checkpoint, st, values, prov_, part_ ? &*part_ : nullptr, previous); },
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

}  // namespace adi::app::run_detail
