// The nonlinear step of a temperature-dependent material (temperature_stepper.hpp).

#include <adi/temperature_stepper.hpp>

#include "rank_nodes.hpp"

#include <adi/error.hpp>
#include <adi/mpi.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <optional>
#include <utility>

namespace adi {

namespace {

// Base: Stepper<T>, or DistributedStepper<T> around one rank's box (the
// app asks a distributed run's stepper for its part).
template <class T, class Base>
class TemperatureStepper : public Base {
 public:
  TemperatureStepper(std::unique_ptr<Stepper<T>> inner, const HeatProblem& original)
      : inner_(std::move(inner)),
        original_(original),
        state_(original.material.temperature),
        rad_(original.radiation),
        dist_(dynamic_cast<mpi::DistributedStepper<T>*>(inner_.get())) {
    ADI_REQUIRE(state_ != nullptr || rad_ != nullptr,
                "TemperatureStepper: the problem has no temperature-dependent material and no radiating face");
    const HeatProblem& p = original_;
    std::array<index_t, 3> size = p.n;
    if (dist_) {
      nodes_.emplace(p, dist_->decomposition(), dist_->part());
      size = dist_->part().box.size;
      positions_ = nodes_->box_positions();
    }
    points_ = static_cast<std::size_t>(size[0] * size[1] * size[2]);
    conserve_ = state_ && state_->capacity_varies();
    for (int a = 0; a < 3; ++a) {
      fixed_[static_cast<std::size_t>(2 * a)] = !p.flat(a) && p.lo[static_cast<std::size_t>(a)] == Boundary::Dirichlet;
      fixed_[static_cast<std::size_t>(2 * a + 1)] =
          !p.flat(a) && p.hi[static_cast<std::size_t>(a)] == Boundary::Dirichlet;
    }
  }

  // The problem as given (the inner stepper's source is the radiation's field).
  const HeatProblem& problem() const override { return original_; }
  Backend backend() const override { return inner_->backend(); }
  std::string device_name() const override { return inner_->device_name(); }

  // The material follows the field that is set (the coefficients a first
  // phase or an output of the material sees).
  void set_field(const T* host) override {
    inner_->set_field(host);
    if (exchanged_) return;  // the previous field (exchange_previous_field)
    history_ = false;
    if (DeviceIterates<T>* dev = device()) {
      dev->evaluate_material(DeviceIterates<T>::kField, DeviceIterates<T>::kField, tstar());
      return;
    }
    evaluate(host, host);
    inner_->reload_material();
  }
  void get_field(T* host) override { inner_->get_field(host); }

  void step() override {
    agreed_ = false;
    const index_t s = this->step_index();
    inner_->set_time_origin(this->time_origin_, this->step_origin_);
    inner_->set_step_index(s);
    ADI_REQUIRE(!exchanged_, "TemperatureStepper::step: the field and the previous field are exchanged");
    step_with(iterates(), s);
    this->step_index_ = s + 1;
    history_ = extrapolated();
  }
  std::string step_notes() const override {
    if (steps_ == 0) return {};
    char buf[300];
    std::snprintf(buf, sizeof buf,
                  "nonlinear step (%s): %.2f linear steps a step on average, at most %d, over %lld steps (material "
                  "evaluated %s)",
                  nonlinear_step_name(original_.nonlinear),
                  static_cast<double>(linear_steps_) / static_cast<double>(steps_), most_,
                  static_cast<long long>(steps_), device() ? "on the device" : "on the host");
    std::string out = buf;
    if (extrapolated() && restarts_ > 0) {
      std::snprintf(buf, sizeof buf,
                    "; %lld of them predictor-corrector steps (the first, after a new field, or where the "
                    "extrapolation left a table)",
                    restarts_);
      out += buf;
    }
    return out;
  }
  bool has_previous_field() const override { return history_ && !exchanged_; }
  // The previous field is slot 0 (slot 1 holds the field while they are
  // exchanged). No evaluation: the material stays that of the field, which
  // every step evaluates again from its u^n.
  void exchange_previous_field() override {
    ADI_REQUIRE(extrapolated(), "TemperatureStepper: only scheme.nonlinear: extrapolated keeps a previous field");
    DeviceIterates<T>& it = iterates();
    it.store_iterate(exchanged_ ? 0 : 1);
    it.load_iterate(exchanged_ ? 1 : 0);
    exchanged_ = !exchanged_;
    if (!exchanged_) history_ = true;
  }
  bool failure_agreed() const override { return agreed_ || inner_->failure_agreed(); }
  FieldStats field_stats() override { return inner_->field_stats(); }
  // A whole step is the nonlinear one; its parts are the linear step's.
  void run_phase(Phase p) override {
    if (p == Phase::Step)
      step();
    else
      inner_->run_phase(p);
  }
  std::vector<Phase> phases() const override { return inner_->phases(); }
  std::size_t bytes_allocated() const override {
    return inner_->bytes_allocated() + host_.bytes();
  }
  std::array<index_t, 3> moved_extents() const override { return inner_->moved_extents(); }
  index_t moved_yz_lanes() const override { return inner_->moved_yz_lanes(); }
  FieldView<T> field_view() override { return inner_->field_view(); }
  void read_nodes(const std::array<index_t, 3>* nodes, std::size_t count, T* out) override {
    inner_->read_nodes(nodes, count, out);
  }
  void scatter_field(const T* root_host) override {
    if (!dist_) {
      set_field(root_host);
      return;
    }
    inner_->scatter_field(root_host);
    if (exchanged_) return;  // the previous field (exchange_previous_field)
    history_ = false;
    std::vector<T> u(points_);
    inner_->get_field(u.data());
    evaluate(u.data(), u.data());
    inner_->reload_material();
  }
  void gather_field(T* root_host) override { inner_->gather_field(root_host); }
  void impose_boundary_values() override {
    inner_->set_time_origin(this->time_origin_, this->step_origin_);
    inner_->set_step_index(this->step_index());
    inner_->impose_boundary_values();
  }
  void get_work(T* host) override { inner_->get_work(host); }
  void set_work(const T* host) override { inner_->set_work(host); }
  void reload_material() override { inner_->reload_material(); }

 protected:
  // Timed as the inner stepper times (its device's clock, its ranks).
  void clock_begin() override { Stepper<T>::clock_begin_of(*inner_); }
  double clock_end_ms() override { return Stepper<T>::clock_end_ms_of(*inner_); }
  void combine_timings(std::vector<double>& ms) override { Stepper<T>::combine_timings_of(*inner_, ms); }

  // The scheme's time of its explicit data in this step (the radiation's t*).
  double tstar() const { return this->time_at(this->step_index()) + original_.theta * original_.dt; }

  // The iterates beside a device field (one process; Stepper::device_iterates).
  DeviceIterates<T>* device() const { return dist_ ? nullptr : inner_->device_iterates(); }

  // The iterates on the host, this process' nodes (the CPU backend, MPI
  // ranks, ADI_DEVICE_MATERIAL=0): DeviceIterates' operations on host
  // vectors through the inner stepper's get_field / set_field, so that
  // step_with is one loop for both and the host is the device's oracle.
  // The field is read into `field_` where an operation reads it.
  class HostIterates final : public DeviceIterates<T> {
   public:
    explicit HostIterates(TemperatureStepper& o) : o_(o) {}
    void store_iterate(int s) override { o_.inner_->get_field(slot(s)); }
    void load_iterate(int s) override { o_.inner_->set_field(slot(s)); }
    // Its t* is the stepper's (TemperatureStepper::evaluate).
    void evaluate_material(int a, int b, double) override {
      o_.evaluate(values(a), values(b));
      o_.inner_->reload_material();
    }
    std::array<double, 3> iterate_change(int prev, int base) override {
      const T* u = field();
      const T *p = slot(prev), *b = slot(base);
      double m[3] = {0.0, 0.0, 0.0};
      for (std::size_t q = 0; q < o_.points_; ++q) {
        const double x = static_cast<double>(u[q]);
        const double c = std::fabs(x - static_cast<double>(p[q]));
        m[0] = std::isfinite(c) ? std::max(m[0], c) : std::numeric_limits<double>::infinity();
        m[1] = std::max(m[1], std::fabs(x - static_cast<double>(b[q])));
        m[2] = std::max(m[2], std::fabs(x));
      }
      if (o_.dist_) mpi::allreduce_max(m, 3);
      return {m[0], m[1], m[2]};
    }
    void extrapolate_iterate(int prev, int out) override {
      const T* u = field();
      const T* p = slot(prev);
      T* x = slot(out);
      for (std::size_t q = 0; q < o_.points_; ++q) x[q] = static_cast<T>(T(2) * u[q] - p[q]);
    }
    // A rank's failure is every rank's (the lowest failing rank's message).
    void conserve_enthalpy(int a, int b, const std::array<bool, 6>& fixed) override {
      ADI_REQUIRE(a != DeviceIterates<T>::kField && b != DeviceIterates<T>::kField,
                  "HostIterates::conserve_enthalpy: u0 and u1 are slots (the field is v)");
      T* v = field();
      const T *u0 = values(a), *u1 = values(b);
      if (!o_.dist_) {
        o_.state_->conserve_enthalpy(u0, u1, v, o_.points_, fixed);
      } else {
        try {
          detail::on_every_rank(
              [&] { o_.state_->conserve_enthalpy(u0, u1, v, o_.points_, fixed, &o_.positions_); },
              "in step " + std::to_string(o_.step_index() + 1));
        } catch (...) {
          o_.agreed_ = true;
          throw;
        }
      }
      o_.inner_->set_field(v);
    }
    std::size_t bytes() const { return (slots_[0].size() + slots_[1].size() + field_.size()) * sizeof(T); }

   private:
    T* slot(int s) {
      std::vector<T>& v = slots_[static_cast<std::size_t>(s)];
      v.resize(o_.points_);
      return v.data();
    }
    T* field() {
      field_.resize(o_.points_);
      o_.inner_->get_field(field_.data());
      return field_.data();
    }
    T* values(int s) { return s == DeviceIterates<T>::kField ? field() : slot(s); }
    TemperatureStepper& o_;
    std::array<std::vector<T>, 2> slots_;
    std::vector<T> field_;
  };
  DeviceIterates<T>& iterates() {
    if (DeviceIterates<T>* dev = device()) return *dev;
    return host_;
  }

  // Whether the iteration has converged after iteration `it` of step s with
  // the changes m (the iteration's, the step's, the field's size); throws
  // when it cannot any more.
  bool converged(const double m[3], int it, index_t s) {
    const double eps = sizeof(T) == 4 ? 1.2e-7 : 2.3e-16;
    if (m[0] <= kRelativeTolerance * m[1] + 8.0 * eps * m[2]) return true;
    if (it < kMaxIterations && std::isfinite(m[0])) return false;
    char buf[300];
    std::snprintf(buf, sizeof buf,
                  "the iteration of the temperature-dependent properties did not converge in step %lld: after %d "
                  "iterations the field still changed by %.3g (the step moved it by %.3g); reduce time.dt",
                  static_cast<long long>(s + 1), it, m[0], m[1]);
    agreed_ = dist_ != nullptr;  // the same numbers on every rank
    ADI_THROW(NumericalError, buf);
  }

  // The step from u^n (the field) with its iterates where the field is (a
  // device's, or the host's: HostIterates): slot 0 holds u^n, slot 1 the
  // latest iterate, the field the next one; with the extrapolation slot 0
  // holds u^(n-1) before the step. One sequence of operations for both, so
  // the device's are the host's bit for bit.
  void step_with(DeviceIterates<T>& dev, index_t s) {
    const double t = tstar();
    if (history_ && extrapolated()) {  // slot 0 holds u^(n-1)
      dev.extrapolate_iterate(0, 1);
      dev.store_iterate(0);
      if (evaluated_extrapolation([&] { dev.evaluate_material(0, 1, t); })) {
        inner_->step();
        if (conserve_) dev.conserve_enthalpy(0, 1, fixed_);
        count(1);
        return;
      }
    }
    dev.store_iterate(0);
    dev.evaluate_material(0, 0, t);
    inner_->step();
    dev.store_iterate(1);
    for (int it = 1;; ++it) {
      dev.evaluate_material(0, 1, t);
      dev.load_iterate(0);
      inner_->set_step_index(s);
      inner_->step();
      if (predictor_corrector()) {
        if (conserve_) dev.conserve_enthalpy(0, 1, fixed_);
        count(2);
        break;
      }
      const std::array<double, 3> m = dev.iterate_change(1, 0);
      dev.store_iterate(1);
      if (converged(m.data(), it, s)) {
        count(it + 1);
        break;
      }
    }
  }

  // Two linear steps a step, no iteration (NonlinearStep); an extrapolated
  // run's first step (and where its extrapolation cannot be evaluated).
  bool predictor_corrector() const {
    return original_.nonlinear == NonlinearStep::PredictorCorrector ||
           original_.nonlinear == NonlinearStep::Extrapolated;
  }
  // One linear step with the coefficients of the step from u^n to
  // u* = 2 u^n - u^(n-1), where a previous field is held.
  bool extrapolated() const { return original_.nonlinear == NonlinearStep::Extrapolated; }

  // Runs the extrapolated step's evaluation; false where it failed (u* out
  // of a table's range, a radiating node not above 0 K: an estimate past the
  // data, not a temperature of the solution), which every rank then sees
  // (evaluate agrees on failures): the step is then a predictor-corrector
  // step, whose evaluation at u^n throws where u^n itself is refused.
  template <class F>
  bool evaluated_extrapolation(F&& eval) {
    try {
      eval();
      return true;
    } catch (const Error&) {
      agreed_ = false;
      return false;
    }
  }

  // A completed step's linear steps (step_notes).
  void count(int linear) {
    if (extrapolated() && linear == 2) ++restarts_;
    ++steps_;
    linear_steps_ += linear;
    most_ = std::max(most_, linear);
  }

  // K and c for the step from u0 to u1 (this process' field: the whole grid,
  // or the rank's box). A rank's values at its ghost nodes come from its
  // neighbours; a failure on one rank is every rank's (the lowest failing
  // rank's own error, PeerError on the others).
  void evaluate(const T* u0, const T* u1) {
    // The radiation's source at the step's t* (the scheme's time of its
    // explicit data).
    const double tstar = this->tstar();
    if (!dist_) {
      if (state_) state_->evaluate_step(u0, u1);
      if (rad_) rad_->evaluate(u0, u1, tstar);
      return;
    }
    try {
      detail::on_every_rank(
          [&] {
            const std::vector<double> a = nodes_->on_nodes(u0), b = u1 == u0 ? a : nodes_->on_nodes(u1);
            if (state_) state_->evaluate_on(nodes_->nodes(), a.data(), b.data(), true);
            if (rad_) rad_->evaluate_on(nodes_->nodes(), a.data(), b.data(), tstar, true);
          },
          "in step " + std::to_string(this->step_index() + 1));
    } catch (...) {
      agreed_ = true;
      throw;
    }
  }

  static constexpr int kMaxIterations = 50;
  /// Converged: the last iteration changed the field by at most this much
  /// of what the step changed it (or round-off of the field).
  static constexpr double kRelativeTolerance = 1e-12;
  std::unique_ptr<Stepper<T>> inner_;
  HeatProblem original_;
  std::shared_ptr<TemperatureState> state_;  // either may be null, not both
  std::shared_ptr<RadiationState> rad_;
  mpi::DistributedStepper<T>* dist_ = nullptr;  // inner_ when it is one rank's box
  std::optional<detail::RankNodes> nodes_;       // its nodes (dist_ only)
  long long steps_ = 0, linear_steps_ = 0;  // completed steps, their linear steps (step_notes)
  long long restarts_ = 0;                   // extrapolated: predictor-corrector steps taken
  int most_ = 0;
  std::size_t points_ = 0;         // this process' nodes
  bool history_ = false;           // a previous field is held (extrapolated)
  bool conserve_ = false;          // some heat capacity is a table (conserve)
  std::array<bool, 6> fixed_{};    // the Dirichlet faces (lo x, hi x, ...): conserve leaves them
  std::vector<std::size_t> positions_;  // the box's nodes among nodes_ (dist_ only)
  bool exchanged_ = false;         // the field and the previous field are exchanged
  bool agreed_ = false;
  HostIterates host_{*this};       // the iterates where no device holds them
};

template <class T>
class DistributedTemperatureStepper final : public TemperatureStepper<T, mpi::DistributedStepper<T>> {
  using Base = TemperatureStepper<T, mpi::DistributedStepper<T>>;

 public:
  using Base::Base;
  const Decomposition& decomposition() const override { return this->dist_->decomposition(); }
  const LocalPart& part() const override { return this->dist_->part(); }
  mpi::CommTimes comm_times() const override { return this->dist_->comm_times(); }
  void reset_comm_times() override { this->dist_->reset_comm_times(); }
  void solve_lines(Axis axis, T* box) override { this->dist_->solve_lines(axis, box); }
};

}  // namespace

template <class T>
std::unique_ptr<Stepper<T>> wrap_temperature_stepper(std::unique_ptr<Stepper<T>> inner, const HeatProblem& original) {
  if (dynamic_cast<mpi::DistributedStepper<T>*>(inner.get()))
    return std::make_unique<DistributedTemperatureStepper<T>>(std::move(inner), original);
  return std::make_unique<TemperatureStepper<T, Stepper<T>>>(std::move(inner), original);
}

HeatProblem nonlinear_inner_problem(const HeatProblem& p) {
  HeatProblem q = p;
  if (p.radiation) {
    q.material.source = p.radiation->source();
    q.source = 0.0;
    q.source_table = TimeTable{};
  }
  return q;
}

template std::unique_ptr<Stepper<float>> wrap_temperature_stepper<float>(std::unique_ptr<Stepper<float>>,
                                                                         const HeatProblem&);
template std::unique_ptr<Stepper<double>> wrap_temperature_stepper<double>(std::unique_ptr<Stepper<double>>,
                                                                           const HeatProblem&);

}  // namespace adi
