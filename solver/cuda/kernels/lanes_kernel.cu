// Lanes kernel: y and z lines (and x lines of non-unit stride or too long
// for the warp kernel). Lane = line, warp = segment; for lines longer than
// 16 segments of 32 lines hold, lane = line of a 16-line tile, and a warp is
// two segments (G = 16, adi::LineKernelPlan::G).

#include "line_kernels.cuh"

#include <adi/transpose/warp_transpose.cuh>

#include <cstddef>

#include <algorithm>

namespace adi::cuda::kernels {

namespace {

using transpose::MapKind;

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
// Lanes kernel: block = G lines x ceil(n / I) segments, a warp P = 32 / G
// segments (blockDim = (32, W), W = ceil(ceil(n / I) / P), see LanesSlots),
// persistent over tiles of G lines. Thread (lane, warp) owns segment
// s = P warp + lane / G of line lane % G: rows s*I .. s*I+I-1.
//
// G = 32 (P = 1) unless the line needs more than 16 segments of lanes_max_I
// rows: 32 lines of 32 segments would be 1024 threads, whose 64 registers
// do not hold I = 32 doubles (or 64 floats). G = 16 halves the tile instead
// and keeps 512-thread blocks of the same per-thread registers: fp64 lines
// up to 1056 rows (513^3, 1024^3, and 1025^3 with segments of 33 rows,
// kOddLongI) and fp32 up to 2048 leave the generic two-pass Thomas, which
// moves 4 words a point instead of 2 (measured: docs/PERFORMANCE.md,
// "Segment lengths and tiles"). fp32 lines that 32-line tiles hold stay
// there: 16-line tiles measured slower for them. A half-warp's
// row is 16 consecutive lines, still whole 32-byte sectors; in shared memory
// the two halves of a warp read two separate 16-word runs (fp64: 128 bytes
// each, the two wavefronts an 8-byte warp access takes anyway; fp32: at most
// a 2-way conflict). Tiles are staged through shared memory with cp.async: while one tile
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
struct LanesGeom {
  int warps;        // blockDim.y: ceil(segs / P)
  int segs;         // segments that hold rows of the line: ceil(n / I) <= S
  index_t s_line;   // stride along the line
  index_t nu, su;   // lanes axis (G consecutive lines per tile)
  index_t nu_whole; // lanes below it hold whole values (the pair build: both
                    // lines; nu - 1 when the last pair's second line is past
                    // the grid); nu for scalar T
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
//    crosses the line's end): per-row validity, and cp.async's zero fill
//    for rows that are not there. (A third path for the segment that
//    crosses the line's end -- fast addressing, one uniform compare a row --
//    measured slower: docs/PERFORMANCE.md, "Tried and rejected".)
// The SASS of a predicated path for every tile was dominated by address
// arithmetic (64-bit pointer selects and increments per row, a 64-bit
// division per tile, the exchange slots' divisions): issue-bound (the
// journal's working log, docs/journal/PERFORMANCE_HISTORY.md).
template <class T, int I, int G>
struct LanesTile {
  const LanesGeom& g;
  int n, s, lane;  // lane: the line in the tile (0 .. G-1)
  index_t base = 0;
  bool active = false;
  bool whole = true;  // the pair build: both of the lane's lines are in the grid
  bool fast = false;
  __device__ LanesTile(const LanesGeom& geom, int rows, int seg, int ln) : g(geom), n(rows), s(seg), lane(ln) {}
  __device__ __forceinline__ void select(index_t tile) {
    s = opaque(s);  // keep the per-row address arithmetic in the loop (see opaque)
    lane = opaque(lane);
    const index_t v = tile_quotient(tile, g.tiles, g.tiles_u), ut = tile - v * g.tiles_u;
    const index_t u = ut * G + lane;
    active = u < g.nu;
    whole = u < g.nu_whole;
    fast = g.row_fits && ut * G + G <= g.nu_whole && s * I + I <= n;
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
    T* b = buf + s * I * G + lane;
    if (fast) {
      const T* q = src + base;
#pragma unroll
      for (int j = 0; j < I; ++j) cp_async(b + j * G, row(q, j));
      return;
    }
    const T* q = src + base;
#pragma unroll
    for (int j = 0; j < I; ++j) {
      const bool valid = active && s * I + j < n;
      if constexpr (is_float_pair<T>::value)
        if (!whole) {  // the last pair of an odd line count: its first line only
          float* half = reinterpret_cast<float*>(b + j * G);
          cp_async(half, reinterpret_cast<const float*>(valid ? q : src), valid);
          half[1] = 0.f;
          q += g.s_line;
          continue;
        }
      cp_async(b + j * G, valid ? q : src, valid);
      q += g.s_line;
    }
  }
  // The predicated paths' write of row value v to q: the pair build writes
  // only the first line of a pair whose second is past the grid.
  __device__ __forceinline__ void put(T* q, const T& v) const {
    if constexpr (is_float_pair<T>::value)
      if (!whole) {
        reinterpret_cast<float*>(q)[0] = v.x;
        return;
      }
    *q = v;
  }
  __device__ __forceinline__ void read(const T* buf, T (&x)[I]) const {
    const T* b = buf + s * I * G + lane;
#pragma unroll
    for (int j = 0; j < I; ++j) x[j] = b[j * G];
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
      if (active && s * I + j < n) put(q, x[j]);
      q += g.s_line;
    }
  }
  // acc = staged acc + x
  __device__ __forceinline__ void store_sum(T* dst, const T* buf, const T (&x)[I]) const {
    T* q = dst + base;
    const T* b = buf + s * I * G + lane;
    if (fast) {
#pragma unroll
      for (int j = 0; j < I; ++j) *row(q, j) = b[j * G] + x[j];
      return;
    }
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (active && s * I + j < n) put(q, b[j * G] + x[j]);
      q += g.s_line;
    }
  }
};

// A thread's slots in the reduced-system exchange, fixed for the kernel:
// computed once (the map's divisions by run-time S were per tile before).
//
// Only the segments that hold rows of the line, segs = ceil(n / I), have
// threads (W = ceil(segs / P) warps); the plan's S (a power of two: the
// shuffle scans' width and the exchange map's) may be larger. The segments
// segs .. S-1 would hold only identity rows with a zero right-hand side:
// their reduced unknowns are 0 and they do not couple to the line (its last
// row has c = 0), so their exchange slots are zeroed once and never written
// in the row phase, and no warp is spent on them (at n = 257, I = 32: 9
// warps instead of 16, which did the same work per tile for 56 % of the
// rows). (With P = 2 and segs odd, the last warp's upper half holds a
// segment without rows: its loads are all zero-filled, so it writes zeros
// in the column phase.) The row phase has G S (segment, line) pairs to
// solve and 32 W threads: warp w takes pairs t = 32 (w + k W) + lane,
// k = 0, 1, ...; each round is 32 consecutive t, i.e. whole groups of S
// lanes, as the shuffles need (G S is a multiple of 32: G = 32, or G = 16
// with S > 16).
struct LanesSlots {
  int mine;  // column phase: (segment s, line)
  int round0;  // first row-phase pair of this thread: t = 32 w + lane
  int step;    // 32 W: the next round's pair
};

template <class T>
__device__ __forceinline__ LanesSlots lanes_slots(int s, int line, int warp, int lane, int S, int W) {
  return LanesSlots{exchange_slot<T>(s, line, S), warp * 32 + lane, 32 * W};
}

// The per-tile solve once the tile is in registers: sweeps, reduced system
// through the padded exchange (column phase -> row phase), back substitution.
// Segments in sc.mask take their row tables from the constant bank
// (SegmentConsts), the others from shared memory; the branch is uniform per
// segment (a warp, or half a warp for G = 16).
// On a ring (Ring: a separate build, so open lines keep their code and
// registers) the solve is of A' and each line's
// y_0 (segment 0) and y_{n-1} (segment last_seg, row last_row) meet in
// ring_y[line] / ring_y[32 + line] across the barrier the tile ends with
// anyway; then every row takes its correction, one FMA with z from shared
// memory (the same word for the lanes of a segment: a broadcast). The next
// tile writes ring_y only after its own first barrier, which every thread
// reaches after its reads here.
template <class T, int I, int G, bool Ring>
__device__ __forceinline__ void lanes_solve(T (&x)[I], const PlanView<T>& p, const T* tab, const TableLayout& L,
                                            const SegmentConsts<T, I>& sc, int s, int line, const LanesSlots& sl,
                                            T* red_first, T* red_last, T* ring_y, int segs) {
  const int S = L.S, log2S = __ffs(S) - 1;
  const bool konst = (sc.mask >> s) & 1u;
  if (konst)
    local_sweeps(x, sc);
  else
    local_sweeps(x, segment_view(tab, L, s));
  red_first[sl.mine] = x[0];
  red_last[sl.mine] = x[I - 1];
  __syncthreads();
  for (int t = sl.round0; t < G * S; t += sl.step) {  // uniform per warp
    const int seg = t & (S - 1), slot = exchange_slot<T>(seg, t >> log2S, S);
    T f = red_first[slot], l = red_last[slot];
    reduced_solve(f, l, segment_view(tab, L, seg), seg, S);
    if (seg < segs) {  // the slots of segments without rows stay 0 (see LanesSlots)
      red_first[slot] = f;
      red_last[slot] = l;
    }
  }
  __syncthreads();
  const T zf = red_first[sl.mine], zl = red_last[sl.mine];
  if (konst)
    finish_segment(x, sc, zf, zl);
  else
    finish_segment(x, segment_view(tab, L, s), zf, zl);
  if constexpr (Ring) {
    if (s == 0) ring_y[line] = x[0];
    if (s == p.last_seg) ring_y[32 + line] = row_of(x, p.last_row);
  }
  __syncthreads();  // the exchange is reused by the next tile
  if constexpr (Ring)
    ring_correct(x, tab + L.ring_z() + s * L.pitch(), (ring_y[line] + p.phi * ring_y[32 + line]) * p.psi);
}

// Blocks of at most kPairWarps warps may be built for two blocks an SM
// (MinBlocks = 2: 65536 / (2 * 288) -> at most 112 registers a thread).
constexpr int kPairWarps = 9;
// Segments of 17 rows (lines of 257 rows in 16 segments) are built for two
// blocks of 16 warps an SM, i.e. 64 registers a thread: their 17 values a
// thread leave room for the occupancy the 32-row segments' blocks lack
// (ncu, 257 rows in 32-row segments: two blocks of 9 warps an SM, 28 %
// occupancy). (I = 9 is
// built for 1024 threads, which leaves it 64 registers anyway; its
// two-block build would have 32 and spill.)
constexpr bool lanes_odd_pair(int I) { return I == 17; }
// 16-line tiles have at most kLanesHalfMaxSegments segments, two a warp: 512
// threads whatever I (for I >= 17 that is lanes_max_segments anyway; fp64
// 16-line tiles of I = 16 would otherwise be held to 1024 threads' 64
// registers, where 16 doubles a thread spill with the accumulator, as the
// 32-line build's do: 50 bytes, ptxas).
constexpr int lanes_bound_threads(int I, int MinBlocks, int G) {
  return G == kLanesHalfTile                    ? 32 * (kLanesHalfMaxSegments / 2)
         : MinBlocks == 2 && !lanes_odd_pair(I) ? 32 * kPairWarps
                                                : 32 * lanes_max_segments(I);
}

template <class T, int I, bool Acc, int G, int MinBlocks = 1, bool Ring = false>
__global__ void __launch_bounds__(lanes_bound_threads(I, MinBlocks, G), MinBlocks)
    lanes_kernel(T* __restrict__ d, T* __restrict__ acc, PlanView<T> p, LanesGeom g, int stages,
                 const __grid_constant__ SegmentConsts<T, I> sc) {
  extern __shared__ __align__(16) unsigned char lanes_smem[];
  const TableLayout L = p.layout();
  T* tab = reinterpret_cast<T*>(lanes_smem);
  T* red_first = tab + L.total(sizeof(T));
  T* red_last = red_first + exchange_slots<T>();
  T* ring_y = red_last + exchange_slots<T>();  // 64 words, a ring's only (lanes_smem)
  T* buf0 = ring_y + (Ring ? 64 : 0);
  T* buf1 = buf0 + g.warps * I * 32;  // W P segments of I rows x G lines
  const index_t stride = gridDim.x;
  index_t t = blockIdx.x;
  if (t >= g.tiles) return;  // uniform per block
  stage_tables(p, tab);
  {  // the exchange starts at 0: segments without rows read it (LanesSlots)
    const int tid = threadIdx.x + 32 * threadIdx.y;
    for (int q = tid; q < 2 * exchange_slots<T>(); q += 32 * g.warps) red_first[q] = T(0);
  }
  __syncthreads();
  constexpr int P = 32 / G;  // segments a warp
  const int seg = threadIdx.y * P + threadIdx.x / G, line = threadIdx.x % G;
  LanesTile<T, I, G> cur(g, p.n, seg, line), nxt(g, p.n, seg, line);
  const LanesSlots sl = lanes_slots<T>(seg, line, threadIdx.y, threadIdx.x, p.S, g.warps);
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
      lanes_solve<T, I, G, Ring>(x, p, tab, L, sc, cur.s, line, sl, red_first, red_last, ring_y, g.segs);  // ends with a barrier: b is free
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
      lanes_solve<T, I, G, Ring>(x, p, tab, L, sc, cur.s, line, sl, red_first, red_last, ring_y, g.segs);
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
      lanes_solve<T, I, G, Ring>(x, p, tab, L, sc, cur.s, line, sl, red_first, red_last, ring_y, g.segs);
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
      lanes_solve<T, I, G, Ring>(x, p, tab, L, sc, cur.s, line, sl, red_first, red_last, ring_y, g.segs);
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

// Dynamic shared memory of the lanes kernel: the tables (a ring's z table
// included), the exchange, a ring's 2 x 32 end values, and
// `stages` tiles of W P segments of I rows x G lines, W P I G = 32 W I.
// Two stages when they fit in 200 KB.
template <class T>
std::size_t lanes_smem(const PlanView<T>& p, int warps, int stages) {
  return sizeof(T) * (static_cast<std::size_t>(p.layout().total(sizeof(T))) + 2 * exchange_slots<T>() +
                      (p.ring ? 64 : 0) + static_cast<std::size_t>(stages) * warps * p.I * 32);
}

template <class T, int I, bool Acc, int G>
void launch_lanes_impl(T* d, T* acc, const PlanView<T>& p, const LinesGeom& lg, const std::vector<T>& host_tables,
                       unsigned mask, cudaStream_t st, index_t nu_whole) {
  // mask == 0 (fewer than 3 segments: none is interior) keeps every
  // segment on the shared-memory tables.
  static_assert(G == 32 || G == kLanesHalfTile, "tiles of 32 or 16 lines");
  constexpr int P = 32 / G;
  const int segs = (p.n + p.I - 1) / p.I, warps = (segs + P - 1) / P;
  if (G * p.S % 32 != 0 || P * warps > p.S)  // the row phase's rounds (LanesSlots); the planner never asks this
    ADI_THROW(InvalidArgument, "lanes kernel: " + std::to_string(p.S) + " segments do not fill " +
                                   std::to_string(G) + "-line tiles");
  // One block of W <= 9 warps of 32-row segments (120 registers) is all an
  // SM held, and every warp of it waits at each exchange barrier (ncu: a
  // block of 9 warps an SM, far from the copy bandwidth). Those blocks take
  // the two-blocks-an-SM build (96 registers), which measured faster for
  // fp32 (docs/PERFORMANCE.md, "Segment lengths and tiles"). fp32 only: two
  // fp64 blocks fit only with one stage each, and that measured slower
  // (docs/PERFORMANCE.md, "Tried and rejected").
  // fp64 segments of 17 rows pair only without the accumulator: with it,
  // 64 registers spill (~60 bytes, ptxas) and z + update measured slower
  // paired than with 32-row segments.
  constexpr bool kPairable = (I == 32 && sizeof(T) == 4 && G == 32) ||
                             (lanes_odd_pair(I) && G == 32 && (sizeof(T) == 4 || !Acc));
  const bool pair = kPairable && (lanes_odd_pair(I) || warps <= kPairWarps);
  const int stages = lanes_smem(p, warps, 2) <= 200 * 1024 ? 2 : 1;
  const std::size_t smem = lanes_smem(p, warps, stages);
  const int threads = 32 * warps;
  auto kernel = lanes_kernel<T, I, Acc, G, 1, false>;
  if constexpr (kPairable)
    if (pair) kernel = lanes_kernel<T, I, Acc, G, 2, false>;
  if constexpr (!is_float_pair<T>::value) {  // the pair build serves open lines only
    if (p.ring) kernel = pair ? lanes_kernel<T, I, Acc, G, kPairable ? 2 : 1, true> : lanes_kernel<T, I, Acc, G, 1, true>;
  } else if (p.ring) {
    ADI_THROW(InvalidArgument, "lanes kernel: the pair build has no periodic lines");
  }
  const int per_sm = resident_blocks(kernel, threads, smem);  // opts in above 48 KB
  if (per_sm < 1) ADI_THROW(BackendUnavailable, "lanes kernel does not fit on a multiprocessor");
  LanesGeom g{warps, segs, lg.s_line, lg.nu, lg.su, nu_whole, lg.nv, lg.sv, (lg.nu + G - 1) / G, 0, 0u, false};
  g.tiles = g.tiles_u * g.nv;
  const unsigned long long row_bytes = static_cast<unsigned long long>(lg.s_line) * sizeof(T);
  g.row_fits = lg.s_line > 0 && row_bytes <= 0xffffffffull;
  g.row_bytes = g.row_fits ? static_cast<unsigned>(row_bytes) : 0u;
  const SegmentConsts<T, I> sc = segment_consts<T, I>(host_tables, p.S, mask);
  const index_t blocks = std::min<index_t>(g.tiles, static_cast<index_t>(per_sm) * sm_count());
  kernel<<<static_cast<unsigned>(blocks), dim3(32, warps), smem, st>>>(d, acc, p, g, stages, sc);
  ADI_CUDA_CHECK_LAUNCH("lanes_kernel");
}

}  // namespace

template <class T, int I>
void launch_lanes(T* d, T* acc, const PlanView<T>& p, int lines, const LinesGeom& g,
                  const std::vector<T>& host_tables, unsigned mask, cudaStream_t st) {
  // I = 33 serves 16-line tiles only (kOddLongI); 16-line tiles serve lines
  // past 16 segments of lanes_max_I rows, i.e. I >= 32, and fp64 z lines of
  // 16-row segments (adi::lanes_fp64_half_tile) (LineKernelPlan::G): each is
  // built for those alone.
  if constexpr (I != kOddLongI)
    if (lines == 32) {
      if (acc)
        launch_lanes_impl<T, I, true, 32>(d, acc, p, g, host_tables, mask, st, g.nu);
      else
        launch_lanes_impl<T, I, false, 32>(d, acc, p, g, host_tables, mask, st, g.nu);
      return;
    }
  if constexpr (I >= 32 || (sizeof(T) == 8 && I == 16))
    if (lines == kLanesHalfTile) {
      if (acc)
        launch_lanes_impl<T, I, true, kLanesHalfTile>(d, acc, p, g, host_tables, mask, st, g.nu);
      else
        launch_lanes_impl<T, I, false, kLanesHalfTile>(d, acc, p, g, host_tables, mask, st, g.nu);
      return;
    }
  ADI_THROW(InvalidArgument, "lanes kernel: no build for I = " + std::to_string(I) + " with " +
                                 std::to_string(lines) + "-line tiles");
}

bool lanes_pairs_fit(const LinesGeom& g) {
  return g.su == 1 && g.s_line % 2 == 0 && (g.nv == 1 || g.sv % 2 == 0);
}

namespace {

template <int I>
void launch_lanes_pairs_I(float* d, float* acc, const PlanView<FloatPair>& p, const LinesGeom& g,
                          const std::vector<FloatPair>& host_tables, unsigned mask, cudaStream_t st) {
  // Lane u of the pair grid holds lines 2u and 2u + 1; strides in pairs.
  const LinesGeom pg{g.s_line / 2, (g.nu + 1) / 2, 1, g.nv, g.nv == 1 ? 0 : g.sv / 2};
  FloatPair* pd = reinterpret_cast<FloatPair*>(d);
  FloatPair* pa = reinterpret_cast<FloatPair*>(acc);
  // I = 33 is built for 16-line tiles only (kOddLongI), the others for 32
  // (lanes_pairs_built).
  constexpr int G = I == kOddLongI ? kLanesHalfTile : 32;
  if (acc)
    launch_lanes_impl<FloatPair, I, true, G>(pd, pa, p, pg, host_tables, mask, st, g.nu / 2);
  else
    launch_lanes_impl<FloatPair, I, false, G>(pd, pa, p, pg, host_tables, mask, st, g.nu / 2);
}

}  // namespace

void launch_lanes_pairs(float* d, float* acc, const PlanView<FloatPair>& p, int lines, const LinesGeom& g,
                        const std::vector<FloatPair>& host_tables, unsigned mask, cudaStream_t st) {
  ADI_REQUIRE(lanes_pairs_fit(g), "lanes kernel: pairs of lines need unit-stride lanes and even strides");
  ADI_REQUIRE(lanes_pairs_aligned(d) && lanes_pairs_aligned(acc), "lanes kernel: pairs of lines need 8-byte alignment");
  if (!lanes_pairs_built(p.I, lines))
    ADI_THROW(InvalidArgument, "lanes kernel: no pair build for I = " + std::to_string(p.I) + " with " +
                                   std::to_string(lines) + "-line tiles");
  switch (p.I) {  // the lengths lanes_pairs_built lists
    case 16: launch_lanes_pairs_I<16>(d, acc, p, g, host_tables, mask, st); break;
    case 17: launch_lanes_pairs_I<17>(d, acc, p, g, host_tables, mask, st); break;
    case 32: launch_lanes_pairs_I<32>(d, acc, p, g, host_tables, mask, st); break;
    default: launch_lanes_pairs_I<kOddLongI>(d, acc, p, g, host_tables, mask, st); break;
  }
}

#define ADI_LANES(T, I)                                                                                           \
  template void launch_lanes<T, I>(T*, T*, const PlanView<T>&, int, const LinesGeom&, const std::vector<T>&, \
                                   unsigned, cudaStream_t)
ADI_LANES(float, 4);
ADI_LANES(float, 8);
ADI_LANES(float, 9);
ADI_LANES(float, 16);
ADI_LANES(float, 17);
ADI_LANES(float, 32);
ADI_LANES(float, 33);
ADI_LANES(float, 64);
ADI_LANES(double, 4);
ADI_LANES(double, 8);
ADI_LANES(double, 9);
ADI_LANES(double, 16);
ADI_LANES(double, 17);
ADI_LANES(double, 32);
ADI_LANES(double, 33);
#undef ADI_LANES
static_assert(lanes_max_I(sizeof(float)) == 64 && lanes_max_I(sizeof(double)) == 32 &&
                  lanes_half_max_I(sizeof(double)) == kOddLongI,
              "the instantiations above follow lanes_max_I and lanes_half_max_I");

}  // namespace adi::cuda::kernels
