// adi::cuda::solve_conductive (adi/cuda.hpp, adi/conductive.hpp): one thread
// per line, every row built on the fly from K and 1/c by adi/discrete.hpp's
// row functions (the CPU's arithmetic; compiled with -fmad=false, so the
// rows are the CPU's bits), Thomas with the modified upper diagonal in one
// workspace laid out like d -- no coefficient arrays. A periodic line runs
// adi::cpu::detail::cyclic's Sherman-Morrison step for step, with a second
// workspace for its second right-hand side. Threads take lines along the
// unit-stride axis when the line axis is not it (coalesced for y and z
// lines; x lines are strided across a warp: the first, simple version).

#include "thread_lines.cuh"

#include <adi/conductive.hpp>
#include <adi/cuda.hpp>

#include <algorithm>
#include <string>

namespace adi::cuda {

namespace {

// Row i of (I - tau A) for the line at base: a, b, c.
template <class T>
__device__ __forceinline__ void conductive_row(int i, index_t base, const ThreadLines& g, const T* K,
                                               const T* inv_c, const AxisEnds<T>& e, T tau, bool wrap, T& a, T& b,
                                               T& c, bool& ok) {
  if (fixed_row<T>(i, e)) {
    a = c = T(0);
    b = T(1);
    return;
  }
  const index_t o = base + i * g.s_line;
  const index_t om = i > 0 ? o - g.s_line : (wrap ? o + (g.n - 1) * g.s_line : o);
  const index_t op = i < g.n - 1 ? o + g.s_line : (wrap ? o - (g.n - 1) * g.s_line : o);
  const T rho = inv_c ? inv_c[o] : T(1);
  const T kc = K[o];
  ok = ok && isfinite(kc) && kc >= T(0) && isfinite(rho) && rho > T(0);
  implicit_row(row_coupling<T>(i, e, K[om], kc, K[op], rho), tau, a, b, c);
}

constexpr int kBadPivot = 1, kBadValue = 2;

template <class T>
__global__ void conductive_kernel(const T* __restrict__ K, const T* __restrict__ inv_c, T* __restrict__ d,
                                  T* __restrict__ cp, T* __restrict__ z, ThreadLines g, AxisEnds<T> e, T tau,
                                  bool wrap, int* bad) {
  const index_t lines = g.nu * g.nv;
  for (index_t line = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; line < lines;
       line += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t v = line / g.nu, u = line - v * g.nu;
    const index_t base = u * g.su + v * g.sv, last = base + (g.n - 1) * g.s_line;
    bool values = true, ok = true;
    T a, b, c;
    conductive_row(0, base, g, K, inv_c, e, tau, wrap, a, b, c, values);
    if (!wrap) {
      T piv = b;
      ok = isfinite(piv) && piv != T(0);
      T m = T(1) / piv;
      T cprev = g.n > 1 ? c * m : T(0);
      T dprev = d[base] * m;
      cp[base] = cprev;
      d[base] = dprev;
      for (int i = 1; i < g.n; ++i) {
        const index_t o = base + i * g.s_line;
        conductive_row(i, base, g, K, inv_c, e, tau, wrap, a, b, c, values);
        piv = b - a * cprev;
        ok = ok && isfinite(piv) && piv != T(0);
        m = T(1) / piv;
        cprev = i + 1 < g.n ? c * m : T(0);
        dprev = (d[o] - a * dprev) * m;
        cp[o] = cprev;
        d[o] = dprev;
      }
      T next = dprev;
      for (int i = g.n - 2; i >= 0; --i) {
        const index_t o = base + i * g.s_line;
        next = d[o] - cp[o] * next;
        d[o] = next;
      }
    } else {
      // line_rows.hpp's cyclic(): T = A without its corners lo = a_0,
      // hi = c_{n-1}, b_0 - gam and b_{n-1} - hi lo / gam on the diagonal.
      const T lo = a, b0 = b, c0 = c;
      T an, bn, cn;
      conductive_row(g.n - 1, base, g, K, inv_c, e, tau, wrap, an, bn, cn, values);
      const T hi = cn, gam = -b0;
      T piv = b0 - gam;
      ok = isfinite(piv) && piv != T(0);
      T inv = T(1) / piv;
      T cprev = c0 * inv;
      T dprev = d[base] * inv, zprev = gam * inv;
      cp[base] = cprev;
      d[base] = dprev;
      z[base] = zprev;
      for (int i = 1; i < g.n; ++i) {
        const index_t o = base + i * g.s_line;
        conductive_row(i, base, g, K, inv_c, e, tau, wrap, a, b, c, values);
        const T bb = i == g.n - 1 ? b - hi * lo / gam : b;
        const T zi = i == g.n - 1 ? hi : T(0);
        piv = bb - a * cprev;
        ok = ok && isfinite(piv) && piv != T(0);
        inv = T(1) / piv;
        cprev = i + 1 < g.n ? c * inv : T(0);
        dprev = (d[o] - a * dprev) * inv;
        zprev = (zi - a * zprev) * inv;
        cp[o] = cprev;
        d[o] = dprev;
        z[o] = zprev;
      }
      T dn = dprev, zn = zprev;
      for (int i = g.n - 2; i >= 0; --i) {
        const index_t o = base + i * g.s_line;
        dn = d[o] - cp[o] * dn;
        zn = z[o] - cp[o] * zn;
        d[o] = dn;
        z[o] = zn;
      }
      const T r = lo / gam;
      const T den = T(1) + z[base] + r * z[last];
      ok = ok && isfinite(den) && den != T(0);
      const T f = (d[base] + r * d[last]) / den;
      for (int i = 0; i < g.n; ++i) {
        const index_t o = base + i * g.s_line;
        d[o] -= f * z[o];
      }
    }
    if (!values) atomicOr(bad, kBadValue);
    if (!ok) atomicOr(bad, kBadPivot);
  }
}

}  // namespace

template <class T>
void solve_conductive(Axis axis, const T* K, const typename adi::detail::NoDeduce<T>::type* inv_c,
                      const ConductiveLines<T>& lines, T* d, const Layout3& L, void* stream) {
  L.validate("device conductive line solve");
  ADI_REQUIRE(K && d, "device conductive line solve: K or d is null");
  const int ax = axis_index(axis);
  lines.validate(L.n[ax]);
  const ThreadLines g = thread_lines(L, ax);
  if (L.points() == 0) return;
  const cudaStream_t st = static_cast<cudaStream_t>(stream);
  const bool wrap = lines.lo == LineEnd::Wrap;
  const std::size_t span = static_cast<std::size_t>(L.span());
  DeviceBuffer<T> cp(span), z(wrap ? span : 1);
  ErrorWord bad(st);
  conductive_kernel<T><<<thread_lines_blocks(g), kThreadLinesBlock, 0, st>>>(
      K, inv_c, d, cp.get(), z.get(), g, lines.ends(L.n[ax]), static_cast<T>(lines.tau), wrap, bad.get());
  ADI_CUDA_CHECK_LAUNCH("conductive_kernel");
  const int h_bad = bad.read();
  if (h_bad & kBadValue)
    ADI_THROW(InvalidArgument, std::string("device conductive line solve along ") + axis_name(axis) +
                                   ": K must be finite and >= 0, 1/c finite and > 0 at every node that is not a "
                                   "Fixed end");
  if (h_bad & kBadPivot)
    ADI_THROW(NumericalError, std::string("device conductive line solve along ") + axis_name(axis) +
                                  ": zero or non-finite pivot");
}

template void solve_conductive<float>(Axis, const float*, const float*, const ConductiveLines<float>&, float*,
                                      const Layout3&, void*);
template void solve_conductive<double>(Axis, const double*, const double*, const ConductiveLines<double>&, double*,
                                       const Layout3&, void*);

}  // namespace adi::cuda
