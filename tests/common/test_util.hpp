#pragma once
// Shared test helpers: fresh random seeds (printed, reproducible through
// ADI_TEST_SEED), the dense LU oracle, and layout helpers.

#include <adi/solver.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <vector>

namespace adi::test {

/// A fresh seed per call (or ADI_TEST_SEED), printed so a failure can be replayed.
inline std::uint64_t fresh_seed() {
  if (const char* s = std::getenv("ADI_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  static std::random_device rd;
  const std::uint64_t seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  return seed;
}

struct SeededRng {
  std::uint64_t seed;
  std::mt19937_64 gen;
  SeededRng() : seed(fresh_seed()), gen(seed) {
    std::cout << "[ seed     ] ADI_TEST_SEED=" << seed << std::endl;
    ::testing::Test::RecordProperty("seed", std::to_string(seed));
  }
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen); }
  int sign() { return std::uniform_int_distribution<int>(0, 1)(gen) ? 1 : -1; }
};

/// Dense LU with partial pivoting in long double (rows whose multiplier is
/// zero are skipped, so a tridiagonal matrix costs O(n^2), not O(n^3)).
inline std::vector<double> dense_lu_solve(const LineMatrix& m, const std::vector<double>& rhs) {
  const std::size_t n = m.b.size();
  std::vector<long double> A(n * n, 0.0L), x(rhs.begin(), rhs.end());
  for (std::size_t i = 0; i < n; ++i) {
    A[i * n + i] = m.b[i];
    if (i > 0) A[i * n + i - 1] = m.a[i];
    if (i + 1 < n) A[i * n + i + 1] = m.c[i];
  }
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t piv = k;
    for (std::size_t i = k + 1; i < n && i <= k + 2; ++i)
      if (std::fabs(A[i * n + k]) > std::fabs(A[piv * n + k])) piv = i;
    if (piv != k) {
      for (std::size_t j = 0; j < n; ++j) std::swap(A[k * n + j], A[piv * n + j]);
      std::swap(x[k], x[piv]);
    }
    for (std::size_t i = k + 1; i < n; ++i) {
      if (A[i * n + k] == 0.0L) continue;
      const long double f = A[i * n + k] / A[k * n + k];
      for (std::size_t j = k; j < n; ++j) A[i * n + j] -= f * A[k * n + j];
      x[i] -= f * x[k];
    }
  }
  for (std::size_t k = n; k-- > 0;) {
    long double s = x[k];
    for (std::size_t j = k + 1; j < n; ++j) s -= A[k * n + j] * x[j];
    x[k] = s / A[k * n + k];
  }
  return std::vector<double>(x.begin(), x.end());
}

/// A random diagonally dominant line matrix: |b| >= |a| + |c| + margin.
inline LineMatrix random_dominant(SeededRng& rng, index_t n, double margin = 0.5) {
  LineMatrix m(n);
  for (index_t i = 0; i < n; ++i) {
    m.a[i] = i > 0 ? rng.uniform(-1.0, 1.0) : 0.0;
    m.c[i] = i + 1 < n ? rng.uniform(-1.0, 1.0) : 0.0;
    m.b[i] = rng.sign() * (std::fabs(m.a[i]) + std::fabs(m.c[i]) + margin + rng.uniform(0.0, 1.0));
  }
  return m;
}

/// A diagonally dominant periodic (cyclic) line matrix: a[0] couples node
/// n-1 and c[n-1] node 0, as adi::cyclic_split and solve_cyclic read them.
inline LineMatrix random_ring(SeededRng& rng, index_t n) {
  LineMatrix m(n);
  for (index_t i = 0; i < n; ++i) {
    m.a[i] = rng.uniform(-1.0, 1.0);
    m.c[i] = rng.uniform(-1.0, 1.0);
    m.b[i] = rng.sign() * (std::fabs(m.a[i]) + std::fabs(m.c[i]) + 0.5 + rng.uniform(0.0, 1.0));
  }
  return m;
}

/// NaN for floating poison: an element nobody wrote cannot pass a comparison.
template <class T>
constexpr T poison() {
  return std::numeric_limits<T>::quiet_NaN();
}

/// The layouts tests run on: packed, and padded rows and planes.
inline Layout3 test_layout(index_t nx, index_t ny, index_t nz, bool padded) {
  if (!padded) return Layout3::packed(nx, ny, nz);
  return Layout3::padded(nx, ny, nz, nx + 3, ny + 2);
}

template <class T>
double tolerance_for() {
  return std::is_same<T, float>::value ? 2e-5 : 1e-13;
}

}  // namespace adi::test
