// adi::cpu::solve_conductive (adi/conductive.hpp): one line at a time, its
// rows built from K and 1/c by adi/discrete.hpp's row functions (the general
// stepper's arithmetic), solved by Thomas or, on a periodic axis, by
// Sherman-Morrison (line_rows.hpp).

#include <adi/conductive.hpp>

#include "line_rows.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace adi {

template <class T>
void ConductiveLines<T>::validate(index_t n) const {
  auto bad = [](const std::string& what) { ADI_THROW(InvalidArgument, "conductive line solve: " + what); };
  if (!coordinates.empty()) {
    const bool ring = lo == LineEnd::Wrap;
    const std::size_t want = static_cast<std::size_t>(n) + (ring ? 1 : 0);
    if (h != 0.0) bad("give the node spacing h or the coordinates, not both (h must be 0 with coordinates)");
    if (n < 2) bad("a line with coordinates needs at least 2 nodes");
    if (coordinates.size() != want)
      bad(std::to_string(coordinates.size()) + " coordinates for a line of " + std::to_string(n) + " nodes; expected " +
          std::to_string(want) + (ring ? " (n nodes and node 0's periodic image)" : ""));
    for (std::size_t i = 0; i < coordinates.size(); ++i)
      if (!std::isfinite(coordinates[i]) || (i > 0 && !(coordinates[i] > coordinates[i - 1])))
        bad("coordinate " + std::to_string(i) + " is not finite or does not exceed the one before it");
  } else if (!(std::isfinite(h) && h > 0.0)) {
    bad("the node spacing h must be finite and > 0");
  }
  if (!(std::isfinite(tau) && tau >= 0.0)) bad("tau (theta dt) must be finite and >= 0");
  if (lo == LineEnd::Open || hi == LineEnd::Open)
    bad("an Open end needs a ghost node, which the library solve does not have: use Fixed, Mirror or Wrap");
  if ((lo == LineEnd::Wrap) != (hi == LineEnd::Wrap)) bad("a periodic (Wrap) line wraps at both ends, not one");
  if (lo == LineEnd::Wrap && n < 3) bad("a periodic line needs at least 3 nodes");
  for (const auto& [end, hc, name] : {std::tuple{lo, lo_robin_h, "lo"}, std::tuple{hi, hi_robin_h, "hi"}}) {
    if (!(std::isfinite(hc) && hc >= 0.0)) bad(std::string(name) + "_robin_h must be finite and >= 0");
    if (hc > 0.0 && end != LineEnd::Mirror) bad(std::string(name) + "_robin_h is set but the " + name + " end is not Mirror");
  }
}

template <class T>
AxisEnds<T> ConductiveLines<T>::ends(index_t n, AxisScales<T>& scales) const {
  scales.sm.clear();
  scales.sp.clear();
  if (coordinates.empty()) return ends(n);
  const std::vector<double>& x = coordinates;
  AxisEnds<T> e;
  e.n = n;
  e.lo = lo;
  e.hi = hi;
  e.inv_h2 = std::numeric_limits<T>::quiet_NaN();  // sm, sp instead
  e.lo_robin = static_cast<T>(2.0 * lo_robin_h / (x[1] - x[0]));  // the end gap for h (discrete.hpp)
  e.hi_robin = static_cast<T>(2.0 * hi_robin_h / (x[static_cast<std::size_t>(n) - 1] - x[static_cast<std::size_t>(n) - 2]));
  adi::detail::stretch_scales(x.data(), n, lo == LineEnd::Wrap, scales);
  e.sm = scales.sm.data();
  e.sp = scales.sp.data();
  return e;
}

template <class T>
AxisEnds<T> ConductiveLines<T>::ends(index_t n) const {
  if (!coordinates.empty())
    ADI_THROW(InvalidArgument, "conductive line solve: coordinates (a stretched line) are not taken here (the CUDA "
                               "solve's rows for them have not run on a GPU): solve it on the CPU");
  AxisEnds<T> e;
  e.n = n;
  e.lo = lo;
  e.hi = hi;
  e.inv_h2 = static_cast<T>(1.0 / (h * h));
  e.lo_robin = static_cast<T>(2.0 * lo_robin_h / h);  // discrete.hpp: 2 h_c / h
  e.hi_robin = static_cast<T>(2.0 * hi_robin_h / h);
  return e;
}

namespace cpu {

template <class T>
void solve_conductive(Axis axis, const T* K, const typename adi::detail::NoDeduce<T>::type* inv_c,
                      const ConductiveLines<T>& lines, T* d, const Layout3& L) {
  L.validate("conductive line solve");
  ADI_REQUIRE(K && d, "conductive line solve: K or d is null");
  const int a = axis_index(axis);
  const index_t n = L.n[a], s = L.stride[a];
  lines.validate(n);
  if (L.points() == 0) return;
  AxisScales<T> scales;
  const AxisEnds<T> e = lines.ends(n, scales);
  const bool wrap = lines.lo == LineEnd::Wrap;
  const T tau = static_cast<T>(lines.tau);
  const int o1 = (a + 1) % 3, o2 = (a + 2) % 3;
  const index_t lines_n = L.n[o1] * L.n[o2];
  bool ok = true, values_ok = true;
#pragma omp parallel reduction(&& : ok, values_ok)
  {
    std::vector<T> ra(n), rb(n), rc(n), x(n), cp(n), z(n), bb(n);
#pragma omp for schedule(static)
    for (index_t line = 0; line < lines_n; ++line) {
      const index_t base = (line % L.n[o1]) * L.stride[o1] + (line / L.n[o1]) * L.stride[o2];
      for (index_t i = 0; i < n; ++i) {
        const index_t o = base + i * s;
        x[i] = d[o];
        const T rho = inv_c ? inv_c[o] : T(1);
        // A NaN K would not reach a pivot: harmonic_mean turns it into a zero
        // conductance (no coupling), so the values are checked here.
        if (!fixed_row(i, e))
          values_ok = values_ok && std::isfinite(static_cast<double>(K[o])) && K[o] >= T(0) &&
                      std::isfinite(static_cast<double>(rho)) && rho > T(0);
        detail::conductive_row(i, o, s, e, K, T(0), rho, tau, ra[i], rb[i], rc[i]);
      }
      const bool good = wrap ? detail::cyclic(n, ra.data(), rb.data(), rc.data(), x.data(), cp.data(), z.data(),
                                              bb.data())
                             : detail::thomas(n, ra.data(), rb.data(), rc.data(), x.data(), cp.data());
      ok = ok && good;
      for (index_t i = 0; i < n; ++i) d[base + i * s] = x[i];
    }
  }
  if (!values_ok)
    ADI_THROW(InvalidArgument, std::string("conductive line solve along ") + axis_name(axis) +
                                   ": K must be finite and >= 0, 1/c finite and > 0 at every node that is not a "
                                   "Fixed end");
  if (!ok)
    ADI_THROW(NumericalError, std::string("conductive line solve along ") + axis_name(axis) +
                                  ": zero or non-finite pivot (non-finite or non-positive K or c?)");
}

template void solve_conductive<float>(Axis, const float*, const float*, const ConductiveLines<float>&, float*,
                                      const Layout3&);
template void solve_conductive<double>(Axis, const double*, const double*, const ConductiveLines<double>&, double*,
                                       const Layout3&);

}  // namespace cpu

template struct ConductiveLines<float>;
template struct ConductiveLines<double>;

}  // namespace adi
