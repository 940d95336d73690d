// The energy guard (energy_guard.hpp).

#include <adi/energy_guard.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace adi {

bool energy_cannot_grow(const HeatProblem& p, bool faces_zero) {
  if (p.has_source()) return false;
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a) || p.periodic(a)) continue;
    for (int side = 0; side < 2; ++side) {
      const Boundary b = side ? p.hi[a] : p.lo[a];
      const FaceData& d = side ? p.hi_data[a] : p.lo_data[a];
      if (b == Boundary::Neumann && d.flux != 0.0) return false;
      if (b == Boundary::Robin && d.h != 0.0 && d.ambient != 0.0) return false;
      if (b == Boundary::Dirichlet && (d.value_from_initial ? !faces_zero : d.value != 0.0)) return false;
    }
  }
  return true;
}

template <class T>
bool field_faces_zero(const HeatProblem& p, const std::vector<T>& u) {
  if (u.size() != static_cast<std::size_t>(p.points())) return false;
  const index_t nx = p.n[0], ny = p.n[1], nz = p.n[2];
  auto keeps = [&](int a, index_t i) {
    if (p.flat(a) || p.periodic(a)) return false;
    const bool lo = i == 0 && p.lo[a] == Boundary::Dirichlet && p.lo_data[a].value_from_initial;
    const bool hi = i == p.n[a] - 1 && p.hi[a] == Boundary::Dirichlet && p.hi_data[a].value_from_initial;
    return lo || hi;
  };
  for (index_t k = 0; k < nz; ++k)
    for (index_t j = 0; j < ny; ++j)
      for (index_t i = 0; i < nx; ++i)
        if ((keeps(0, i) || keeps(1, j) || keeps(2, k)) && u[static_cast<std::size_t>(i + nx * (j + ny * k))] != T(0))
          return false;
  return true;
}

namespace {
double table_max(const TimeTable& t) {
  if (t.empty()) return 1.0;
  double m = 0.0;
  for (double v : t.v) m = std::max(m, std::fabs(v));
  return m;
}
}  // namespace

DataBoundParts data_bound_parts(const HeatProblem& p, const std::array<index_t, 3>& begin,
                                const std::array<index_t, 3>& size) {
  DataBoundParts r;
  r.c_min = std::numeric_limits<double>::infinity();
  const EnergyWeights w = energy_weights(p, begin);
  const std::array<index_t, 3> plane{{size[0], size[1], 1}};
  std::vector<double> q(static_cast<std::size_t>(size[0] * size[1])), c(q.size()), k(q.size());
  for (index_t kk = 0; kk < size[2]; ++kk) {
    const std::array<index_t, 3> lo{{begin[0], begin[1], begin[2] + kk}};
    if (p.material.source) p.material.source->read(lo, plane, q.data());
    else std::fill(q.begin(), q.end(), p.source);
    if (p.material.capacity) p.material.capacity->read(lo, plane, c.data());
    else std::fill(c.begin(), c.end(), p.capacity);
    for (std::size_t n = 0; n < q.size(); ++n) {
      const index_t i = static_cast<index_t>(n) % size[0], j = static_cast<index_t>(n) / size[0];
      r.q2 += w.volume(i, j, kk) * q[n] * q[n];
      r.c_min = std::min(r.c_min, c[n]);
      r.c_max = std::max(r.c_max, c[n]);
    }
    for (int a = 0; a < 3; ++a) {
      if (p.material.conductivity[a]) p.material.conductivity[a]->read(lo, plane, k.data());
      else std::fill(k.begin(), k.end(), p.alpha[a]);
      for (double v : k) r.k_max = std::max(r.k_max, v);
    }
  }
  return r;
}

DataBound data_bound(const HeatProblem& p, const DataBoundParts& all, double u_max) {
  // ||s / c||_{wc} by the triangle inequality, term by term (each an upper bound).
  DataBound b;
  const double cmin = all.c_min > 0 ? all.c_min : p.capacity;
  double volume = 1.0;
  for (int a = 0; a < 3; ++a) volume *= p.flat(a) ? p.spacing(a) : p.length[a];
  b.rate = table_max(p.source_table) * std::sqrt(all.q2 / cmin);
  double g2 = 0.0;  // the Dirichlet nodes: |g| <= gmax on at most the whole box
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a) || p.periodic(a)) continue;
    const double area = volume / p.length[a];
    for (int side = 0; side < 2; ++side) {
      // The face's gap h to the next plane, and that plane's control volume v
      // (h on a uniform axis): the half cell is h / 2.
      const double h = p.end_gap(a, side), v = p.cell(a, side ? p.n[a] - 2 : 1);
      const Boundary kind = side ? p.hi[a] : p.lo[a];
      const FaceData& d = side ? p.hi_data[a] : p.lo_data[a];
      const double f = table_max(d.table);
      // A mirror face's data: beta = 2 q_in / (c h) on its half cells (w = A h / 2).
      double q_in = 0.0;
      if (kind == Boundary::Neumann) q_in = std::fabs(d.flux) * f;
      if (kind == Boundary::Robin) q_in = d.h * std::fabs(d.ambient) * f;
      b.rate += q_in * std::sqrt(2.0 * area / (cmin * h));
      if (kind == Boundary::Dirichlet) {
        // The body's nodes next to it: K g / (c v h) on a layer A v.
        const double g = (d.value_from_initial ? u_max : std::fabs(d.value)) * f;
        b.rate += all.k_max * g * std::sqrt(area / (cmin * v * h * h));
        g2 = std::max(g2, g);
      }
    }
  }
  b.dirichlet = g2 * std::sqrt((all.c_max > 0 ? all.c_max : p.capacity) * volume);
  return b;
}

std::string EnergyGuard::unstable(const std::string& head) const {
  const SchemeType scheme = p_.scheme_in_use();
  const std::string what =
      scheme == SchemeType::Douglas && p_.material.lines_vary()
          ? "the Douglas scheme is not unconditionally stable with material fields (non-commuting axis operators): "
            "use scheme.type: strang (the default for material fields), or a smaller time.dt"
          : std::string("the ") + scheme_name(scheme) +
                " step should not do this (docs/SCHEMES.md): please report it with the config; a smaller time.dt "
                "may avoid it";
  return head + what;
}

std::string EnergyGuard::observe(const FieldStats& s, index_t step, double t) {
  if (!active_ || !s.finite) return "";
  if (!seen_) {
    seen_ = true;
    first_ = lowest_ = s.energy;
    lowest_step_ = step;
    t0_ = t;
    return "";
  }
  if (bounded_) {
    // No time has passed at the first observation's time: no growth from
    // the data, even where the bound's rate overflowed to inf (K near the
    // largest double), whose product with 0 would be a NaN and fail the test.
    const double fed = t > t0_ ? (t - t0_) * bound_.rate : 0.0;
    const double allowed = kDataBoundMargin * (std::sqrt(first_) + bound_.dirichlet + fed) * (1.0 + tolerance());
    if (std::sqrt(s.energy) <= allowed) return "";
    char head[500];
    std::snprintf(head, sizeof head,
                  "the discrete energy sum w c u^2 reached %.6g at step %lld (t = %.6g s), above what the source and "
                  "the faces' data can feed a stable run by then (sqrt(E) <= %.3g: %g x the bound of "
                  "docs/SCHEMES.md \"Energy guard\"; sqrt(E) was %.6g at step %lld): the run is unstable; ",
                  s.energy, static_cast<long long>(step), t, allowed, kDataBoundMargin, std::sqrt(first_),
                  static_cast<long long>(lowest_step_));
    return unstable(head);
  }
  // Below this the field has decayed to round-off of its start: no verdict.
  const double floor = first_ * (single_ ? 1e-20 : 1e-100);
  if (s.energy <= std::max(lowest_, floor) * (1.0 + tolerance())) {
    if (s.energy < lowest_) lowest_ = s.energy, lowest_step_ = step;
    return "";
  }
  char head[400];
  std::snprintf(head, sizeof head,
                "the discrete energy sum w c u^2 grew from %.6g (step %lld) to %.6g at step %lld (t = %.6g s), %.3g "
                "times, in a problem with no source and no inflow, whose energy cannot grow: the run is unstable; ",
                lowest_, static_cast<long long>(lowest_step_), s.energy, static_cast<long long>(step), t,
                s.energy / lowest_);
  return unstable(head);
}

template bool field_faces_zero<float>(const HeatProblem&, const std::vector<float>&);
template bool field_faces_zero<double>(const HeatProblem&, const std::vector<double>&);

}  // namespace adi
