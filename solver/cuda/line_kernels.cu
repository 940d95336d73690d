// Constant-coefficient batched line solves on the GPU (see line_solver.hpp).
//
// Memory traffic is what matters: every kernel reads each value once and
// writes it once (the fused variant reads the line and the accumulator and
// writes the accumulator). The forward-sweep state never leaves the chip: a
// segment lives in registers, the reduced system in shared memory/shuffles.

#include "line_solver.hpp"

#include "async_copy.cuh"

#include <adi/transpose/warp_transpose.cuh>

#include <cstddef>
#include <cstdint>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <utility>

namespace adi::cuda {

namespace {

using transpose::MapKind;
using transpose::WarpTranspose;

constexpr int kWarpKernelMaxWarps = 8;

/// Most segments (warps per block) the lanes kernel runs with segment length
/// I: 1024 threads while a thread's I values fit in the 64 registers that
/// leaves, 512 threads (128 registers) for longer segments.
constexpr int lanes_max_segments(int I) { return I <= 16 ? 32 : 16; }

// Slot of (segment s, line l) in the reduced-system exchange of the Lanes
// kernel: a 32-row (line) by S-column (segment) tile. Phase 1 has lane l of
// warp s write column s (lanes S apart: the "column" phase); phase 2 has
// thread t = 32 s + lane read element t (consecutive: the "row" phase). Giles'
// map for a power-of-two width S is conflict-free in both (maps.hpp).
template <class T>
__device__ __forceinline__ int exchange_slot(int s, int l, int S) {
  return transpose::giles_index(s, l, S, transpose::wavefront_elems(sizeof(T)));
}
template <class T>
constexpr int exchange_slots() {
  // for any S <= 32, rounded up to 16 bytes
  constexpr int n = transpose::map_size(MapKind::Giles, 32, transpose::wavefront_elems(sizeof(T)));
  return (n * static_cast<int>(sizeof(T)) + 15) / 16 * 16 / static_cast<int>(sizeof(T));
}

// ---------------------------------------------------------------------------
// Lanes kernel: block = 32 lines x S segments (blockDim = (32, S)), persistent
// over tiles of 32 lines. Thread (lane, s) owns rows s*I .. s*I+I-1 of line
// lane. Tiles are staged through shared memory with cp.async: while one tile
// is solved from registers, the next is already on its way, so the SM keeps
// a whole tile (64-128 KB) of loads in flight instead of stalling on them.
// Each thread copies and later reads exactly its own slots [r][lane]
// (consecutive lanes, consecutive words: conflict-free), so the staging
// needs no cross-thread barrier; the reduced-system exchange does.
//
// Buffers (`stages` tiles of dynamic shared memory):
//   plain solve, 2 stages: tile t+1 lands while t is solved (double buffer)
//   plain solve, 1 stage : tile t+1 is issued as soon as t is in registers
//   fused update, 2 stages: buffer 0 holds D, buffer 1 the accumulator u
//   fused update, 1 stage : the buffer takes u of tile t while t is solved,
//                           then D of tile t+1 while u is written back
// ---------------------------------------------------------------------------
struct LinesGeom {
  index_t s_line;  // stride along the line
  index_t nu, su;  // lanes axis (32 consecutive lines per block)
  index_t nv, sv;  // outer axis
};

// tile / per for tile < tiles, in 32 bits when the tile count allows (a
// 64-bit division is a call of ~70 instructions, per tile; 32 bits ~20).
__device__ __forceinline__ index_t tile_quotient(index_t tile, index_t tiles, index_t per) {
  if (tiles <= 0xffffffffll) return static_cast<unsigned>(tile) / static_cast<unsigned>(per);
  return tile / per;
}

struct LanesGeom {
  index_t s_line;   // stride along the line
  index_t nu, su;   // lanes axis (32 consecutive lines per tile)
  index_t nv, sv;   // outer axis
  index_t tiles_u;  // tiles along u
  index_t tiles;    // total tiles
  unsigned row_bytes;  // s_line * sizeof(T), when it fits in 32 bits (row_fits)
  bool row_fits;
};

// Thread (lane, s) of the lanes kernel over the tiles it visits. Two paths:
//  - fast: all 32 lanes of the tile are lines and the segment lies inside
//    the line (warp-uniform). Row j's address is base + j * row_bytes, one
//    IMAD.WIDE with an immediate j per row, no predicate: the common case
//    (every tile of a 512^3 grid).
//  - predicated: ragged tiles (fewer than 32 lines left, or the segment
//    crosses the line's end or lies in the padding): per-row validity, and
//    cp.async's zero fill for rows that are not there.
// The SASS of the predicated path alone was ~47 instructions per element
// (64-bit pointer selects and increments per row, a 64-bit division per
// tile, the exchange slots' divisions): issue-bound (docs/perf_notes.md).
template <class T, int I>
struct LanesTile {
  const LanesGeom& g;
  int n, s, lane;
  index_t base = 0;
  bool active = false;
  bool fast = false;
  __device__ LanesTile(const LanesGeom& geom, int rows, int seg, int ln) : g(geom), n(rows), s(seg), lane(ln) {}
  __device__ __forceinline__ void select(index_t tile) {
    s = opaque(s);  // keep the per-row address arithmetic in the loop (see opaque)
    lane = opaque(lane);
    const index_t v = tile_quotient(tile, g.tiles, g.tiles_u), ut = tile - v * g.tiles_u;
    const index_t u = ut * 32 + lane;
    active = u < g.nu;
    fast = g.row_fits && ut * 32 + 32 <= g.nu && s * I + I <= n;
    base = (active ? u : 0) * g.su + v * g.sv + static_cast<index_t>(s) * I * g.s_line;
  }
  __device__ __forceinline__ const T* row(const T* p, int j) const {
    return reinterpret_cast<const T*>(reinterpret_cast<const char*>(p) + static_cast<unsigned long long>(g.row_bytes) * j);
  }
  __device__ __forceinline__ T* row(T* p, int j) const {
    return reinterpret_cast<T*>(reinterpret_cast<char*>(p) + static_cast<unsigned long long>(g.row_bytes) * j);
  }
  // Stage this thread's rows of `src` (laid out like d) into buf[r][lane].
  __device__ __forceinline__ void issue(const T* src, T* buf) const {
    T* b = buf + s * I * 32 + lane;
    if (fast) {
      const T* q = src + base;
#pragma unroll
      for (int j = 0; j < I; ++j) cp_async(b + j * 32, row(q, j));
      return;
    }
    const T* q = src + base;
#pragma unroll
    for (int j = 0; j < I; ++j) {
      const bool valid = active && s * I + j < n;
      cp_async(b + j * 32, valid ? q : src, valid);
      q += g.s_line;
    }
  }
  __device__ __forceinline__ void read(const T* buf, T (&x)[I]) const {
    const T* b = buf + s * I * 32 + lane;
#pragma unroll
    for (int j = 0; j < I; ++j) x[j] = b[j * 32];
  }
  __device__ __forceinline__ void store(T* dst, const T (&x)[I]) const {
    T* q = dst + base;
    if (fast) {
#pragma unroll
      for (int j = 0; j < I; ++j) *row(q, j) = x[j];
      return;
    }
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (active && s * I + j < n) *q = x[j];
      q += g.s_line;
    }
  }
  // acc = staged acc + x
  __device__ __forceinline__ void store_sum(T* dst, const T* buf, const T (&x)[I]) const {
    T* q = dst + base;
    const T* b = buf + s * I * 32 + lane;
    if (fast) {
#pragma unroll
      for (int j = 0; j < I; ++j) *row(q, j) = b[j * 32] + x[j];
      return;
    }
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (active && s * I + j < n) *q = b[j * 32] + x[j];
      q += g.s_line;
    }
  }
};

// A thread's slots in the reduced-system exchange, fixed for the kernel:
// computed once (the map's divisions by run-time S were per tile before).
struct LanesSlots {
  int mine;  // column phase: (segment s, line lane)
  int slot;  // row phase: thread t = 32 s + lane takes (segment t % S, line t / S)
  int seg;
};

template <class T>
__device__ __forceinline__ LanesSlots lanes_slots(int s, int lane, int S) {
  const int t = s * 32 + lane, log2S = __ffs(S) - 1;
  const int seg = t & (S - 1);
  return LanesSlots{exchange_slot<T>(s, lane, S), exchange_slot<T>(seg, t >> log2S, S), seg};
}

// The per-tile solve once the tile is in registers: sweeps, reduced system
// through the padded exchange (column phase -> row phase), back substitution.
// Segments in sc.mask take their row tables from the constant bank
// (SegmentConsts), the others from shared memory; the branch is uniform per
// warp (warp = segment).
template <class T, int I>
__device__ __forceinline__ void lanes_solve(T (&x)[I], const T* tab, const TableLayout& L,
                                            const SegmentConsts<T, I>& sc, int s, const LanesSlots& sl,
                                            T* red_first, T* red_last) {
  const int S = L.S;
  const bool konst = (sc.mask >> s) & 1u;
  if (konst)
    local_sweeps(x, sc);
  else
    local_sweeps(x, segment_view(tab, L, s));
  red_first[sl.mine] = x[0];
  red_last[sl.mine] = x[I - 1];
  __syncthreads();
  {
    T f = red_first[sl.slot], l = red_last[sl.slot];
    reduced_solve(f, l, segment_view(tab, L, sl.seg), sl.seg, S);
    red_first[sl.slot] = f;
    red_last[sl.slot] = l;
  }
  __syncthreads();
  const T zf = red_first[sl.mine], zl = red_last[sl.mine];
  if (konst)
    finish_segment(x, sc, zf, zl);
  else
    finish_segment(x, segment_view(tab, L, s), zf, zl);
  __syncthreads();  // the exchange is reused by the next tile
}

template <class T, int I, bool Acc>
__global__ void __launch_bounds__(32 * lanes_max_segments(I), 1)
    lanes_kernel(T* __restrict__ d, T* __restrict__ acc, PlanView<T> p, LanesGeom g, int stages,
                 const __grid_constant__ SegmentConsts<T, I> sc) {
  extern __shared__ __align__(16) unsigned char lanes_smem[];
  const TableLayout L = p.layout();
  T* tab = reinterpret_cast<T*>(lanes_smem);
  T* red_first = tab + L.total(sizeof(T));
  T* red_last = red_first + exchange_slots<T>();
  T* buf0 = red_last + exchange_slots<T>();
  T* buf1 = buf0 + p.S * I * 32;
  const index_t stride = gridDim.x;
  index_t t = blockIdx.x;
  if (t >= g.tiles) return;  // uniform per block
  stage_tables(p, tab);
  __syncthreads();
  LanesTile<T, I> cur(g, p.n, threadIdx.y, threadIdx.x), nxt(g, p.n, threadIdx.y, threadIdx.x);
  const LanesSlots sl = lanes_slots<T>(threadIdx.y, threadIdx.x, p.S);
  T x[I];

  if (!Acc && stages == 2) {
    cur.select(t);
    cur.issue(d, buf0);
    cp_async_commit();
    if (t + stride < g.tiles) {
      nxt.select(t + stride);
      nxt.issue(d, buf1);
    }
    cp_async_commit();
    for (int it = 0; t < g.tiles; ++it, t += stride) {
      T* b = (it & 1) ? buf1 : buf0;
      cur.select(t);
      cp_async_wait<1>();
      cur.read(b, x);
      lanes_solve(x, tab, L, sc, cur.s, sl, red_first, red_last);  // ends with a barrier: b is free
      cur.store(d, x);
      if (t + 2 * stride < g.tiles) {
        nxt.select(t + 2 * stride);
        nxt.issue(d, b);
      }
      cp_async_commit();
    }
  } else if (!Acc) {
    cur.select(t);
    cur.issue(d, buf0);
    cp_async_commit();
    for (; t < g.tiles; t += stride) {
      cur.select(t);
      cp_async_wait<0>();
      cur.read(buf0, x);
      __syncthreads();  // reads done before the slots are refilled
      if (t + stride < g.tiles) {
        nxt.select(t + stride);
        nxt.issue(d, buf0);
      }
      cp_async_commit();
      lanes_solve(x, tab, L, sc, cur.s, sl, red_first, red_last);
      cur.store(d, x);
    }
  } else if (stages == 2) {
    cur.select(t);
    cur.issue(d, buf0);
    cp_async_commit();
    cur.issue(acc, buf1);
    cp_async_commit();
    for (; t < g.tiles; t += stride) {
      cur.select(t);
      cp_async_wait<1>();  // D of tile t (its u may still be coming)
      cur.read(buf0, x);
      __syncthreads();
      const bool more = t + stride < g.tiles;
      if (more) {
        nxt.select(t + stride);
        nxt.issue(d, buf0);
      }
      cp_async_commit();
      lanes_solve(x, tab, L, sc, cur.s, sl, red_first, red_last);
      cp_async_wait<1>();  // u of tile t
      cur.store_sum(acc, buf1, x);
      __syncthreads();
      if (more) nxt.issue(acc, buf1);
      cp_async_commit();
    }
  } else {
    cur.select(t);
    cur.issue(d, buf0);
    cp_async_commit();
    for (; t < g.tiles; t += stride) {
      cur.select(t);
      cp_async_wait<0>();
      cur.read(buf0, x);
      __syncthreads();
      cur.issue(acc, buf0);  // u of this tile arrives while it is solved
      cp_async_commit();
      lanes_solve(x, tab, L, sc, cur.s, sl, red_first, red_last);
      cp_async_wait<0>();
      cur.store_sum(acc, buf0, x);
      __syncthreads();
      if (t + stride < g.tiles) {
        nxt.select(t + stride);
        nxt.issue(d, buf0);
      }
      cp_async_commit();
    }
  }
  cp_async_wait<0>();
}

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
struct WarpGeom {
  index_t nj, sj;  // lines along y
  index_t nk, sk;  // and along z
  index_t tiles_j;  // tiles per k
  index_t tiles;    // total
  int lines_per_tile;
};

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

// The RHS fused into the x solve: the tile of u is one x line (j, k); lane
// s holds u at i = s I .. s I + I - 1 (from the transposition), its x
// neighbours are in the same registers or the neighbouring lanes', and the y
// and z neighbour lines are read segment by segment (16-byte loads of I
// contiguous elements; they are L2 hits: neighbouring tiles are in flight
// at the same time). The arithmetic is adi::douglas_rhs, term by term in the
// same order as the CPU backend. Replaces x[] (u) with the RHS.
template <class T>
struct FusedRhs {
  const T* u;
  RhsCoefficients<T> kc;
  index_t nj, sj, nk, sk;
  int n;
  bool vec;  // 16-byte aligned segments
};

template <class T, int I>
__device__ __forceinline__ void load_segment(T (&v)[I], const T* p, int i0, int n, bool vec) {
  constexpr int V = 16 / sizeof(T);
  if (vec && i0 + I <= n && I % V == 0) {
#pragma unroll
    for (int q = 0; q < I / (I % V == 0 ? V : 1); ++q) {
      if constexpr (I % V == 0) {
        if constexpr (sizeof(T) == 4) {
          const float4 f = *reinterpret_cast<const float4*>(p + q * V);
          v[q * V] = f.x, v[q * V + 1] = f.y, v[q * V + 2] = f.z, v[q * V + 3] = f.w;
        } else {
          const double2 f = *reinterpret_cast<const double2*>(p + q * V);
          v[q * V] = f.x, v[q * V + 1] = f.y;
        }
      }
    }
  } else {
#pragma unroll
    for (int e = 0; e < I; ++e) v[e] = i0 + e < n ? p[e] : T(0);
  }
}

template <class T, int I>
__device__ __forceinline__ void fused_rhs(T (&x)[I], const FusedRhs<T>& f, index_t j, index_t k, int lane,
                                          const T* ym, const T* yp, const T* zm, const T* zp) {
  const RhsCoefficients<T>& kc = f.kc;
  const int i0 = lane * I;
  const T left = __shfl_up_sync(0xffffffffu, x[I - 1], 1);
  const T right = __shfl_down_sync(0xffffffffu, x[0], 1);
  const bool fixed_line = on_fixed_face(kc, 1, j, f.nj) || on_fixed_face(kc, 2, k, f.nk);
  T r[I];
#pragma unroll
  for (int e = 0; e < I; ++e) {
    const int i = i0 + e;
    const T below = e > 0 ? x[e > 0 ? e - 1 : 0] : left;
    const T above = e + 1 < I ? x[e + 1 < I ? e + 1 : 0] : right;
    const T xm = i == 0 ? above : below;  // Neumann mirrors u[-1] = u[1], u[n] = u[n-2]
    const T xp = i == f.n - 1 ? below : above;
    r[e] = douglas_rhs(x[e], xm, xp, ym[e], yp[e], zm[e], zp[e], kc);
  }
#pragma unroll
  for (int e = 0; e < I; ++e) {
    const int i = i0 + e;
    x[e] = (fixed_line || i >= f.n || on_fixed_face(kc, 0, i, f.n)) ? T(0) : r[e];  // padding rows solve to 0
  }
}

// The row phase of the warp kernel moves element e = 32 r + lane of a tile
// (r = 0 .. I-1). For a power-of-two I the padded map splits into a part of
// the lane and a part of r (Giles: k = e + e / (W F) with W F a power of two
// dividing 32, or k = e + e / I for P > W, and 32 r + lane never carries into
// the quotient): slot(32 r + lane) = slot(lane) + slot(32 r). So a lane's
// copies address one base register with compile-time offsets. Checked for
// every r and lane at compile time below.
template <class T, int I>
__host__ __device__ constexpr int warp_slot(int e) {  // = WarpTranspose<T, I, Giles>::index(e % I, e / I)
  return transpose::map_index(MapKind::Giles, e % I, e / I, I, WarpTranspose<T, I, MapKind::Giles>::kW);
}
template <class T, int I>
__host__ __device__ constexpr int warp_row_slot(int r) {
  return warp_slot<T, I>(32 * r);
}
template <class T, int I>
constexpr bool warp_row_slots_split() {
  for (int r = 0; r < I; ++r)
    for (int lane = 0; lane < 32; ++lane)
      if (warp_slot<T, I>(32 * r + lane) != warp_slot<T, I>(lane) + warp_row_slot<T, I>(r)) return false;
  return true;
}
#define ADI_CHECK_ROW_SLOTS(T, I) \
  static_assert(warp_row_slots_split<T, I>(), "the full-line copies assume slot(32 r + lane) = slot(lane) + slot(32 r)")
ADI_CHECK_ROW_SLOTS(float, 2);
ADI_CHECK_ROW_SLOTS(float, 4);
ADI_CHECK_ROW_SLOTS(float, 8);
ADI_CHECK_ROW_SLOTS(float, 16);
ADI_CHECK_ROW_SLOTS(float, 32);
ADI_CHECK_ROW_SLOTS(float, 64);
ADI_CHECK_ROW_SLOTS(double, 2);
ADI_CHECK_ROW_SLOTS(double, 4);
ADI_CHECK_ROW_SLOTS(double, 8);
ADI_CHECK_ROW_SLOTS(double, 16);
ADI_CHECK_ROW_SLOTS(double, 32);
ADI_CHECK_ROW_SLOTS(double, 64);
#undef ADI_CHECK_ROW_SLOTS

// Row r of a full-line tile: 32 consecutive elements at q + 32 r into the
// lane's slot sb + slot(32 r); both offsets are immediates.
template <class T, int I, int... R>
__device__ __forceinline__ void issue_full_line(T* sb, const T* q, std::integer_sequence<int, R...>) {
  (cp_async_at<R * 32 * static_cast<int>(sizeof(T))>(sb + warp_row_slot<T, I>(R), q), ...);
}

template <class T, int I>
constexpr int warp_slots() {
  // per buffer, rounded up to 16 bytes
  constexpr int n = WarpTranspose<T, I, MapKind::Giles>::kSlots;
  return (n * static_cast<int>(sizeof(T)) + 15) / 16 * 16 / static_cast<int>(sizeof(T));
}

// Tiles of one warp: src is read (u when fused, else D), dst written (or
// accumulated into when Acc).
template <class T, int I, bool Acc, bool Single, bool Fused>
__device__ __forceinline__ void warp_tiles(const T* __restrict__ src, T* __restrict__ dst, const PlanView<T>& p,
                                           const WarpGeom& g, const FusedRhs<T>& fr, const T* tab, T* slots0,
                                           T* slots1, index_t t, index_t stride) {
  using Ex = WarpTranspose<T, I, MapKind::Giles>;
  const TableLayout L = p.layout();
  const int lane0 = threadIdx.x & 31;
  T* const srcm = const_cast<T*>(src);  // tile addressing is shared by loads and stores
  const index_t shift = dst - src;
  // Fused: a stage holds the tile's line and its four y/z neighbour lines
  // (five buffers of the same padded map), all in flight together.
  constexpr int ws = warp_slots<T, I>();
  // A whole line per tile with no ragged end (n = 32 I, e.g. every x line of
  // a 512^3 grid): element e of the tile is a.base[e], always there, so the
  // copies and stores need no predicate and address with immediate offsets.
  const bool full = Single && p.n == 32 * I;
  auto issue = [&](index_t tile, T* stage, int ln) {
    const TileAddr<T, I> a = tile_addr<T, I>(srcm, g, p, tile);
    if (!Fused) {
      if (full) {
        issue_full_line<T, I>(stage + Ex::index(ln % I, ln / I), a.base + ln, std::make_integer_sequence<int, I>{});
        return;
      }
      issue_tile<T, I, Single>(a, stage, src, ln);
      return;
    }
    // Single-line tiles: element e sits at the same slot and has the same
    // validity in all five lines; only the line base differs.
    const index_t k = tile_k(tile, g), j = tile - k * g.tiles_j;
    const T* base[5] = {a.base, a.base + (lower_neighbour(j) - j) * g.sj, a.base + (upper_neighbour(j, g.nj) - j) * g.sj,
                        a.base + (lower_neighbour(k) - k) * g.sk, a.base + (upper_neighbour(k, g.nk) - k) * g.sk};
#pragma unroll
    for (int q = 0; q < I; ++q) {
      const int e = q * 32 + ln;
      const bool valid = e < a.n;
      T* slot = stage + Ex::index(e % I, e / I);
#pragma unroll
      for (int b = 0; b < 5; ++b) cp_async(slot + b * ws, valid ? base[b] + e : src, valid);
    }
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
    if (Fused) {
      const index_t k = tile_k(t, g);
      fused_rhs(x, fr, t - k * g.tiles_j, k, lane, col + ws, col + 2 * ws, col + 3 * ws, col + 4 * ws);
    }
    const SegmentView<T> v = segment_view(tab, L, s);
    local_sweeps(x, v);
    reduced_solve(x[0], x[I - 1], v, s, p.S);
    finish_segment(x, v, x[0], x[I - 1]);
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

template <class T, int I, bool Acc, bool Fused = false>
__global__ void __launch_bounds__(32 * kWarpKernelMaxWarps, I <= 16 ? (Fused ? 2 : 3) : 1)
    warp_kernel(const T* __restrict__ src, T* __restrict__ dst, PlanView<T> p, WarpGeom g, FusedRhs<T> fr) {
  extern __shared__ __align__(16) unsigned char warp_smem[];
  const TableLayout L = p.layout();
  T* tab = reinterpret_cast<T*>(warp_smem);
  const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  constexpr int kLines = Fused ? 5 : 1;  // lines per stage (see warp_tiles)
  T* slots0 = tab + L.total(sizeof(T)) + 2 * kLines * warp * warp_slots<T, I>();
  T* slots1 = slots0 + kLines * warp_slots<T, I>();
  stage_tables(p, tab);
  __syncthreads();
  const index_t stride = static_cast<index_t>(gridDim.x) * warps;
  const index_t t = static_cast<index_t>(blockIdx.x) * warps + warp;
  if (t >= g.tiles) return;  // uniform per warp; no block barrier below
  if (Fused || p.S == 32)
    warp_tiles<T, I, Acc, true, Fused>(src, dst, p, g, fr, tab, slots0, slots1, t, stride);
  else
    warp_tiles<T, I, Acc, false, false>(src, dst, p, g, fr, tab, slots0, slots1, t, stride);
}

// ---------------------------------------------------------------------------
// Generic: one thread per line, Thomas through global memory (two passes).
// ---------------------------------------------------------------------------
template <class T, bool Acc>
__global__ void generic_kernel(T* __restrict__ d, T* __restrict__ acc, const T* __restrict__ a,
                               const T* __restrict__ cp, const T* __restrict__ inv, int n, LinesGeom g) {
  const index_t lines = g.nu * g.nv;
  for (index_t line = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; line < lines;
       line += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t v = line / g.nu, u = line - v * g.nu;
    T* x = d + u * g.su + v * g.sv;
    T prev = x[0] * __ldg(inv);
    x[0] = prev;
    for (int i = 1; i < n; ++i) {
      prev = (x[i * g.s_line] - __ldg(a + i) * prev) * __ldg(inv + i);
      x[i * g.s_line] = prev;
    }
    T next = prev;
    if (Acc) acc[u * g.su + v * g.sv + (n - 1) * g.s_line] += next;
    for (int i = n - 2; i >= 0; --i) {
      next = x[i * g.s_line] - __ldg(cp + i) * next;
      if (Acc)
        acc[u * g.su + v * g.sv + i * g.s_line] += next;
      else
        x[i * g.s_line] = next;
    }
  }
}

// ---------------------------------------------------------------------------

int next_pow2(index_t v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

int sm_count() {
  int dev = 0, sms = 0;
  ADI_CUDA_CHECK(cudaGetDevice(&dev));
  ADI_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

// Dynamic shared memory of the lanes kernel: the tables, the exchange, and
// `stages` tiles of S*I rows x 32 lines. Two stages when they fit in 200 KB.
template <class T>
std::size_t lanes_smem(const PlanView<T>& p, int stages) {
  return sizeof(T) * (static_cast<std::size_t>(p.layout().total(sizeof(T))) + 2 * exchange_slots<T>() +
                      static_cast<std::size_t>(stages) * p.S * p.I * 32);
}

template <class T, int I, bool Acc>
void launch_lanes_impl(T* d, T* acc, const PlanView<T>& p, const LinesGeom& lg, const std::vector<T>& host_tables,
                       unsigned mask, cudaStream_t st) {
  // mask == 0 keeps every segment on the shared-memory tables
  // (SolverOptions::lanes_const = false, ADI_LANES_CONST=0: to measure what
  // the constant-bank tables gain).
  const int stages = lanes_smem(p, 2) <= 200 * 1024 ? 2 : 1;
  const std::size_t smem = lanes_smem(p, stages);
  // Above 48 KB a kernel must opt in to its dynamic shared memory.
  ADI_CUDA_CHECK(cudaFuncSetAttribute(lanes_kernel<T, I, Acc>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(smem)));
  const int threads = 32 * p.S;
  int per_sm = 0;
  ADI_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, lanes_kernel<T, I, Acc>, threads, smem));
  if (per_sm < 1) ADI_THROW(BackendUnavailable, "lanes kernel does not fit on a multiprocessor");
  LanesGeom g{lg.s_line, lg.nu, lg.su, lg.nv, lg.sv, (lg.nu + 31) / 32, 0, 0u, false};
  g.tiles = g.tiles_u * g.nv;
  const unsigned long long row_bytes = static_cast<unsigned long long>(lg.s_line) * sizeof(T);
  g.row_fits = lg.s_line > 0 && row_bytes <= 0xffffffffull;
  g.row_bytes = g.row_fits ? static_cast<unsigned>(row_bytes) : 0u;
  const SegmentConsts<T, I> sc = segment_consts<T, I>(host_tables, p.S, mask);
  const index_t blocks = std::min<index_t>(g.tiles, static_cast<index_t>(per_sm) * sm_count());
  lanes_kernel<T, I, Acc><<<static_cast<unsigned>(blocks), dim3(32, p.S), smem, st>>>(d, acc, p, g, stages, sc);
  ADI_CUDA_CHECK_LAUNCH("lanes_kernel");
}

template <class T, int I>
void launch_lanes(T* d, T* acc, const PlanView<T>& p, const LinesGeom& g, const std::vector<T>& host_tables,
                  unsigned mask, cudaStream_t st) {
  if (acc)
    launch_lanes_impl<T, I, true>(d, acc, p, g, host_tables, mask, st);
  else
    launch_lanes_impl<T, I, false>(d, acc, p, g, host_tables, mask, st);
}

template <class T, int I, bool Acc, bool Fused>
void launch_warp_impl(const T* src, T* dst, const PlanView<T>& p, const WarpGeom& g, const FusedRhs<T>& fr,
                      cudaStream_t st) {
  // As many warps (up to 8) as keep the block's shared memory under ~100 KB.
  const std::size_t tables = sizeof(T) * static_cast<std::size_t>(p.layout().total(sizeof(T)));
  const std::size_t per_warp = sizeof(T) * 2 * (Fused ? 5 : 1) * static_cast<std::size_t>(warp_slots<T, I>());
  int warps = kWarpKernelMaxWarps;
  while (warps > 1 && tables + warps * per_warp > (Fused ? 200 : 100) * 1024) warps /= 2;
  const std::size_t smem = tables + warps * per_warp;
  auto kernel = warp_kernel<T, I, Acc, Fused>;
  ADI_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  int per_sm = 0;
  ADI_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * warps, smem));
  if (per_sm < 1) ADI_THROW(BackendUnavailable, "warp kernel does not fit on a multiprocessor");
  const index_t blocks = std::min<index_t>((g.tiles + warps - 1) / warps, static_cast<index_t>(per_sm) * sm_count());
  kernel<<<static_cast<unsigned>(blocks), 32 * warps, smem, st>>>(src, dst, p, g, fr);
  ADI_CUDA_CHECK_LAUNCH("warp_kernel");
}

template <class T, int I>
void launch_warp(T* d, T* acc, const PlanView<T>& p, const WarpGeom& g, cudaStream_t st) {
  const FusedRhs<T> none{};
  if (acc)
    launch_warp_impl<T, I, true, false>(d, acc, p, g, none, st);
  else
    launch_warp_impl<T, I, false, false>(d, d, p, g, none, st);
}

template <class T, int I>
void launch_warp_fused(const T* u, T* w, const PlanView<T>& p, const WarpGeom& g, const FusedRhs<T>& fr,
                       cudaStream_t st) {
  launch_warp_impl<T, I, false, true>(u, w, p, g, fr, st);
}

/// Segment lengths the lanes kernel is built for, per precision: I values
/// of T per thread must fit next to the rest in the registers a thread gets.
template <class T>
constexpr int lanes_max_I() {
  return sizeof(T) == 4 ? 64 : 32;
}
constexpr int kWarpMaxI = 64;

}  // namespace

template <class T>
LineSolver<T>::LineSolver(const LineMatrix& m, Axis axis, const Layout3& L, const SolverOptions& options)
    : axis_(axis), layout_(L), lanes_const_(options.lanes_const) {
  L.validate("device line solve");
  const int a = axis_index(axis);
  const index_t n = L.n[a];
  ADI_REQUIRE(m.size() == n, "line matrix length differs from the line length");
  ADI_REQUIRE(n < (index_t(1) << 31), "lines longer than 2^31 rows are not supported");

  // Pick the kernel and the segment length I (segments S follow from n).
  const bool unit_x = axis == Axis::X && L.stride[0] == 1;
  int I = 0, maxS = 0;
  if (unit_x && n <= 32 * kWarpMaxI) {
    kind_ = Kind::Warp;
    maxS = 32;
    I = options.x_seg;
    if (I == 0)
      for (int c : {2, 4, 8, 16, 32, 64})
        if (32 * c >= n) {
          I = c;
          break;
        }
  } else {
    kind_ = Kind::Lanes;
    I = options.yz_seg;
    // Prefer at most 16 segments (512-thread blocks, 128 registers a thread):
    // on an H200 at 512^3 I = 32, S = 16 beat I = 16, S = 32 in both
    // precisions (y fp32 0.322 vs 0.341 ms, fp64 0.562 vs 0.606; z+update
    // 0.499 vs 0.518 and 0.808 vs 0.842), and at 500 x 384 x 260 too. Fewer
    // warps per line means a shorter reduced system and half the idle warps
    // where S I overshoots n. 32 segments only when 16 cannot hold the line.
    if (I == 0)
      for (int maxS : {16, 32}) {
        for (int c : {4, 8, 16, 32, 64})
          if (c <= lanes_max_I<T>() && maxS <= lanes_max_segments(c) && maxS * c >= n) {
            I = c;
            break;
          }
        if (I) break;
      }
    maxS = I > 0 ? lanes_max_segments(I) : 0;
    if (I == 0 || I > lanes_max_I<T>()) kind_ = Kind::Generic;
  }
  if (kind_ != Kind::Generic) {
    const int S = I >= 2 ? next_pow2((n + I - 1) / I) : 0;
    if (S > maxS || I < 2) {
      kind_ = Kind::Generic;  // an override that does not fit: fall back
    } else {
      const SegmentedPlan<T> plan = SegmentedPlan<T>::build(m, I, S);
      I_ = I;
      S_ = S;
      host_tables_ = plan_tables(plan);
      tables_.upload(host_tables_);
      interior_mask_ = lanes_const_ ? interior_segment_mask(host_tables_, I, S) : 0u;
      view_ = PlanView<T>{tables_.get(), static_cast<int>(n), I, S};
      return;
    }
  }
  // Generic fallback: the plain Thomas factorisation.
  const ThomasFactor<T> f = ThomasFactor<T>::factor(m);
  const std::vector<T> fa(f.lower(), f.lower() + n), fcp(f.upper_over_pivot(), f.upper_over_pivot() + n),
      finv(f.inv_pivot(), f.inv_pivot() + n);
  std::vector<T> host;
  auto append = [&](const std::vector<T>& v) {
    const std::size_t off = host.size();
    host.insert(host.end(), v.begin(), v.end());
    return off;
  };
  const std::size_t oa = append(fa), oc = append(fcp), oi = append(finv);
  tables_.upload(host);
  gen_a_ = tables_.get() + oa;
  gen_cp_ = tables_.get() + oc;
  gen_inv_ = tables_.get() + oi;
  I_ = static_cast<int>(n);
  S_ = 1;
  view_.n = static_cast<int>(n);
}

template <class T>
void LineSolver<T>::solve(T* d, T* acc, cudaStream_t st) const {
  const Layout3& L = layout_;
  const int a = axis_index(axis_);
  const index_t n = L.n[a];
  if (L.points() == 0) return;
  if (kind_ == Kind::Warp) {
    WarpGeom g{};
    g.nj = L.n[1];
    g.sj = L.stride[1];
    g.nk = L.n[2];
    g.sk = L.stride[2];
    g.lines_per_tile = 32 / S_;
    g.tiles_j = (g.nj + g.lines_per_tile - 1) / g.lines_per_tile;
    g.tiles = g.tiles_j * g.nk;
    switch (I_) {
      case 2: launch_warp<T, 2>(d, acc, view_, g, st); break;
      case 4: launch_warp<T, 4>(d, acc, view_, g, st); break;
      case 8: launch_warp<T, 8>(d, acc, view_, g, st); break;
      case 16: launch_warp<T, 16>(d, acc, view_, g, st); break;
      case 32: launch_warp<T, 32>(d, acc, view_, g, st); break;
      case 64: launch_warp<T, 64>(d, acc, view_, g, st); break;
      default: ADI_THROW(InvalidArgument, "warp kernel: unsupported segment length " + std::to_string(I_));
    }
    return;
  }
  // Lines enumerated by the other two axes; the one with the smaller stride is
  // the lanes axis so that neighbouring threads touch neighbouring elements.
  const int o1 = (a + 1) % 3, o2 = (a + 2) % 3;
  const int u = L.stride[o1] <= L.stride[o2] ? o1 : o2, v = u == o1 ? o2 : o1;
  const LinesGeom g{L.stride[a], L.n[u], L.stride[u], L.n[v], L.stride[v]};
  if (kind_ == Kind::Lanes) {
    switch (I_) {
      case 4: launch_lanes<T, 4>(d, acc, view_, g, host_tables_, interior_mask_, st); break;
      case 8: launch_lanes<T, 8>(d, acc, view_, g, host_tables_, interior_mask_, st); break;
      case 16: launch_lanes<T, 16>(d, acc, view_, g, host_tables_, interior_mask_, st); break;
      case 32: launch_lanes<T, 32>(d, acc, view_, g, host_tables_, interior_mask_, st); break;
      case 64:
        if constexpr (lanes_max_I<T>() >= 64) {
          launch_lanes<T, 64>(d, acc, view_, g, host_tables_, interior_mask_, st);
          break;
        }
        [[fallthrough]];
      default: ADI_THROW(InvalidArgument, "lanes kernel: unsupported segment length " + std::to_string(I_));
    }
    return;
  }
  const index_t lines = g.nu * g.nv;
  const int threads = 128;
  const unsigned blocks = static_cast<unsigned>(std::min<index_t>((lines + threads - 1) / threads, 1 << 20));
  if (acc)
    generic_kernel<T, true><<<blocks, threads, 0, st>>>(d, acc, gen_a_, gen_cp_, gen_inv_, static_cast<int>(n), g);
  else
    generic_kernel<T, false><<<blocks, threads, 0, st>>>(d, acc, gen_a_, gen_cp_, gen_inv_, static_cast<int>(n), g);
  ADI_CUDA_CHECK_LAUNCH("generic_kernel");
}

template <class T>
bool LineSolver<T>::can_fuse_rhs() const {
  return kind_ == Kind::Warp && S_ == 32 && axis_ == Axis::X;
}

template <class T>
void LineSolver<T>::solve_rhs_fused(const T* u, T* w, const RhsCoefficients<T>& kc, cudaStream_t st) const {
  ADI_REQUIRE(can_fuse_rhs(), "the RHS can be fused only into a single-line-tile x solve");
  const Layout3& L = layout_;
  WarpGeom g{};
  g.nj = L.n[1];
  g.sj = L.stride[1];
  g.nk = L.n[2];
  g.sk = L.stride[2];
  g.lines_per_tile = 1;
  g.tiles_j = g.nj;
  g.tiles = g.nj * g.nk;
  constexpr int V = 16 / sizeof(T);
  const bool vec = (I_ * sizeof(T)) % 16 == 0 && L.stride[1] % V == 0 && L.stride[2] % V == 0 &&
                   (reinterpret_cast<std::uintptr_t>(u) & 15u) == 0;
  const FusedRhs<T> fr{u, kc, L.n[1], L.stride[1], L.n[2], L.stride[2], static_cast<int>(L.n[0]), vec};
  switch (I_) {
    case 2: launch_warp_fused<T, 2>(u, w, view_, g, fr, st); break;
    case 4: launch_warp_fused<T, 4>(u, w, view_, g, fr, st); break;
    case 8: launch_warp_fused<T, 8>(u, w, view_, g, fr, st); break;
    case 16: launch_warp_fused<T, 16>(u, w, view_, g, fr, st); break;
    case 32: launch_warp_fused<T, 32>(u, w, view_, g, fr, st); break;
    case 64: launch_warp_fused<T, 64>(u, w, view_, g, fr, st); break;
    default: ADI_THROW(InvalidArgument, "warp kernel: unsupported segment length " + std::to_string(I_));
  }
}

template <class T>
std::string LineSolver<T>::describe() const {
  std::ostringstream s;
  s << axis_name(axis_) << ": ";
  switch (kind_) {
    case Kind::Warp: s << "warp kernel (transposed tiles), I = " << I_ << ", S = " << S_; break;
    case Kind::Lanes: s << "lanes kernel, I = " << I_ << ", S = " << S_; break;
    case Kind::Generic: s << "generic thread-per-line Thomas"; break;
  }
  return s.str();
}

template class LineSolver<float>;
template class LineSolver<double>;

}  // namespace adi::cuda
