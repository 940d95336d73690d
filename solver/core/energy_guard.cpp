// The energy guard (energy_guard.hpp).

#include <adi/energy_guard.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

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

std::string EnergyGuard::observe(const FieldStats& s, index_t step, double t) {
  if (!active_ || !s.finite) return "";
  if (!seen_) {
    seen_ = true;
    first_ = lowest_ = s.energy;
    lowest_step_ = step;
    return "";
  }
  // Below this the field has decayed to round-off of its start: no verdict.
  const double floor = first_ * (single_ ? 1e-20 : 1e-100);
  if (s.energy <= std::max(lowest_, floor) * (1.0 + tolerance())) {
    if (s.energy < lowest_) lowest_ = s.energy, lowest_step_ = step;
    return "";
  }
  const SchemeType scheme = p_.scheme_in_use();
  const std::string what =
      scheme == SchemeType::Douglas && p_.material.lines_vary()
          ? "the Douglas scheme is not unconditionally stable with material fields (non-commuting axis operators): "
            "use scheme.type: strang (the default for material fields), or a smaller time.dt"
          : std::string("the ") + scheme_name(scheme) +
                " step should not do this (docs/SCHEMES.md): please report it with the config; a smaller time.dt "
                "may avoid it";
  char head[400];
  std::snprintf(head, sizeof head,
                "the discrete energy sum w c u^2 grew from %.6g (step %lld) to %.6g at step %lld (t = %.6g s), %.3g "
                "times, in a problem with no source and no inflow, whose energy cannot grow: the run is unstable; ",
                lowest_, static_cast<long long>(lowest_step_), s.energy, static_cast<long long>(step), t,
                s.energy / lowest_);
  return head + what;
}

template bool field_faces_zero<float>(const HeatProblem&, const std::vector<float>&);
template bool field_faces_zero<double>(const HeatProblem&, const std::vector<double>&);

}  // namespace adi
