#include <adi/segmented.hpp>

#include <cmath>
#include <sstream>

namespace adi {

namespace {
void check_pivot(double p, const char* where, index_t row) {
  if (!std::isfinite(p) || std::abs(p) < 1e-300) {
    std::ostringstream s;
    s << "segmented plan: zero or non-finite pivot in " << where << " at row " << row;
    ADI_THROW(NumericalError, s.str());
  }
}
}  // namespace

template <class T>
SegmentedPlan<T> SegmentedPlan<T>::build(const LineMatrix& m, int seg_len) {
  const index_t n = m.size();
  ADI_REQUIRE(seg_len >= 2, "segmented plan: segments need at least 2 rows");
  int S = 1;
  while (static_cast<index_t>(S) * seg_len < n) S *= 2;
  return build(m, seg_len, S);
}

template <class T>
SegmentedPlan<T> SegmentedPlan<T>::build(const LineMatrix& m, int I, int S) {
  ADI_REQUIRE(S >= 1 && S <= 32 && (S & (S - 1)) == 0, "segmented plan: segment count must be a power of two <= 32");
  return build_any(m, I, S);
}

template <class T>
SegmentedPlan<T> SegmentedPlan<T>::build_long(const LineMatrix& m, int I) {
  ADI_REQUIRE(I >= 2, "segmented plan: segments need at least 2 rows");
  const index_t S = (m.size() + I - 1) / I;
  // The kernels index the tables (5 S (I + 1) + 7 S values) with ints.
  ADI_REQUIRE(m.size() >= 1 && S * (5 * (I + 1) + 8) < (index_t(1) << 31),
              "segmented plan: the line is too long for the long-line tables");
  return build_any(m, I, static_cast<int>(S));
}

template <class T>
LineMatrix SegmentedPlan<T>::reduced_matrix() const {
  const std::size_t r = red_sub.size();
  LineMatrix m;
  m.a = red_sub;
  m.b.assign(r, 1.0);
  m.c = red_sup;
  if (r > 0) {
    m.a[0] = 0.0;
    m.c[r - 1] = 0.0;
  }
  return m;
}

template <class T>
SegmentedPlan<T> SegmentedPlan<T>::build_any(const LineMatrix& m, int I, int S) {
  const index_t n = m.size();
  ADI_REQUIRE(n >= 1, "segmented plan: empty line");
  ADI_REQUIRE(I >= 2, "segmented plan: segments need at least 2 rows");
  ADI_REQUIRE(S >= 1, "segmented plan: no segments");
  ADI_REQUIRE(static_cast<index_t>(S) * I >= n, "segmented plan: segments do not cover the line");
  SegmentedPlan p;
  p.n = n;
  p.seg_len = I;
  p.segments = S;
  const index_t N = static_cast<index_t>(S) * I;
  // Padded coefficients: identity rows beyond n (decoupled: c[n-1] = 0, a[n] = 0).
  std::vector<double> a(N, 0.0), b(N, 1.0), c(N, 0.0);
  for (index_t r = 0; r < n; ++r) {
    a[r] = r > 0 ? m.a[r] : 0.0;
    b[r] = m.b[r];
    c[r] = r + 1 < n ? m.c[r] : 0.0;
  }
  std::vector<double> fw_mul(N, 1.0), fw_ms(N, 0.0), bw_c(N, 0.0), A(N, 0.0), C(N, 0.0), bw0(S, 1.0);
  std::vector<double> ra(2 * S, 0.0), rc(2 * S, 0.0);
  for (int s = 0; s < S; ++s) {
    const index_t r0 = static_cast<index_t>(s) * I;
    // Forward: rows 0 and 1 are only scaled (row 1 already couples to x_first
    // through a_1); rows j >= 2 eliminate x_{j-1}, picking up a coupling A_j to x_first.
    for (int j = 0; j < I; ++j) {
      const index_t r = r0 + j;
      if (j < 2) {
        check_pivot(b[r], "forward sweep", r);
        const double q = 1.0 / b[r];
        fw_mul[r] = q;
        A[r] = a[r] * q;
        C[r] = c[r] * q;
      } else {
        const double piv = b[r] - a[r] * C[r - 1];
        check_pivot(piv, "forward sweep", r);
        const double q = 1.0 / piv;
        fw_mul[r] = q;
        fw_ms[r] = q * a[r];
        A[r] = -q * a[r] * A[r - 1];
        C[r] = q * c[r];
      }
    }
    // Backward: rows I-3 .. 1 eliminate x_{j+1}, coupling to x_last instead.
    for (int j = I - 3; j >= 1; --j) {
      const index_t r = r0 + j;
      bw_c[r] = C[r];
      A[r] = A[r] - C[r] * A[r + 1];
      C[r] = -C[r] * C[r + 1];
    }
    if (I >= 3) {  // row 0 eliminates x_1 using row 1's final form
      const double piv = 1.0 - C[r0] * A[r0 + 1];
      check_pivot(piv, "segment first row", r0);
      const double q = 1.0 / piv;
      bw0[s] = q;
      bw_c[r0] = C[r0];
      A[r0] = q * A[r0];
      C[r0] = -q * C[r0] * C[r0 + 1];
    }
    // Reduced rows: first couples to (last of s-1, last of s), last to (first of s, first of s+1).
    ra[2 * s] = A[r0];
    rc[2 * s] = C[r0];
    ra[2 * s + 1] = A[r0 + I - 1];
    rc[2 * s + 1] = C[r0 + I - 1];
  }
  // Thomas factorisation of the unit-diagonal reduced system, as affine maps.
  std::vector<double> rinv(2 * S), rA(2 * S), rC(2 * S);
  double cp_prev = 0.0;
  for (int r = 0; r < 2 * S; ++r) {
    const double sub = r > 0 ? ra[r] : 0.0;
    const double piv = 1.0 - sub * cp_prev;
    check_pivot(piv, "reduced system", r);
    rinv[r] = 1.0 / piv;
    rA[r] = -sub / piv;
    cp_prev = (r + 1 < 2 * S ? rc[r] : 0.0) / piv;
    rC[r] = -cp_prev;
  }
  p.red_sub = ra;
  p.red_sup = rc;
  auto cast = [](const std::vector<double>& v) { return std::vector<T>(v.begin(), v.end()); };
  p.fw_mul = cast(fw_mul);
  p.fw_ms = cast(fw_ms);
  p.bw_c = cast(bw_c);
  p.fin_a = cast(A);
  p.fin_c = cast(C);
  p.bw0_mul = cast(bw0);
  p.red_inv = cast(rinv);
  p.red_a = cast(rA);
  p.red_c = cast(rC);
  return p;
}

template <class T>
void segmented_solve_reference(const SegmentedPlan<T>& p, T* line) {
  const int I = p.seg_len, S = p.segments;
  std::vector<T> d(static_cast<std::size_t>(p.padded()), T(0));
  for (index_t r = 0; r < p.n; ++r) d[r] = line[r];
  std::vector<T> red(2 * S);
  for (int s = 0; s < S; ++s) {
    T* x = d.data() + static_cast<index_t>(s) * I;
    const index_t r0 = static_cast<index_t>(s) * I;
    x[0] *= p.fw_mul[r0];
    x[1] *= p.fw_mul[r0 + 1];
    for (int j = 2; j < I; ++j) x[j] = p.fw_mul[r0 + j] * x[j] - p.fw_ms[r0 + j] * x[j - 1];
    for (int j = I - 3; j >= 1; --j) x[j] -= p.bw_c[r0 + j] * x[j + 1];
    if (I >= 3) x[0] = p.bw0_mul[s] * (x[0] - p.bw_c[r0] * x[1]);
    red[2 * s] = x[0];
    red[2 * s + 1] = x[I - 1];
  }
  T y = 0;
  for (int r = 0; r < 2 * S; ++r) red[r] = y = p.red_inv[r] * red[r] + p.red_a[r] * y;
  T z = 0;
  for (int r = 2 * S - 1; r >= 0; --r) red[r] = z = red[r] + p.red_c[r] * z;
  for (int s = 0; s < S; ++s) {
    T* x = d.data() + static_cast<index_t>(s) * I;
    const index_t r0 = static_cast<index_t>(s) * I;
    const T zf = red[2 * s], zl = red[2 * s + 1];
    for (int j = 1; j <= I - 2; ++j) x[j] = x[j] - p.fin_a[r0 + j] * zf - p.fin_c[r0 + j] * zl;
    x[0] = zf;
    x[I - 1] = zl;
  }
  for (index_t r = 0; r < p.n; ++r) line[r] = d[r];
}

CyclicSplit cyclic_split(const LineMatrix& m) {
  const index_t n = m.size();
  ADI_REQUIRE(n >= 3, "cyclic line matrix: a periodic line needs at least 3 nodes");
  CyclicSplit s;
  s.tridiag = m;
  LineMatrix& t = s.tridiag;
  const double lo = m.a[0], hi = m.c[n - 1], g = -m.b[0];
  check_pivot(g, "the cyclic split (b[0] = 0)", 0);
  t.a[0] = 0.0;
  t.c[n - 1] = 0.0;
  t.b[0] = m.b[0] - g;
  t.b[n - 1] = m.b[n - 1] - hi * lo / g;
  s.phi = lo / g;
  // z = A'^{-1} u by Thomas in long double: the table every line's
  // correction reads, so its rounding is paid once.
  std::vector<long double> cp(n), z(n, 0.0L);
  z[0] = g;
  z[n - 1] += hi;
  long double piv = t.b[0];
  check_pivot(static_cast<double>(piv), "the cyclic split", 0);
  cp[0] = t.c[0] / piv;
  z[0] /= piv;
  for (index_t i = 1; i < n; ++i) {
    piv = t.b[i] - t.a[i] * cp[i - 1];
    check_pivot(static_cast<double>(piv), "the cyclic split", i);
    cp[i] = t.c[i] / piv;
    z[i] = (z[i] - t.a[i] * z[i - 1]) / piv;
  }
  for (index_t i = n - 2; i >= 0; --i) z[i] -= cp[i] * z[i + 1];
  const long double den = 1.0L + z[0] + static_cast<long double>(s.phi) * z[n - 1];
  check_pivot(static_cast<double>(den), "the cyclic split (1 + v.z)", n - 1);
  s.psi = static_cast<double>(1.0L / den);
  s.z.assign(z.begin(), z.end());
  return s;
}

template <class T>
void segmented_cyclic_reference(const SegmentedPlan<T>& plan, const CyclicSplit& split, T* line) {
  const index_t n = plan.n;
  segmented_solve_reference(plan, line);
  const T lam = (line[0] + static_cast<T>(split.phi) * line[n - 1]) * static_cast<T>(split.psi);
  for (index_t i = 0; i < n; ++i) line[i] -= lam * static_cast<T>(split.z[static_cast<std::size_t>(i)]);
}

template struct SegmentedPlan<float>;
template struct SegmentedPlan<double>;
template void segmented_solve_reference<float>(const SegmentedPlan<float>&, float*);
template void segmented_solve_reference<double>(const SegmentedPlan<double>&, double*);
template void segmented_cyclic_reference<float>(const SegmentedPlan<float>&, const CyclicSplit&, float*);
template void segmented_cyclic_reference<double>(const SegmentedPlan<double>&, const CyclicSplit&, double*);

}  // namespace adi
