// The nonlinear step of a temperature-dependent material (temperature_stepper.hpp).

#include <adi/temperature_stepper.hpp>

#include <adi/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace adi {

namespace {

template <class T>
class TemperatureStepper final : public Stepper<T> {
 public:
  explicit TemperatureStepper(std::unique_ptr<Stepper<T>> inner)
      : inner_(std::move(inner)), state_(inner_->problem().material.temperature) {
    ADI_REQUIRE(state_ != nullptr, "TemperatureStepper: the problem has no temperature-dependent material");
    const auto n = static_cast<std::size_t>(inner_->problem().points());
    un_.resize(n);
    uk_.resize(n);
    next_.resize(n);
  }

  const HeatProblem& problem() const override { return inner_->problem(); }
  Backend backend() const override { return inner_->backend(); }
  std::string device_name() const override { return inner_->device_name(); }

  // The material follows the field that is set (the coefficients a first
  // phase or an output of the material sees).
  void set_field(const T* host) override {
    inner_->set_field(host);
    state_->evaluate(host);
    inner_->reload_material();
  }
  void get_field(T* host) override { inner_->get_field(host); }

  void step() override {
    const index_t s = this->step_index();
    inner_->set_time_origin(this->time_origin_, this->step_origin_);
    inner_->set_step_index(s);
    inner_->get_field(un_.data());
    // The first iterate: the coefficients at u^n.
    state_->evaluate(un_.data());
    inner_->reload_material();
    inner_->step();
    inner_->get_field(uk_.data());
    // Then the step from u^n again with K at the midpoint of u^n and the
    // latest iterate and c their enthalpy chord, until the iterates agree:
    // at least once (second order), at most kMaxIterations times.
    const double eps = sizeof(T) == 4 ? 1.2e-7 : 2.3e-16;
    for (int it = 1;; ++it) {
      state_->evaluate_step(un_.data(), uk_.data());
      inner_->reload_material();
      inner_->set_field(un_.data());
      inner_->set_step_index(s);
      inner_->step();
      inner_->get_field(next_.data());
      double change = 0.0, moved = 0.0, size = 0.0;
      for (std::size_t q = 0; q < next_.size(); ++q) {
        const double x = static_cast<double>(next_[q]);
        change = std::max(change, std::fabs(x - static_cast<double>(uk_[q])));
        moved = std::max(moved, std::fabs(x - static_cast<double>(un_[q])));
        size = std::max(size, std::fabs(x));
      }
      uk_.swap(next_);
      last_iterations_ = it;
      if (!(change <= kRelativeTolerance * moved + 8.0 * eps * size)) {
        if (it < kMaxIterations && std::isfinite(change)) continue;
        char buf[300];
        std::snprintf(buf, sizeof buf,
                      "the iteration of the temperature-dependent properties did not converge in step %lld: after %d "
                      "iterations the field still changed by %.3g (the step moved it by %.3g); reduce time.dt",
                      static_cast<long long>(s + 1), it, change, moved);
        ADI_THROW(NumericalError, buf);
      }
      break;
    }
    this->step_index_ = s + 1;
  }
  /// The iterations the last step took (the first iterate not counted).
  int last_iterations() const { return last_iterations_; }
  bool failure_agreed() const override { return inner_->failure_agreed(); }
  FieldStats field_stats() override { return inner_->field_stats(); }
  void run_phase(Phase p) override { inner_->run_phase(p); }
  std::vector<Phase> phases() const override { return inner_->phases(); }
  std::size_t bytes_allocated() const override {
    return inner_->bytes_allocated() + (un_.size() + uk_.size() + next_.size()) * sizeof(T);
  }
  std::array<index_t, 3> moved_extents() const override { return inner_->moved_extents(); }
  index_t moved_yz_lanes() const override { return inner_->moved_yz_lanes(); }
  FieldView<T> field_view() override { return inner_->field_view(); }
  void read_nodes(const std::array<index_t, 3>* nodes, std::size_t count, T* out) override {
    inner_->read_nodes(nodes, count, out);
  }
  void impose_boundary_values() override {
    inner_->set_time_origin(this->time_origin_, this->step_origin_);
    inner_->set_step_index(this->step_index());
    inner_->impose_boundary_values();
  }
  void get_work(T* host) override { inner_->get_work(host); }
  void set_work(const T* host) override { inner_->set_work(host); }
  void reload_material() override { inner_->reload_material(); }

 private:
  std::unique_ptr<Stepper<T>> inner_;
  std::shared_ptr<TemperatureState> state_;
  static constexpr int kMaxIterations = 50;
  /// Converged: the last iteration changed the field by at most this much
  /// of what the step changed it (or round-off of the field).
  static constexpr double kRelativeTolerance = 1e-12;
  std::vector<T> un_, uk_, next_;  // u^n, the latest iterate, the next one (host)
  int last_iterations_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<Stepper<T>> wrap_temperature_stepper(std::unique_ptr<Stepper<T>> inner) {
  return std::make_unique<TemperatureStepper<T>>(std::move(inner));
}

template std::unique_ptr<Stepper<float>> wrap_temperature_stepper<float>(std::unique_ptr<Stepper<float>>);
template std::unique_ptr<Stepper<double>> wrap_temperature_stepper<double>(std::unique_ptr<Stepper<double>>);

}  // namespace adi
