#pragma once
// The CUDA backend's library API: the same operations as adi::cpu, on device
// pointers. Declared without CUDA headers (streams are passed as void*, a
// cudaStream_t; nullptr = the default stream). In a build without CUDA every
// function throws BackendUnavailable.

#include <adi/conductive.hpp>
#include <adi/grid.hpp>
#include <adi/options.hpp>
#include <adi/scheme.hpp>
#include <adi/tridiag.hpp>

#include <memory>
#include <string>
#include <vector>

namespace adi::cuda {

/// A constant-coefficient matrix planned once for one axis of one layout:
/// picks the kernel and uploads its small tables; solve() may be called any
/// number of times (the ADI stepper keeps one per axis).
template <class T>
class ConstantSolver {
 public:
  /// `options`: the kernel knobs (x_seg, yz_seg, ...; adi/solver_knobs.def).
  ConstantSolver(const LineMatrix& m, Axis axis, const Layout3& layout, const SolverOptions& options = {});
  /// The periodic lines of a constant matrix: m.a[0] couples node n - 1 and
  /// m.c[n - 1] node 0, as in solve_cyclic (n >= 3). The segmented kernels
  /// solve the Sherman-Morrison split of m (adi::cyclic_split) and correct
  /// each row with one FMA: the speed of an open line. Throws
  /// BackendUnavailable for lines no block holds (fp64 y/z past 1056 rows,
  /// fp32 past 2048, x past 2048: the long-line and generic kernels have no
  /// periodic form; cyclic_fits).
  static ConstantSolver cyclic(const LineMatrix& m, Axis axis, const Layout3& layout,
                               const SolverOptions& options = {});
  static bool cyclic_fits(Axis axis, const Layout3& layout, const SolverOptions& options = {});
  ~ConstantSolver();
  ConstantSolver(ConstantSolver&&) noexcept;
  ConstantSolver& operator=(ConstantSolver&&) noexcept;
  /// d <- A^{-1} d in place (device pointer, `layout`). Lines no block
  /// holds (the long-line kernel) keep their reduced rows in a scratch of
  /// this solver (1/16 of a field): calls on one solver must be ordered (one
  /// stream, or synchronised between streams).
  void solve(T* d, void* stream = nullptr) const;
  /// acc += A^{-1} d, leaving d unread-after (it is not written): the fused update.
  void solve_add(const T* d, T* acc, void* stream = nullptr) const;
  std::string describe() const;

 private:
  struct Impl;
  explicit ConstantSolver(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// One-shot versions (plan, solve, free): convenient, slower for repeated use.
template <class T>
void solve_constant(Axis axis, const ThomasFactor<T>& f, T* d, const Layout3& layout, void* stream = nullptr);

/// Per-point coefficients a, b, c (device pointers, same layout as d).
/// Lines of up to 128 segments (2048 rows fp32, 1024 fp64) take the
/// segmented kernel (general/general_lanes.cu: each thread eliminates a
/// segment in registers, PCR joins them; reads a, b, c, d once, writes x
/// once), longer ones one thread per line. Synchronises the stream; throws
/// NumericalError if the solution is not finite (a zero or non-finite
/// pivot, or non-finite input).
template <class T>
void solve_general(Axis axis, const T* a, const T* b, const T* c, T* d, const Layout3& layout,
                   void* stream = nullptr);

/// The cyclic (periodic) systems, as adi::cpu::solve_cyclic (a at node 0
/// couples node n - 1, c at node n - 1 couples node 0; n >= 3), on device
/// pointers: the segmented kernel with its reduced system closed into a
/// ring, or (longer lines) one thread per line, Sherman-Morrison on its
/// Thomas sweep. Errors as solve_general.
template <class T>
void solve_cyclic(Axis axis, const T* a, const T* b, const T* c, T* d, const Layout3& layout,
                  void* stream = nullptr);

/// The conductive (K/c) form, as adi::cpu::solve_conductive (adi/conductive.hpp),
/// on device pointers K, inv_c (nullptr: c = 1) and d: one thread per line,
/// rows computed on the fly, the CPU's arithmetic bit for bit. Synchronises
/// the stream (to report bad values or pivots).
template <class T>
void solve_conductive(Axis axis, const T* K, const typename adi::detail::NoDeduce<T>::type* inv_c,
                      const ConductiveLines<T>& lines, T* d, const Layout3& layout, void* stream = nullptr);

/// w = dt (Lx + Ly + Lz) u, as adi::cpu::douglas_rhs, on device pointers.
template <class T>
/// `options`: the RHS kernel knob (rhs_vec).
void douglas_rhs(const T* u, T* w, const Layout3& layout, const HeatProblem& p, void* stream = nullptr,
                 const SolverOptions& options = {});
/// The same on a sub-box described by its coefficients (ghost faces: see
/// adi::cpu::douglas_rhs; u must be readable at index -1 / n across them).
template <class T>
void douglas_rhs(const T* u, T* w, const Layout3& layout, const RhsCoefficients<T>& k, void* stream = nullptr,
                 const SolverOptions& options = {});

/// The same Douglas step with cuSPARSE's batched solvers and coefficient
/// arrays in device memory (gtsv2StridedBatch for x lines,
/// gtsvInterleavedBatch for y planes and z lines), timed phase by phase with
/// CUDA events, for a side-by-side baseline in `adi3d bench`.
struct BaselineTimings {
  std::vector<double> rhs, x, y, z, update, step;  ///< ms per repetition
  double max_rel_diff = 0.0;  ///< one baseline step vs one adi3d CUDA step, same initial field
  std::size_t bytes_allocated = 0;
};
template <class T>
BaselineTimings cusparse_baseline(const HeatProblem& p, int warmup, int reps);

/// Device-to-device copy bandwidth (bytes read + written per second), median of reps.
double device_copy_bandwidth(std::size_t bytes, int reps);

}  // namespace adi::cuda
