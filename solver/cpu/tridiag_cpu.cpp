// CPU batched tridiagonal solves: plain Thomas, OpenMP across batches of
// lines. Written to be read: this is the oracle for the device backends.

#include "tridiag_cpu.hpp"
#include "line_rows.hpp"

#include "line_sweep.hpp"
#include "simd_transpose.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <vector>

namespace adi::cpu {

using detail::LineSweep;

namespace {

// Rows of a batch that lie a page or more apart (z lines: a plane apart)
// are each a page of their own, and the hardware prefetchers do not cross
// pages: the forward sweep can then wait on a demand miss at every row, and
// the back substitution on every row of acc (u, from memory). Those rows are
// prefetched kPrefetchRows ahead (measured: docs/PERFORMANCE.md, "MPI, CPU,
// Python"). Rows closer than a page (y lines
// of a plane) stream without it. Prefetches change no value: the results
// are bit for bit those without.
constexpr std::size_t kFarRowBytes = 4096;
constexpr index_t kPrefetchRows = 8;

inline void prefetch_for_write(const void* p, std::size_t bytes) {
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(p) + bytes;
  for (std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t(63); a < end; a += 64)
    __builtin_prefetch(reinterpret_cast<const void*>(a), 1, 3);
}

// One batch of `cnt` lines starting at `base`, neighbouring lines `su` apart.
// Forward sweep y[i] = (d[i] - a[i] y[i-1]) * inv[i], back substitution
// x[i] = y[i] - cp[i] x[i+1], both in place; if `acc` is given, the solution
// is also added to acc (same offsets), fusing the Douglas update u += D.
template <class T, bool Unit, bool Far = false>
void constant_batch(const ThomasFactor<T>& f, T* base, T* acc_base, index_t n, index_t s, index_t su,
                    index_t cnt) {
  static_assert(Unit || !Far, "prefetched rows are unit-stride rows of lines");
  const T* a = f.lower();
  const T* cp = f.upper_over_pivot();
  const T* inv = f.inv_pivot();
  const index_t step_u = Unit ? 1 : su;
  auto prefetch_row = [cnt](const T* row) { prefetch_for_write(row, static_cast<std::size_t>(cnt) * sizeof(T)); };
  if constexpr (Far)
    for (index_t i = 0; i <= std::min(n - 1, kPrefetchRows); ++i) prefetch_row(base + i * s);
  {
    const T m0 = inv[0];
    T* row = base;
#pragma omp simd
    for (index_t l = 0; l < cnt; ++l) row[l * step_u] *= m0;
  }
  for (index_t i = 1; i < n; ++i) {
    const T ai = a[i], mi = inv[i];
    T* row = base + i * s;
    const T* prev = row - s;
    if (Far && i + kPrefetchRows < n) prefetch_row(row + kPrefetchRows * s);
#pragma omp simd
    for (index_t l = 0; l < cnt; ++l) row[l * step_u] = (row[l * step_u] - ai * prev[l * step_u]) * mi;
  }
  if (acc_base) {
    T* row = base + (n - 1) * s;
    T* acc = acc_base + (n - 1) * s;
#pragma omp simd
    for (index_t l = 0; l < cnt; ++l) acc[l * step_u] += row[l * step_u];
  }
  if (Far && acc_base)
    for (index_t i = n - 1; i >= std::max<index_t>(0, n - 1 - kPrefetchRows); --i) prefetch_row(acc_base + i * s);
  for (index_t i = n - 2; i >= 0; --i) {
    const T ci = cp[i];
    T* row = base + i * s;
    const T* next = row + s;
    if (acc_base) {
      T* acc = acc_base + i * s;
      if (Far && i >= kPrefetchRows) prefetch_row(acc - kPrefetchRows * s);
#pragma omp simd
      for (index_t l = 0; l < cnt; ++l) {
        row[l * step_u] -= ci * next[l * step_u];
        acc[l * step_u] += row[l * step_u];
      }
    } else {
#pragma omp simd
      for (index_t l = 0; l < cnt; ++l) row[l * step_u] -= ci * next[l * step_u];
    }
  }
}

// x lines (unit stride along the line): the recurrence runs down a line,
// so neighbouring lines are a row pitch apart and constant_batch's inner
// loop over lines was a strided gather (scalar: x ran at 35-47 % of the
// copy bandwidth where y, whose lines are adjacent, ran at 100 %+). Here
// kXLines lines are transposed into `scratch` laid out [row][line] by
// in-register tiles (simd_transpose.hpp), solved there by the same
// vectorised constant_batch as y lines (the same operations on the same
// values in the same order: bit-identical to the scalar path), and
// transposed back (adding into acc when fused). The scratch (n rows of
// 8 tiles, 128 bytes) stays in L1/L2; memory traffic is still one read and
// one write of the line. Lines past cnt are zeros (they solve to zeros).
// Eight tiles a batch: independent recurrences enough to hide the chain's
// latency (4 / 8 / 16 tiles measured 8.9 / 7.0 / 7.9 ms at 256^3 fp32 on
// 2 cores, docs/perf_notes.md).
template <class T>
constexpr int kXLines = 8 * detail::simd_width<T>();

template <class T>
void constant_batch_x(const ThomasFactor<T>& f, T* base, T* acc_base, index_t n, index_t su, index_t cnt, T* scratch) {
  constexpr int V = detail::simd_width<T>(), B = kXLines<T>;
  const index_t whole = n / V * V;
  for (int g = 0; g < B; g += V) {
    if (g + V <= cnt) {
      const T* line[V];
      for (int l = 0; l < V; ++l) line[l] = base + (g + l) * su;
      for (index_t i = 0; i < whole; i += V) {
        const T* at[V];
        for (int l = 0; l < V; ++l) at[l] = line[l] + i;
        detail::transpose_tile(at, scratch + i * B + g, B);
      }
      for (index_t i = whole; i < n; ++i)
        for (int l = 0; l < V; ++l) scratch[i * B + g + l] = line[l][i];
    } else {
      for (int l = 0; l < V; ++l) {
        const index_t k = g + l;
        for (index_t i = 0; i < n; ++i) scratch[i * B + k] = k < cnt ? base[k * su + i] : T(0);
      }
    }
  }
  constant_batch<T, true>(f, scratch, nullptr, n, B, 1, B);
  for (int g = 0; g < B && g < cnt; g += V) {
    if (g + V <= cnt) {
      T* line[V];
      T* acc[V];
      for (int l = 0; l < V; ++l) {
        line[l] = base + (g + l) * su;
        acc[l] = acc_base ? acc_base + (g + l) * su : nullptr;
      }
      for (index_t i = 0; i < whole; i += V) {
        T* at[V];
        T* acc_at[V];
        for (int l = 0; l < V; ++l) at[l] = line[l] + i, acc_at[l] = acc_base ? acc[l] + i : nullptr;
        detail::untranspose_tile(scratch + i * B + g, B, at, acc_base ? acc_at : nullptr);
      }
      for (index_t i = whole; i < n; ++i)
        for (int l = 0; l < V; ++l) {
          line[l][i] = scratch[i * B + g + l];
          if (acc_base) acc[l][i] += line[l][i];
        }
    } else {
      for (int l = 0; l < V && g + l < cnt; ++l) {
        const index_t k = g + l;
        for (index_t i = 0; i < n; ++i) {
          base[k * su + i] = scratch[i * B + k];
          if (acc_base) acc_base[k * su + i] += base[k * su + i];
        }
      }
    }
  }
}

// General coefficients: the modified upper diagonal of each line goes to a
// per-thread scratch array laid out [row][line in batch].
enum class LineStatus { Ok, Pivot, NotFinite };

constexpr const char* kNotFinite =
    ": the solution is not finite, with finite pivots (NaN or Inf in the right-hand side, or values that overflow)";

template <class T>
LineStatus general_batch(const T* a, const T* b, const T* c, T* d, index_t off0, index_t n, index_t s, index_t su,
                         index_t cnt, T* scratch) {
  bool ok = true;
  for (index_t l = 0; l < cnt; ++l) {
    const index_t o = off0 + l * su;
    const T piv = b[o];
    ok = ok && std::isfinite(piv) && piv != T(0);
    const T m = T(1) / piv;
    scratch[l] = n > 1 ? c[o] * m : T(0);
    d[o] *= m;
  }
  for (index_t i = 1; i < n; ++i) {
    T* cp = scratch + i * cnt;
    const T* cprev = cp - cnt;
    for (index_t l = 0; l < cnt; ++l) {
      const index_t o = off0 + i * s + l * su;
      const T piv = b[o] - a[o] * cprev[l];
      ok = ok && std::isfinite(piv) && piv != T(0);
      const T m = T(1) / piv;
      cp[l] = i + 1 < n ? c[o] * m : T(0);
      d[o] = (d[o] - a[o] * d[o - s]) * m;
    }
  }
  // No silent NaN: with finite pivots, a NaN or Inf in d (or a value that
  // overflowed) reaches the solution, which the GPU's solve_general reports
  // too. Checked where each value is at hand; `&=` keeps the loops free of
  // branches.
  bool finite = true;
  for (index_t l = 0; l < cnt && n > 0; ++l)
    finite &= static_cast<bool>(std::isfinite(d[off0 + (n - 1) * s + l * su]));
  for (index_t i = n - 2; i >= 0; --i) {
    const T* cp = scratch + i * cnt;
    for (index_t l = 0; l < cnt; ++l) {
      const index_t o = off0 + i * s + l * su;
      d[o] -= cp[l] * d[o + s];
      finite &= static_cast<bool>(std::isfinite(d[o]));
    }
  }
  return !ok ? LineStatus::Pivot : finite ? LineStatus::Ok : LineStatus::NotFinite;
}

void check_layout(const Layout3& L, const char* what) { L.validate(what); }

}  // namespace

template <class T>
void solve_constant_fused(Axis axis, const ThomasFactor<T>& f, T* d, T* acc, const Layout3& L) {
  check_layout(L, "tridiagonal right-hand side");
  if (f.size() != L.length(axis)) {
    std::ostringstream s;
    s << "tridiagonal factor has " << f.size() << " rows but lines along " << axis_name(axis) << " have "
      << L.length(axis);
    ADI_THROW(InvalidArgument, s.str());
  }
  ADI_REQUIRE(d != nullptr, "tridiagonal right-hand side is null");
  const LineSweep w(axis, L);
  if (w.s == 1 && w.su != 1 && w.n >= 1) {  // x lines: transposed batches (constant_batch_x)
    constexpr index_t B = kXLines<T>;
    const index_t per_v = (w.nu + B - 1) / B, tasks = w.nv * per_v;
#pragma omp parallel
    {
      std::vector<T> scratch(static_cast<std::size_t>(w.n * B));
#pragma omp for schedule(static)
      for (index_t t = 0; t < tasks; ++t) {
        const index_t v = t / per_v, u0 = (t % per_v) * B;
        const index_t off = v * w.sv + u0 * w.su;
        constant_batch_x<T>(f, d + off, acc ? acc + off : nullptr, w.n, w.su, std::min(B, w.nu - u0),
                            scratch.data());
      }
    }
    return;
  }
  const index_t total = w.nv * w.batches_u;
#pragma omp parallel for schedule(static)
  for (index_t t = 0; t < total; ++t) {
    const index_t v = t / w.batches_u, ub = t % w.batches_u;
    const index_t u0 = ub * w.batch;
    const index_t cnt = std::min(w.batch, w.nu - u0);
    const index_t off = v * w.sv + u0 * w.su;
    T* accp = acc ? acc + off : nullptr;
    if (w.su == 1 && static_cast<std::size_t>(w.s) * sizeof(T) >= kFarRowBytes)
      constant_batch<T, true, true>(f, d + off, accp, w.n, w.s, w.su, cnt);
    else if (w.su == 1)
      constant_batch<T, true>(f, d + off, accp, w.n, w.s, w.su, cnt);
    else
      constant_batch<T, false>(f, d + off, accp, w.n, w.s, w.su, cnt);
  }
}

template <class T>
void solve_constant(Axis axis, const ThomasFactor<T>& f, T* d, const Layout3& L) {
  solve_constant_fused<T>(axis, f, d, nullptr, L);
}

template <class T>
void solve_general(Axis axis, const T* a, const T* b, const T* c, T* d, const Layout3& L) {
  check_layout(L, "tridiagonal system");
  ADI_REQUIRE(a && b && c && d, "tridiagonal coefficient or right-hand side array is null");
  const LineSweep w(axis, L);
  const index_t total = w.nv * w.batches_u;
  std::atomic<bool> pivot_bad{false}, value_bad{false};
#pragma omp parallel
  {
    std::vector<T> scratch(static_cast<std::size_t>(w.n * w.batch));
#pragma omp for schedule(static)
    for (index_t t = 0; t < total; ++t) {
      const index_t v = t / w.batches_u, ub = t % w.batches_u;
      const index_t u0 = ub * w.batch;
      const index_t cnt = std::min(w.batch, w.nu - u0);
      const LineStatus st = general_batch(a, b, c, d, v * w.sv + u0 * w.su, w.n, w.s, w.su, cnt, scratch.data());
      if (st == LineStatus::Pivot) pivot_bad.store(true, std::memory_order_relaxed);
      if (st == LineStatus::NotFinite) value_bad.store(true, std::memory_order_relaxed);
    }
  }
  if (pivot_bad.load())
    ADI_THROW(NumericalError, std::string("tridiagonal solve along ") + axis_name(axis) +
                                  ": zero or non-finite pivot (matrix not diagonally dominant?)");
  if (value_bad.load())
    ADI_THROW(NumericalError, std::string("tridiagonal solve along ") + axis_name(axis) + kNotFinite);
}

template <class T>
void solve_cyclic(Axis axis, const T* a, const T* b, const T* c, T* d, const Layout3& L) {
  check_layout(L, "cyclic tridiagonal system");
  ADI_REQUIRE(a && b && c && d, "cyclic tridiagonal coefficient or right-hand side array is null");
  const int ax = axis_index(axis);
  const index_t n = L.n[ax], s = L.stride[ax];
  ADI_REQUIRE(n >= 3, "a cyclic tridiagonal system needs at least 3 nodes per line");
  const int o1 = (ax + 1) % 3, o2 = (ax + 2) % 3;
  const index_t n1 = L.n[o1], lines = L.n[o1] * L.n[o2];
  std::atomic<bool> all_ok{true}, value_bad{false};
#pragma omp parallel
  {
    // One line at a time through contiguous scratch (the rows gathered,
    // detail::cyclic, the solution scattered back): the oracle's algorithm.
    std::vector<T> la(n), lb(n), lc(n), ld(n), cp(n), z(n), bb(n);
#pragma omp for schedule(static)
    for (index_t line = 0; line < lines; ++line) {
      const index_t base = (line % n1) * L.stride[o1] + (line / n1) * L.stride[o2];
      for (index_t i = 0; i < n; ++i) {
        const index_t o = base + i * s;
        la[i] = a[o], lb[i] = b[o], lc[i] = c[o], ld[i] = d[o];
      }
      if (!detail::cyclic(n, la.data(), lb.data(), lc.data(), ld.data(), cp.data(), z.data(), bb.data()))
        all_ok.store(false, std::memory_order_relaxed);
      bool finite = true;
      for (index_t i = 0; i < n; ++i) {
        d[base + i * s] = ld[i];
        finite &= static_cast<bool>(std::isfinite(ld[i]));
      }
      if (!finite) value_bad.store(true, std::memory_order_relaxed);
    }
  }
  if (!all_ok.load())
    ADI_THROW(NumericalError, std::string("cyclic tridiagonal solve along ") + axis_name(axis) +
                                  ": zero or non-finite pivot (matrix not diagonally dominant?)");
  if (value_bad.load())
    ADI_THROW(NumericalError, std::string("cyclic tridiagonal solve along ") + axis_name(axis) + kNotFinite);
}

#define ADI_INSTANTIATE(T)                                                                            \
  template void solve_cyclic<T>(Axis, const T*, const T*, const T*, T*, const Layout3&);            \
  template void solve_constant<T>(Axis, const ThomasFactor<T>&, T*, const Layout3&);                \
  template void solve_constant_fused<T>(Axis, const ThomasFactor<T>&, T*, T*, const Layout3&);      \
  template void solve_general<T>(Axis, const T*, const T*, const T*, T*, const Layout3&);
ADI_INSTANTIATE(float)
ADI_INSTANTIATE(double)
#undef ADI_INSTANTIATE

}  // namespace adi::cpu
