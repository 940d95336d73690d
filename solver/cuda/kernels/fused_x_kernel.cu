// The Douglas RHS fused into the x solve: w = A_x^{-1} rhs(u),
// so a step moves 7 words a point instead of 9 (the RHS pass's write and the
// x pass's read of w never happen).
//
// Data movement. The RHS of line (j, k) needs five rows of u: (j, k) with its
// x neighbours, (j +- 1, k) and (j, k +- 1). A block of W warps takes W L
// consecutive lines j0 .. j0 + W L - 1 (L a warp: fused_lines_per_warp,
// more than 1 only for lines of up to 128 rows) and marches them along k
// through a run of planes. Shared memory keeps a ring of R = 4 "plane
// slabs", each the W L rows of the block at one plane plus one halo row on
// each side in y: step t reads slabs t (plane k - 1), t + 1 (plane k) and
// t + 2 (plane k + 1) while the cp.async copies of slab t + 3 are in flight.
// (A ring of 5, two slabs in flight, measured no faster, and fp64 slower as
// its blocks no longer fit two an SM: docs/PERFORMANCE.md, "Tried and
// rejected". Short lines' small slabs take a ring of 6 with three in flight:
// fused_ring.) So every row of u is copied from global memory
// (W L + 2) / (W L) x (K + 2) / K times for a run of K planes, ~1.3 for
// W L = 8, instead of five times (a first fused kernel read the five rows of
// each line into five transposition buffers of its own and was slower than
// the two passes). The halo rows are the neighbouring line groups' own rows
// at the same planes, which other blocks copy at about the same time, so
// they mostly come from L2.
//
// A warp computes its line's RHS in row form: lane l takes elements
// e = 32 q + l, all seven operands from the slabs at consecutive addresses
// (no bank conflicts), and writes each result into its transposition buffer
// at the padded map's slot, so that the column read hands lane s its segment
// (Giles' map, adi::transpose; the warp kernel's row phase, with the RHS
// computed on the way in). From there it is the warp kernel's solve. Lines
// of 33-64 rows share a buffer four at a time instead (fused_warp_lines:
// 8 segments of 8 rows a line, a plan of their own).
//
// Only the classic single-GPU stepper launches it (no x ghost faces, no x
// face terms, open x lines of single-line tiles: LineSolver::can_fuse_rhs); y
// and z neighbours go through adi::lower_neighbour / upper_neighbour, which
// mirror at zero-flux faces, read row / plane -1 or n across a ghost face
// (the stepper's box between Dirichlet faces: the face rows sit just outside
// it) and would wrap on a periodic axis. The arithmetic is adi::douglas_rhs,
// the CPU's, term by term.

#include "line_kernels.cuh"

#include "warp_slots.cuh"

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace adi::cuda::kernels {

namespace {

// Slabs in the ring: k - 1, k, k + 1 being read, k + 2 in flight.
//
// The small build (Small = true; fp64 I = 32 and 33 only, fused_small_built)
// serves x lines whose slabs and tables leave room for fewer than
// kFusedMinWarps lines a block (fp64 lines of 961-1056 rows: 1000, 1024^3,
// 1025^3; those of 801-960 stay unfused, fused_x_shape). It holds the
// compact tables (CompactTables: one copy of the interior segments', 45 ->
// 7 KB) and a ring of 3: slab k + 2 goes into
// k - 1's slot once every warp's row phase has read it (one more block
// barrier a step), so it is in flight during the solve and the write-out
// only. Both are compile-time choices: with the table layout or the ring
// chosen at run time, the table offsets and slab indices became run-time
// arithmetic, and the kernels that need neither measured slower
// (docs/PERFORMANCE.md, "The fused RHS + x kernel").
constexpr int kRing = 4;
constexpr int kShortRing = 3;
// Lines a warp takes a step (the block's W L lines are consecutive in y, warp
// w has lines w L .. w L + L - 1): fp32 x lines of up to 64 rows (I = 2) 4,
// lines of up to 128 rows (I = 4) 2, else 1. A step of a short line is a few
// loads and a long chain of dependent shuffles (the lanes' reduced system)
// behind a block barrier; a warp's L solves are independent chains the
// compiler interleaves; measured against L = 1 in
// docs/PERFORMANCE.md, "The fused RHS + x kernel". fp64 lines of up to
// 64 rows keep 1: at 4 a warp the build needs so many registers that one
// block fits an SM, and it measured slower.
template <class T, int I>
constexpr int fused_lines_per_warp() {
  return I == 2 ? (sizeof(T) == 4 ? 4 : 1) : I == 4 ? 2 : 1;
}
// Segments a line in the fused kernel: 32 (a line a transposition buffer),
// or SEG < 32 for a tile of 32 / SEG lines in one buffer (row r of the tile
// is segment r % SEG of line r / SEG, the warp kernel's multi-line tile):
// lines of 33-64 rows in 8 segments of 8 rows (fused_tile_built), where 32
// segments of 2 rows spent most of a warp's instructions on the reduced
// system's two 32-lane scans (ncu: issue-bound, DRAM far from busy). The
// tiles measured faster in both precisions except on the tiniest grids,
// where the fp64 tile build's registers leave one block an SM
// (docs/PERFORMANCE.md, "The fused RHS + x kernel"). Lines a warp takes a
// step, and transposition buffers a warp:
template <class T, int I, int SEG>
constexpr int fused_warp_lines() {
  return SEG == 32 ? fused_lines_per_warp<T, I>() : 32 / SEG;
}
template <class T, int I, int SEG>
constexpr int fused_buffers() {
  return SEG == 32 ? fused_lines_per_warp<T, I>() : 1;
}
template <class T, int I>
constexpr bool fused_small_built() {
  return sizeof(T) == 8 && (I == 32 || I == kOddLongI);
}
// Whether the compact tables (CompactTables, one copy of the interior
// segments') with the full ring are built for I: fp64 lines of 17 and 32
// rows a segment, where the plan's tables (5 I + 7 words a segment, 32
// segments: 23 KB for I = 17, 44 KB for I = 32) cost the block a line. The
// shape takes them only where they let more lines into a block that the
// full build would run anyway (fused_x_shape): fp64 lines of 541-544 rows
// (7 -> 8 lines) and of 545-800 (e.g. 600: 5 -> 6 lines), where the extra
// line measured faster. Where they do not add a line they measured no
// faster (docs/PERFORMANCE.md, "Tried and rejected"): the table reads are
// not what fills the shared-memory pipe. Not for fp64 lines of 801-1056
// rows, where the plan's tables leave fewer than kFusedMinWarps lines (the small build
// or unfused, as before; a ring of 4 with compact tables was not measured
// there), nor for fp32 lines of 1057-2048 (untested).
template <class T, int I>
constexpr bool fused_compact_built() {
  return sizeof(T) == 8 && (I == 17 || I == 32);
}
// Slabs in the ring, and how far ahead slab t + ahead is issued at step t
// (into slot (t + ahead) % ring, which slab t + ahead - ring left at step t - 1
// at the latest: ring >= ahead + 1). Short lines (slabs of 5-10 KB: fp32 I <= 8, fp64
// I <= 4) keep three slabs in flight (ring 6, ahead 5): a step of theirs is
// too short to cover a DRAM round trip, so with one slab in flight the
// block waited for its copies every step. Longer lines keep one (ring 4),
// whose slabs are large enough (the ring of 5 measured no faster). Ring 6
// measured a little faster for the short lines, and slower for fp32 I = 9,
// so 9 keeps 4; far less than three times the bytes in flight would give a
// bandwidth-bound phase: ncu then showed it issue-bound
// (docs/PERFORMANCE.md, "The fused RHS + x kernel").
template <class T, int I, bool Small>
constexpr int fused_ring() {
  return Small ? kShortRing : (I <= 4 || (sizeof(T) == 4 && I <= 8)) ? 6 : kRing;
}
template <class T, int I, bool Small>
constexpr int fused_ahead() {
  return Small ? 3 : fused_ring<T, I, Small>() - 1;
}
// The slab copies unrolled (issue_slab) for fp64 lines of 513-544 rows only.
// There a block of 8 lines takes a whole SM (218 KB) and waits on its
// copies; issued back to back they land sooner (a reading of the launch
// shape, not profiled). That build measured faster; every other build
// measured even or slower, and fp64 I = 16 was not measured
// (docs/PERFORMANCE.md, "The fused RHS + x kernel"; "Tried and rejected").
template <class T, int I>
constexpr bool fused_unrolled_copies() {
  return sizeof(T) == 8 && I == 17;
}
// Elements of the tables a block holds: the plan's, or the compact ones.
template <class T, int I>
__host__ __device__ int fused_table_elems(const PlanView<T>& p, bool compact) {
  return compact ? CompactTables{32, I}.total(sizeof(T)) : p.layout().total(sizeof(T));
}

// 16 bytes global -> shared, bypassing L1 (each row is copied once per block;
// its reuse is in shared memory).
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}

// A run of a block's work: lines j0 .. j0 + W - 1 (those below nj), planes
// k0 .. k1 - 1.
struct FusedItem {
  index_t j0, jlast, k0, k1;
};

// Slab s of the block's stream: s = 0 is plane k0's lower neighbour, s = 1 ..
// K are planes k0 .. k1 - 1, s = K + 1 is plane k1 - 1's upper neighbour.
// Then step t (plane k0 + t) reads slabs t, t + 1, t + 2 uniformly, at the
// faces too (a mirrored neighbour is just another plane in the stream).
// Row 0 of a slab is line j0's lower neighbour, rows 1 .. W the block's lines,
// row W + 1 line jlast's upper neighbour.
//
// A lane copies the row's 16-byte pieces lane, lane + 32, ...: a loop of
// run-time trip count, or, where fused_unrolled_copies, the at most
// ceil(I / V) pieces a row has for a lane unrolled, predicated, at
// compile-time offsets from one pair of addresses, issued back to back (the
// loop spent ~14 instructions a piece recomputing both addresses; SASS of
// the fp32 I = 9 build).
template <class T, int I>
__device__ __forceinline__ void issue_slab(const T* u, T* slab, const FusedGeom& g, const RhsCoefficients<T>& kc,
                                           const FusedItem& it, int W, int s, int warp, int warps, int lane) {
  const index_t nk = g.nk, nj = g.nj;
  const index_t steps = it.k1 - it.k0;
  const index_t k = s == 0 ? lower_neighbour(kc, 2, it.k0, nk) : s == steps + 1 ? upper_neighbour(kc, 2, it.k1 - 1, nk)
                                                                                 : it.k0 + s - 1;
  for (int r = warp; r < W + 2; r += warps) {
    const index_t j = r == 0 ? lower_neighbour(kc, 1, it.j0, nj) : r == W + 1 ? upper_neighbour(kc, 1, it.jlast, nj)
                                                                              : it.j0 + r - 1;
    if (r > 0 && r <= W && j > it.jlast) continue;  // a line past the grid's end: never read
    const T* src = u + j * g.sj + k * g.sk;
    T* dst = slab + r * g.row;
    constexpr int V = 16 / static_cast<int>(sizeof(T));
    if constexpr (fused_unrolled_copies<T, I>()) {
      // The lane's offset once, so that each piece's is a compile-time constant.
      const T* s_lane = src + lane * V;
      T* d_lane = dst + lane * V;
#pragma unroll
      for (int c = 0; c < (I + V - 1) / V; ++c)
        if ((32 * c + lane) * V < g.n) cp_async16(d_lane + 32 * V * c, s_lane + 32 * V * c);
    } else {
      for (int c = lane; c * V < g.n; c += 32) cp_async16(dst + c * V, src + c * V);
    }
  }
}

// One run of planes k0 .. k1 - 1 of lines j0 .. jlast: the slab pipeline
// above. Every thread of the block calls it (block barriers inside).
template <class T, int I, bool Compact, int SEG>
__device__ __forceinline__ SegmentView<T> fused_view(const T* tab, int s_tail, int lane) {
  if constexpr (Compact)
    return segment_view(tab, CompactTables{32, I, s_tail}, lane);
  else
    return segment_view(tab, TableLayout{SEG, I}, lane & (SEG - 1));
}

template <class T, int I, bool Small, int SEG, bool Compact>
__device__ __forceinline__ void fused_run(const T* __restrict__ u, T* __restrict__ w, const FusedGeom& g,
                                          const RhsCoefficients<T>& kc, const FusedItem& it, const T* tab,
                                          T* ring, T* slots, int W, int warp, int lane) {
  using Ex = WarpTranspose<T, I, MapKind::Giles>;
  constexpr int R = fused_ring<T, I, Small>();
  constexpr int kAhead = fused_ahead<T, I, Small>();
  constexpr int L = fused_warp_lines<T, I, SEG>();
  // A line's share of the row phase's I rounds of 32 elements: all I with a
  // buffer a line, SEG I / 32 in a tile (line l of the tile holds elements
  // l SEG I .. (l + 1) SEG I - 1 of the buffer).
  constexpr bool kTile = SEG < 32;
  constexpr int QL = kTile ? SEG * I / 32 : I;
  static_assert(!kTile || (SEG * I % 32 == 0 && QL * L == I), "a tile's lines take whole rounds");
  const int WL = W * L;  // the block's lines
  const int slab = (WL + 2) * g.row;
  const int steps = static_cast<int>(it.k1 - it.k0);
#pragma unroll
  for (int s = 0; s < kAhead; ++s) {  // a stream has steps + 2 >= 3 slabs; a commit each, issued or not
    if (s < 3 || s <= steps + 1) issue_slab<T, I>(u, ring + s * slab, g, kc, it, WL, s, warp, W, lane);
    cp_async_commit();
  }
  // Warps past the grid's end only load and wait; a warp whose first line
  // is inside computes all L (a line past the end: rows never copied, its
  // result never stored).
  const bool line = it.j0 + warp * L <= it.jlast;
  const int n = g.n;
  // x neighbours at the line's ends: mirrored across a zero-flux face (at a
  // Dirichlet face the node's RHS is 0 and they are not used).
  const int xlo = static_cast<int>(lower_neighbour(kc, 0, 0, n)), xhi = static_cast<int>(upper_neighbour(kc, 0, n - 1, n));
  const bool xfix_lo = on_fixed_face(kc, 0, 0, n), xfix_hi = on_fixed_face(kc, 0, n - 1, n);
  // The padded map splits: slot(32 q + lane) = slot(lane) + slot(32 q)
  // (warp_slots.cuh, checked at compile time for every I built here), so a
  // lane's row-phase writes are one base register plus immediates. Line l
  // of the warp has buffer l.
  T* const sb = slots + warp_slot<T, I>(lane);
  T* const col = slots + Ex::index(0, lane);
  constexpr int kSlots = warp_slots<T, I>();
  const SegmentView<T> v = fused_view<T, I, Compact, SEG>(tab, g.s_tail, lane);

  for (int t = 0; t < steps; ++t) {
    // Slabs t + 3 .. t + kAhead - 1 may stay in flight (one commit group a
    // slab, empty past the stream's end).
    cp_async_wait<Small ? 0 : kAhead - 3>();
    __syncthreads();  // slabs t .. t + 2 have landed (every thread's copies); slab t - 1 is free
    if constexpr (!Small) {
      if (t + kAhead <= steps + 1)
        issue_slab<T, I>(u, ring + ((t + kAhead) % R) * slab, g, kc, it, WL, t + kAhead, warp, W, lane);
      cp_async_commit();
      if (!line) continue;
    }
    const index_t k = it.k0 + t;
    const T* slab_zm = ring + (t % R) * slab;
    const T* cur = ring + ((t + 1) % R) * slab;
    const T* slab_zp = ring + ((t + 2) % R) * slab;
    const bool zfix = on_fixed_face(kc, 2, k, g.nk);
#pragma unroll
    for (int l = 0; l < L; ++l) {
      const index_t j = it.j0 + warp * L + l;
      // Rows of this line's neighbours in a slab (row WL + 1 follows the
      // last line of a block that the grid's end cuts short).
      const int rc = warp * L + l + 1, rym = rc - 1, ryp = j == it.jlast ? WL + 1 : rc + 1;
      const T* zm = slab_zm + rc * g.row;
      const T* zp = slab_zp + rc * g.row;
      const T* c = cur + rc * g.row;
      const T* ym = cur + rym * g.row;
      const T* yp = cur + ryp * g.row;
      const bool fixed_line = zfix || on_fixed_face(kc, 1, j, g.nj);
      const T lo_val = c[xlo], hi_val = c[xhi];
      // Row phase: the RHS of element e = 32 q + lane of the line into its
      // slot; padding rows (e >= n) and fixed nodes solve to 0.
#pragma unroll
      for (int q = 0; q < QL; ++q) {
        const int e = 32 * q + lane;
        T r = T(0);
        if (e < n && !fixed_line && !(e == 0 && xfix_lo) && !(e == n - 1 && xfix_hi)) {
          const T xm = e == 0 ? lo_val : c[e - 1];
          const T xp = e == n - 1 ? hi_val : c[e + 1];
          r = douglas_rhs(c[e], xm, xp, ym[e], yp[e], zm[e], zp[e], kc);
        }
        if constexpr (kTile)
          sb[warp_row_slot<T, I>(l * QL + q)] = r;
        else
          sb[l * kSlots + warp_row_slot<T, I>(q)] = r;
      }
    }
    if constexpr (Small) {
      // Slab t's slot is free once every warp's row phase has read it. (The
      // warps past the grid's end ran the row phase on rows never copied:
      // harmless, their results are not written, and it keeps this barrier
      // in the code every warp runs.)
      __syncthreads();
      if (t + kAhead <= steps + 1) issue_slab<T, I>(u, ring + (t % R) * slab, g, kc, it, WL, t + kAhead, warp, W, lane);
      cp_async_commit();
      if (!line) continue;
    }
    __syncwarp();
    constexpr int B = fused_buffers<T, I, SEG>();
    T x[B][I];
#pragma unroll
    for (int b = 0; b < B; ++b)
#pragma unroll
      for (int i = 0; i < I; ++i) x[b][i] = col[b * kSlots + i];
#pragma unroll
    for (int b = 0; b < B; ++b) local_sweeps(x[b], v);
#pragma unroll
    for (int b = 0; b < B; ++b) reduced_solve(x[b][0], x[b][I - 1], v, lane & (SEG - 1), SEG);
#pragma unroll
    for (int b = 0; b < B; ++b) finish_segment(x[b], v, x[b][0], x[b][I - 1]);
    __syncwarp();  // every lane has read its column before the buffer is overwritten
#pragma unroll
    for (int b = 0; b < B; ++b)
#pragma unroll
      for (int i = 0; i < I; ++i) col[b * kSlots + i] = x[b][i];
    __syncwarp();
#pragma unroll
    for (int l = 0; l < L; ++l) {
      const index_t j = it.j0 + warp * L + l;
      if (j > it.jlast) break;
      T* out = w + j * g.sj + k * g.sk;
#pragma unroll
      for (int q = 0; q < QL; ++q) {
        const int e = 32 * q + lane;
        if (e < n) out[e] = sb[kTile ? warp_row_slot<T, I>(l * QL + q) : l * kSlots + warp_row_slot<T, I>(q)];
      }
    }
    // The next step's row phase overwrites the buffer after the block barrier.
  }
  cp_async_wait<0>();
  __syncthreads();  // the ring and the buffers are free for the block's next run
}

// Blocks an SM the kernel is built for: a thread's registers are at most
// 65536 / (256 x blocks). fp32 lines of up to 288 rows (I <= 9) take 3 (at
// most 85 registers; ptxas fits them without spilling): their blocks'
// shared memory (~58 KB at 257) leaves room for a third, and at two the
// kernel was issue-latency bound (ncu: about one eligible warp a
// scheduler). fp32 lines of 129-160 rows (I = 5) take 4 (64 registers, no
// spill; 40 KB a block), which measured faster. A fourth block did not pay
// for 193-288 rows nor for the tile build: there the kernel is bound by
// instruction issue and the shared-memory pipe together, with three blocks
// or four (docs/PERFORMANCE.md, "The fused RHS + x kernel"; "Tried and
// rejected").
template <class T, int I>
constexpr int fused_min_blocks() {
  return sizeof(T) == 4 ? (I == 5 ? 4 : I <= 9 ? 3 : I <= 33 ? 2 : 1) : 1;
}

// Work is balanced over resident blocks: the (line group, plane) steps are
// numbered jb * nk + k, and block b takes steps [b P, (b + 1) P) (P =
// g.per_block), i.e. one or a few runs of consecutive planes, each run
// paying two extra slabs. With one wave of equal shares there is no tail of
// half-empty SMs: a grid of fixed chunks that overflowed the resident slots
// into a second, mostly empty wave measured far slower
// (docs/PERFORMANCE.md, "The fused RHS + x kernel").
template <class T, int I, bool Small, int SEG, bool Compact>
__global__ void __launch_bounds__(32 * kFusedMaxWarps, fused_min_blocks<T, I>())
    fused_x_kernel(const T* __restrict__ u, T* __restrict__ w, PlanView<T> p, FusedGeom g, RhsCoefficients<T> kc) {
  extern __shared__ __align__(16) unsigned char fused_smem[];
  constexpr int R = fused_ring<T, I, Small>();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, W = blockDim.x >> 5;
  const int tab_elems = fused_table_elems<T, I>(p, Compact);  // (p.tables: the compact ones where Compact)
  T* tab = reinterpret_cast<T*>(fused_smem);
  T* ring = tab + tab_elems;
  constexpr int L = fused_warp_lines<T, I, SEG>();
  T* slots = ring + R * (W * L + 2) * g.row + warp * fused_buffers<T, I, SEG>() * warp_slots<T, I>();
  stage_tables(p.tables, tab_elems, tab);
  __syncthreads();  // segment_view reads bw0 at once, before a run's first barrier
  const index_t total = g.jblocks * g.nk;
  index_t at = static_cast<index_t>(blockIdx.x) * g.per_block;
  const index_t end = min(at + g.per_block, total);
  while (at < end) {
    FusedItem it;
    const index_t jb = at / g.nk;
    it.k0 = at - jb * g.nk;
    it.k1 = min(g.nk, it.k0 + (end - at));
    it.j0 = jb * W * L;
    it.jlast = min(it.j0 + W * L, g.nj) - 1;
    fused_run<T, I, Small, SEG, Compact>(u, w, g, kc, it, tab, ring, slots, W, warp, lane);
    at += it.k1 - it.k0;
  }
}

// Whether the tile build (SEG = 8 segments a line, fused_warp_lines) exists
// for I: lines of 33-64 rows, 8 segments of 8 rows.
template <int I>
constexpr bool fused_tile_built() {
  return I == kFusedTileI;
}

// The build a launch shape names (seg: the plan's segments a line, 32 or kFusedTileS).
template <class T, int I>
auto fused_kernel(bool small, bool compact, int seg) {
  if constexpr (fused_small_built<T, I>())
    if (small) return fused_x_kernel<T, I, true, 32, true>;
  if constexpr (fused_tile_built<I>())
    if (seg == kFusedTileS) return fused_x_kernel<T, I, false, kFusedTileS, false>;
  if constexpr (fused_compact_built<T, I>())
    if (compact) return fused_x_kernel<T, I, false, 32, true>;
  return fused_x_kernel<T, I, false, 32, false>;
}

// Calls f(std::integral_constant<int, SEG>) for the plan's segment count.
template <int I, class F>
void with_seg(int seg, F&& f) {
  if constexpr (fused_tile_built<I>())
    if (seg == kFusedTileS) return f(std::integral_constant<int, kFusedTileS>{});
  f(std::integral_constant<int, 32>{});
}

}  // namespace

template <class T, int I>
FusedLaunch fused_x_shape(const FusedGeom& g0, const PlanView<T>& p, int planes) {
  FusedLaunch s;
  int L = 0, buffers = 0;
  with_seg<I>(p.S, [&](auto seg) {
    L = fused_warp_lines<T, I, decltype(seg)::value>();
    buffers = fused_buffers<T, I, decltype(seg)::value>();
  });
  auto smem = [&](int W, bool small, bool compact) {
    return sizeof(T) * (static_cast<std::size_t>(fused_table_elems<T, I>(p, compact)) +
                        static_cast<std::size_t>(small ? kShortRing : fused_ring<T, I, false>()) * (W * L + 2) * g0.row +
                        static_cast<std::size_t>(W) * buffers * warp_slots<T, I>());
  };
  auto most_warps = [&](bool small, bool compact) {
    int W = kFusedMaxWarps;
    while (W > 1 && smem(W, small, compact) > 227 * 1024) --W;
    return W;
  };
  // The most warps (8 down to 1) whose block fits under 227 KB; a second
  // resident block is a bonus (fp32 lines of up to ~512 rows), not a goal.
  // Not only powers of two: fp64 lines of 600 rows fit 6 with the compact
  // tables (5 with the plan's), where halving gave 4. The compact tables
  // where they fit more lines (fused_compact_built). Where the plan's
  // tables leave fewer than kFusedMinWarps, the small build (fp64 lines of
  // 961-1056 rows: 5 lines a block).
  int W = most_warps(false, false);
  if constexpr (fused_compact_built<T, I>())
    if (g0.s_tail > 0 && p.S == 32 && W >= kFusedMinWarps && W < kFusedMaxWarps) {
      const int Wc = most_warps(false, true);
      if (Wc > W) {
        W = Wc;
        s.compact = true;
      }
    }
  // The small build keeps the lengths it served before the compact tables
  // took more than two tail segments: fp64 lines of 961-1056
  // rows. Those of 801-960 rows (3 or more tail segments) stay unfused, as
  // before: the small build was not run on them.
  if constexpr (fused_small_built<T, I>())
    if (W < kFusedMinWarps && g0.s_tail > 0 && p.S - g0.s_tail <= CompactTables::kSlots - 2) {
      W = most_warps(true, true);
      s.small = s.compact = true;
    }
  s.warps = W;
  s.lines_per_warp = L;
  s.smem = smem(W, s.small, s.compact);
  s.per_sm = resident_blocks(fused_kernel<T, I>(s.small, s.compact, p.S), 32 * W, s.smem);
  if (s.per_sm < 1) return s;
  const index_t jblocks = (g0.nj + W * L - 1) / (W * L), total = jblocks * g0.nk;
  // Steps a block takes: an equal share for every resident block (one wave),
  // or `planes` (ADI_FUSED_PLANES, for experiments).
  index_t P = planes;
  if (P <= 0) {
    const index_t slots = static_cast<index_t>(s.per_sm) * sm_count();
    P = (total + slots - 1) / slots;
  }
  s.K = P;
  s.jblocks = jblocks;
  s.blocks = (total + P - 1) / P;
  return s;
}

template <class T, int I>
void launch_fused_x(const T* u, T* w, const PlanView<T>& p, const FusedGeom& g0, const RhsCoefficients<T>& kc,
                    const FusedLaunch& s, const T* compact_tables, cudaStream_t st) {
  ADI_REQUIRE((p.S == 32 || (fused_tile_built<I>() && p.S == kFusedTileS)) && !p.ring,
              "fused RHS + x: single-line tiles (or the tile build's) of an open line only");
  ADI_REQUIRE(g0.vec, "fused RHS + x: rows of u must be 16-byte aligned and padded to 16 bytes");
  ADI_REQUIRE(!s.small || (s.compact && fused_small_built<T, I>()),
              "fused RHS + x: the small build takes compact tables");
  // Compact tables come with the small build (fp64 I = 32, 33) or the full
  // one that takes them (fp64 I = 17, 32).
  ADI_REQUIRE(!s.compact ||
                  (compact_tables && g0.s_tail > 0 && p.S == 32 && (s.small || fused_compact_built<T, I>())),
              "fused RHS + x: no compact tables");
  if (s.per_sm < 1) ADI_THROW(BackendUnavailable, "fused RHS + x kernel does not fit on a multiprocessor");
  FusedGeom g = g0;
  g.per_block = s.K;
  g.jblocks = s.jblocks;
  PlanView<T> q = p;
  if (s.compact) q.tables = compact_tables;
  fused_kernel<T, I>(s.small, s.compact, p.S)<<<static_cast<unsigned>(s.blocks), 32 * s.warps, s.smem, st>>>(
      u, w, q, g, kc);
  ADI_CUDA_CHECK_LAUNCH("fused_x_kernel");
}

#define ADI_FUSED_X(T, I)                                                                                      \
  template void launch_fused_x<T, I>(const T*, T*, const PlanView<T>&, const FusedGeom&, const RhsCoefficients<T>&, \
                                     const FusedLaunch&, const T*, cudaStream_t);                                 \
  template FusedLaunch fused_x_shape<T, I>(const FusedGeom&, const PlanView<T>&, int)
ADI_FUSED_X(float, 2);
ADI_FUSED_X(float, 4);
ADI_FUSED_X(float, 5);
ADI_FUSED_X(float, 8);
ADI_FUSED_X(float, 9);
ADI_FUSED_X(float, 16);
ADI_FUSED_X(float, 17);
ADI_FUSED_X(float, 32);
ADI_FUSED_X(float, 33);
ADI_FUSED_X(float, 64);
ADI_FUSED_X(double, 2);
ADI_FUSED_X(double, 4);
ADI_FUSED_X(double, 5);
ADI_FUSED_X(double, 8);
ADI_FUSED_X(double, 9);
ADI_FUSED_X(double, 16);
ADI_FUSED_X(double, 17);
ADI_FUSED_X(double, 32);
ADI_FUSED_X(double, 33);
ADI_FUSED_X(double, 64);
#undef ADI_FUSED_X

}  // namespace adi::cuda::kernels
