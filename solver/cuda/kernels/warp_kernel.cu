// Warp kernel: x lines of unit stride, lane = segment, rows handed to lanes
// through the padded shared-memory transposition (adi::transpose).

#include "line_kernels.cuh"

#include "warp_slots.cuh"

#include <cstddef>
#include <cstdint>

#include <utility>

namespace adi::cuda::kernels {

namespace {

constexpr int kWarpKernelMaxWarps = 8;

// ---------------------------------------------------------------------------
// Warp kernel: x lines with unit stride. A warp owns a tile of 32/S lines
// (consecutive j at one k); row r of the 32 x I tile is segment r % S of line
// r / S, i.e. I consecutive elements starting at line_base + (r % S) I. With
// S = 32 the tile is one whole line and row r simply starts at r I, so
// element e of the tile is element e of the line (the common, fast case).
// Tiles are copied with cp.async straight into the padded transposition
// layout (the copy engine does the row-wise phase, coalesced), two per warp
// in flight; the column read hands each lane its segment.
// ---------------------------------------------------------------------------

// Element e = 32 q + lane of a tile, as (global pointer or nullptr).
template <class T, int I>
struct TileAddr {
  T* base;       // start of the tile's first line
  index_t sj;    // line stride
  int n;         // line length
  int S;         // segments per line (power of two)
  int log2S;
  int valid_lines;
  // One line per tile (S = 32): element e is line element e.
  __device__ __forceinline__ T* at_single(int e) const { return e < n ? base + e : nullptr; }
  // Several lines per tile: row r = e / I is segment r % S of line r / S.
  __device__ __forceinline__ T* at_multi(int e) const {
    const int r = e / I, i = e % I, line = r >> log2S, pos = (r & (S - 1)) * I + i;
    return (line < valid_lines && pos < n) ? base + line * sj + pos : nullptr;
  }
};

__device__ __forceinline__ index_t tile_k(index_t tile, const WarpGeom& g) {
  return tile_quotient(tile, g.tiles, g.tiles_j);
}

template <class T, int I>
__device__ __forceinline__ TileAddr<T, I> tile_addr(T* d, const WarpGeom& g, const PlanView<T>& p, index_t tile) {
  const index_t k = tile_k(tile, g);
  const index_t j0 = (tile - k * g.tiles_j) * g.lines_per_tile;
  const int valid = static_cast<int>(min(static_cast<index_t>(g.lines_per_tile), g.nj - j0));
  return TileAddr<T, I>{d + k * g.sk + j0 * g.sj, g.sj, p.n, p.S, __ffs(p.S) - 1, valid};
}

template <class T, int I, bool Single>
__device__ __forceinline__ void issue_tile(const TileAddr<T, I>& a, T* slots, const T* fallback, int lane) {
  using Ex = WarpTranspose<T, I, MapKind::Giles>;
#pragma unroll
  for (int q = 0; q < I; ++q) {
    const int e = q * 32 + lane;
    const T* src = Single ? a.at_single(e) : a.at_multi(e);
    cp_async(slots + Ex::index(e % I, e / I), src ? src : fallback, src != nullptr);
  }
}

// Row r of a full-line tile: 32 consecutive elements at q + 32 r into the
// lane's slot sb + slot(32 r); both offsets are immediates.
template <class T, int I, int... R>
__device__ __forceinline__ void issue_full_line(T* sb, const T* q, std::integer_sequence<int, R...>) {
  (cp_async_at<R * 32 * static_cast<int>(sizeof(T))>(sb + warp_row_slot<T, I>(R), q), ...);
}

// Tiles of one warp: src is read, dst written (or accumulated into when Acc).
template <class T, int I, bool Acc, bool Single, bool Ring>
__device__ __forceinline__ void warp_tiles(const T* __restrict__ src, T* __restrict__ dst, const PlanView<T>& p,
                                           const WarpGeom& g, const T* tab, T* slots0,
                                           T* slots1, index_t t, index_t stride) {
  using Ex = WarpTranspose<T, I, MapKind::Giles>;
  const TableLayout L = p.layout();
  const int lane0 = threadIdx.x & 31;
  T* const srcm = const_cast<T*>(src);  // tile addressing is shared by loads and stores
  const index_t shift = dst - src;
  // A whole line per tile with no ragged end (n = 32 I, e.g. every x line of
  // a 512^3 grid): element e of the tile is a.base[e], always there, so the
  // copies and stores need no predicate and address with immediate offsets.
  const bool full = Single && p.n == 32 * I;
  auto issue = [&](index_t tile, T* stage, int ln) {
    const TileAddr<T, I> a = tile_addr<T, I>(srcm, g, p, tile);
    if (full) {
      issue_full_line<T, I>(stage + Ex::index(ln % I, ln / I), a.base + ln, std::make_integer_sequence<int, I>{});
      return;
    }
    issue_tile<T, I, Single>(a, stage, src, ln);
  };
  issue(t, slots0, lane0);
  cp_async_commit();
  if (t + stride < g.tiles) issue(t + stride, slots1, lane0);
  cp_async_commit();
  for (int it = 0; t < g.tiles; ++it, t += stride) {
    T* slots = (it & 1) ? slots1 : slots0;
    const int lane = opaque(lane0);
    const int s = lane & (p.S - 1);
    const TileAddr<T, I> a = tile_addr<T, I>(srcm, g, p, t);
    // A row of the padded map is contiguous (pads fall between rows), so lane
    // j's column is col[0 .. I) with immediate offsets.
    T* col = slots + Ex::index(0, lane);
    cp_async_wait<1>();
    __syncwarp();  // every lane's copies of this tile have landed
    T x[I];
#pragma unroll
    for (int i = 0; i < I; ++i) x[i] = col[i];
    const SegmentView<T> v = segment_view(tab, L, s);
    local_sweeps(x, v);
    reduced_solve(x[0], x[I - 1], v, s, p.S);
    finish_segment(x, v, x[0], x[I - 1]);
    if constexpr (Ring) {
      // A ring solved as A' (adi::CyclicSplit, a separate build so that open
      // lines keep their code and registers): the line's lanes are
      // lane0 .. lane0 + S - 1, segment 0 holds y_0, segment last_seg holds
      // y_{n-1} in its row last_row; two shuffles, then one FMA a row with
      // z from the tables (pitch I + 1: distinct banks across segments).
      const int first = lane & ~(p.S - 1);
      const T y0 = __shfl_sync(0xffffffffu, x[0], first);
      const T yl = __shfl_sync(0xffffffffu, row_of(x, p.last_row), first + p.last_seg);
      ring_correct(x, tab + L.ring_z() + s * L.pitch(), (y0 + p.phi * yl) * p.psi);
    }
    // Back to rows through the same buffer (column write, row read), then
    // coalesced stores (or the fused accumulate).
#pragma unroll
    for (int i = 0; i < I; ++i) col[i] = x[i];
    __syncwarp();
    if (full) {
      T* q0 = a.base + shift + lane;
      const T* sb = slots + Ex::index(lane % I, lane / I);
#pragma unroll
      for (int q = 0; q < I; ++q) {
        const T val = sb[warp_row_slot<T, I>(q)];
        if (Acc)
          q0[q * 32] += val;
        else
          q0[q * 32] = val;
      }
    } else
#pragma unroll
    for (int q = 0; q < I; ++q) {
      const int e = q * 32 + lane;
      T* at = Single ? a.at_single(e) : a.at_multi(e);
      if (at) {
        const T val = slots[Ex::index(e % I, e / I)];
        if (Acc)
          at[shift] += val;
        else
          at[shift] = val;
      }
    }
    __syncwarp();  // the buffer is free
    if (t + 2 * stride < g.tiles) issue(t + 2 * stride, slots, lane);
    cp_async_commit();
  }
  cp_async_wait<0>();
}

template <class T, int I, bool Acc, bool Ring = false>
__global__ void __launch_bounds__(32 * kWarpKernelMaxWarps, I <= 16 ? 3 : 1)
    warp_kernel(const T* __restrict__ src, T* __restrict__ dst, PlanView<T> p, WarpGeom g) {
  extern __shared__ __align__(16) unsigned char warp_smem[];
  const TableLayout L = p.layout();
  T* tab = reinterpret_cast<T*>(warp_smem);
  const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  T* slots0 = tab + L.total(sizeof(T)) + 2 * warp * warp_slots<T, I>();
  T* slots1 = slots0 + warp_slots<T, I>();
  stage_tables(p, tab);
  __syncthreads();
  const index_t stride = static_cast<index_t>(gridDim.x) * warps;
  const index_t t = static_cast<index_t>(blockIdx.x) * warps + warp;
  if (t >= g.tiles) return;  // uniform per warp; no block barrier below
  if (p.S == 32)
    warp_tiles<T, I, Acc, true, Ring>(src, dst, p, g, tab, slots0, slots1, t, stride);
  else
    warp_tiles<T, I, Acc, false, Ring>(src, dst, p, g, tab, slots0, slots1, t, stride);
}

template <class T, int I, bool Acc>
void launch_warp_impl(const T* src, T* dst, const PlanView<T>& p, const WarpGeom& g, cudaStream_t st) {
  // As many warps (up to 8) as keep the block's shared memory under ~100 KB.
  const std::size_t tables = sizeof(T) * static_cast<std::size_t>(p.layout().total(sizeof(T)));
  const std::size_t per_warp = sizeof(T) * 2 * static_cast<std::size_t>(warp_slots<T, I>());
  int warps = kWarpKernelMaxWarps;
  while (warps > 1 && tables + warps * per_warp > 100 * 1024) warps /= 2;
  const std::size_t smem = tables + warps * per_warp;
  auto kernel = p.ring ? warp_kernel<T, I, Acc, true> : warp_kernel<T, I, Acc, false>;
  const int per_sm = resident_blocks(kernel, 32 * warps, smem);
  if (per_sm < 1) ADI_THROW(BackendUnavailable, "warp kernel does not fit on a multiprocessor");
  const index_t blocks = std::min<index_t>((g.tiles + warps - 1) / warps, static_cast<index_t>(per_sm) * sm_count());
  kernel<<<static_cast<unsigned>(blocks), 32 * warps, smem, st>>>(src, dst, p, g);
  ADI_CUDA_CHECK_LAUNCH("warp_kernel");
}

}  // namespace

template <class T, int I>
void launch_warp(T* d, T* acc, const PlanView<T>& p, const WarpGeom& g, cudaStream_t st) {
  if (acc)
    launch_warp_impl<T, I, true>(d, acc, p, g, st);
  else
    launch_warp_impl<T, I, false>(d, d, p, g, st);
}

#define ADI_WARP(T, I) template void launch_warp<T, I>(T*, T*, const PlanView<T>&, const WarpGeom&, cudaStream_t)
ADI_WARP(float, 2);
ADI_WARP(float, 4);
ADI_WARP(float, 5);  // 129-row lines (plan_line_kernel)
ADI_WARP(float, 8);
ADI_WARP(float, 9);  // 257-row lines (plan_line_kernel)
ADI_WARP(float, 16);
ADI_WARP(float, 17);  // 513
ADI_WARP(float, 32);
ADI_WARP(float, 33);  // 1025 (kOddLongI)
ADI_WARP(float, 64);
ADI_WARP(double, 2);
ADI_WARP(double, 4);
ADI_WARP(double, 5);
ADI_WARP(double, 8);
ADI_WARP(double, 9);
ADI_WARP(double, 16);
ADI_WARP(double, 17);
ADI_WARP(double, 32);
ADI_WARP(double, 33);
ADI_WARP(double, 64);
#undef ADI_WARP
static_assert(kWarpMaxI == 64, "the instantiations above go up to kWarpMaxI");

}  // namespace adi::cuda::kernels
