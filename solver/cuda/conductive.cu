// adi::cuda::solve_conductive (adi/cuda.hpp, adi/conductive.hpp): one thread
// per line, every row built on the fly from K and 1/c by adi/discrete.hpp's
// row functions (the CPU's arithmetic; compiled with -fmad=false, so the
// rows are the CPU's bits), Thomas with the modified upper diagonal in one
// workspace laid out like d -- no coefficient arrays. A periodic line runs
// adi::cpu::detail::cyclic's Sherman-Morrison step for step, with a second
// workspace for its second right-hand side (thomas_line, cyclic_line:
// thread_lines.cuh, shared with the array solves of api.cu). Threads take lines along the
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
    const index_t base = u * g.su + v * g.sv;
    bool values = true;
    const auto row = [&](int i, T& a, T& b, T& c) {
      conductive_row(i, base, g, K, inv_c, e, tau, wrap, a, b, c, values);
    };
    const bool ok = wrap ? cyclic_line<T>(row, d, cp, z, base, g) : thomas_line<T>(row, d, cp, base, g);
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
