// CPU batched tridiagonal solves against the dense LU oracle, along every
// axis, on packed and padded layouts, for awkward line lengths, fp32 and fp64.

#include "test_util.hpp"

#include <algorithm>
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

class TridiagCpu : public ::testing::TestWithParam<Case> {};

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

TEST(TridiagGeneral, ReportsZeroPivot) {
  const Layout3 L = Layout3::packed(4, 2, 2);
  std::vector<double> a(L.span(), 0.0), b(L.span(), 1.0), c(L.span(), 0.0), d(L.span(), 1.0);
  b[L.offset(2, 1, 1)] = 0.0;
  EXPECT_THROW(cpu::solve_general(Axis::X, a.data(), b.data(), c.data(), d.data(), L), NumericalError);
}

TEST(TridiagConstant, RejectsMismatchedLength) {
  const auto f = ThomasFactor<double>::factor(LineMatrix(5));
  std::vector<double> d(4 * 4 * 4, 1.0);
  EXPECT_THROW(cpu::solve_constant(Axis::Y, f, d.data(), Layout3::packed(4, 4, 4)), InvalidArgument);
}

}  // namespace
