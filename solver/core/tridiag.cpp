#include <adi/tridiag.hpp>

#include <cmath>
#include <sstream>

namespace adi {

std::vector<double> LineMatrix::multiply(const std::vector<double>& x) const {
  const index_t n = size();
  std::vector<double> y(n, 0.0);
  for (index_t i = 0; i < n; ++i) {
    double s = b[i] * x[i];
    if (i > 0) s += a[i] * x[i - 1];
    if (i + 1 < n) s += c[i] * x[i + 1];
    y[i] = s;
  }
  return y;
}

template <class T>
ThomasFactor<T> ThomasFactor<T>::factor(const LineMatrix& m) {
  const index_t n = m.size();
  ADI_REQUIRE(n >= 1, "tridiagonal matrix must have at least one row");
  ADI_REQUIRE(static_cast<index_t>(m.a.size()) == n && static_cast<index_t>(m.c.size()) == n,
              "tridiagonal diagonals a, b, c must have the same length");
  ThomasFactor f;
  f.matrix_ = m;
  f.a_.resize(n);
  f.cp_.resize(n);
  f.inv_.resize(n);
  double cp_prev = 0.0;
  for (index_t i = 0; i < n; ++i) {
    const double ai = i > 0 ? m.a[i] : 0.0;
    const double ci = i + 1 < n ? m.c[i] : 0.0;
    const double pivot = m.b[i] - ai * cp_prev;
    const double scale = std::abs(m.b[i]) + std::abs(ai) + std::abs(ci);
    if (!(std::abs(pivot) > 1e-300) || !(std::abs(pivot) > 1e-14 * scale) || !std::isfinite(pivot)) {
      std::ostringstream s;
      s << "tridiagonal factorisation: zero or non-finite pivot " << pivot << " in row " << i << " of " << n;
      ADI_THROW(NumericalError, s.str());
    }
    const double inv = 1.0 / pivot;
    cp_prev = ci * inv;
    f.a_[i] = static_cast<T>(ai);
    f.cp_[i] = static_cast<T>(cp_prev);
    f.inv_[i] = static_cast<T>(inv);
  }
  return f;
}

template class ThomasFactor<float>;
template class ThomasFactor<double>;

}  // namespace adi
