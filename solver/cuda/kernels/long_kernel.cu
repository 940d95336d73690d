// Long-line kernel (LineKernelFamily::Long): lines that no block holds in
// registers (fp64 y/z past 1056 rows, fp32 past 2048, x past 2048: 4096 x
// 256 x 256, 64 x 64 x 16384, 8192 x 8192 x 3).
//
// The segmented method of the other families (adi/segmented.hpp) with the
// segments of a line spread over independent warps instead of one block:
//   pass 1 (reduce): a warp owns one segment of kLongI rows of 32 lines
//     (lane = line), runs the modified Thomas sweeps in registers and writes
//     its two reduced right-hand sides to `red`, laid out [reduced row][line];
//   pass 2: the 2S-row reduced systems, a constant unit-diagonal tridiagonal
//     matrix for every line, are lines of their own along the unit-stride
//     lines axis of `red`: the caller solves them with another LineSolver
//     (the lanes kernel, or this one again for 2S past its limit);
//   pass 3 (finish): the warp loads its segment again, repeats the sweeps
//     (they are cheaper than storing and re-reading the swept rows) and
//     back-substitutes its interior from the solved first / last unknowns.
// Traffic: 3 words a point (read, read, write) plus 8 / kLongI for the
// reduced rows (written, read and written by the reduced solve, read),
// against the generic kernel's 4 at one thread per line (a few thousand
// threads for 64 x 64 x 16384: a small fraction of the copy bandwidth,
// docs/PERFORMANCE.md, "Line-kernel families"). No
// block barrier anywhere: each warp is independent, and a segment's 32
// loads are in flight together.
//
// Loads: lines whose rows are not adjacent (y, z) read row j of 32
// consecutive lines per instruction (the lanes axis has the smallest
// stride: whole sectors). x lines of unit stride read 32 consecutive rows
// of one line per instruction and hand lane l its line's rows through the
// padded shared-memory transposition (adi::transpose::WarpTranspose, Giles'
// map: conflict-free both ways for I = 32), the CPU-style "one thread, one
// line" view of a row-wise load.

#include "line_kernels.cuh"

#include <adi/transpose/rows.hpp>
#include <adi/transpose/warp_transpose.cuh>

#include <algorithm>

namespace adi::cuda::kernels {

namespace {

using transpose::StridedRows;

constexpr int I = kLongI;
// Warps a block: independent, so the count only sets the shared memory of
// the x transposition (fp64: 4 x 8.6 KB) and the block's granularity.
constexpr int kLongWarps = 4;

template <class T>
using LongTranspose = transpose::WarpTranspose<T, I>;

struct LongGeom {
  index_t s_line;   // stride along the line
  index_t nu, su;   // lanes axis: 32 consecutive lines a tile
  index_t nv, sv;   // outer axis
  index_t tiles_u;  // tiles of 32 lines along u
  index_t items;    // tiles_u * nv * S: one warp's work each
  index_t lines;    // nu * nv: the reduced rows' row length
  int n;            // rows of the line
  int S;            // segments a line
  bool uniform;     // segments 1 .. S-2 have segment 1's tables (SegmentConsts)
};

// The segment's sweeps; with Finish also its back substitution from the
// solved first / last unknowns. V: SegmentConsts or SegmentView.
template <class T, bool Finish, class V>
__device__ __forceinline__ void sweep_segment(T (&x)[I], const V& v, T zf, T zl) {
  local_sweeps<T, I>(x, v);
  if constexpr (Finish) finish_segment<T, I>(x, v, zf, zl);
}

template <class T, bool Rowwise, bool Finish, bool Acc>
__global__ void __launch_bounds__(32 * kLongWarps)
    long_kernel(T* __restrict__ d, T* __restrict__ acc, T* __restrict__ red, const T* __restrict__ tables, LongGeom g,
                const __grid_constant__ SegmentConsts<T, I> sc) {
  __shared__ typename LongTranspose<T>::TempStorage tmp[Rowwise ? kLongWarps : 1];
  const int lane = threadIdx.x, warp = threadIdx.y;
  const TableLayout L{g.S, I, false};
  for (index_t item = static_cast<index_t>(blockIdx.x) * kLongWarps + warp; item < g.items;
       item += static_cast<index_t>(gridDim.x) * kLongWarps) {
    // Segments fastest: a block's warps take consecutive segments of the same
    // 32 lines (neighbouring rows, one DRAM page more often than not).
    const index_t tile = tile_quotient(item, g.items, g.S);
    const int s = static_cast<int>(item - tile * g.S);
    const index_t v = tile_quotient(tile, g.items, g.tiles_u), u0 = (tile - v * g.tiles_u) * 32;
    const int lines_here = static_cast<int>(min(static_cast<index_t>(32), g.nu - u0));
    const int row0 = s * I, len = min(I, g.n - row0);  // the last segment is ragged; its padding rows solve to 0
    const bool valid = lane < lines_here;
    const index_t tile_off = u0 * g.su + v * g.sv + static_cast<index_t>(row0) * g.s_line;
    const index_t red_at = u0 + lane + g.nu * v;  // this lane's line in the reduced rows
    T x[I];
    if constexpr (Rowwise) {
      LongTranspose<T>(tmp[warp]).load(StridedRows<T>{d + tile_off, g.su, lines_here, len}, x, T(0));
    } else {
      const T* p = d + tile_off + lane * g.su;
#pragma unroll
      for (int j = 0; j < I; ++j) x[j] = (valid && j < len) ? p[j * g.s_line] : T(0);
    }
    // The fused update's accumulator, loaded now so that its latency hides
    // behind the sweeps; loaded at the store instead, each `acc += x` waited
    // for its own load (the compiler cannot move a load of acc above a store
    // to acc at a run-time stride). x lines: rows as they lie (a[q]: line q,
    // row row0 + lane), added after the solution is transposed back to rows.
    constexpr bool kAcc = Finish && Acc;
    T a[kAcc ? I : 1];
    if constexpr (kAcc) {
      if constexpr (Rowwise) {
        const T* q0 = acc + tile_off + lane;
#pragma unroll
        for (int q = 0; q < I; ++q) a[q] = (q < lines_here && lane < len) ? q0[q * g.su] : T(0);
      } else {
        const T* p = acc + tile_off + lane * g.su;
#pragma unroll
        for (int j = 0; j < I; ++j) a[j] = (valid && j < len) ? p[j * g.s_line] : T(0);
      }
    }
    T zf = T(0), zl = T(0);
    if (Finish && valid) {
      zf = red[static_cast<index_t>(2 * s) * g.lines + red_at];
      zl = red[static_cast<index_t>(2 * s + 1) * g.lines + red_at];
    }
    // Interior segments read their row tables from the constant bank as FFMA
    // operands (the lanes kernel's reason: five shared or global loads an
    // element made the fp32 solves issue-bound); the first and last segment
    // (boundary rows, padding) from global memory, broadcast to the warp.
    if (g.uniform && s >= 1 && s <= g.S - 2)
      sweep_segment<T, Finish>(x, sc, zf, zl);
    else
      sweep_segment<T, Finish>(x, segment_view(tables, L, s), zf, zl);
    if constexpr (!Finish) {
      if (valid) {
        red[static_cast<index_t>(2 * s) * g.lines + red_at] = x[0];
        red[static_cast<index_t>(2 * s + 1) * g.lines + red_at] = x[I - 1];
      }
    } else if constexpr (Rowwise) {
      // Back to rows (row[q] = row row0 + lane of line q), then one
      // coalesced store or accumulate a line: the accumulator never needs
      // a transposition of its own, and x is dead once it is in shared
      // memory (fp64: 168 registers against 254 when acc took a transposition too).
      T row[I];
      LongTranspose<T>(tmp[warp]).columns_to_rows(x, row);
      T* q0 = (Acc ? acc : d) + tile_off + lane;
#pragma unroll
      for (int q = 0; q < I; ++q)
        if (q < lines_here && lane < len) {
          if constexpr (kAcc)
            q0[q * g.su] = a[q] + row[q];
          else
            q0[q * g.su] = row[q];
        }
    } else {
      T* p = (Acc ? acc : d) + tile_off + lane * g.su;
#pragma unroll
      for (int j = 0; j < I; ++j)
        if (valid && j < len) {
          if constexpr (kAcc)
            p[j * g.s_line] = a[j] + x[j];
          else
            p[j * g.s_line] = x[j];
        }
    }
  }
}

template <class T, bool Rowwise, bool Finish, bool Acc>
void launch_long_impl(T* d, T* acc, T* red, const PlanView<T>& p, const LongGeom& g,
                      const SegmentConsts<T, I>& sc, cudaStream_t st) {
  const index_t blocks = std::min<index_t>((g.items + kLongWarps - 1) / kLongWarps, index_t(1) << 30);
  long_kernel<T, Rowwise, Finish, Acc><<<static_cast<unsigned>(blocks), dim3(32, kLongWarps), 0, st>>>(
      d, acc, red, p.tables, g, sc);
  ADI_CUDA_CHECK_LAUNCH("long_kernel");
}

}  // namespace

template <class T>
void launch_long(T* d, T* acc, T* red, const PlanView<T>& p, const LinesGeom& lg, bool finish,
                 const std::vector<T>& host_tables, bool uniform, cudaStream_t st) {
  if (p.I != I) ADI_THROW(InvalidArgument, "long-line kernel: built for segments of " + std::to_string(I) + " rows");
  LongGeom g{};
  g.s_line = lg.s_line;
  g.nu = lg.nu;
  g.su = lg.su;
  g.nv = lg.nv;
  g.sv = lg.sv;
  g.tiles_u = (lg.nu + 31) / 32;
  g.items = g.tiles_u * lg.nv * p.S;
  g.lines = lg.nu * lg.nv;
  g.n = p.n;
  g.S = p.S;
  g.uniform = uniform && p.S >= 3;
  if (g.items == 0) return;
  const SegmentConsts<T, I> sc = g.uniform ? segment_consts<T, I>(host_tables, p.S, ~0u) : SegmentConsts<T, I>{};
  const bool rowwise = lg.s_line == 1;
  if (!finish) {
    if (rowwise)
      launch_long_impl<T, true, false, false>(d, acc, red, p, g, sc, st);
    else
      launch_long_impl<T, false, false, false>(d, acc, red, p, g, sc, st);
  } else if (acc) {
    if (rowwise)
      launch_long_impl<T, true, true, true>(d, acc, red, p, g, sc, st);
    else
      launch_long_impl<T, false, true, true>(d, acc, red, p, g, sc, st);
  } else {
    if (rowwise)
      launch_long_impl<T, true, true, false>(d, acc, red, p, g, sc, st);
    else
      launch_long_impl<T, false, true, false>(d, acc, red, p, g, sc, st);
  }
}

template void launch_long<float>(float*, float*, float*, const PlanView<float>&, const LinesGeom&, bool,
                                 const std::vector<float>&, bool, cudaStream_t);
template void launch_long<double>(double*, double*, double*, const PlanView<double>&, const LinesGeom&, bool,
                                  const std::vector<double>&, bool, cudaStream_t);

}  // namespace adi::cuda::kernels
