#pragma once
// The stepper contract for temperature-dependent materials
// (adi/temperature.hpp, adi/temperature_stepper.hpp) on the single-process
// backends (the MPI ranks: test_mpi.py's part temperature against the serial
// run): the verify checks (Kirchhoff steady state marched and solved, order in
// time, enthalpy balance), a re-read material equal to a stepper built on
// those values, restarts bit for bit, and a temperature outside a table
// stopping the step by name.

#include "stepper_contract.hpp"

#include <adi/radiation.hpp>
#include <adi/temperature.hpp>
#include <adi/temperature_stepper.hpp>

namespace adi::test::contract {

template <class C>
class TemperatureContract : public ::testing::Test {};
TYPED_TEST_SUITE_P(TemperatureContract);

namespace temperature {

/// Two materials (x below / above the middle): one with a K(T) table of three
/// points, one with a constant K and a c(T) table; an 11 x 9 x 7
/// box with a convective face, a fixed one and insulated ones, a source.
/// radiate: x_lo (convective) also radiates, and z_hi (insulated): the
/// problem's radiation state is made (what io::attach_fields does); without
/// attach_state the source is that state's field directly (the inner
/// stepper's problem, nonlinear_inner_problem).
/// anisotropic: material a's conductivity a different table per axis;
/// source_field: the source a field (q(x) under the radiation's source).
inline HeatProblem problem(std::shared_ptr<TemperatureState>& state, bool attach_state = true, bool radiate = false,
                           bool anisotropic = false, bool source_field = false) {
  HeatProblem p;
  p.n = {11, 9, 7};
  p.length = {1.0, 0.9, 0.7};
  p.lo = {Boundary::Robin, Boundary::Neumann, Boundary::Neumann};
  p.hi = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
  p.lo_data[0].h = 5.0;
  p.lo_data[0].ambient = 280.0;
  p.hi_data[0].value_from_initial = false;
  p.hi_data[0].value = 330.0;
  p.source = 200.0;
  p.dt = 0.01;
  std::vector<double> idx(static_cast<std::size_t>(p.points()));
  for (index_t q = 0; q < p.points(); ++q) idx[static_cast<std::size_t>(q)] = (q % p.n[0]) < 5 ? 0.0 : 1.0;
  TemperatureMaterial a, b;
  a.name = "a";
  a.conductivity.fill(PropertyTable{{250.0, 300.0, 400.0}, {2.0, 1.6, 1.1}});
  a.capacity = PropertyTable::constant_value(1.5);
  b.name = "b";
  b.conductivity.fill(PropertyTable::constant_value(0.8));
  b.capacity = PropertyTable{{250.0, 400.0}, {2.0, 3.0}};
  if (anisotropic) {
    a.conductivity[1] = PropertyTable{{240.0, 410.0}, {3.0, 1.0}};
    a.conductivity[2] = PropertyTable::constant_value(0.6);
  }
  state = std::make_shared<TemperatureState>(p.n, std::make_shared<ArrayField>("region", p.n, idx),
                                             std::vector<TemperatureMaterial>{a, b}, !anisotropic);
  if (attach_state) p.material.temperature = state;
  if (source_field) {
    std::vector<double> q(static_cast<std::size_t>(p.points()));
    for (index_t i = 0; i < p.points(); ++i) q[static_cast<std::size_t>(i)] = 150.0 + 3.0 * static_cast<double>(i % 17);
    p.material.source = std::make_shared<ArrayField>("q", p.n, q);
  }
  p.material.conductivity = {state->conductivity(0), state->conductivity(1), state->conductivity(2)};
  p.material.capacity = state->capacity();
  if (radiate) {
    p.lo_data[0].emissivity = 0.7;
    p.lo_data[0].radiation_ambient = 290.0;
    p.hi_data[2].emissivity = 0.9;
    p.hi_data[2].radiation_ambient = 250.0;
    p.radiation = std::make_shared<RadiationState>(p);
    if (!attach_state) p = nonlinear_inner_problem(p);
  }
  return p;
}

inline std::vector<double> start(const HeatProblem& p) {
  std::vector<double> u(static_cast<std::size_t>(p.points()));
  for (index_t q = 0; q < p.points(); ++q)
    u[static_cast<std::size_t>(q)] = 300.0 + 20.0 * std::sin(0.7 * static_cast<double>(q % 13));
  return u;
}

}  // namespace temperature

TYPED_TEST_P(TemperatureContract, KirchhoffSlab) {
  ADI_CONTRACT_PRELUDE();
  using B = typename TypeParam::Backend;
  expect_check<B>(verify::kirchhoff_slab(B::spec()), B::spec());
}
TYPED_TEST_P(TemperatureContract, KirchhoffSteadySolve) {
  ADI_CONTRACT_PRELUDE();
  using B = typename TypeParam::Backend;
  expect_check<B>(verify::kirchhoff_steady_solve(B::spec()), B::spec());
}
TYPED_TEST_P(TemperatureContract, SecondOrderInTime) {
  ADI_CONTRACT_PRELUDE();
  using B = typename TypeParam::Backend;
  expect_check<B>(verify::temperature_time_order(B::spec()), B::spec());
  expect_check<B>(verify::temperature_time_order(B::spec(), NonlinearStep::PredictorCorrector), B::spec());
  expect_check<B>(verify::temperature_time_order(B::spec(), NonlinearStep::Extrapolated), B::spec());
}
TYPED_TEST_P(TemperatureContract, EnthalpyBalance) {
  ADI_CONTRACT_PRELUDE();
  using B = typename TypeParam::Backend;
  expect_check<B>(verify::enthalpy_balance(B::spec()), B::spec());
  expect_check<B>(verify::enthalpy_balance(B::spec(), NonlinearStep::PredictorCorrector), B::spec());
  expect_check<B>(verify::enthalpy_balance(B::spec(), NonlinearStep::Extrapolated), B::spec());
}

/// The step's linear steps, as the run reports them (Stepper::step_notes):
/// exactly two with the predictor-corrector, more when iterated to
/// round-off, one after the first with the extrapolation; the treatments
/// agree to the scheme's error, not bit for bit.
TYPED_TEST_P(TemperatureContract, PredictorCorrectorTakesTwoLinearSteps) {
  ADI_CONTRACT_PRELUDE();
  using B = typename TypeParam::Backend;
  using T = typename TypeParam::Real;
  std::vector<std::vector<T>> out;
  for (const NonlinearStep how :
       {NonlinearStep::Iterate, NonlinearStep::PredictorCorrector, NonlinearStep::Extrapolated}) {
    std::shared_ptr<TemperatureState> state;
    HeatProblem p = temperature::problem(state, true, true);
    p.nonlinear = how;
    auto st = B::template make<T>(p);
    EXPECT_EQ("", st->step_notes());
    const std::vector<double> u0 = temperature::start(p);
    std::vector<T> u(u0.begin(), u0.end());
    st->set_field(u.data());
    st->impose_boundary_values();
    st->advance(3);
    st->get_field(u.data());
    out.push_back(u);
    const std::string notes = st->step_notes();
    if (how == NonlinearStep::PredictorCorrector)
      EXPECT_NE(std::string::npos, notes.find("2.00 linear steps a step on average, at most 2, over 3 steps")) << notes;
    else if (how == NonlinearStep::Extrapolated)
      EXPECT_NE(std::string::npos, notes.find("1.33 linear steps a step on average, at most 2, over 3 steps")) << notes;
    else
      EXPECT_EQ(std::string::npos, notes.find("at most 2,")) << notes;
  }
  // Against what the three steps changed (a rough start: its first steps
  // change it most).
  std::shared_ptr<TemperatureState> s0;
  const std::vector<double> u0 = temperature::start(temperature::problem(s0));
  for (std::size_t k = 1; k < out.size(); ++k) {
    double diff = 0.0, moved = 0.0;
    for (std::size_t q = 0; q < out[0].size(); ++q) {
      diff = std::max(diff, std::abs(static_cast<double>(out[0][q]) - static_cast<double>(out[k][q])));
      moved = std::max(moved, std::abs(static_cast<double>(out[0][q]) - u0[q]));
    }
    EXPECT_GT(diff, 0.0) << k;
    EXPECT_LT(diff, 0.05 * moved) << k << ": moved " << moved;
  }
}

/// The extrapolated step's history (Stepper::exchange_previous_field): six
/// steps in one run against three, the field and the previous field read
/// out, and three more from a new stepper given both (what a checkpoint and
/// its restart do): bit for bit, with one linear step a step after the
/// restart. A new field drops the history: the next step is a
/// predictor-corrector step again.
TYPED_TEST_P(TemperatureContract, ExtrapolatedRestartIsBitForBit) {
  ADI_CONTRACT_PRELUDE();
  using B = typename TypeParam::Backend;
  using T = typename TypeParam::Real;
  auto make = [] {
    std::shared_ptr<TemperatureState> s;
    HeatProblem p = temperature::problem(s, true, true);
    p.nonlinear = NonlinearStep::Extrapolated;
    return B::template make<T>(p);
  };
  std::shared_ptr<TemperatureState> s0;
  const std::vector<double> u0 = temperature::start(temperature::problem(s0));
  std::vector<T> a(u0.begin(), u0.end()), b = a, prev(a.size());
  auto whole = make();
  EXPECT_FALSE(whole->has_previous_field());
  whole->set_field(a.data());
  whole->impose_boundary_values();
  whole->advance(6);
  whole->get_field(a.data());
  {
    auto first = make();
    first->set_field(b.data());
    first->impose_boundary_values();
    first->advance(3);
    ASSERT_TRUE(first->has_previous_field());
    first->get_field(b.data());
    first->exchange_previous_field();
    EXPECT_FALSE(first->has_previous_field());
    first->get_field(prev.data());
    first->exchange_previous_field();
    ASSERT_TRUE(first->has_previous_field());
    std::vector<T> again(b.size());
    first->get_field(again.data());
    EXPECT_EQ(0, std::memcmp(again.data(), b.data(), b.size() * sizeof(T))) << "two exchanges changed the field";
    EXPECT_NE(0, std::memcmp(prev.data(), b.data(), b.size() * sizeof(T)));
    first->set_field(b.data());
    EXPECT_FALSE(first->has_previous_field()) << "a new field keeps the old history";
  }
  auto second = make();
  second->set_field(b.data());
  second->exchange_previous_field();
  second->set_field(prev.data());
  second->exchange_previous_field();
  ASSERT_TRUE(second->has_previous_field());
  second->set_step_index(3);
  second->advance(3);
  second->get_field(b.data());
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(T))) << "a restart at step 3 differs";
  const std::string notes = second->step_notes();
  EXPECT_NE(std::string::npos, notes.find("1.00 linear steps a step on average, at most 1, over 3 steps")) << notes;
  // Without the previous field the first step is the predictor-corrector's.
  auto fresh = make();
  fresh->set_field(b.data());
  fresh->advance(2);
  EXPECT_NE(std::string::npos, fresh->step_notes().find("1.50 linear steps a step on average, at most 2, over 2 steps"))
      << fresh->step_notes();
}

/// The backend's stepper (not wrapped) re-reads the state's new values: its
/// next step is bit for bit the step of a stepper built on those values.
/// Both schemes, and with moving Dirichlet faces (a time table, values from
/// the initial field): their Douglas terms are made of the material too.
TYPED_TEST_P(TemperatureContract, ReloadedMaterialIsARebuild) {
  ADI_CONTRACT_PRELUDE();
  using B = typename TypeParam::Backend;
  using T = typename TypeParam::Real;
  for (const SchemeType scheme : {SchemeType::Strang, SchemeType::Douglas})
    for (const int variant : {0, 1, 2}) {
      const bool moving = variant == 1, radiate = variant == 2;
      SCOPED_TRACE(std::string(scheme_name(scheme)) + (moving ? ", moving Dirichlet faces" : "") +
                   (radiate ? ", radiating faces" : ""));
      std::shared_ptr<TemperatureState> state;
      HeatProblem p = temperature::problem(state, false, radiate);  // the plain stepper, no nonlinear step
      const std::shared_ptr<RadiationState> rad = radiate ? p.radiation : nullptr;
      p.radiation = nullptr;
      p.scheme = scheme;
      std::vector<double> u0 = temperature::start(p), u1 = u0;
      if (moving) {
        p.lo[2] = Boundary::Dirichlet;  // values from the initial field, a table
        p.lo_data[2].value_from_initial = true;
        p.lo_data[2].table = TimeTable{{0.0, 1.0}, {1.0, 3.0}};
        p.hi_data[0].table = TimeTable{{0.0, 1.0}, {1.0, 0.5}};
        p.initial_field = std::make_shared<ArrayField>("u0", p.n, u0);
      }
      auto st = B::template make<T>(p);
      for (double& v : u1) v += 60.0;
      state->evaluate(u1.data());
      if (rad) rad->evaluate(u0.data(), u1.data(), 0.005);
      st->reload_material();
      HeatProblem fixed = p;
      std::vector<double> k(u0.size()), c(u0.size()), q(u0.size());
      state->conductivity(0)->read({{0, 0, 0}}, p.n, k.data());
      state->capacity()->read({{0, 0, 0}}, p.n, c.data());
      auto K = std::make_shared<ArrayField>("K", p.n, k);
      fixed.material.conductivity = {K, K, K};
      fixed.material.capacity = std::make_shared<ArrayField>("c", p.n, c);
      if (rad) {
        rad->source()->read({{0, 0, 0}}, p.n, q.data());
        fixed.material.source = std::make_shared<ArrayField>("q", p.n, q);
      }
      auto ref = B::template make<T>(fixed);
      std::vector<T> a(u0.begin(), u0.end()), b = a;
      st->set_field(a.data());
      ref->set_field(b.data());
      st->step();
      ref->step();
      st->get_field(a.data());
      ref->get_field(b.data());
      EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(T))) << "the reloaded stepper differs";
      // And the values did change the step: the same step with K(u0).
      state->evaluate(u0.data());
      if (rad) rad->evaluate(u0.data(), u0.data(), 0.005);
      st->reload_material();
      std::vector<T> d(u0.begin(), u0.end());
      st->set_field(d.data());
      st->set_step_index(0);
      st->step();
      st->get_field(d.data());
      EXPECT_NE(0, std::memcmp(a.data(), d.data(), a.size() * sizeof(T)));
    }
}

/// Six steps in one run and three + three through a new stepper set to step
/// 3 with the field of step 3 (what a restart does): bit for bit.
TYPED_TEST_P(TemperatureContract, RestartIsBitForBit) {
  ADI_CONTRACT_PRELUDE();
  using B = typename TypeParam::Backend;
  using T = typename TypeParam::Real;
  // With radiating faces too (their source is evaluated at the iterates).
  std::shared_ptr<TemperatureState> s1, s2;
  const HeatProblem p1 = temperature::problem(s1, true, true), p2 = temperature::problem(s2, true, true);
  const std::vector<double> u0 = temperature::start(p1);
  std::vector<T> a(u0.begin(), u0.end()), b = a;
  auto whole = B::template make<T>(p1);
  whole->set_field(a.data());
  whole->impose_boundary_values();
  whole->advance(6);
  whole->get_field(a.data());
  EXPECT_EQ(6, whole->step_index());
  {
    auto first = B::template make<T>(p2);
    first->set_field(b.data());
    first->impose_boundary_values();
    first->advance(3);
    first->get_field(b.data());
  }
  std::shared_ptr<TemperatureState> s3;
  const HeatProblem p3 = temperature::problem(s3, true, true);
  auto second = B::template make<T>(p3);
  second->set_field(b.data());
  second->set_step_index(3);
  second->advance(3);
  second->get_field(b.data());
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(T))) << "a restart at step 3 differs";
}

/// The nonlinear step with its iterates and coefficients on the device
/// (Stepper::device_iterates, the CUDA stepper) against the same step
/// through the host (SolverOptions::device_material off): bit for bit, both
/// schemes, both precisions, isotropic and per-axis tables, radiating faces
/// with a constant and a field source, and radiation alone. The CPU stepper
/// has no device evaluation: both runs are the host's.
template <class B, class T>
void device_against_host(SchemeType scheme, int variant) {
  auto build = [&](bool on) {
    std::shared_ptr<TemperatureState> state;
    HeatProblem p = temperature::problem(state, true, variant >= 2, variant == 1, variant == 3);
    if (variant == 5) p.nonlinear = NonlinearStep::PredictorCorrector;
    if (variant == 6) p.nonlinear = NonlinearStep::Extrapolated;
    if (variant == 4) {  // radiation alone: constant K and c
      p.material.temperature = nullptr;
      p.material.conductivity = {};
      p.material.capacity = nullptr;
      p.radiation = std::make_shared<RadiationState>(p);
    }
    p.scheme = scheme;
    StepperSpec spec = B::spec();
    spec.options.device_material = on;
    return make_stepper<T>(p, spec);
  };
  auto on = build(true), off = build(false);
  const bool device = B::spec().backend == Backend::Cuda;
  EXPECT_EQ(device, on->device_name().find("evaluated on the device") != std::string::npos) << on->device_name();
  EXPECT_EQ(std::string::npos, off->device_name().find("evaluated on the device")) << off->device_name();
  std::shared_ptr<TemperatureState> s0;
  const std::vector<double> u0 = temperature::start(temperature::problem(s0));
  std::vector<T> a(u0.begin(), u0.end()), b = a;
  for (auto* st : {on.get(), off.get()}) {
    st->set_field(a.data());
    st->impose_boundary_values();
    st->advance(4);
  }
  on->get_field(a.data());
  off->get_field(b.data());
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(T))) << "the device evaluation differs";
  EXPECT_NE(0, std::memcmp(a.data(), std::vector<T>(u0.begin(), u0.end()).data(), a.size() * sizeof(T)));
}

TYPED_TEST_P(TemperatureContract, DeviceEvaluationIsTheHostsBitForBit) {
  ADI_CONTRACT_PRELUDE();
  using B = typename TypeParam::Backend;
  for (const SchemeType scheme : {SchemeType::Strang, SchemeType::Douglas})
    for (int variant = 0; variant < 7; ++variant) {
      SCOPED_TRACE(std::string(scheme_name(scheme)) + ", variant " + std::to_string(variant) +
                   " (0 tables, 1 per-axis tables, 2 + radiation, 3 + a source field, 4 radiation alone, 5 = 2 "
                   "with the predictor-corrector, 6 = 2 extrapolated)");
      device_against_host<B, double>(scheme, variant);
      device_against_host<B, float>(scheme, variant);
    }
}

/// A temperature outside a table stops the step with the node, the material
/// and the table's range; the field is the step's start.
TYPED_TEST_P(TemperatureContract, OutsideATableStopsTheStep) {
  ADI_CONTRACT_PRELUDE();
  using B = typename TypeParam::Backend;
  using T = typename TypeParam::Real;
  std::shared_ptr<TemperatureState> state;
  const HeatProblem p = temperature::problem(state);
  std::vector<double> u0 = temperature::start(p);
  u0[3] = 420.0;  // node (3, 0, 0): material a, whose K table ends at 400
  std::vector<T> u(u0.begin(), u0.end());
  auto st = B::template make<T>(p);
  EXPECT_THROW(st->set_field(u.data()), NumericalError);
  try {
    st->step();
    ADD_FAILURE() << "no error";
  } catch (const NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("temperature 420 at node (i, j, k) = (3, 0, 0) is outside the conductivity "
                                         "table of material 'a', [250, 400]"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(0, st->step_index());
}

TYPED_TEST_P(TemperatureContract, RadiatingPlate) {
  ADI_CONTRACT_PRELUDE();
  using B = typename TypeParam::Backend;
  expect_check<B>(verify::radiating_plate(B::spec()), B::spec());
}
TYPED_TEST_P(TemperatureContract, RadiatingLumpedBody) {
  ADI_CONTRACT_PRELUDE();
  using B = typename TypeParam::Backend;
  expect_check<B>(verify::radiating_lumped_body(B::spec()), B::spec());
}
TYPED_TEST_P(TemperatureContract, RadiationEnergyBalance) {
  ADI_CONTRACT_PRELUDE();
  using B = typename TypeParam::Backend;
  expect_check<B>(verify::radiation_energy_balance(B::spec()), B::spec());
}

/// A radiating node below 0 K (Celsius, or a blow-up) stops the step by name.
TYPED_TEST_P(TemperatureContract, RadiationNeedsKelvin) {
  ADI_CONTRACT_PRELUDE();
  using B = typename TypeParam::Backend;
  using T = typename TypeParam::Real;
  std::shared_ptr<TemperatureState> state;
  HeatProblem p = temperature::problem(state, true, true);
  p.material.temperature = nullptr;  // constants: only the radiation is nonlinear
  p.material.conductivity = {};
  p.material.capacity = nullptr;
  p.radiation = std::make_shared<RadiationState>(p);
  std::vector<double> u0 = temperature::start(p);
  u0[static_cast<std::size_t>(p.n[0] * 2)] = -15.0;  // node (0, 2, 0) on x_lo
  std::vector<T> u(u0.begin(), u0.end());
  auto st = B::template make<T>(p);
  try {
    st->set_field(u.data());
    st->step();
    ADD_FAILURE() << "no error";
  } catch (const NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("temperature -15 at node (i, j, k) = (0, 2, 0) of the radiating face x_lo is "
                                         "not an absolute temperature (> 0 K)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(0, st->step_index());
}

REGISTER_TYPED_TEST_SUITE_P(TemperatureContract, KirchhoffSlab, KirchhoffSteadySolve, SecondOrderInTime, EnthalpyBalance,
                            RadiatingPlate, RadiatingLumpedBody, RadiationEnergyBalance, RadiationNeedsKelvin,
                            ReloadedMaterialIsARebuild, RestartIsBitForBit, OutsideATableStopsTheStep,
                            DeviceEvaluationIsTheHostsBitForBit, PredictorCorrectorTakesTwoLinearSteps,
                            ExtrapolatedRestartIsBitForBit);

}  // namespace adi::test::contract
