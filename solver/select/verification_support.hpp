#pragma once
// Internal to the checks of verification.hpp (verification*.cpp): sampling
// fields on a grid, running a stepper from a field, manufactured solutions
// and the levels of an order study.

#include <adi/analytic.hpp>
#include <adi/factory.hpp>
#include <adi/mpi.hpp>
#include <adi/verification.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace adi::verify::support {

inline constexpr double kPi = 3.14159265358979323846;

inline bool root() { return mpi::world_rank() == 0; }

/// rank 0's value on every rank (the others pass anything).
inline double share(double v) {
  double x = root() ? v : 0.0;
  mpi::allreduce_sum(&x, 1);
  return x;
}

inline Check finish(Check c) {
  c.value = share(c.value);
  c.ok = std::isfinite(c.value) && c.value >= c.lo && c.value <= c.hi;
  return c;
}

inline std::string grid_name(const HeatProblem& p) {
  std::ostringstream s;
  s << p.n[0] << "x" << p.n[1] << "x" << p.n[2];
  return s.str();
}

/// Node coordinate along axis a (origin 0; a stretched axis' own nodes).
inline double coord(const HeatProblem& p, int a, index_t i) { return p.node_position(a, i); }

/// Stretches axis a of p (n, length and faces set) by the map F of [0, 1]
/// onto itself (increasing, F(0) = 0, F(1) = 1): node i at L F(i / cells);
/// a periodic axis gets node 0's image at L too (cells = n there).
inline void stretch_axis(HeatProblem& p, int a, const std::function<double(double)>& F) {
  const index_t cells = p.periodic(a) ? p.n[a] : p.n[a] - 1;
  std::vector<double> x(static_cast<std::size_t>(cells) + 1);
  for (index_t i = 0; i <= cells; ++i)
    x[static_cast<std::size_t>(i)] = p.length[a] * F(static_cast<double>(i) / static_cast<double>(cells));
  x.front() = 0.0;
  x.back() = p.length[a];
  p.coordinates[a] = x;
}

/// Smooth maps for stretch_axis: geometric growth from the lo face with
/// ratio r per cell at `cells` cells (coarser grids of the same map: r^2,
/// r^4, ...), its mirror from the hi face, clustering at both faces (the
/// gaps there 1 - s of the mean), and a periodic one (1 - s .. 1 + s).
inline std::function<double(double)> geometric_lo(double r, index_t cells) {
  const double b = static_cast<double>(cells) * std::log(r);
  return [b](double t) { return std::expm1(b * t) / std::expm1(b); };
}
inline std::function<double(double)> geometric_hi(double r, index_t cells) {
  const auto g = geometric_lo(r, cells);
  return [g](double t) { return 1.0 - g(1.0 - t); };
}
inline std::function<double(double)> clustered_both(double s) {
  return [s](double t) { return t - s / (2.0 * kPi) * std::sin(2.0 * kPi * t); };
}
inline std::function<double(double)> periodic_wave(double s) {
  return [s](double t) { return t + s / (2.0 * kPi) * std::sin(2.0 * kPi * t); };
}

/// A field sampled at the nodes, x fastest.
inline std::vector<double> sample(const HeatProblem& p, const std::function<double(double, double, double)>& f) {
  std::vector<double> v(static_cast<std::size_t>(p.points()));
  for (index_t k = 0; k < p.n[2]; ++k)
    for (index_t j = 0; j < p.n[1]; ++j)
      for (index_t i = 0; i < p.n[0]; ++i)
        v[(k * p.n[1] + j) * p.n[0] + i] = f(coord(p, 0, i), coord(p, 1, j), coord(p, 2, k));
  return v;
}

inline std::shared_ptr<const FieldSource> field(const HeatProblem& p, const char* name, std::vector<double> v) {
  return std::make_shared<ArrayField>(name, p.n, std::move(v));
}

/// exp(-lambda t) at every t^n and t^n + theta dt, n = 0 .. steps: exact
/// wherever the scheme evaluates it.
inline TimeTable exp_table(double lambda, double dt, double theta, index_t steps) {
  TimeTable t;
  for (index_t n = 0; n <= steps; ++n) {
    const double t0 = static_cast<double>(n) * dt;
    t.t.push_back(t0);
    t.v.push_back(std::exp(-lambda * t0));
    const double ts = t0 + theta * dt;
    if (n < steps) {
      t.t.push_back(ts);
      t.v.push_back(std::exp(-lambda * ts));
    }
  }
  return t;
}

/// Runs `steps` steps from the global field u0 (rank 0) and returns the final
/// field on rank 0 (empty elsewhere). `fresh`: impose the Dirichlet values
/// first. `each`: called on the stepper after every step (may be empty).
template <class T>
inline std::vector<double> run(const HeatProblem& p, const StepperSpec& spec, const std::vector<double>& u0, index_t steps,
                        bool fresh = true) {
  auto st = make_stepper<T>(p, spec);
  std::vector<T> u(u0.begin(), u0.end());
  st->scatter_field(root() ? u.data() : nullptr);
  if (fresh) st->impose_boundary_values();
  st->advance(steps);
  st->gather_field(root() ? u.data() : nullptr);
  return root() ? std::vector<double>(u.begin(), u.end()) : std::vector<double>{};
}

inline std::vector<double> run_prec(Precision prec, const HeatProblem& p, const StepperSpec& spec,
                             const std::vector<double>& u0, index_t steps, bool fresh = true) {
  if (prec == Precision::F32) return run<float>(p, spec, u0, steps, fresh);
  return run<double>(p, spec, u0, steps, fresh);
}

inline double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0.0;
  for (std::size_t q = 0; q < a.size(); ++q) {
    const double d = std::abs(a[q] - b[q]);
    m = std::isfinite(d) ? std::max(m, d) : std::numeric_limits<double>::infinity();
  }
  return m;
}
/// sum_i w_i c_i u_i with the node volumes w_i of the energy norm
/// (EnergyWeights: trapezoidal on non-periodic axes, a stretched axis' own).
inline double energy(const HeatProblem& p, const std::vector<double>& u, const std::vector<double>& c) {
  const EnergyWeights w = energy_weights(p);
  double e = 0.0;
  for (index_t k = 0; k < p.n[2]; ++k)
    for (index_t j = 0; j < p.n[1]; ++j)
      for (index_t i = 0; i < p.n[0]; ++i) {
        const index_t q = (k * p.n[1] + j) * p.n[0] + i;
        e += w.volume(i, j, k) * c[q] * u[q];
      }
  return e;
}

inline double max_abs(const std::vector<double>& a) {
  double m = 0.0;
  for (double v : a) m = std::max(m, std::abs(v));
  return m;
}

// ---------------------------------------------------------------------------
// Manufactured solutions: u = exp(-lambda t) phi(x), with
//   q = -lambda c phi - sum_a d_a (K_a d_a phi)
// (source table exp(-lambda t), exact at t*), Dirichlet faces from the
// initial field times the same table.
struct Manufactured {
  double lambda = 1.0;
  std::function<double(double, double, double)> phi;
  std::function<std::array<double, 3>(double, double, double)> grad;  // d phi / d x_a
  std::function<std::array<double, 3>(double, double, double)> second;  // d^2 phi / d x_a^2
  std::function<double(int, double, double, double)> K;            // K_a
  std::function<double(int, double, double, double)> dK;           // d K_a / d x_a
  std::function<double(double, double, double)> c;
};

inline double source_of(const Manufactured& m, double x, double y, double z) {
  const auto g = m.grad(x, y, z), s = m.second(x, y, z);
  double div = 0.0;
  for (int a = 0; a < 3; ++a) div += m.dK(a, x, y, z) * g[a] + m.K(a, x, y, z) * s[a];
  return -m.lambda * m.c(x, y, z) * m.phi(x, y, z) - div;
}

/// Fills K, c, q fields and tables of p (grid, faces, dt set) for m.
inline void apply(HeatProblem& p, const Manufactured& m, index_t steps, bool k_fields, bool c_field) {
  for (int a = 0; a < 3; ++a)
    if (k_fields) p.material.conductivity[a] = field(p, "K", sample(p, [&](double x, double y, double z) { return m.K(a, x, y, z); }));
  if (c_field) p.material.capacity = field(p, "c", sample(p, m.c));
  p.material.source = field(p, "q", sample(p, [&](double x, double y, double z) { return source_of(m, x, y, z); }));
  p.source_table = exp_table(m.lambda, p.dt, p.theta, steps);
  p.initial_field = field(p, "u0", sample(p, m.phi));
  for (int a = 0; a < 3; ++a) {
    if (p.lo[a] == Boundary::Dirichlet) p.lo_data[a].table = exp_table(m.lambda, p.dt, p.theta, steps);
    if (p.hi[a] == Boundary::Dirichlet) p.hi_data[a].table = exp_table(m.lambda, p.dt, p.theta, steps);
  }
}

struct Level {
  index_t cells = 0;
  double err = 0.0;
};

inline std::string levels_text(const std::vector<Level>& ls) {
  std::ostringstream s;
  s.precision(3);
  for (std::size_t q = 0; q < ls.size(); ++q) {
    if (q) s << ", ";
    s << ls[q].cells << " cells: " << std::scientific << ls[q].err;
    if (q) s << std::defaultfloat << " (order " << std::log(ls[q - 1].err / ls[q].err) / std::log(2.0) << ")";
  }
  return s.str();
}


}  // namespace adi::verify::support
