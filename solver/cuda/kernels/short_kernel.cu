// Short kernel (LineKernelFamily::Short): y / z lines (and strided x lines)
// of at most kShortMaxRows rows, a thread a line (4 lines of 1-2 rows, 2 of
// 3-4, kThreads apart). Neighbouring threads take
// neighbouring lines along the unit-stride axis, so each of a line's rows is
// one coalesced load across the warp; a thread issues all of them before the
// first use (the rows are registers of a fully unrolled loop), then runs
// Thomas with the factor's tables from the kernel's parameters and writes
// (or adds into acc) once: 2 words a point, 3 with the update, in one pass.
// The lanes kernel gives such lines a 32-line tile a warp with one tile in
// flight, which leaves an SM a few KB of loads in flight: too few for the
// copy bandwidth (measured: docs/PERFORMANCE.md, "Line-kernel families").
//
// The arithmetic is the generic kernel's and the CPU's Thomas, row by row.

#include "line_kernels.cuh"

#include <algorithm>
#include <string>

namespace adi::cuda::kernels {

namespace {

// U lines a thread, kThreads apart (each of them coalesced across the
// block): a line of 1 or 2 rows is 2-4 loads, too few a thread to keep the
// copy bandwidth's bytes in flight, so short lines take several. The row
// count N is a template argument: with a run-time count ptxas kept all 8
// rows of every line live (161 registers at U = 4, one block an SM) and 1-row
// lines ran no faster with U = 4 than with U = 1.
constexpr int kThreads = 256;

template <class T, bool Acc, int N, int U>
__global__ void __launch_bounds__(kThreads)
    short_kernel(T* __restrict__ d, T* __restrict__ acc, const __grid_constant__ ShortTables<T> tb, LinesGeom g) {
  const index_t lines = g.nu * g.nv;
  constexpr index_t tile = static_cast<index_t>(kThreads) * U;
  for (index_t base = static_cast<index_t>(blockIdx.x) * tile; base < lines;
       base += static_cast<index_t>(gridDim.x) * tile) {
    index_t o[U];
    bool live[U];
    T x[U][N];
    T old[Acc ? U : 1][N];  // the accumulator's values, loaded with x (all loads first)
#pragma unroll
    for (int k = 0; k < U; ++k) {
      const index_t line = base + threadIdx.x + k * kThreads;
      live[k] = line < lines;
      const index_t v = line / g.nu, u = line - v * g.nu;
      o[k] = u * g.su + v * g.sv;
      if (live[k])
#pragma unroll
        for (int i = 0; i < N; ++i) {
          x[k][i] = d[o[k] + i * g.s_line];
          if constexpr (Acc) old[k][i] = acc[o[k] + i * g.s_line];
        }
    }
#pragma unroll
    for (int k = 0; k < U; ++k) {
      x[k][0] *= tb.inv[0];
#pragma unroll
      for (int i = 1; i < N; ++i) x[k][i] = (x[k][i] - tb.a[i] * x[k][i - 1]) * tb.inv[i];
#pragma unroll
      for (int i = N - 2; i >= 0; --i) x[k][i] = x[k][i] - tb.cp[i] * x[k][i + 1];
    }
#pragma unroll
    for (int k = 0; k < U; ++k)
      if (live[k])
#pragma unroll
        for (int i = 0; i < N; ++i) {
          if constexpr (Acc)
            acc[o[k] + i * g.s_line] = old[k][i] + x[k][i];
          else
            d[o[k] + i * g.s_line] = x[k][i];
        }
  }
}

template <class T, bool Acc, int N>
void launch_short_n(T* d, T* acc, const ShortTables<T>& tb, const LinesGeom& g, cudaStream_t st) {
  constexpr int U = N <= 2 ? 4 : N <= 4 ? 2 : 1;
  const index_t lines = g.nu * g.nv, tile = static_cast<index_t>(kThreads) * U;
  const unsigned blocks = static_cast<unsigned>(std::min<index_t>((lines + tile - 1) / tile, 1 << 22));
  short_kernel<T, Acc, N, U><<<blocks, kThreads, 0, st>>>(d, acc, tb, g);
}

template <class T, bool Acc>
void launch_short_acc(T* d, T* acc, const ShortTables<T>& tb, int n, const LinesGeom& g, cudaStream_t st) {
  static_assert(kShortMaxRows == 8, "one case a row count");
  switch (n) {
    case 1: launch_short_n<T, Acc, 1>(d, acc, tb, g, st); break;
    case 2: launch_short_n<T, Acc, 2>(d, acc, tb, g, st); break;
    case 3: launch_short_n<T, Acc, 3>(d, acc, tb, g, st); break;
    case 4: launch_short_n<T, Acc, 4>(d, acc, tb, g, st); break;
    case 5: launch_short_n<T, Acc, 5>(d, acc, tb, g, st); break;
    case 6: launch_short_n<T, Acc, 6>(d, acc, tb, g, st); break;
    case 7: launch_short_n<T, Acc, 7>(d, acc, tb, g, st); break;
    case 8: launch_short_n<T, Acc, 8>(d, acc, tb, g, st); break;
    default: ADI_THROW(InvalidArgument, "short kernel: lines of 1 to 8 rows, not " + std::to_string(n));
  }
}

}  // namespace

template <class T>
void launch_short(T* d, T* acc, const ShortTables<T>& tb, int n, const LinesGeom& g, cudaStream_t st) {
  if (acc)
    launch_short_acc<T, true>(d, acc, tb, n, g, st);
  else
    launch_short_acc<T, false>(d, acc, tb, n, g, st);
  ADI_CUDA_CHECK_LAUNCH("short_kernel");
}

template void launch_short<float>(float*, float*, const ShortTables<float>&, int, const LinesGeom&, cudaStream_t);
template void launch_short<double>(double*, double*, const ShortTables<double>&, int, const LinesGeom&,
                                   cudaStream_t);

}  // namespace adi::cuda::kernels
