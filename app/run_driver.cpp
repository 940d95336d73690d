// adi3d run: the time loop (see run_driver.hpp): the initial state, the
// stepper, the step loop and the final errors. The plan is run_plan.cpp,
// the paths run_paths.cpp, the writers run_writers.hpp.
//
// Time is always t = step * dt, never a running sum, so a run restarted from
// a checkpoint (which stores the step) sees exactly the same times, output
// steps and checkpoint steps as an uninterrupted one.

#include "run_driver.hpp"
#include "run_writers.hpp"

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
#include <adi/factory.hpp>
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

using namespace run_detail;
using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

/// Above this, a distributed run warns that every output and checkpoint
/// gathers the whole field to rank 0 (no parallel HDF5 in this build).
constexpr double kGatherWarnBytes = 4.0 * (1 << 30);

/// Rank 0's provenance on every rank: a collective file's attributes must
/// be the same on all of them (host and start time differ).
void share_provenance(io::Provenance& p) {
  for (std::string* f : {&p.version, &p.git_hash, &p.build_type, &p.cxx_compiler, &p.cuda_compiler, &p.hdf5_version,
                         &p.backend, &p.device, &p.host, &p.command_line, &p.slurm_job_id, &p.start_time,
                         &p.end_time, &p.config_yaml, &p.fields, &p.time_segments})
    mpi::broadcast(*f);
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


// ---- the initial state ------------------------------------------------------

template <class T>
struct InitialState {
  std::vector<T> field;  ///< the whole field on rank 0 (empty elsewhere, and with analytic boxes)
  index_t step = 0;      ///< 0, or the checkpoint's step
  /// The checkpoint's /u_previous on rank 0 where the stepper takes it (an
  /// extrapolated nonlinear step restarted with the same dt); else empty.
  std::vector<T> previous;
  bool has_previous = false;  ///< the same on every rank
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
  // The previous field continues an extrapolated step only on its own time
  // step (u* = 2 u^n - u^(n-1) assumes equal steps): with a new dt, or
  // without the field, the first step is a predictor-corrector step.
  if (!plan.restart.empty() && p.nonlinear == NonlinearStep::Extrapolated) {
    st.has_previous = plan.restart_state.has_previous && plan.restart_state.dt == p.dt;
    if (m.root && plan.restart_state.has_previous && !st.has_previous)
      spdlog::info("the restart changes dt: the extrapolated nonlinear step starts again with a predictor-corrector "
                   "step");
    else if (m.root && !plan.restart_state.has_previous)
      spdlog::info("{} holds no previous field (/u_previous): the extrapolated nonlinear step starts again with a "
                   "predictor-corrector step",
                   plan.restart);
  }
  collectively([&] {
    if (!m.root) return;
    if (!plan.restart.empty()) {
      st.field = io::read_checkpoint_field<T>(plan.restart, plan.restart_state);
      if (st.has_previous) st.previous = io::read_checkpoint_previous<T>(plan.restart, plan.restart_state);
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
  if (init.has_previous) {  // Stepper::exchange_previous_field's restart
    rs.stepper->exchange_previous_field();
    rs.stepper->scatter_field(m.root ? init.previous.data() : nullptr);
    rs.stepper->exchange_previous_field();
    std::vector<T>().swap(init.previous);
  }
}


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
        if (target - s_ > 1) advance(target - 1 - s_);
        rate = step_rate();
      } else {
        advance(target - s_);
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
        const T* previous = field_.fetch_previous();
        writers_.write_checkpoint(s_, t, field_.values(), previous);
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

  /// The stepper's steps. A failure its ranks agreed on (a zero pivot on one
  /// rank: its error there, PeerError on the others) reaches every rank at
  /// once, so it ends as an error all ranks raise together (collectively):
  /// one rank prints it, the output is marked failed with its words, and
  /// the job ends with its code instead of MPI_Abort. A failure on one rank
  /// alone leaves the others in the step's collectives: main aborts.
  void advance(index_t count) {
    try {
      st_.advance(count);
    } catch (const std::exception&) {
      if (!m_.distributed || !st_.failure_agreed()) throw;
      collectively([ep = std::current_exception()] { std::rethrow_exception(ep); });
    }
  }

  /// Collective: one step, and max|u^{n+1} - u^n| / dt over it (every rank
  /// compares its own box; the maximum over the ranks).
  double step_rate() {
    if (prev_.empty()) {
      prev_.resize(static_cast<std::size_t>(rank_points(st_, m_.distributed, plan_.config.problem.n)));
      cur_.resize(prev_.size());
    }
    st_.get_field(prev_.data());
    advance(1);
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
  // Temperature-dependent properties: the energy's weights c(u) change from
  // step to step, so neither bound holds; a run that blows up leaves its
  // tables' range, which stops it (TemperatureState::evaluate).
  const bool nonlinear = c.problem.material.temperature != nullptr || c.problem.radiation != nullptr;
  // A problem with data: the energy may grow only as fast as the data feed
  // it (energy_guard.hpp: DataBound), from this rank's box, over the ranks.
  DataBound bound;
  if (!guarded && !nonlinear) {
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
                   nonlinear ? EnergyGuard()
                   : guarded ? EnergyGuard(true, f32, c.problem)
                             : EnergyGuard(bound, f32, c.problem),
                   *probes, *flux);
  if (nonlinear)
    spdlog::debug("energy guard off: temperature-dependent properties or radiating faces (a table's range, or "
                  "a radiating node's temperature, stops a run that blows up)");
  else if (guarded)
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
    if (const std::string notes = rs.stepper->step_notes(); !notes.empty() && m.root) spdlog::info("{}", notes);
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
      const T* previous = field.fetch_previous();
      writers.write_checkpoint(end.step, schedule.time_of(end.step), field.values(), previous);
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
  if (c.problem.material.temperature || c.problem.radiation)
    spdlog::info("steady: {} linear solves about the last iterate ({}), the last changed the field by {:.3e} of its "
                 "largest value",
                 sr.outer_iterations,
                 c.problem.material.temperature && c.problem.radiation ? "temperature tables, radiating faces"
                 : c.problem.radiation                                 ? "radiating faces"
                                                                       : "temperature tables",
                 sr.outer_change);
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
          << sr.residual << std::defaultfloat << " after " << sr.iterations << " sweeps";
      if (c.problem.material.temperature || c.problem.radiation)
        msg << " and " << sr.outer_iterations << " linear solves about the last iterate (the last "
            << "changed the field by " << std::scientific << std::setprecision(3) << sr.outer_change
            << std::defaultfloat << " of its largest value)";
      msg << " (solve.steady.tolerance "
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
