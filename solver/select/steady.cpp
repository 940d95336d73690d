// Steady states by GMRES preconditioned with Douglas sweeps (steady.hpp).

#include <adi/decomposition.hpp>
#include <adi/factory.hpp>
#include <adi/mpi.hpp>
#include <adi/steady.hpp>
#include <adi/radiation.hpp>
#include <adi/decomposition.hpp>
#include <adi/temperature.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "rank_nodes.hpp"

#include <optional>

namespace adi {

namespace {

constexpr double kPi = 3.14159265358979323846;

const char* face_name(int a, int side) {
  static const char* names[3][2] = {{"x_lo", "x_hi"}, {"y_lo", "y_hi"}, {"z_lo", "z_hi"}};
  return names[a][side];
}

/// This rank's box of the stepper (the whole grid for a serial one).
template <class T>
Box box_of(Stepper<T>& st, const HeatProblem& p) {
  if (auto* d = dynamic_cast<mpi::DistributedStepper<T>*>(&st)) return d->part().box;
  Box b;
  b.size = p.n;
  return b;
}

/// Sums over the ranks of a distributed run.
double reduce_sum(double v, bool distributed) {
  if (distributed) mpi::allreduce_sum(&v, 1);
  return v;
}

/// Min and max of a field over the grid (a constant when f is null), read
/// plane by plane so that no whole field is held.
void field_range(const FieldSource* f, double constant, const std::array<index_t, 3>& n, double& lo, double& hi) {
  if (!f) {
    lo = hi = constant;
    return;
  }
  std::vector<double> v(static_cast<std::size_t>(n[0] * n[1]));
  lo = std::numeric_limits<double>::infinity();
  hi = 0.0;
  for (index_t k = 0; k < n[2]; ++k) {
    f->read({{0, 0, k}}, {{n[0], n[1], 1}}, v.data());
    for (double x : v) lo = std::min(lo, x), hi = std::max(hi, x);
  }
}

}  // namespace

void add_steady_footprint(StepperFootprint& f, Backend b, const HeatProblem& p, int ranks) {
  const SteadyOptions so;
  const double points = static_cast<double>(p.n[0]) * static_cast<double>(p.n[1]) * static_cast<double>(p.n[2]);
  const double share = points * 8.0 / ranks;
  f.host_bytes += (2.0 * so.restart + 1.0 + 8.0) * share;
  if (b == Backend::Cuda)
    f.device_bytes *= 1.0 + kSteadyMaxParameters, f.device_bytes_rows16 *= 1.0 + kSteadyMaxParameters;
  else
    f.host_bytes += kSteadyMaxParameters * f.stepper_arrays * f.stepper_field;
}

std::string steady_state_refusal(const HeatProblem& p) {
  if (!p.source_table.empty())
    return "the source has a time table: a steady state has no time (remove source.table, or run in time)";
  bool fixes = false;
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a) || p.periodic(a)) continue;
    for (int side = 0; side < 2; ++side) {
      const Boundary b = side ? p.hi[a] : p.lo[a];
      const FaceData& d = side ? p.hi_data[a] : p.lo_data[a];
      if (!d.table.empty())
        return std::string("boundary ") + face_name(a, side) +
               " has a time table: a steady state has no time (remove the table, or run in time)";
      if (b == Boundary::Dirichlet || (b == Boundary::Robin && d.h > 0.0)) fixes = true;
    }
  }
  if (!fixes)
    return "no face fixes the temperature (every face is insulated, a heat flux or periodic): a steady state "
           "exists only if the net heat input is 0, and then only up to a constant; give a Dirichlet or convective "
           "face, or run in time";
  return "";
}

namespace {

/// The steady state of the linear problem p0 (its material as it is now).
template <class T>
SteadyResult solve_linear(const HeatProblem& p0, const StepperSpec& spec, std::vector<T>& u, const SteadyOptions& o,
                          const std::function<void(index_t, double)>& progress,
                          const std::array<double, 2>* k_range = nullptr) {
  const std::string why = steady_state_refusal(p0);
  if (!why.empty()) ADI_THROW(InvalidArgument, "no steady state: " + why);
  if (!(o.tolerance > 0.0) || o.restart < 1 || o.max_iterations < 1)
    ADI_THROW(InvalidArgument, "steady solve: tolerance > 0, restart >= 1 and max_iterations >= 1 expected");
  if (sizeof(T) == 4 && o.tolerance < 1e-5)
    ADI_THROW(InvalidArgument, "steady solve: a relative residual below 1e-5 needs float64 (float32 round-off)");
  const bool dist = spec.distributed;

  // The sweeps: the line inverses of a Douglas step with theta = 1 and time
  // step tau. The steady state does not depend on c: a constant c stands in
  // for the material's (the sweeps then see K alone), and it is 2, not 1, so
  // that every problem takes the general path, whose steppers expose their
  // work array (set_work / get_work).
  HeatProblem p = p0;
  p.scheme = SchemeType::Douglas;
  p.theta = 1.0;
  p.material.capacity = nullptr;
  p.capacity = 2.0;
  double kmin = std::numeric_limits<double>::infinity(), kmax = 0.0;
  for (int a = 0; a < 3; ++a) {  // (every rank reads the ranges itself: the same numbers everywhere)
    if (p.flat(a)) continue;
    double lo, hi;
    if (k_range && p.material.conductivity[a]) {  // temperature-dependent: its tables' range
      lo = (*k_range)[0];
      hi = (*k_range)[1];
    } else {
      field_range(p.material.conductivity[a].get(), p.alpha[a], p.n, lo, hi);
    }
    kmin = std::min(kmin, lo);
    kmax = std::max(kmax, hi);
  }
  // tau between the extreme eigenvalues of C^-1 L_a: Gershgorin above, the
  // box's lowest mode (a quarter wave, the weakest face pair) below.
  double lam_max = 0.0, lam_min = std::numeric_limits<double>::infinity();
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a)) continue;
    const double h = p.min_gap(a);  // a stretched axis: its smallest gap bounds the rows' sums
    const double kc_hi = kmax / p.capacity, kc_lo = kmin / p.capacity;
    lam_max = std::max(lam_max, 4.0 * kc_hi / (h * h));
    lam_min = std::min(lam_min, kPi * kPi * kc_lo / (4.0 * p.length[a] * p.length[a]));
  }
  // The parameter cycle: taus geometric between 1 / lam_max and 1 / lam_min,
  // one stepper each (its line matrices are factorised for its tau).
  int ncycle = o.parameters;
  if (ncycle <= 0) {
    // A ratio of about 4 between neighbouring parameters (ADI's parameter
    // cycles cover [lam_min, lam_max] geometrically; every sweep damps the
    // modes near its 1/tau). Measured on a chip-like case (K 4..400, 33 x 29
    // x 17, h_z = h_x / 4; spectral ratio 2.7e6): 3 parameters took 791
    // sweeps, ratios of 30 / 10 / 4 took 340 / 251 / 195, and more (ratio 2,
    // 20 parameters) no fewer.
    ncycle = 1 + static_cast<int>(std::ceil(std::log(lam_max / lam_min) / std::log(4.0)));
    ncycle = std::clamp(ncycle, 2, kSteadyMaxParameters);
  }
  std::vector<double> taus;
  if (ncycle <= 1) taus.push_back(1.0 / std::sqrt(lam_min * lam_max));
  else
    for (int j = 0; j < ncycle; ++j)
      taus.push_back(1.0 / (lam_max * std::pow(lam_min / lam_max, static_cast<double>(j) / (ncycle - 1))));
  std::vector<std::unique_ptr<Stepper<T>>> sweeps;
  for (double t : taus) {
    p.dt = t;
    sweeps.push_back(make_stepper<T>(p, spec));
  }
  Stepper<T>* st = sweeps[0].get();
  const double tau = taus[0];
  const Box box = box_of(*st, p);
  const std::size_t n = static_cast<std::size_t>(box.points());
  ADI_REQUIRE(u.size() == n, "solve_steady: the field is not this rank's box");

  // Node volumes of the box (the norm) and its Dirichlet nodes.
  const EnergyWeights ew = energy_weights(p, box.begin);
  std::vector<double> vol(n);
  std::vector<char> dirichlet(n, 0);
  for (index_t k = 0; k < box.size[2]; ++k)
    for (index_t j = 0; j < box.size[1]; ++j)
      for (index_t i = 0; i < box.size[0]; ++i) {
        const std::size_t q = static_cast<std::size_t>(i + box.size[0] * (j + box.size[1] * k));
        vol[q] = ew.volume(i, j, k);
        const index_t g[3] = {box.begin[0] + i, box.begin[1] + j, box.begin[2] + k};
        for (int a = 0; a < 3; ++a)
          if (!p.flat(a) && !p.periodic(a) &&
              ((g[a] == 0 && p.lo[a] == Boundary::Dirichlet) || (g[a] == p.n[a] - 1 && p.hi[a] == Boundary::Dirichlet)))
            dirichlet[q] = 1;
      }
  // w = tau C^-1 (L u + s): L u + s = c w / tau.
  std::vector<double> scale(n, p.capacity / tau);
  if (p.material.capacity) {
    p.material.capacity->read(box.begin, box.size, scale.data());
    for (double& v : scale) v /= tau;
  }

  std::vector<T> buf(n);
  const std::vector<T> zeros(n, T(0));
  auto put = [&](const std::vector<double>& x) {
    for (std::size_t q = 0; q < n; ++q) buf[q] = static_cast<T>(x[q]);
  };
  // R(x) = L x + s at every node (0 at Dirichlet nodes), from the stepper's
  // right-hand side: the scheme's own rows.
  auto R = [&](const std::vector<double>& x, std::vector<double>& out) {
    put(x);
    st->set_field(buf.data());
    st->set_step_index(0);
    st->run_phase(Phase::Rhs);
    st->get_work(buf.data());
    out.resize(n);
    for (std::size_t q = 0; q < n; ++q) out[q] = dirichlet[q] ? 0.0 : scale[q] * static_cast<double>(buf[q]);
  };
  // P^-1 y: the three line solves of the sweep on y (the z solve adds into
  // the field, set to 0 first).
  auto Pinv_j = [&](std::size_t jj, const std::vector<double>& y, std::vector<double>& out) {
    Stepper<T>* sj = sweeps[jj % sweeps.size()].get();
    put(y);
    sj->set_work(buf.data());
    sj->run_phase(Phase::SolveX);
    sj->run_phase(Phase::SolveY);
    sj->set_field(zeros.data());
    sj->run_phase(Phase::SolveZ);
    sj->get_field(buf.data());
    // (the sweep's scale: its matrices are I - tau A; the Krylov method needs no scaling)
    out.assign(buf.begin(), buf.end());
  };
  auto dot = [&](const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0.0;
    for (std::size_t q = 0; q < n; ++q) s += vol[q] * a[q] * b[q];
    return reduce_sum(s, dist);
  };
  auto sum_vol = [&](const std::vector<double>& a) {
    double s = 0.0;
    for (std::size_t q = 0; q < n; ++q) s += vol[q] * a[q];
    return reduce_sum(s, dist);
  };

  // The start with its Dirichlet data (a fresh start's faces), and the data
  // alone (0 elsewhere): the residual the relative residual is measured by.
  st->set_field(u.data());
  st->set_step_index(0);
  st->impose_boundary_values();
  st->get_field(u.data());
  std::vector<double> u0(u.begin(), u.end()), data(n, 0.0), r0, rd;
  for (std::size_t q = 0; q < n; ++q)
    if (dirichlet[q]) data[q] = u0[q];
  SteadyResult res;
  res.taus = taus;
  R(data, rd);
  const double r_data = std::sqrt(dot(rd, rd));
  R(u0, r0);
  double r = std::sqrt(dot(r0, r0));
  res.imbalance_W = sum_vol(r0);
  if (r_data == 0.0) {  // no data at all: the steady state is 0 (a face fixes the level)
    u.assign(data.begin(), data.end());
    res.converged = true;
    res.history.push_back(0.0);
    res.history_iterations.push_back(0);
    return res;
  }
  res.residual = r / r_data;
  res.history.push_back(res.residual);
  res.history_iterations.push_back(0);
  if (progress) progress(0, res.residual);
  if (res.residual <= o.tolerance) {
    res.converged = true;
    return res;
  }

  // Right-preconditioned GMRES on L x = -(L u0 + s), x = P^-1 y: what it
  // minimises is the true residual of u0 + x. M v = L P^-1 v = R(u0 + P^-1 v) - R(u0).
  std::vector<double> x(n, 0.0), w(n), z(n), tmp(n), rv(n);
  auto Lop = [&](const std::vector<double>& zz, std::vector<double>& out) {
    for (std::size_t q = 0; q < n; ++q) tmp[q] = u0[q] + zz[q];
    R(tmp, rv);
    out.resize(n);
    for (std::size_t q = 0; q < n; ++q) out[q] = rv[q] - r0[q];
  };
  const int m = o.restart;
  std::vector<std::vector<double>> V(static_cast<std::size_t>(m + 1)), Z(static_cast<std::size_t>(m));
  std::size_t sweep_count = 0;
  std::vector<std::vector<double>> H(static_cast<std::size_t>(m + 1), std::vector<double>(static_cast<std::size_t>(m), 0.0));
  std::vector<double> cs(static_cast<std::size_t>(m)), sn(static_cast<std::size_t>(m)), g(static_cast<std::size_t>(m + 1));
  std::vector<double> rcur;  // the true residual L (u0 + x) + s
  R(u0, rcur);
  while (res.iterations < o.max_iterations) {
    // The cycle's start: r = -(L (u0 + x) + s).
    for (std::size_t q = 0; q < n; ++q) w[q] = -rcur[q];
    const double beta = std::sqrt(dot(w, w));
    if (beta == 0.0) break;
    V[0] = w;
    for (double& v : V[0]) v /= beta;
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = beta;
    int j = 0;
    bool done = false;
    for (; j < m && res.iterations < o.max_iterations; ++j) {
      Pinv_j(sweep_count++, V[static_cast<std::size_t>(j)], Z[static_cast<std::size_t>(j)]);
      Lop(Z[static_cast<std::size_t>(j)], w);
      ++res.iterations;
      for (int i = 0; i <= j; ++i) {  // modified Gram-Schmidt
        const std::vector<double>& vi = V[static_cast<std::size_t>(i)];
        const double h = dot(w, vi);
        H[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = h;
        for (std::size_t q = 0; q < n; ++q) w[q] -= h * vi[q];
      }
      const double hn = std::sqrt(dot(w, w));
      H[static_cast<std::size_t>(j + 1)][static_cast<std::size_t>(j)] = hn;
      V[static_cast<std::size_t>(j + 1)] = w;
      if (hn > 0.0)
        for (double& v : V[static_cast<std::size_t>(j + 1)]) v /= hn;
      for (int i = 0; i < j; ++i) {  // the rotations so far on the new column
        double& a = H[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
        double& c = H[static_cast<std::size_t>(i + 1)][static_cast<std::size_t>(j)];
        const double t = cs[static_cast<std::size_t>(i)] * a + sn[static_cast<std::size_t>(i)] * c;
        c = -sn[static_cast<std::size_t>(i)] * a + cs[static_cast<std::size_t>(i)] * c;
        a = t;
      }
      double& a = H[static_cast<std::size_t>(j)][static_cast<std::size_t>(j)];
      double& c = H[static_cast<std::size_t>(j + 1)][static_cast<std::size_t>(j)];
      const double d = std::hypot(a, c);
      cs[static_cast<std::size_t>(j)] = d > 0.0 ? a / d : 1.0;
      sn[static_cast<std::size_t>(j)] = d > 0.0 ? c / d : 0.0;
      a = d;
      c = 0.0;
      g[static_cast<std::size_t>(j + 1)] = -sn[static_cast<std::size_t>(j)] * g[static_cast<std::size_t>(j)];
      g[static_cast<std::size_t>(j)] = cs[static_cast<std::size_t>(j)] * g[static_cast<std::size_t>(j)];
      const double est = std::abs(g[static_cast<std::size_t>(j + 1)]) / r_data;
      res.estimates.push_back(est);
      if (est <= o.tolerance || hn == 0.0) {
        ++j;
        done = true;
        break;
      }
    }
    // y from H y = g (upper triangular, j columns); x += P^-1 (V y).
    std::vector<double> y(static_cast<std::size_t>(j), 0.0);
    for (int i = j - 1; i >= 0; --i) {
      double sum = g[static_cast<std::size_t>(i)];
      for (int k = i + 1; k < j; ++k)
        sum -= H[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)] * y[static_cast<std::size_t>(k)];
      y[static_cast<std::size_t>(i)] = sum / H[static_cast<std::size_t>(i)][static_cast<std::size_t>(i)];
    }
    for (int i = 0; i < j; ++i) {
      const std::vector<double>& zi = Z[static_cast<std::size_t>(i)];
      for (std::size_t q = 0; q < n; ++q) x[q] += y[static_cast<std::size_t>(i)] * zi[q];
    }
    // The true residual of the new iterate (not GMRES's recurrence).
    for (std::size_t q = 0; q < n; ++q) tmp[q] = u0[q] + x[q];
    R(tmp, rcur);
    r = std::sqrt(dot(rcur, rcur));
    res.residual = r / r_data;
    res.imbalance_W = sum_vol(rcur);
    res.history.push_back(res.residual);
    res.history_iterations.push_back(res.iterations);
    if (progress) progress(res.iterations, res.residual);
    if (res.residual <= o.tolerance) {
      res.converged = true;
      break;
    }
    (void)done;  // the recurrence's estimate met the tolerance but the true residual did not: go on
  }
  for (std::size_t q = 0; q < n; ++q) u[q] = static_cast<T>(u0[q] + x[q]);
  return res;
}

}  // namespace

// Temperature-dependent properties (adi/temperature.hpp) and radiating
// faces (adi/radiation.hpp): Picard iteration around the linear solve, K
// (and c, which the steady state does not depend on) at the last iterate,
// each radiating face in the Newton form about it (a convective face of
// h = h_c + H, H the face's largest slope 4 eps sigma u^3, and the source
// -eps sigma (u^4 - T_inf^4) + H u: the iteration converges however strongly
// the face radiates, and its linear problems have a face that fixes the
// temperature even where no other face does), until an iterate changes the
// field by at most the tolerance (relative to its largest value); each
// linear solve starts from the last iterate, so the later ones take few
// sweeps. The steppers are the backend's own (no nonlinear step: the
// solve's vectors are not temperatures), reading the states' fields.
template <class T>
SteadyResult solve_steady(const HeatProblem& p0, const StepperSpec& spec, std::vector<T>& u, const SteadyOptions& o,
                          const std::function<void(index_t, double)>& progress) {
  const std::shared_ptr<TemperatureState> state = p0.material.temperature;
  const std::shared_ptr<RadiationState> rad = p0.radiation;
  if (!state && !rad) return solve_linear(p0, spec, u, o, progress);
  // Under MPI each rank evaluates its box and ghost layers (one exchange of
  // the iterate), the faces' slopes and the convergence test are maxima
  // over the ranks, and a failure on one rank is every rank's.
  std::optional<Decomposition> dec;
  std::optional<detail::RankNodes> nodes;
  if (spec.distributed) {
    dec.emplace(Decomposition::plan(p0.n, mpi::world_size(), spec.grid));
    dec->set_periodic({{p0.periodic(0), p0.periodic(1), p0.periodic(2)}});
    nodes.emplace(p0, *dec, dec->part(mpi::world_rank()));
  }
  // The conductivity's range for the sweeps' parameters: every value the
  // tables take (a rank cannot read the whole state).
  std::array<double, 2> k_range{{std::numeric_limits<double>::infinity(), 0.0}};
  if (state)
    for (const TemperatureMaterial& m : state->materials())
      for (int a = 0; a < 3; ++a)
        if (!p0.flat(a))
          for (const double v : m.conductivity[a].v) k_range = {{std::min(k_range[0], v), std::max(k_range[1], v)}};
  HeatProblem p = p0;
  p.material.temperature = nullptr;
  p.radiation = nullptr;
  if (rad) {
    p.material.source = rad->source();
    p.source = 0.0;
    p.source_table = TimeTable{};
  }
  // Each radiating face in the Newton form about the iterate (slopes H).
  auto newton_faces = [&](const std::array<double, 6>& H) {
    for (int f = 0; f < 6; ++f) {
      if (!(rad->emissivity(f) > 0.0)) continue;
      const int a = f / 2, side = f % 2;
      const Boundary b0 = side ? p0.hi[a] : p0.lo[a];
      const FaceData& d0 = side ? p0.hi_data[a] : p0.lo_data[a];
      FaceData& d = side ? p.hi_data[a] : p.lo_data[a];
      const double hc = b0 == Boundary::Robin ? d0.h : 0.0;
      const double in = b0 == Boundary::Robin ? d0.h * d0.ambient : d0.flux;  // h_c u_inf, or the flux
      (side ? p.hi : p.lo)[a] = Boundary::Robin;
      d.h = hc + H[static_cast<std::size_t>(f)];
      d.ambient = in / d.h;
    }
  };
  SteadyResult all;
  index_t sweeps = 0;
  // The iterates on the way may leave a table where the steady state does
  // not: they take its end values; the steady state itself is checked
  // (a solve that did not converge leaves the state clamped: its last
  // iterate is written as such, exit 4, not stopped by a table).
  if (state) state->set_clamped(true);
  for (int outer = 1;; ++outer) {
    if (!nodes) {
      if (state) state->evaluate(u.data());
      if (rad) {
        const std::array<double, 6> H = rad->slopes(u.data());
        newton_faces(H);
        rad->evaluate(u.data(), u.data(), 0.0, H);
      }
    } else {
      // (No collective inside a guarded part: a rank that throws must not
      // leave the others waiting in one.)
      const std::vector<double> a = nodes->on_nodes(u.data());
      std::array<double, 6> H{};
      const std::string when = "in the steady solve's outer iteration " + std::to_string(outer);
      detail::on_every_rank(
          [&] {
            if (state) state->evaluate_on(nodes->nodes(), a.data(), a.data(), true);
            if (rad) H = rad->slopes_on(nodes->nodes(), a.data());
          },
          when);
      if (rad) {
        mpi::allreduce_max(H.data(), 6);
        newton_faces(H);
        detail::on_every_rank([&] { rad->evaluate_on(nodes->nodes(), a.data(), a.data(), 0.0, true, H); }, when);
      }
    }
    const std::vector<T> prev = u;
    // Inexact outer iterations: a linear solve need not be more accurate
    // than the next outer change will be (a hundredth of the last one); the
    // last ones, whose change is within 100 x the tolerance, solve to it.
    SteadyOptions inner = o;
    inner.max_iterations = std::max<index_t>(o.max_iterations - sweeps, 1);
    inner.tolerance = outer > 1 ? std::clamp(0.01 * all.outer_change, o.tolerance, 1e-3) : std::max(o.tolerance, 1e-3);
    SteadyResult r = solve_linear(
        p, spec, u, inner,
        [&](index_t it, double res) {
          if (progress) progress(sweeps + it, res);
        },
        state ? &k_range : nullptr);
    sweeps += r.iterations;
    double m[2] = {0.0, 0.0};  // the change, the field's size
    for (std::size_t q = 0; q < u.size(); ++q) {
      m[0] = std::max(m[0], std::abs(static_cast<double>(u[q]) - static_cast<double>(prev[q])));
      m[1] = std::max(m[1], std::abs(static_cast<double>(u[q])));
    }
    if (nodes) mpi::allreduce_max(m, 2);
    const double change = m[0], size = m[1];
    for (std::size_t q = 0; q < r.history.size(); ++q) {
      all.history.push_back(r.history[q]);
      all.history_iterations.push_back(sweeps - r.iterations + r.history_iterations[q]);
    }
    all.estimates.insert(all.estimates.end(), r.estimates.begin(), r.estimates.end());
    all.taus = r.taus;
    all.iterations = sweeps;
    all.residual = r.residual;
    all.imbalance_W = r.imbalance_W;
    all.outer_iterations = outer;
    all.outer_change = size > 0.0 ? change / size : change;
    all.converged = r.converged && all.outer_change <= o.tolerance && inner.tolerance <= o.tolerance;
    if (all.converged || !r.converged || outer >= kSteadyMaxOuter || sweeps >= o.max_iterations) break;
  }
  // The fields of the steady state, strictly: a steady state outside a
  // table stops the solve as a step would.
  if (all.converged && state) {
    state->set_clamped(false);
    if (!nodes) {
      state->evaluate(u.data());
    } else {
      detail::on_every_rank(
          [&] {
            const std::vector<double> a = nodes->on_nodes(u.data());
            state->evaluate_on(nodes->nodes(), a.data(), a.data(), true);
          },
          "at the steady state");
    }
  }
  return all;
}

template SteadyResult solve_steady<float>(const HeatProblem&, const StepperSpec&, std::vector<float>&,
                                          const SteadyOptions&, const std::function<void(index_t, double)>&);
template SteadyResult solve_steady<double>(const HeatProblem&, const StepperSpec&, std::vector<double>&,
                                           const SteadyOptions&, const std::function<void(index_t, double)>&);

}  // namespace adi
