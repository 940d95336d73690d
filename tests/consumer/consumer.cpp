// Uses the installed library: one batched constant-coefficient solve along y,
// checked by multiplying back. Exits non-zero if the residual is not tiny.
#include <adi/solver.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  const adi::Layout3 L = adi::Layout3::packed(5, 7, 3);
  adi::LineMatrix m(7);
  for (int i = 0; i < 7; ++i) m.a[i] = -1.0, m.b[i] = 4.0, m.c[i] = -1.0;
  const auto f = adi::ThomasFactor<double>::factor(m);
  std::vector<double> d(L.span());
  for (std::size_t q = 0; q < d.size(); ++q) d[q] = std::sin(0.37 * static_cast<double>(q));
  const std::vector<double> rhs = d;
  adi::cpu::solve_constant(adi::Axis::Y, f, d.data(), L);
  double worst = 0.0;
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 5; ++i) {
      std::vector<double> x(7);
      for (int j = 0; j < 7; ++j) x[j] = d[L.offset(i, j, k)];
      const auto y = m.multiply(x);
      for (int j = 0; j < 7; ++j) worst = std::fmax(worst, std::fabs(y[j] - rhs[L.offset(i, j, k)]));
    }
  std::printf("adi3d %s consumer: residual %.3e\n", ADI_VERSION, worst);
  return worst < 1e-12 ? 0 : 1;
}
