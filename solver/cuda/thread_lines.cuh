#pragma once
// Shared by the one-thread-per-line device solves of the public API
// (api.cu: solve_general, solve_cyclic; conductive.cu: solve_conductive):
// how the lines of an axis are enumerated, how many blocks launch them, and
// the error word a kernel sets and the host reads back.

#include "cuda_check.hpp"
#include "device_buffer.hpp"

#include <adi/grid.hpp>

#include <cuda_runtime.h>

#include <algorithm>

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

/// A device error word, zeroed on the stream; read() waits for the stream.
class ErrorWord {
 public:
  explicit ErrorWord(cudaStream_t st) : st_(st) { ADI_CUDA_CHECK(cudaMemsetAsync(w_.get(), 0, sizeof(int), st_)); }
  int* get() { return w_.get(); }
  int read() {
    int h = 0;
    ADI_CUDA_CHECK(cudaMemcpyAsync(&h, w_.get(), sizeof(int), cudaMemcpyDeviceToHost, st_));
    ADI_CUDA_CHECK(cudaStreamSynchronize(st_));
    return h;
  }

 private:
  DeviceBuffer<int> w_{1};
  cudaStream_t st_;
};

}  // namespace adi::cuda
