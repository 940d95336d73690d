// adi::cpu::solve_conductive (adi/conductive.hpp) against a dense oracle
// written from the operator's definition (not from discrete.hpp's row
// functions): every end kind, every axis, packed and padded layouts, awkward
// lengths, K varying 1000x and c varying 10x along and across the lines.

#include "test_util.hpp"

#include <adi/conductive.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace adi;
using namespace adi::test;

namespace {

double hm(double a, double b) { return a == b ? a : 2.0 * a * b / (a + b); }

// Dense Gaussian elimination with partial pivoting, M x = r.
std::vector<double> dense_solve(std::vector<std::vector<double>> M, std::vector<double> r) {
  const std::size_t n = r.size();
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = k;
    for (std::size_t i = k + 1; i < n; ++i)
      if (std::fabs(M[i][k]) > std::fabs(M[p][k])) p = i;
    std::swap(M[k], M[p]);
    std::swap(r[k], r[p]);
    for (std::size_t i = k + 1; i < n; ++i) {
      const double f = M[i][k] / M[k][k];
      for (std::size_t j = k; j < n; ++j) M[i][j] -= f * M[k][j];
      r[i] -= f * r[k];
    }
  }
  std::vector<double> x(n);
  for (std::size_t k = n; k-- > 0;) {
    double s = r[k];
    for (std::size_t j = k + 1; j < n; ++j) s -= M[k][j] * x[j];
    x[k] = s / M[k][k];
  }
  return x;
}

// I - tau A for one line, from the definition in adi/conductive.hpp.
std::vector<std::vector<double>> oracle_matrix(const std::vector<double>& K, const std::vector<double>& c,
                                               const ConductiveLines<double>& L) {
  const std::size_t n = K.size();
  std::vector<std::vector<double>> A(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) {
    const bool lo = i == 0, hi = i + 1 == n;
    if ((lo && L.lo == LineEnd::Fixed) || (hi && L.hi == LineEnd::Fixed)) continue;  // identity row
    const double s = 1.0 / (c[i] * L.h * L.h);
    auto couple = [&](std::size_t j, double g) {
      A[i][j] += g;
      A[i][i] -= g;
    };
    // lower side: a ghost node u_{-1} = u_1 with K_{-1} = K_1 at an
    // insulated / convective end, node n - 1 on a periodic axis
    if (lo && L.lo == LineEnd::Mirror) {
      if (n > 1) couple(1, hm(K[1], K[0]) * s);
      A[i][i] -= 2.0 * L.lo_robin_h / (c[i] * L.h);  // -h_c u over the half cell h / 2
    } else {
      const std::size_t j = lo ? n - 1 : i - 1;
      couple(j, hm(K[j], K[i]) * s);
    }
    if (hi && L.hi == LineEnd::Mirror) {
      if (n > 1) couple(n - 2, hm(K[n - 2], K[n - 1]) * s);
      A[i][i] -= 2.0 * L.hi_robin_h / (c[i] * L.h);
    } else {
      const std::size_t j = hi ? 0 : i + 1;
      couple(j, hm(K[i], K[j]) * s);
    }
  }
  std::vector<std::vector<double>> M(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) M[i][j] = (i == j ? 1.0 : 0.0) - L.tau * A[i][j];
  return M;
}

struct Ends {
  LineEnd lo, hi;
  double robin_lo, robin_hi;
  const char* name;
};

template <class T>
void check(Axis axis, index_t n, bool padded, const Ends& ends) {
  SeededRng rng;
  index_t ext[3] = {5, 4, 3};
  ext[axis_index(axis)] = n;
  const Layout3 Lay = test_layout(ext[0], ext[1], ext[2], padded);
  ConductiveLines<T> lines;
  lines.h = 0.01;
  lines.tau = 2e-4;  // tau K / (c h^2) up to ~ 200 x 5 = 1000: stiff, still well conditioned (M is an M-matrix)
  lines.lo = ends.lo;
  lines.hi = ends.hi;
  lines.lo_robin_h = ends.robin_lo;
  lines.hi_robin_h = ends.robin_hi;
  const auto span = static_cast<std::size_t>(Lay.span());
  std::vector<T> K(span, T(1)), ic(span, T(1)), d(span, std::numeric_limits<T>::infinity());
  for (index_t k = 0; k < ext[2]; ++k)
    for (index_t j = 0; j < ext[1]; ++j)
      for (index_t i = 0; i < ext[0]; ++i) {
        const index_t o = Lay.offset(i, j, k);
        K[o] = static_cast<T>(0.1 * std::pow(1000.0, rng.uniform(0.0, 1.0)));  // 0.1 .. 100
        ic[o] = static_cast<T>(1.0 / rng.uniform(0.5, 5.0));
        d[o] = static_cast<T>(rng.uniform(-1.0, 1.0));
      }
  const std::vector<T> rhs = d;
  cpu::solve_conductive(axis, K.data(), ic.data(), lines, d.data(), Lay);
  ConductiveLines<double> ld{lines.tau, lines.h, lines.lo, lines.hi, lines.lo_robin_h, lines.hi_robin_h, {}};
  const int a = axis_index(axis), o1 = (a + 1) % 3, o2 = (a + 2) % 3;
  double worst = 0.0;
  for (index_t q = 0; q < ext[o2]; ++q)
    for (index_t p = 0; p < ext[o1]; ++p) {
      std::vector<double> Kl(n), cl(n), r(n), got(n);
      for (index_t s = 0; s < n; ++s) {
        index_t idx[3];
        idx[a] = s, idx[o1] = p, idx[o2] = q;
        const index_t o = Lay.offset(idx[0], idx[1], idx[2]);
        // the oracle sees the values as stored in T (compare the solver, not the rounding of its inputs)
        Kl[s] = static_cast<double>(K[o]);
        cl[s] = 1.0 / static_cast<double>(ic[o]);
        r[s] = static_cast<double>(rhs[o]);
        got[s] = static_cast<double>(d[o]);
      }
      const auto want = dense_solve(oracle_matrix(Kl, cl, ld), r);
      double scale = 1e-300;
      for (double v : want) scale = std::max(scale, std::fabs(v));
      for (index_t s = 0; s < n; ++s) worst = std::max(worst, std::fabs(got[s] - want[s]) / scale);
    }
  // fp32: the rows are computed in T (harmonic means, 1/c), so the error is
  // the conditioning times fp32's epsilon, not only the solve's
  const double tol = sizeof(T) == 4 ? 5e-4 : 1e-11;
  EXPECT_LE(worst, tol) << axis_name(axis) << " n " << n << (padded ? " padded " : " packed ") << ends.name;
  // padding untouched
  std::vector<char> pt(span, 0);
  for (index_t k = 0; k < ext[2]; ++k)
    for (index_t j = 0; j < ext[1]; ++j)
      for (index_t i = 0; i < ext[0]; ++i) pt[Lay.offset(i, j, k)] = 1;
  for (std::size_t q = 0; q < span; ++q)
    if (!pt[q]) {
      ASSERT_TRUE(std::isinf(d[q])) << "padding element " << q << " written";
    }
}

const Ends kEnds[] = {{LineEnd::Fixed, LineEnd::Fixed, 0, 0, "fixed/fixed"},
                      {LineEnd::Mirror, LineEnd::Fixed, 0, 0, "insulated/fixed"},
                      {LineEnd::Fixed, LineEnd::Mirror, 0, 25.0, "fixed/convective"},
                      {LineEnd::Mirror, LineEnd::Mirror, 40.0, 0, "convective/insulated"},
                      {LineEnd::Mirror, LineEnd::Mirror, 0, 0, "insulated/insulated"},
                      {LineEnd::Wrap, LineEnd::Wrap, 0, 0, "periodic"}};

template <class T>
void check_all() {
  for (Axis axis : {Axis::X, Axis::Y, Axis::Z})
    for (index_t n : {1, 2, 3, 7, 33, 130})
      for (bool padded : {false, true})
        for (const Ends& e : kEnds) {
          if (e.lo == LineEnd::Wrap && n < 3) continue;  // rejected: ConductiveErrors
          check<T>(axis, n, padded, e);
        }
}

// A stretched line (ConductiveLines::coordinates): the dense matrix from the
// finite-volume definition (node i owns half of each neighbouring gap, a
// Mirror end's node half of its one gap; each face's conductance the
// harmonic mean over its gap), every end kind, gaps varying 20x.
namespace {
std::vector<std::vector<double>> stretched_matrix(const std::vector<double>& K, const std::vector<double>& c,
                                                  const ConductiveLines<double>& L) {
  const std::size_t n = K.size();
  const std::vector<double>& x = L.coordinates;
  const bool ring = L.lo == LineEnd::Wrap;
  std::vector<std::vector<double>> A(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) {
    const bool lo = i == 0, hi = i + 1 == n;
    if ((lo && L.lo == LineEnd::Fixed) || (hi && L.hi == LineEnd::Fixed)) continue;
    // The faces this node's cell has: below (to i - 1, or the wrap), above.
    const bool has_lo = !lo || ring, has_hi = !hi || ring;
    const double d_lo = lo ? (ring ? x[n] - x[n - 1] : 0.0) : x[i] - x[i - 1];
    const double d_hi = hi ? (ring ? x[n] - x[n - 1] : 0.0) : x[i + 1] - x[i];
    const double V = 0.5 * (d_lo + d_hi);  // half of one gap at a Mirror end
    if (has_lo) {
      const std::size_t j = lo ? n - 1 : i - 1;
      const double g = hm(K[j], K[i]) / (d_lo * c[i] * V);
      A[i][j] += g, A[i][i] -= g;
    }
    if (has_hi) {
      const std::size_t j = hi ? 0 : i + 1;
      const double g = hm(K[i], K[j]) / (d_hi * c[i] * V);
      A[i][j] += g, A[i][i] -= g;
    }
    if (lo && L.lo == LineEnd::Mirror) A[i][i] -= L.lo_robin_h / (c[i] * V);
    if (hi && L.hi == LineEnd::Mirror) A[i][i] -= L.hi_robin_h / (c[i] * V);
  }
  std::vector<std::vector<double>> M(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) M[i][j] = (i == j ? 1.0 : 0.0) - L.tau * A[i][j];
  return M;
}
}  // namespace

TEST(Conductive, StretchedLinesMatchDenseOracle) {
  SeededRng rng;
  for (index_t n : {2, 3, 7, 33})
    for (const Ends& ends : kEnds) {
      if (ends.lo == LineEnd::Wrap && n < 3) continue;
      ConductiveLines<double> lines;
      lines.tau = 2e-4;
      lines.lo = ends.lo, lines.hi = ends.hi;
      lines.lo_robin_h = ends.robin_lo, lines.hi_robin_h = ends.robin_hi;
      const index_t gaps = n - 1 + (ends.lo == LineEnd::Wrap ? 1 : 0);
      lines.coordinates.push_back(0.3);
      for (index_t g = 0; g < gaps; ++g) lines.coordinates.push_back(lines.coordinates.back() + 0.001 * rng.uniform(1, 20));
      const Layout3 Lay = Layout3::packed(n, 3, 2);
      const auto pts = static_cast<std::size_t>(Lay.points());
      std::vector<double> K(pts), ic(pts), d(pts);
      for (std::size_t q = 0; q < pts; ++q) {
        K[q] = 0.1 * std::pow(1000.0, rng.uniform(0.0, 1.0));
        ic[q] = 1.0 / rng.uniform(0.5, 5.0);
        d[q] = rng.uniform(-1.0, 1.0);
      }
      const std::vector<double> rhs = d;
      cpu::solve_conductive(Axis::X, K.data(), ic.data(), lines, d.data(), Lay);
      double worst = 0.0;
      for (index_t line = 0; line < 6; ++line) {
        std::vector<double> Kl(static_cast<std::size_t>(n)), cl(Kl.size()), r(Kl.size());
        for (index_t i = 0; i < n; ++i) {
          const std::size_t o = static_cast<std::size_t>(i + n * line);
          Kl[i] = K[o], cl[i] = 1.0 / ic[o], r[i] = rhs[o];
        }
        const auto want = dense_solve(stretched_matrix(Kl, cl, lines), r);
        double scale = 1e-300;
        for (double v : want) scale = std::max(scale, std::fabs(v));
        for (index_t i = 0; i < n; ++i)
          worst = std::max(worst, std::fabs(d[static_cast<std::size_t>(i + n * line)] - want[i]) / scale);
      }
      EXPECT_LE(worst, 1e-11) << "n " << n << " " << ends.name;
    }
  // h beside coordinates, too few of them, not increasing: refused.
  ConductiveLines<double> bad;
  bad.tau = 1e-3;
  bad.coordinates = {0.0, 0.1, 0.3};
  bad.h = 0.1;
  EXPECT_THROW(bad.validate(3), InvalidArgument);
  bad.h = 0.0;
  EXPECT_NO_THROW(bad.validate(3));
  EXPECT_THROW(bad.validate(4), InvalidArgument);
  bad.coordinates = {0.0, 0.3, 0.3};
  EXPECT_THROW(bad.validate(3), InvalidArgument);
}

TEST(Conductive, MatchesDenseOracleF64) { check_all<double>(); }
TEST(Conductive, MatchesDenseOracleF32) { check_all<float>(); }

// A constant K and c make the conductive rows those of the constant-
// coefficient matrix r = tau K / (c h^2): the same solution as solve_constant.
TEST(Conductive, ConstantFieldsMatchTheConstantSolve) {
  const Layout3 L = Layout3::packed(37, 6, 5);
  ConductiveLines<double> lines{1e-3, 0.05, LineEnd::Fixed, LineEnd::Mirror, 0.0, 0.0, {}};
  const double K0 = 3.0, c0 = 2.0, r = lines.tau * K0 / (c0 * lines.h * lines.h);
  std::vector<double> K(L.span(), K0), ic(L.span(), 1.0 / c0), d(L.span());
  SeededRng rng;
  for (auto& v : d) v = rng.uniform(-1, 1);
  auto want = d;
  LineMatrix m(37);
  for (index_t i = 1; i < 37; ++i) {
    m.a[i] = -r;
    m.b[i] = 1.0 + 2.0 * r;
    m.c[i] = i + 1 < 37 ? -r : 0.0;
  }
  m.a[36] = -2.0 * r;  // insulated end: the inward coupling twice
  cpu::solve_constant(Axis::X, ThomasFactor<double>::factor(m), want.data(), L);
  cpu::solve_conductive(Axis::X, K.data(), ic.data(), lines, d.data(), L);
  double worst = 0;
  for (std::size_t q = 0; q < d.size(); ++q) worst = std::max(worst, std::fabs(d[q] - want[q]));
  EXPECT_LE(worst, 1e-13);
  // inv_c = nullptr means c = 1
  std::vector<double> d1(L.span(), 1.0), d2(L.span(), 1.0), ones(L.span(), 1.0);
  cpu::solve_conductive(Axis::Y, K.data(), nullptr, lines, d1.data(), L);
  cpu::solve_conductive(Axis::Y, K.data(), ones.data(), lines, d2.data(), L);
  EXPECT_EQ(d1, d2);
}

TEST(Conductive, ErrorsNameWhatIsWrong) {
  const Layout3 L = Layout3::packed(5, 4, 3);
  std::vector<double> K(L.span(), 1.0), d(L.span(), 0.0);
  auto expect_invalid = [&](ConductiveLines<double> l, const Layout3& lay, const std::string& needle) {
    try {
      cpu::solve_conductive(Axis::X, K.data(), nullptr, l, d.data(), lay);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  const ConductiveLines<double> ok{1e-3, 0.1, LineEnd::Fixed, LineEnd::Fixed, 0.0, 0.0, {}};
  auto with = [&](auto f) {
    ConductiveLines<double> l = ok;
    f(l);
    return l;
  };
  expect_invalid(with([](auto& l) { l.h = 0.0; }), L, "spacing h");
  expect_invalid(with([](auto& l) { l.h = std::nan(""); }), L, "spacing h");
  expect_invalid(with([](auto& l) { l.tau = -1.0; }), L, "tau");
  expect_invalid(with([](auto& l) { l.lo = LineEnd::Wrap; }), L, "both ends");
  expect_invalid(with([](auto& l) { l.hi = LineEnd::Open; }), L, "Open");
  expect_invalid(with([](auto& l) { l.lo_robin_h = 5.0; }), L, "lo end is not Mirror");
  expect_invalid(with([](auto& l) {
                   l.hi = LineEnd::Mirror;
                   l.hi_robin_h = -1.0;
                 }),
                 L, "hi_robin_h");
  expect_invalid(with([](auto& l) { l.lo = l.hi = LineEnd::Wrap; }), Layout3::packed(2, 4, 3), "at least 3 nodes");
  EXPECT_THROW(cpu::solve_conductive(Axis::X, static_cast<const double*>(nullptr), nullptr, ok, d.data(), L),
               InvalidArgument);
  // bad values: a NaN or negative K, a zero 1/c (infinite heat capacity: no
  // row), each named
  for (double bad : {std::nan(""), -1.0, std::numeric_limits<double>::infinity()}) {
    K[L.offset(2, 1, 1)] = bad;
    EXPECT_THROW(cpu::solve_conductive(Axis::X, K.data(), nullptr, ok, d.data(), L), InvalidArgument) << bad;
  }
  K[L.offset(2, 1, 1)] = 1.0;
  std::vector<double> ic(L.span(), 1.0);
  ic[L.offset(3, 2, 0)] = 0.0;
  EXPECT_THROW(cpu::solve_conductive(Axis::Y, K.data(), ic.data(), ok, d.data(), L), InvalidArgument);
  // K = 0 everywhere is allowed (no conduction): x = d
  std::vector<double> zero(L.span(), 0.0), rhs(L.span(), 0.5), x = rhs;
  cpu::solve_conductive(Axis::Z, zero.data(), nullptr, ok, x.data(), L);
  EXPECT_EQ(x, rhs);
}

}  // namespace
