// CPU batched tridiagonal solves against the dense LU oracle, along every
// axis, on packed and padded layouts, for awkward line lengths, fp32 and fp64.

#include "test_util.hpp"

#include "cpu/line_rows.hpp"
#include "cpu/tridiag_cpu.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>

using namespace adi;
using namespace adi::test;

namespace {

struct Case {
  Axis axis;
  index_t length;
  bool padded;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(axis_name(info.param.axis)) + "_n" + std::to_string(info.param.length) +
         (info.param.padded ? "_padded" : "_packed");
}

// Extents with the line length on `axis` and small awkward counts elsewhere.
Layout3 layout_for(const Case& c) {
  index_t n[3] = {7, 5, 3};
  n[axis_index(c.axis)] = c.length;
  return test_layout(n[0], n[1], n[2], c.padded);
}

// Poisons every element of the allocation, then fills the points with values;
// padding keeps the poison so that a write there shows.
template <class T>
std::vector<T> random_field(SeededRng& rng, const Layout3& L) {
  std::vector<T> d(static_cast<std::size_t>(L.span()), std::numeric_limits<T>::infinity());
  for (index_t k = 0; k < L.n[2]; ++k)
    for (index_t j = 0; j < L.n[1]; ++j)
      for (index_t i = 0; i < L.n[0]; ++i) d[L.offset(i, j, k)] = static_cast<T>(rng.uniform(-1.0, 1.0));
  return d;
}

template <class T>
void expect_padding_untouched(const std::vector<T>& d, const Layout3& L) {
  std::vector<char> is_point(d.size(), 0);
  for (index_t k = 0; k < L.n[2]; ++k)
    for (index_t j = 0; j < L.n[1]; ++j)
      for (index_t i = 0; i < L.n[0]; ++i) is_point[L.offset(i, j, k)] = 1;
  for (std::size_t q = 0; q < d.size(); ++q)
    if (!is_point[q]) {
      ASSERT_TRUE(std::isinf(d[q])) << "padding element " << q << " was written";
    }
}

// Extracts line (u, v) along axis a as doubles.
template <class T>
std::vector<double> get_line(const std::vector<T>& d, const Layout3& L, Axis a, index_t p, index_t q) {
  const int ax = axis_index(a);
  std::vector<double> out(L.n[ax]);
  for (index_t s = 0; s < L.n[ax]; ++s) {
    index_t idx[3];
    idx[ax] = s;
    idx[(ax + 1) % 3] = p;
    idx[(ax + 2) % 3] = q;
    out[s] = static_cast<double>(d[L.offset(idx[0], idx[1], idx[2])]);
  }
  return out;
}

template <class T>
void check_constant(const Case& c) {
  SeededRng rng;
  const Layout3 L = layout_for(c);
  const LineMatrix m = random_dominant(rng, c.length);
  const auto f = ThomasFactor<T>::factor(m);
  auto d = random_field<T>(rng, L);
  const auto rhs = d;
  cpu::solve_constant(c.axis, f, d.data(), L);
  expect_padding_untouched(d, L);
  const int ax = axis_index(c.axis);
  const index_t n1 = L.n[(ax + 1) % 3], n2 = L.n[(ax + 2) % 3];
  double worst = 0.0;
  for (index_t q = 0; q < n2; ++q)
    for (index_t p = 0; p < n1; ++p) {
      // The oracle solves the matrix as stored in T, so that fp32 compares
      // the solver's arithmetic, not the rounding of its coefficients.
      const auto x_ref = dense_lu_solve(m, get_line(rhs, L, c.axis, p, q));
      const auto x = get_line(d, L, c.axis, p, q);
      double scale = 1e-300;
      for (double v : x_ref) scale = std::max(scale, std::fabs(v));
      for (std::size_t s = 0; s < x.size(); ++s) worst = std::max(worst, std::fabs(x[s] - x_ref[s]) / scale);
    }
  EXPECT_LE(worst, tolerance_for<T>()) << "axis " << axis_name(c.axis) << " n " << c.length;
}

template <class T>
void check_general(const Case& c) {
  SeededRng rng;
  const Layout3 L = layout_for(c);
  const int ax = axis_index(c.axis);
  const index_t n1 = L.n[(ax + 1) % 3], n2 = L.n[(ax + 2) % 3];
  std::vector<T> a(L.span(), T(0)), b(L.span(), T(1)), cc(L.span(), T(0));
  std::vector<LineMatrix> mats;
  for (index_t q = 0; q < n2; ++q)
    for (index_t p = 0; p < n1; ++p) {
      LineMatrix m = random_dominant(rng, c.length);
      for (index_t s = 0; s < c.length; ++s) {
        index_t idx[3];
        idx[ax] = s;
        idx[(ax + 1) % 3] = p;
        idx[(ax + 2) % 3] = q;
        const index_t o = L.offset(idx[0], idx[1], idx[2]);
        a[o] = static_cast<T>(m.a[s]);
        b[o] = static_cast<T>(m.b[s]);
        cc[o] = static_cast<T>(m.c[s]);
        // The oracle sees exactly the coefficients the solver sees.
        m.a[s] = static_cast<double>(a[o]);
        m.b[s] = static_cast<double>(b[o]);
        m.c[s] = static_cast<double>(cc[o]);
      }
      mats.push_back(m);
    }
  auto d = random_field<T>(rng, L);
  const auto rhs = d;
  cpu::solve_general(c.axis, a.data(), b.data(), cc.data(), d.data(), L);
  expect_padding_untouched(d, L);
  double worst = 0.0;
  std::size_t line = 0;
  for (index_t q = 0; q < n2; ++q)
    for (index_t p = 0; p < n1; ++p, ++line) {
      const auto x_ref = dense_lu_solve(mats[line], get_line(rhs, L, c.axis, p, q));
      const auto x = get_line(d, L, c.axis, p, q);
      double scale = 1e-300;
      for (double v : x_ref) scale = std::max(scale, std::fabs(v));
      for (std::size_t s = 0; s < x.size(); ++s) worst = std::max(worst, std::fabs(x[s] - x_ref[s]) / scale);
    }
  EXPECT_LE(worst, tolerance_for<T>()) << "axis " << axis_name(c.axis) << " n " << c.length;
}

/// Dense Gaussian elimination with partial pivoting on the full n x n
/// cyclic matrix (corners included): an oracle independent of Sherman-Morrison.
std::vector<double> dense_cyclic_solve(const std::vector<double>& a, const std::vector<double>& b,
                                       const std::vector<double>& c, std::vector<double> d) {
  const std::size_t n = b.size();
  std::vector<double> M(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    M[i * n + i] = b[i];
    M[i * n + (i + n - 1) % n] += a[i];
    M[i * n + (i + 1) % n] += c[i];
  }
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = k;
    for (std::size_t r = k + 1; r < n; ++r)
      if (std::fabs(M[r * n + k]) > std::fabs(M[p * n + k])) p = r;
    if (p != k) {
      for (std::size_t j = 0; j < n; ++j) std::swap(M[k * n + j], M[p * n + j]);
      std::swap(d[k], d[p]);
    }
    for (std::size_t r = k + 1; r < n; ++r) {
      const double f = M[r * n + k] / M[k * n + k];
      for (std::size_t j = k; j < n; ++j) M[r * n + j] -= f * M[k * n + j];
      d[r] -= f * d[k];
    }
  }
  for (std::size_t k = n; k-- > 0;) {
    double s = d[k];
    for (std::size_t j = k + 1; j < n; ++j) s -= M[k * n + j] * d[j];
    d[k] = s / M[k * n + k];
  }
  return d;
}

// Periodic lines: row i couples i - 1 and i + 1 modulo n (a at node 0 and c
// at node n - 1 are the corners), random diagonally dominant rows, against
// dense elimination of the full matrix.
template <class T>
void check_cyclic(const Case& c) {
  if (c.length < 3) return;  // a cyclic system needs 3 nodes (checked below)
  SeededRng rng;
  const Layout3 L = layout_for(c);
  const int ax = axis_index(c.axis);
  const index_t n1 = L.n[(ax + 1) % 3], n2 = L.n[(ax + 2) % 3];
  std::vector<T> a(L.span(), T(0)), b(L.span(), T(1)), cc(L.span(), T(0));
  for (index_t q = 0; q < n2; ++q)
    for (index_t p = 0; p < n1; ++p)
      for (index_t s = 0; s < c.length; ++s) {
        index_t idx[3];
        idx[ax] = s;
        idx[(ax + 1) % 3] = p;
        idx[(ax + 2) % 3] = q;
        const index_t o = L.offset(idx[0], idx[1], idx[2]);
        a[o] = static_cast<T>(rng.uniform(-1, 1));
        cc[o] = static_cast<T>(rng.uniform(-1, 1));
        b[o] = static_cast<T>(rng.sign() * (std::fabs(a[o]) + std::fabs(cc[o]) + 0.5 + rng.uniform(0, 1)));
      }
  auto d = random_field<T>(rng, L);
  const auto rhs = d;
  cpu::solve_cyclic(c.axis, a.data(), b.data(), cc.data(), d.data(), L);
  expect_padding_untouched(d, L);
  double worst = 0.0;
  for (index_t q = 0; q < n2; ++q)
    for (index_t p = 0; p < n1; ++p) {
      const auto la = get_line(a, L, c.axis, p, q), lb = get_line(b, L, c.axis, p, q),
                 lc = get_line(cc, L, c.axis, p, q);
      const auto r = get_line(rhs, L, c.axis, p, q);
      const auto x = get_line(d, L, c.axis, p, q);
      if (c.length <= 64) {
        // Short lines: the forward error against dense elimination.
        const auto x_ref = dense_cyclic_solve(la, lb, lc, r);
        double scale = 1e-300;
        for (double v : x_ref) scale = std::max(scale, std::fabs(v));
        for (std::size_t s = 0; s < x.size(); ++s) worst = std::max(worst, std::fabs(x[s] - x_ref[s]) / scale);
      } else {
        // Long lines (dense elimination would cost n^3): the residual of the
        // full cyclic matrix, corners included, relative to |A| |x| + |d|.
        const std::size_t n = x.size();
        for (std::size_t i = 0; i < n; ++i) {
          const double xm = x[(i + n - 1) % n], xp = x[(i + 1) % n];
          const double res = la[i] * xm + lb[i] * x[i] + lc[i] * xp - r[i];
          const double mag = std::fabs(la[i] * xm) + std::fabs(lb[i] * x[i]) + std::fabs(lc[i] * xp) + std::fabs(r[i]);
          worst = std::max(worst, std::fabs(res) / std::max(mag, 1e-300));
        }
      }
    }
  EXPECT_LE(worst, tolerance_for<T>()) << "axis " << axis_name(c.axis) << " n " << c.length;
}

class TridiagCpu : public ::testing::TestWithParam<Case> {};
TEST_P(TridiagCpu, CyclicMatchesDenseEliminationF64) { check_cyclic<double>(GetParam()); }
TEST_P(TridiagCpu, CyclicMatchesDenseEliminationF32) { check_cyclic<float>(GetParam()); }

TEST_P(TridiagCpu, ConstantMatchesDenseLuF64) { check_constant<double>(GetParam()); }
TEST_P(TridiagCpu, ConstantMatchesDenseLuF32) { check_constant<float>(GetParam()); }
TEST_P(TridiagCpu, GeneralMatchesDenseLuF64) { check_general<double>(GetParam()); }
TEST_P(TridiagCpu, GeneralMatchesDenseLuF32) { check_general<float>(GetParam()); }

std::vector<Case> all_cases() {
  std::vector<Case> cs;
  for (Axis a : {Axis::X, Axis::Y, Axis::Z})
    for (index_t n : {1, 2, 3, 31, 33, 1000})
      for (bool padded : {false, true}) cs.push_back({a, n, padded});
  return cs;
}

INSTANTIATE_TEST_SUITE_P(Lines, TridiagCpu, ::testing::ValuesIn(all_cases()), case_name);

// The oracle itself must be able to fail: a wrong solution is caught.
TEST(TridiagOracle, DetectsAWrongSolution) {
  SeededRng rng;
  const LineMatrix m = random_dominant(rng, 33);
  std::vector<double> rhs(33);
  for (auto& v : rhs) v = rng.uniform(-1, 1);
  auto x = dense_lu_solve(m, rhs);
  const auto back = m.multiply(x);
  for (std::size_t i = 0; i < rhs.size(); ++i) EXPECT_NEAR(back[i], rhs[i], 1e-13);
  x[17] += 1e-6;
  const auto off = m.multiply(x);
  double worst = 0;
  for (std::size_t i = 0; i < rhs.size(); ++i) worst = std::max(worst, std::fabs(off[i] - rhs[i]));
  EXPECT_GT(worst, 1e-7);
}

TEST(TridiagFactor, RejectsZeroPivot) {
  LineMatrix m(3);
  m.b = {1.0, 1.0, 1.0};
  m.a = {0.0, 1.0, 0.0};
  m.c = {1.0, 0.0, 0.0};  // pivot of row 1 is 1 - 1*1 = 0
  EXPECT_THROW(ThomasFactor<double>::factor(m), NumericalError);
}

TEST(TridiagCyclic, RejectsShortLinesAndZeroPivots) {
  const Layout3 L2 = Layout3::packed(2, 3, 1);
  std::vector<double> a(L2.span(), 0.0), b(L2.span(), 1.0), c(L2.span(), 0.0), d(L2.span(), 1.0);
  EXPECT_THROW(cpu::solve_cyclic(Axis::X, a.data(), b.data(), c.data(), d.data(), L2), InvalidArgument);
  const Layout3 L = Layout3::packed(4, 2, 2);
  std::vector<double> a4(L.span(), 0.0), b4(L.span(), 2.0), c4(L.span(), 0.0), d4(L.span(), 1.0);
  b4[L.offset(2, 1, 1)] = 0.0;
  EXPECT_THROW(cpu::solve_cyclic(Axis::X, a4.data(), b4.data(), c4.data(), d4.data(), L), NumericalError);
}

TEST(TridiagGeneral, ReportsZeroPivot) {
  const Layout3 L = Layout3::packed(4, 2, 2);
  std::vector<double> a(L.span(), 0.0), b(L.span(), 1.0), c(L.span(), 0.0), d(L.span(), 1.0);
  b[L.offset(2, 1, 1)] = 0.0;
  EXPECT_THROW(cpu::solve_general(Axis::X, a.data(), b.data(), c.data(), d.data(), L), NumericalError);
}

// NaN or Inf in d with finite pivots: the GPU's solve_general reports a
// solution that is not finite; the CPU (the oracle) reported nothing and
// returned NaN. Every axis (x lines go through the batched path with
// su != 1), a diagonal matrix (the value stays on its own row), a ragged
// batch, and the cyclic solve.
template <class T>
void check_nonfinite_rhs(T bad) {
  const Layout3 L = Layout3::packed(5, 7, 3);
  for (Axis ax : {Axis::X, Axis::Y, Axis::Z}) {
    for (const T off : {T(-1), T(0)}) {
      std::vector<T> a(L.span(), off), b(L.span(), T(4)), c(L.span(), off), d(L.span(), T(1));
      d[L.offset(3, 5, 2)] = bad;
      try {
        cpu::solve_general(ax, a.data(), b.data(), c.data(), d.data(), L);
        ADD_FAILURE() << "no error for " << bad << " in d along axis " << axis_name(ax);
      } catch (const NumericalError& e) {
        EXPECT_NE(std::string(e.what()).find("the solution is not finite, with finite pivots"), std::string::npos)
            << e.what();
      }
      std::vector<T> d2(L.span(), T(1));
      d2[L.offset(1, 6, 0)] = bad;
      EXPECT_THROW(cpu::solve_cyclic(ax, a.data(), b.data(), c.data(), d2.data(), L), NumericalError);
      // Finite input, the same matrices: no error.
      std::vector<T> d3(L.span(), T(1));
      EXPECT_NO_THROW(cpu::solve_general(ax, a.data(), b.data(), c.data(), d3.data(), L));
      EXPECT_NO_THROW(cpu::solve_cyclic(ax, a.data(), b.data(), c.data(), d3.data(), L));
    }
  }
}

TEST(TridiagGeneral, ReportsANonFiniteSolution) {
  check_nonfinite_rhs<double>(std::numeric_limits<double>::quiet_NaN());
  check_nonfinite_rhs<double>(std::numeric_limits<double>::infinity());
  check_nonfinite_rhs<float>(std::numeric_limits<float>::quiet_NaN());
  check_nonfinite_rhs<float>(-std::numeric_limits<float>::infinity());
}

TEST(TridiagConstant, RejectsMismatchedLength) {
  const auto f = ThomasFactor<double>::factor(LineMatrix(5));
  std::vector<double> d(4 * 4 * 4, 1.0);
  EXPECT_THROW(cpu::solve_constant(Axis::Y, f, d.data(), Layout3::packed(4, 4, 4)), InvalidArgument);
}

}  // namespace

namespace {
// x lines go through transposed batches of in-register tiles
// (constant_batch_x, simd_transpose.hpp); the arithmetic must stay the plain
// recurrence's, bit for bit: the CPU is the oracle, and MPI / restart tests
// compare it exactly. Line lengths around the tile size (1 .. 9, 257), line
// counts that fill several batches and leave a ragged one (37 x 3 lines),
// packed and padded rows (odd pitches: unaligned tiles), and the fused
// accumulate acc += x.
template <class T>
void check_x_bitwise() {
  SeededRng rng;
  for (index_t n : {1, 2, 3, 4, 5, 7, 9, 257})
    for (bool padded : {false, true})
      for (bool fused : {false, true}) {
        const Layout3 L = test_layout(n, 37, 3, padded);
        const LineMatrix m = random_dominant(rng, n);
        const auto f = ThomasFactor<T>::factor(m);
        auto d = random_field<T>(rng, L);
        auto acc = random_field<T>(rng, L);
        auto want = d, want_acc = acc;
        cpu::solve_constant_fused(Axis::X, f, d.data(), fused ? acc.data() : nullptr, L);
        // The reference: the scalar recurrence, line by line.
        const T *a = f.lower(), *cp = f.upper_over_pivot(), *inv = f.inv_pivot();
        for (index_t k = 0; k < L.n[2]; ++k)
          for (index_t j = 0; j < L.n[1]; ++j) {
            T* x = want.data() + L.offset(0, j, k);
            T* u = want_acc.data() + L.offset(0, j, k);
            x[0] *= inv[0];
            for (index_t i = 1; i < n; ++i) x[i] = (x[i] - a[i] * x[i - 1]) * inv[i];
            for (index_t i = n - 2; i >= 0; --i) x[i] -= cp[i] * x[i + 1];
            if (fused)
              for (index_t i = 0; i < n; ++i) u[i] += x[i];
          }
        ASSERT_EQ(0, std::memcmp(d.data(), want.data(), sizeof(T) * d.size()))
            << "n " << n << (padded ? " padded" : " packed") << (fused ? " fused" : "");
        ASSERT_EQ(0, std::memcmp(acc.data(), want_acc.data(), sizeof(T) * acc.size()))
            << "acc, n " << n << (padded ? " padded" : " packed");
      }
}
TEST(TridiagConstant, XLinesAreBitIdenticalToTheScalarRecurrenceF32) { check_x_bitwise<float>(); }
TEST(TridiagConstant, XLinesAreBitIdenticalToTheScalarRecurrenceF64) { check_x_bitwise<double>(); }

// y and z lines whose rows lie a page or more apart take the prefetching
// build of the batched sweep (constant_batch's Far): prefetches must change
// no value. z lines of a 300 x 5 plane (6000 / 12000 bytes; batches of 256
// lines and a ragged one of 44), y lines of 1100-element rows, lengths
// below and past the prefetch distance (1, 2, 3, 9, 17), packed and padded,
// solve and fused accumulate: bit for bit the scalar recurrence line by line.
template <class T>
void check_far_rows_bitwise() {
  SeededRng rng;
  for (Axis ax : {Axis::Y, Axis::Z})
    for (index_t n : {1, 2, 3, 9, 17})
      for (bool padded : {false, true})
        for (bool fused : {false, true}) {
          const Layout3 L = ax == Axis::Z ? test_layout(300, 5, n, padded) : test_layout(1100, n, 2, padded);
          const int a_ = axis_index(ax);
          ASSERT_GE(static_cast<std::size_t>(L.stride[a_]) * sizeof(T), 4096u);
          const LineMatrix m = random_dominant(rng, n);
          const auto f = ThomasFactor<T>::factor(m);
          auto d = random_field<T>(rng, L);
          auto acc = random_field<T>(rng, L);
          auto want = d, want_acc = acc;
          cpu::solve_constant_fused(ax, f, d.data(), fused ? acc.data() : nullptr, L);
          const T *a = f.lower(), *cp = f.upper_over_pivot(), *inv = f.inv_pivot();
          const index_t s = L.stride[a_];
          const int o1 = 0, o2 = ax == Axis::Z ? 1 : 2;  // the other two axes
          for (index_t q = 0; q < L.n[o2]; ++q)
            for (index_t p = 0; p < L.n[o1]; ++p) {
              index_t idx[3] = {0, 0, 0};
              idx[o1] = p;
              idx[o2] = q;
              T* x = want.data() + L.offset(idx[0], idx[1], idx[2]);
              T* u = want_acc.data() + L.offset(idx[0], idx[1], idx[2]);
              x[0] *= inv[0];
              for (index_t i = 1; i < n; ++i) x[i * s] = (x[i * s] - a[i] * x[(i - 1) * s]) * inv[i];
              for (index_t i = n - 2; i >= 0; --i) x[i * s] -= cp[i] * x[(i + 1) * s];
              if (fused)
                for (index_t i = 0; i < n; ++i) u[i * s] += x[i * s];
            }
          ASSERT_EQ(0, std::memcmp(d.data(), want.data(), sizeof(T) * d.size()))
              << axis_name(ax) << " n " << n << (padded ? " padded" : " packed") << (fused ? " fused" : "");
          ASSERT_EQ(0, std::memcmp(acc.data(), want_acc.data(), sizeof(T) * acc.size()))
              << axis_name(ax) << " acc, n " << n << (padded ? " padded" : " packed");
        }
}
TEST(TridiagConstant, FarRowsAreBitIdenticalToTheScalarRecurrenceF32) { check_far_rows_bitwise<float>(); }
TEST(TridiagConstant, FarRowsAreBitIdenticalToTheScalarRecurrenceF64) { check_far_rows_bitwise<double>(); }
}  // namespace

namespace {
// The CPU general path's batched line solves (cpu/line_rows.hpp) against the
// per-line ones they replace for y and z lines: the same operations per
// line, so bit for bit, ragged batches (cnt < B) included, and the same
// verdict on a zero pivot in one line of the batch.
template <class T>
void check_batches_bitwise(bool cyclic) {
  SeededRng rng;
  for (index_t n : {1, 2, 3, 4, 17, 64})
    for (index_t cnt : {1, 5, 16}) {
      if (cyclic && n < 3) continue;
      const index_t B = 16;
      const std::size_t nb = static_cast<std::size_t>(n * B);
      std::vector<T> a(nb), b(nb), c(nb), d(nb);
      for (std::size_t q = 0; q < nb; ++q) {
        a[q] = static_cast<T>(rng.uniform(-1, 1));
        c[q] = static_cast<T>(rng.uniform(-1, 1));
        b[q] = static_cast<T>(rng.sign() * (std::fabs(a[q]) + std::fabs(c[q]) + 0.5 + rng.uniform(0, 1)));
        d[q] = static_cast<T>(rng.uniform(-1, 1));
      }
      for (bool singular : {false, true}) {
        auto bs = b;
        if (singular) bs[static_cast<std::size_t>(cnt - 1)] = T(0);  // the first pivot of the batch's last line
        // per line
        auto want = d;
        bool want_ok = true;
        for (index_t l = 0; l < cnt; ++l) {
          std::vector<T> la(n), lb(n), lc(n), ld(n), cp(n), z(n), bb(n);
          for (index_t i = 0; i < n; ++i) {
            const std::size_t q = static_cast<std::size_t>(i * B + l);
            la[i] = a[q], lb[i] = bs[q], lc[i] = c[q], ld[i] = d[q];
          }
          const bool ok = cyclic ? cpu::detail::cyclic(n, la.data(), lb.data(), lc.data(), ld.data(), cp.data(),
                                                       z.data(), bb.data())
                                 : cpu::detail::thomas(n, la.data(), lb.data(), lc.data(), ld.data(), cp.data());
          want_ok = want_ok && ok;
          for (index_t i = 0; i < n; ++i) want[static_cast<std::size_t>(i * B + l)] = ld[i];
        }
        // batched
        auto got = d;
        std::vector<T> cp(nb), z(nb), bb(nb), lo(B), hi(B), g(B), f(B);
        const bool got_ok =
            cyclic ? cpu::detail::cyclic_batch(n, B, cnt, a.data(), bs.data(), c.data(), got.data(), cp.data(),
                                               z.data(), bb.data(), lo.data(), hi.data(), g.data(), f.data())
                   : cpu::detail::thomas_batch(n, B, cnt, a.data(), bs.data(), c.data(), got.data(), cp.data());
        EXPECT_EQ(got_ok, want_ok) << "n " << n << " cnt " << cnt << (singular ? " singular" : "");
        EXPECT_EQ(got_ok, !singular) << "n " << n << " cnt " << cnt;
        if (singular) continue;  // the values past a zero pivot are not compared
        for (index_t l = 0; l < cnt; ++l)
          for (index_t i = 0; i < n; ++i) {
            const std::size_t q = static_cast<std::size_t>(i * B + l);
            ASSERT_EQ(0, std::memcmp(&got[q], &want[q], sizeof(T))) << "n " << n << " cnt " << cnt << " line " << l
                                                                    << " row " << i << ": " << got[q] << " vs "
                                                                    << want[q];
          }
        for (std::size_t q = 0; q < nb; ++q) {  // lines past cnt are untouched
          if (static_cast<index_t>(q % B) >= cnt) {
            ASSERT_EQ(0, std::memcmp(&got[q], &d[q], sizeof(T)));
          }
        }
      }
    }
}
TEST(TridiagBatches, ThomasBatchIsBitIdenticalToThomasF64) { check_batches_bitwise<double>(false); }
TEST(TridiagBatches, ThomasBatchIsBitIdenticalToThomasF32) { check_batches_bitwise<float>(false); }
TEST(TridiagBatches, CyclicBatchIsBitIdenticalToCyclicF64) { check_batches_bitwise<double>(true); }
TEST(TridiagBatches, CyclicBatchIsBitIdenticalToCyclicF32) { check_batches_bitwise<float>(true); }
}  // namespace

namespace {
// The general path's interior forms (cpu/line_rows.hpp: harmonic_mean_select,
// interior_rows, interior_rhs_run), which the CPU stepper and the MPI ranks
// vectorise, against harmonic_mean / conductive_row / row_coupling +
// row_apply, bit for bit. The conductivities take every branch of the mean:
// equal neighbours, zeros, a zero sum, a negative sum, NaN and Inf. Uniform
// axes (1 / h^2) and stretched ones (AxisEnds::sm, sp per node, some rows
// with sm = sp).
template <class T>
std::vector<T> awkward_conductivities(SeededRng& rng, std::size_t size) {
  const T special[] = {T(0), T(-0.0), T(1), T(-1), T(1e-30), T(3e7), std::numeric_limits<T>::infinity(),
                       std::numeric_limits<T>::quiet_NaN()};
  std::vector<T> K(size);
  for (std::size_t q = 0; q < size; ++q) {
    const double r = rng.uniform(0, 1);
    K[q] = r < 0.15 ? special[q % 8] : r < 0.3 ? (q > 0 ? K[q - 1] : T(2)) : static_cast<T>(rng.uniform(0.1, 10));
  }
  return K;
}

template <class T>
void bits_equal(const T& got, const T& want, const std::string& what) {
  ASSERT_EQ(0, std::memcmp(&got, &want, sizeof(T))) << what << ": " << got << " vs " << want;
}

template <class T>
void check_interior_forms() {
  SeededRng rng;
  const auto means = awkward_conductivities<T>(rng, 64);
  for (T a : means)
    for (T b : means) bits_equal(cpu::detail::harmonic_mean_select(a, b), harmonic_mean(a, b), "harmonic mean");

  // A stretched axis' scales, per node (up to 11 of them); equal at node 3.
  std::vector<T> sm(12), sp(12);
  for (std::size_t i = 0; i < sm.size(); ++i) {
    sm[i] = static_cast<T>(rng.uniform(0.2, 5));
    sp[i] = i == 3 ? sm[i] : static_cast<T>(rng.uniform(0.2, 5));
  }
  // Rows: lines of n rows s apart, cnt lines su apart (y-like: su = 1, x-like: su = nx).
  for (bool stretched : {false, true})
  for (index_t su : {1, 7})
    for (bool rho_field : {false, true})
      for (bool k_field : {false, true}) {
        const index_t n = 9, cnt = 6, s = su == 1 ? 8 : 1;
        const std::size_t size = static_cast<std::size_t>(n * s + cnt * su + 8);
        const auto K = awkward_conductivities<T>(rng, size);
        std::vector<T> w(size), rho(size);
        for (std::size_t q = 0; q < size; ++q) {
          w[q] = static_cast<T>(rng.uniform(-1, 1));
          rho[q] = static_cast<T>(rng.uniform(0.5, 2));
        }
        AxisEnds<T> e;
        e.n = n;
        e.lo = LineEnd::Mirror;
        e.hi = LineEnd::Fixed;
        e.inv_h2 = T(1.7);
        if (stretched) e.sm = sm.data(), e.sp = sp.data();
        const T kconst = T(2.5), rho_const = T(0.8), tau = T(0.37);
        const T* Kp = k_field ? K.data() : nullptr;
        const T* rp = rho_field ? rho.data() : nullptr;
        for (index_t i = 1; i + 1 < n; ++i) {
          std::vector<T> d(cnt), a(cnt), b(cnt), c(cnt);
          const index_t row = i * s;
          cpu::detail::interior_rows(w.data(), Kp, kconst, rp, rho_const, cpu::detail::row_sm(e, i),
                                     cpu::detail::row_sp(e, i), tau, row, su, s, cnt, d.data(),
                                     a.data(), b.data(), c.data());
          for (index_t l = 0; l < cnt; ++l) {
            const index_t o = row + l * su;
            T wa, wb, wc;
            cpu::detail::conductive_row(i, o, s, e, Kp, kconst, rp ? rp[o] : rho_const, tau, wa, wb, wc);
            const std::string at = "row " + std::to_string(i) + " line " + std::to_string(l) +
                                   (k_field ? " K field" : " K const") + (rho_field ? " rho field" : "") +
                                   (stretched ? " stretched" : "");
            bits_equal(d[l], w[o], "d, " + at);
            bits_equal(a[l], wa, "a, " + at);
            bits_equal(b[l], wb, "b, " + at);
            bits_equal(c[l], wc, "c, " + at);
          }
        }
      }

  // The right-hand side's interior run on a 7 x 5 x 4 box, every field
  // present or not, per axis.
  const index_t nx = 7, ny = 5, nz = 4, sx = 1, sy = nx, sz = nx * ny;
  const std::size_t size = static_cast<std::size_t>(nx * ny * nz);
  std::vector<std::vector<T>> K3 = {awkward_conductivities<T>(rng, size), awkward_conductivities<T>(rng, size),
                                    awkward_conductivities<T>(rng, size)};
  std::vector<T> u(size), rho(size), q(size);
  for (std::size_t p = 0; p < size; ++p) {
    u[p] = static_cast<T>(rng.uniform(-1, 1));
    rho[p] = static_cast<T>(rng.uniform(0.5, 2));
    q[p] = static_cast<T>(rng.uniform(-3, 3));
  }
  // Bits 5, 6, 7 of the mask: x, y, z stretched (their scales sm, sp above,
  // shifted per axis).
  for (int mask = 0; mask < 256; ++mask) {
    cpu::detail::RhsRun<T> P;
    AxisEnds<T> ends[3];
    const index_t n3[3] = {nx, ny, nz}, st[3] = {sx, sy, sz};
    for (int ax = 0; ax < 3; ++ax) {
      P.live[ax] = true;
      P.stride[ax] = st[ax];
      P.inv_h2[ax] = static_cast<T>(0.5 + ax);
      P.K[ax] = (mask >> ax) & 1 ? K3[static_cast<std::size_t>(ax)].data() : nullptr;
      P.kconst[ax] = static_cast<T>(1 + ax);
      ends[ax].n = n3[ax];
      ends[ax].inv_h2 = P.inv_h2[ax];
      if ((mask >> (5 + ax)) & 1) {
        P.sm[ax] = ends[ax].sm = sm.data() + ax;
        P.sp[ax] = ends[ax].sp = sp.data() + ax;
      }
    }
    P.rho = mask & 8 ? rho.data() : nullptr;
    P.rho_const = T(0.9);
    P.q = mask & 16 ? q.data() : nullptr;
    P.qconst = T(0.25);
    P.qf = T(1.5);
    P.dt = T(0.01);
    // Rows in order (a row's y faces below come from the row before, kept
    // in the scratch) and in reverse (every row computes its own).
    for (const bool reverse : {false, true}) {
    std::vector<T> w(size, T(0));
    cpu::detail::RunScratch<T> scratch(nx);
    for (index_t k = 1; k + 1 < nz; ++k)
      for (index_t jj = 1; jj + 1 < ny; ++jj) {
        const index_t j = reverse ? ny - 1 - jj : jj;
        const index_t o0 = 1 + j * sy + k * sz;
        const bool kept = scratch.y_next == o0;
        EXPECT_EQ(kept, !reverse && jj > 1 && P.K[1] != nullptr) << "row " << j << ", mask " << mask;
        cpu::detail::interior_rhs_run(P, u.data(), w.data(), o0, nx - 2, scratch, {{1, j, k}});
        for (index_t i = 1; i + 1 < nx; ++i) {
          const index_t o = i + j * sy + k * sz, idx[3] = {i, j, k};
          const T r = P.rho ? P.rho[o] : P.rho_const;
          T sum = T(0);
          const T bsum = T(0);
          for (int ax = 0; ax < 3; ++ax) {
            const index_t s = st[ax];
            const T* Kp = P.K[ax];
            const T kc = Kp ? Kp[o] : P.kconst[ax], km = Kp ? Kp[o - s] : kc, kp = Kp ? Kp[o + s] : kc;
            sum += row_apply(row_coupling<T>(idx[ax], ends[ax], km, kc, kp, r), u[o - s], u[o], u[o + s]);
          }
          const T qq = P.q ? P.q[o] : P.qconst;
          const T want = P.dt * (sum + r * (bsum + qq * P.qf));
          bits_equal(w[static_cast<std::size_t>(o)], want, "rhs at " + std::to_string(o) + ", mask " +
                                                               std::to_string(mask) + (reverse ? ", reverse" : ""));
        }
      }
    }
  }
}
TEST(GeneralInterior, VectorisedFormsAreBitIdenticalToTheRowFunctionsF64) { check_interior_forms<double>(); }
TEST(GeneralInterior, VectorisedFormsAreBitIdenticalToTheRowFunctionsF32) { check_interior_forms<float>(); }
}  // namespace

namespace {
/// One line's rows a, b, c copied into each of B lines laid out [row][line]
/// (pitch B), and a random right-hand side d of that layout: the input of a
/// batch whose lines share one matrix.
template <class T>
struct SharedBatch {
  std::vector<T> a, b, c, d;
  static SharedBatch of(const std::vector<T>& la, const std::vector<T>& lb, const std::vector<T>& lc, index_t B,
                        SeededRng& rng) {
    SharedBatch m;
    const std::size_t n = la.size(), nb = n * static_cast<std::size_t>(B);
    m.a.resize(nb), m.b.resize(nb), m.c.resize(nb), m.d.resize(nb);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t l = 0; l < static_cast<std::size_t>(B); ++l) {
        const std::size_t q = i * static_cast<std::size_t>(B) + l;
        m.a[q] = la[i], m.b[q] = lb[i], m.c[q] = lc[i], m.d[q] = static_cast<T>(rng.uniform(-1, 1));
      }
    return m;
  }
};

/// got and want equal bit for bit, element by element.
template <class T>
void expect_same_bits(const std::vector<T>& got, const std::vector<T>& want, const std::string& at) {
  ASSERT_EQ(got.size(), want.size()) << at;
  for (std::size_t q = 0; q < got.size(); ++q)
    ASSERT_EQ(0, std::memcmp(&got[q], &want[q], sizeof(T))) << at << " at " << q << ": " << got[q] << " vs "
                                                            << want[q];
}
}  // namespace

namespace {
// cyclic_batch_shared (lines of one matrix: constant coefficients on a
// periodic axis) against cyclic_batch with that matrix copied into every
// line: bit for bit, including long fp32 lines whose z decays through the
// subnormal numbers, and the verdict on a zero pivot.
template <class T>
void check_cyclic_shared() {
  SeededRng rng;
  for (index_t n : {3, 4, 17, 300})
    for (double diag : {2.2, 40.0})  // 40: z falls below 1e-38 within ~25 rows
      for (bool singular : {false, true}) {
        const index_t B = 8, cnt = 5;
        std::vector<T> la(static_cast<std::size_t>(n)), lb(la.size()), lc(la.size());
        for (std::size_t i = 0; i < la.size(); ++i) {
          la[i] = static_cast<T>(-1 + rng.uniform(-0.1, 0.1));
          lc[i] = static_cast<T>(-1 + rng.uniform(-0.1, 0.1));
          lb[i] = static_cast<T>(diag + rng.uniform(0, 0.5));
        }
        if (singular) lb[static_cast<std::size_t>(n / 2)] = la[static_cast<std::size_t>(n / 2)] * T(0);  // a zero row
        const std::size_t nb = static_cast<std::size_t>(n * B);
        const SharedBatch<T> m = SharedBatch<T>::of(la, lb, lc, B, rng);
        const std::vector<T>&a = m.a, &b = m.b, &c = m.c, &d = m.d;
        auto want = d;
        std::vector<T> cp(nb), z(nb), bb(nb), lo(B), hi(B), g(B), f(B);
        const bool want_ok = cpu::detail::cyclic_batch(n, B, cnt, a.data(), b.data(), c.data(), want.data(), cp.data(),
                                                       z.data(), bb.data(), lo.data(), hi.data(), g.data(), f.data());
        const auto S = cpu::detail::CyclicShared<T>::of(n, la.data(), lb.data(), lc.data());
        auto got = d;
        const bool got_ok = cpu::detail::cyclic_batch_shared(S, B, cnt, got.data(), f.data());
        const std::string at = "n " + std::to_string(n) + " diag " + std::to_string(diag);
        EXPECT_EQ(got_ok, want_ok) << at;
        if (!want_ok) continue;
        expect_same_bits(got, want, at);
      }
}
TEST(TridiagBatches, CyclicSharedIsBitIdenticalToCyclicBatchF64) { check_cyclic_shared<double>(); }
TEST(TridiagBatches, CyclicSharedIsBitIdenticalToCyclicBatchF32) { check_cyclic_shared<float>(); }
}  // namespace

namespace {
// thomas_batch_shared (lines of one matrix) against thomas_batch with the
// matrix copied into every line: bit for bit, identity rows (Dirichlet
// ends) and a zero pivot included.
template <class T>
void check_thomas_shared() {
  SeededRng rng;
  for (index_t n : {1, 2, 3, 17, 300})
    for (int variant = 0; variant < 3; ++variant) {  // 0 plain, 1 identity end rows, 2 a zero first pivot
      const index_t B = 8, cnt = 6;
      std::vector<T> la(static_cast<std::size_t>(n)), lb(la.size()), lc(la.size());
      for (std::size_t i = 0; i < la.size(); ++i) {
        la[i] = static_cast<T>(rng.uniform(-1, 1));
        lc[i] = static_cast<T>(rng.uniform(-1, 1));
        lb[i] = static_cast<T>(rng.sign() * (std::fabs(la[i]) + std::fabs(lc[i]) + 0.5 + rng.uniform(0, 1)));
      }
      if (variant == 1) {
        la[0] = lc[0] = la[la.size() - 1] = lc[lc.size() - 1] = T(0);
        lb[0] = lb[lb.size() - 1] = T(1);
      }
      if (variant == 2) lb[0] = T(0);
      const std::size_t nb = static_cast<std::size_t>(n * B);
      const SharedBatch<T> m = SharedBatch<T>::of(la, lb, lc, B, rng);
      const std::vector<T>&a = m.a, &b = m.b, &c = m.c, &d = m.d;
      auto want = d;
      std::vector<T> cp(nb);
      const bool want_ok = cpu::detail::thomas_batch(n, B, cnt, a.data(), b.data(), c.data(), want.data(), cp.data());
      const auto S = cpu::detail::ThomasShared<T>::of(n, la.data(), lb.data(), lc.data());
      auto got = d;
      const bool got_ok = cpu::detail::thomas_batch_shared(S, B, cnt, got.data());
      const std::string at = "n " + std::to_string(n) + " variant " + std::to_string(variant);
      EXPECT_EQ(got_ok, want_ok) << at;
      EXPECT_EQ(got_ok, variant != 2) << at;
      if (!want_ok) continue;
      expect_same_bits(got, want, at);
    }
}
TEST(TridiagBatches, ThomasSharedIsBitIdenticalToThomasBatchF64) { check_thomas_shared<double>(); }
TEST(TridiagBatches, ThomasSharedIsBitIdenticalToThomasBatchF32) { check_thomas_shared<float>(); }
}  // namespace
