// The public device API (adi/cuda.hpp).

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "general/general_lanes.hpp"
#include "line_solver.hpp"
#include "rhs_kernel.cuh"
#include "thread_lines.cuh"

#include <adi/cuda.hpp>

#include <algorithm>

namespace adi::cuda {

template <class T>
struct ConstantSolver<T>::Impl {
  LineSolver<T> solver;
};

template <class T>
ConstantSolver<T>::ConstantSolver(const LineMatrix& m, Axis axis, const Layout3& layout, const SolverOptions& options)
    : impl_(new Impl{LineSolver<T>(m, axis, layout, options)}) {}
template <class T>
ConstantSolver<T>::ConstantSolver(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
template <class T>
ConstantSolver<T> ConstantSolver<T>::cyclic(const LineMatrix& m, Axis axis, const Layout3& layout,
                                            const SolverOptions& options) {
  return ConstantSolver(std::unique_ptr<Impl>(new Impl{LineSolver<T>(m, axis, layout, options, true)}));
}
template <class T>
bool ConstantSolver<T>::cyclic_fits(Axis axis, const Layout3& layout, const SolverOptions& options) {
  return LineSolver<T>::cyclic_fits(axis, layout, options);
}
template <class T>
ConstantSolver<T>::~ConstantSolver() = default;
template <class T>
ConstantSolver<T>::ConstantSolver(ConstantSolver&&) noexcept = default;
template <class T>
ConstantSolver<T>& ConstantSolver<T>::operator=(ConstantSolver&&) noexcept = default;

template <class T>
void ConstantSolver<T>::solve(T* d, void* stream) const {
  impl_->solver.solve(d, nullptr, static_cast<cudaStream_t>(stream));
}
template <class T>
void ConstantSolver<T>::solve_add(const T* d, T* acc, void* stream) const {
  impl_->solver.solve(const_cast<T*>(d), acc, static_cast<cudaStream_t>(stream));
}
template <class T>
std::string ConstantSolver<T>::describe() const {
  return impl_->solver.describe();
}

template <class T>
void solve_constant(Axis axis, const ThomasFactor<T>& f, T* d, const Layout3& layout, void* stream) {
  const ConstantSolver<T> s(f.matrix(), axis, layout);
  s.solve(d, stream);
  // The plan's tables are freed when s goes out of scope: wait for the kernel.
  ADI_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
}

namespace {

// One thread per line (the lines the segmented kernel does not take):
// thomas_line / cyclic_line (thread_lines.cuh) with rows read from a, b, c,
// their scratch (c', and z on a ring) in workspaces laid out like d.
template <class T>
struct ArrayRow {
  const T* a;
  const T* b;
  const T* c;
  index_t base, s_line;
  __device__ void operator()(int i, T& ra, T& rb, T& rc) const {
    const index_t o = base + i * s_line;
    ra = a[o];
    rb = b[o];
    rc = c[o];
  }
};

template <class T>
__global__ void general_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                               T* __restrict__ d, T* __restrict__ work, ThreadLines g, int* bad) {
  const index_t lines = g.nu * g.nv;
  for (index_t line = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; line < lines;
       line += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t v = line / g.nu, u = line - v * g.nu;
    const index_t base = u * g.su + v * g.sv;
    if (!thomas_line<T>(ArrayRow<T>{a, b, c, base, g.s_line}, d, work, base, g)) atomicExch(bad, 1);
  }
}

template <class T>
__global__ void cyclic_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                              T* __restrict__ d, T* __restrict__ cp, T* __restrict__ z, ThreadLines g, int* bad) {
  const index_t lines = g.nu * g.nv;
  for (index_t line = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; line < lines;
       line += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t v = line / g.nu, u = line - v * g.nu;
    const index_t base = u * g.su + v * g.sv;
    if (!cyclic_line<T>(ArrayRow<T>{a, b, c, base, g.s_line}, d, cp, z, base, g)) atomicExch(bad, 1);
  }
}

}  // namespace

template <class T>
void solve_cyclic(Axis axis, const T* a, const T* b, const T* c, T* d, const Layout3& L, void* stream) {
  L.validate("device cyclic tridiagonal system");
  ADI_REQUIRE(a && b && c && d, "device cyclic tridiagonal coefficient or right-hand side pointer is null");
  const cudaStream_t st = static_cast<cudaStream_t>(stream);
  const int ax = axis_index(axis);
  ADI_REQUIRE(L.n[ax] >= 3, "a cyclic tridiagonal system needs at least 3 nodes per line");
  ErrorWord bad(st);
  if (!general::launch_array_lanes<T>({a, b, c}, d, L, ax, true, bad.get(), st)) {
    const ThreadLines g = thread_lines(L, ax);
    const std::size_t span = static_cast<std::size_t>(L.span());
    DeviceBuffer<T> cp(span), z(span);
    cyclic_kernel<T><<<thread_lines_blocks(g), kThreadLinesBlock, 0, st>>>(a, b, c, d, cp.get(), z.get(), g,
                                                                           bad.get());
    ADI_CUDA_CHECK_LAUNCH("cyclic_kernel");
  }
  if (bad.read())
    ADI_THROW(NumericalError, std::string("device cyclic tridiagonal solve along ") + axis_name(axis) +
                                  ": the solution is not finite (a zero or non-finite pivot: matrix not diagonally "
                                  "dominant? or non-finite input)");
}

template <class T>
void solve_general(Axis axis, const T* a, const T* b, const T* c, T* d, const Layout3& L, void* stream) {
  L.validate("device tridiagonal system");
  ADI_REQUIRE(a && b && c && d, "device tridiagonal coefficient or right-hand side pointer is null");
  const cudaStream_t st = static_cast<cudaStream_t>(stream);
  ErrorWord bad(st);
  if (!general::launch_array_lanes<T>({a, b, c}, d, L, axis_index(axis), false, bad.get(), st)) {
    const ThreadLines g = thread_lines(L, axis_index(axis));
    DeviceBuffer<T> work(static_cast<std::size_t>(L.span()));
    general_kernel<T><<<thread_lines_blocks(g), kThreadLinesBlock, 0, st>>>(a, b, c, d, work.get(), g, bad.get());
    ADI_CUDA_CHECK_LAUNCH("general_kernel");
  }
  if (bad.read())
    ADI_THROW(NumericalError, std::string("device tridiagonal solve along ") + axis_name(axis) +
                                  ": the solution is not finite (a zero or non-finite pivot: matrix not diagonally "
                                  "dominant? or non-finite input)");
}

template <class T>
void douglas_rhs(const T* u, T* w, const Layout3& L, const HeatProblem& p, void* stream,
                 const SolverOptions& options) {
  L.validate("douglas_rhs field");
  for (int a = 0; a < 3; ++a)
    ADI_REQUIRE(L.n[a] == p.n[a], "douglas_rhs: field extents differ from the problem's grid");
  launch_rhs(u, w, L, rhs_coefficients<T>(p), static_cast<cudaStream_t>(stream), options);
}

template <class T>
void douglas_rhs(const T* u, T* w, const Layout3& L, const RhsCoefficients<T>& k, void* stream,
                 const SolverOptions& options) {
  L.validate("douglas_rhs field");
  launch_rhs(u, w, L, k, static_cast<cudaStream_t>(stream), options);
}

template class ConstantSolver<float>;
template class ConstantSolver<double>;
#define ADI_INSTANTIATE(T)                                                                                   \
  template void solve_constant<T>(Axis, const ThomasFactor<T>&, T*, const Layout3&, void*);                 \
  template void solve_general<T>(Axis, const T*, const T*, const T*, T*, const Layout3&, void*);            \
  template void solve_cyclic<T>(Axis, const T*, const T*, const T*, T*, const Layout3&, void*);             \
  template void douglas_rhs<T>(const T*, T*, const Layout3&, const HeatProblem&, void*, const SolverOptions&); \
  template void douglas_rhs<T>(const T*, T*, const Layout3&, const RhsCoefficients<T>&, void*,               \
                               const SolverOptions&);
ADI_INSTANTIATE(float)
ADI_INSTANTIATE(double)
#undef ADI_INSTANTIATE

}  // namespace adi::cuda
