#pragma once
// Shared by the one-thread-per-line device solves of the public API
// (api.cu: solve_general, solve_cyclic; conductive.cu: solve_conductive):
// how the lines of an axis are enumerated, how many blocks launch them, the
// Thomas and cyclic sweeps of one line (rows from a functor), and the error
// word a kernel sets and the host reads back.

#include "cuda_check.hpp"
#include "device_buffer.hpp"

#include <adi/grid.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace adi::cuda {

/// Lines along axis `ax`: line (u, v) starts at u su + v sv, its rows s_line
/// apart. u is the other axis with the smaller stride, so that neighbouring
/// threads take neighbouring lines (coalesced for y and z lines).
struct ThreadLines {
  index_t s_line, nu, su, nv, sv;
  int n;
};

inline ThreadLines thread_lines(const Layout3& L, int ax) {
  ADI_REQUIRE(L.n[ax] < (index_t(1) << 31), "lines longer than 2^31 rows are not supported");
  const int o1 = (ax + 1) % 3, o2 = (ax + 2) % 3;
  const int u = L.stride[o1] <= L.stride[o2] ? o1 : o2, v = u == o1 ? o2 : o1;
  return ThreadLines{L.stride[ax], L.n[u], L.stride[u], L.n[v], L.stride[v], static_cast<int>(L.n[ax])};
}

constexpr int kThreadLinesBlock = 128;

/// Blocks of kThreadLinesBlock threads for the lines (grid-stride beyond 2^20).
inline unsigned thread_lines_blocks(const ThreadLines& g) {
  const index_t lines = g.nu * g.nv;
  return static_cast<unsigned>(std::min<index_t>((lines + kThreadLinesBlock - 1) / kThreadLinesBlock, 1 << 20));
}

/// Thomas along one line (base, g), the rows from row(i, a, b, c): the
/// library's arrays (solve_general) or K and 1/c (solve_conductive); a[0]
/// and c[n-1] are read and ignored. The modified upper diagonal goes to cp,
/// laid out like d. Returns false on a zero or non-finite pivot. The
/// operations and their order are adi::cpu's Thomas (line_rows.hpp): the
/// conductive solve, compiled with -fmad=false, is bit-identical to the CPU
/// through them (CudaConductive).
template <class T, class Row>
__device__ __forceinline__ bool thomas_line(Row&& row, T* __restrict__ d, T* __restrict__ cp, index_t base,
                                            const ThreadLines& g) {
  T a, b, c;
  row(0, a, b, c);
  T piv = b;
  bool ok = isfinite(piv) && piv != T(0);
  T m = T(1) / piv;
  T cprev = g.n > 1 ? c * m : T(0);
  T dprev = d[base] * m;
  cp[base] = cprev;
  d[base] = dprev;
  for (int i = 1; i < g.n; ++i) {
    const index_t o = base + i * g.s_line;
    row(i, a, b, c);
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
  return ok;
}

/// A periodic line (n >= 3): adi::cpu::detail::cyclic (line_rows.hpp) step
/// for step. T = A without its corners lo = a_0, hi = c_{n-1}, with b_0 - gam
/// and b_{n-1} - hi lo / gam on the diagonal (gam = -b_0), is solved for d and
/// for the corner vector z in one forward sweep; Sherman-Morrison then adds
/// the corners back. cp and z: workspaces laid out like d.
template <class T, class Row>
__device__ __forceinline__ bool cyclic_line(Row&& row, T* __restrict__ d, T* __restrict__ cp, T* __restrict__ z,
                                            index_t base, const ThreadLines& g) {
  const index_t last = base + (g.n - 1) * g.s_line;
  T a, b, c;
  row(0, a, b, c);
  const T lo = a, b0 = b, c0 = c;
  row(g.n - 1, a, b, c);
  const T hi = c, gam = -b0;
  T piv = b0 - gam;
  bool ok = isfinite(piv) && piv != T(0);
  T inv = T(1) / piv;
  T cprev = c0 * inv;
  T dprev = d[base] * inv, zprev = gam * inv;
  cp[base] = cprev;
  d[base] = dprev;
  z[base] = zprev;
  for (int i = 1; i < g.n; ++i) {
    const index_t o = base + i * g.s_line;
    row(i, a, b, c);
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
  return ok;
}

/// A device error word a kernel sets (atomicOr) and read() returns after
/// waiting for the stream.
///
/// The word and the pinned host word it is read into are kept per host
/// thread and device for the life of the thread, not allocated per call: a
/// solve called in a loop (Python's solve_tridiagonal) paid a cudaMalloc, a
/// cudaFree (which waits for the whole device), a memset and a pageable copy
/// (staged by the driver) each time. The word is zero between uses: zeroed
/// once when allocated, and again (waited for) only after a use that found
/// it set, or one whose read() never came (an exception in between). Per
/// thread, so that calls from two threads on two streams never share a
/// word; one ErrorWord per thread at a time.
class ErrorWord {
 public:
  explicit ErrorWord(cudaStream_t st) : st_(st) {
    int dev = 0;
    ADI_CUDA_CHECK(cudaGetDevice(&dev));
    slot_ = &slot(dev);
  }
  ~ErrorWord() {
    if (!read_) clear();
  }
  ErrorWord(const ErrorWord&) = delete;
  ErrorWord& operator=(const ErrorWord&) = delete;
  int* get() { return slot_->d; }
  int read() {
    read_ = true;
    ADI_CUDA_CHECK(cudaMemcpyAsync(slot_->h, slot_->d, sizeof(int), cudaMemcpyDeviceToHost, st_));
    ADI_CUDA_CHECK(cudaStreamSynchronize(st_));
    const int h = *slot_->h;
    if (h != 0) clear();
    return h;
  }

 private:
  void clear() noexcept {
    // Waited for: the thread's next use may be on another stream.
    if (cudaMemsetAsync(slot_->d, 0, sizeof(int), st_) == cudaSuccess) cudaStreamSynchronize(st_);
  }
  struct Slot {
    int* d = nullptr;
    int* h = nullptr;
  };
  struct Slots {
    std::vector<Slot> v;
    ~Slots() {
      // At thread (or process) exit; errors (a runtime already torn down)
      // are of no consequence here.
      for (Slot& s : v) {
        if (s.d) cudaFree(s.d);
        if (s.h) cudaFreeHost(s.h);
      }
    }
  };
  static Slot& slot(int dev) {
    thread_local Slots slots;
    if (static_cast<std::size_t>(dev) >= slots.v.size()) slots.v.resize(static_cast<std::size_t>(dev) + 1);
    Slot& s = slots.v[static_cast<std::size_t>(dev)];
    if (!s.d) {
      ADI_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&s.d), sizeof(int)));
      memset_blocking(s.d, 0, sizeof(int));  // landed before any stream's kernel may set it
    }
    if (!s.h) ADI_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&s.h), sizeof(int)));
    return s;
  }
  Slot* slot_ = nullptr;
  cudaStream_t st_;
  bool read_ = false;
};

}  // namespace adi::cuda
