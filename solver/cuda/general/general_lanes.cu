// The segmented line solve of the general path: lines whose matrices differ
// from line to line (K and c fields), periodic lines, and constant lines with
// flux / Robin ends, every row computed on the fly from K and 1/c
// (LineRows, discrete.hpp) as the line is read: no coefficient arrays.
//
// Why: one thread per line (general_thomas_kernel) keeps c' in a scratch
// grid and sweeps the line twice, reading and writing 6-7 words per point
// instead of 3 (read d, K; write x), with few threads in flight (a small
// fraction of the copy bandwidth, docs/PERFORMANCE.md, "Material fields").
// Here a line of n rows is cut into S segments (S a power of two) of
// M = n / S or n / S + 1 rows, one per thread, held in registers, and each
// segment is eliminated locally (the partition method, Laszlo, Giles,
// Appleyard 2016, derived here for rows that differ):
//
//   forward,  rows j = 1 .. M-1 (row j couples x_{j-1}, x_j, x_{j+1}):
//     x_j + g_j x_{j+1} = d_j - al_j x_0          (x_M: the next segment's first)
//     g_j = c_j r, d_j = (d_j - a_j d_{j-1}) r, al_j = -a_j al_{j-1} r,
//     r = 1 / (b_j - a_j g_{j-1})                  (row 1: r = 1 / b_1, al_1 = a_1 r)
//   backward, rows j = M-2 .. 1, in terms of the segment's own ends:
//     x_j = e_j - s_j x_0 - t_j x_{M-1}
//     e_j = d_j - g_j e_{j+1}, s_j = al_j - g_j s_{j+1}, t_j = -g_j t_{j+1}
//     starting from row M-1 itself: (e, s, t) = (0, 0, -1)
//   row 0 with x_1 substituted:
//     a_0 r0 x_{-1} + x_0 - c_0 t_1 r0 x_{M-1} = (d_0 - c_0 e_1) r0,  r0 = 1 / (b_0 - c_0 s_1)
//   row M-1 from the forward sweep:
//     al_{M-1} x_0 + x_{M-1} + g_{M-1} x_M = d_{M-1}
//
// The 2S end unknowns of a line (first, last of segment 0, first, last of
// segment 1, ...) then satisfy a tridiagonal system: row 2s couples the
// previous segment's last (2s-1) and this segment's last (2s+1), row 2s+1
// this segment's first (2s) and the next segment's first (2s+2). Each
// thread substitutes its own first row and its successor's into its last
// row (one exchange), which leaves S equations in the S last unknowns, one
// per thread; they are solved by parallel cyclic reduction in shared memory
// (log2 S steps). On a periodic line row 0 couples node n-1 and row n-1 node
// 0: the same system closed into a ring, indices modulo S, no second pass
// over the data. Each thread then back-substitutes its interior from
// registers.
//
// Stability: for the diagonally dominant matrices of the scheme
// (b = 1 + theta dt (gm + gp + gr) >= |a| + |c| + 1), every pivot is >= 1 in
// the sweeps, |al|, |s|, |t|, |g| < 1, and PCR on a diagonally dominant
// system stays diagonally dominant, so no step amplifies rounding errors:
// the result agrees with the oracle's Thomas sweep to a few ulps of the
// line's values (CudaGeneral.IsEquivalentToRef*, 1e-12 / 1e-5 relative).
//
// The library's per-point solve (adi::cuda::solve_general / solve_cyclic)
// runs the same kernel with its rows read from the a, b, c arrays (Arrays):
// 4 words in, 1 out, staged through shared memory (stage_rows).
//
// Memory: a tile of L lines consecutive along the fastest other axis (64
// bytes of a row per segment where the block size allows, never below 32:
// whole sectors) by S segments; blocks are persistent and have their next
// tile's rows (d, K, 1/c, the accumulator) copied into shared memory with
// cp.async while they reduce and store this one (stage_fields; on a device
// without the shared memory for it, L2 prefetches instead; the staged form
// measured faster: docs/PERFORMANCE.md, "Material fields"). Each point moves
// d in and out plus K (and 1/c) in: 3 (4) words, 5 (6) with the fused update. Compiled
// with FMA contraction (unlike general_stepper.cu): round-off agreement is
// the contract here, not bit identity.

#include "../async_copy.cuh"
#include "../cuda_check.hpp"
#include "../kernels/line_kernels.cuh"
#include "fast_math.cuh"
#include "general_kernels.cuh"
#include "general_lanes.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace adi::cuda::general {

namespace {

// Threads per block, at most (L lines x S segments): the register file
// (64 K) then allows 128 registers a thread, which the I = 16 (fp32) and
// I = 8 (fp64) kernels need without spilling.
template <class T>
constexpr int max_threads() {
  return 512;
}
// Rows per segment, at most: ~3 values a row live in registers.
template <class T>
constexpr int max_rows() {
  return sizeof(T) == 8 ? 8 : 16;
}

// Address of row j of a line whose rows are row_bytes apart: one wide
// multiply-add with an immediate j (no 64-bit multiply per row).
template <class T>
__device__ __forceinline__ T* at_row(T* p, unsigned row_bytes, int j) {
  return reinterpret_cast<T*>(reinterpret_cast<char*>(p) + static_cast<unsigned long long>(row_bytes) * j);
}
template <class T>
__device__ __forceinline__ const T* at_row(const T* p, unsigned row_bytes, int j) {
  return reinterpret_cast<const T*>(reinterpret_cast<const char*>(p) + static_cast<unsigned long long>(row_bytes) * j);
}

// Row (a, b, c) of (I - theta dt A) at an interior node of the line (not a
// line end): gm, gp from the faces' means hm, hp (each computed once and
// shared by the face's two rows), s = inv_h2 / c_i: row_coupling
// (discrete.hpp) with both end flags false, written out.
template <class T>
__device__ __forceinline__ void interior_row(T hm, T hp, T s, T theta_dt, T& a, T& b, T& c) {
  const T gm = hm * s, gp = hp * s;
  a = -theta_dt * gm;
  c = -theta_dt * gp;
  b = T(1) + theta_dt * (gm + gp);
}

// Rows r0 .. r0+m-1 (and m_k + 1 of K, from r0 - 1) of a tile into L2,
// without registers: a block works on one tile at a time (the reduction
// needs the whole tile), so the next tile's rows, and the accumulator's rows
// of this one, are requested while this one is swept and reduced.
__device__ __forceinline__ void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}
template <class T, int I>
__device__ __forceinline__ void prefetch_rows(const T* p, unsigned row_bytes, int m) {
#pragma unroll
  for (int j = 0; j < I; ++j)
    if (j < m) prefetch_l2(reinterpret_cast<const char*>(p) + static_cast<unsigned long long>(row_bytes) * j);
}

// What a thread knows about its segment of the current line.
template <class T>
struct Seg {
  const T* w;    // row r0 of d
  const T* K;    // row r0 of K (nullptr: constant)
  const T* rho;  // row r0 of 1/c (nullptr: constant)
  unsigned rb;   // bytes between rows
  index_t r0, n;
  int M;
  bool full;  // rows r0 .. r0+M-1 all exist (no padding)
  T kconst, inv_h2, s_const, theta_dt;
  T ea, eb, ec, za, zb, zc;  // the line's rows 0 and n-1 (generic ends)
};

// Row j of the segment's forward sweep (see the file comment), the row's
// coefficients (ra, rb, rc) given; row 0 is kept for the reduction.
template <class T, int I>
__device__ __forceinline__ void eliminate(int j, int M, T ra, T rb, T rc, T (&dv)[I], T (&al)[I], T (&gv)[I], T& a0,
                                          T& b0, T& c0, T& lA, T& lC, T& lD) {
  if (j == 0) {
    a0 = ra, b0 = rb, c0 = rc;
  } else {
    const T piv = j == 1 ? rb : rb - ra * gv[j - 1];
    const T r = rcp(piv);
    gv[j] = rc * r;
    dv[j] = j == 1 ? dv[j] * r : (dv[j] - ra * dv[j - 1]) * r;
    al[j] = j == 1 ? ra * r : -ra * al[j - 1] * r;
    if (j == M - 1) lA = al[j], lC = gv[j], lD = dv[j];
  }
}

// Where a segment's rows come from: d, K and 1/c at row j of the segment
// (K also at j = -1 and j = I). GlobalRows reads them from the grid, K and
// 1/c through the read-only path (__ldg), which lets their loads move ahead
// of the sweep's arithmetic; SlotRows from the shared-memory slots
// stage_fields filled.
template <class T>
struct GlobalRows {
  static constexpr bool kZeroFilled = false;  // rows past the line's end must not be read
  const Seg<T>& g;
  __device__ __forceinline__ T d(int j) const { return *at_row(g.w, g.rb, j); }
  __device__ __forceinline__ T K(int j) const { return __ldg(at_row(g.K, g.rb, j)); }
  __device__ __forceinline__ T rho(int j) const { return __ldg(at_row(g.rho, g.rb, j)); }
};
template <class T, int I>
struct SlotRows {
  static constexpr bool kZeroFilled = true;  // rows past the line's end read 0
  const T *sd, *sK, *sr;  // row 0 of d, K and 1/c
  int threads;
  __device__ __forceinline__ SlotRows(const T* slot, int t)  // slot: stage + me
      : sd(slot), sK(slot + (I + 1) * t), sr(slot + (2 * I + 2) * t), threads(t) {}
  __device__ __forceinline__ T d(int j) const { return sd[j * threads]; }
  __device__ __forceinline__ T K(int j) const { return sK[j * threads]; }
  __device__ __forceinline__ T rho(int j) const { return sr[j * threads]; }
};

// The forward sweep of the segment (see the file comment), rows computed as
// they stream from src. Edge: the segment holds row 0, row n-1 or padding
// rows past it (warp-uniform in the common case; the others skip the
// selects).
template <class T, int I, bool Uniform, bool Edge, class Src>
__device__ __forceinline__ void forward(const Seg<T>& g, const Src& src, T (&dv)[I], T (&al)[I], T (&gv)[I], T& a0,
                                        T& b0, T& c0, T& lA, T& lC, T& lD) {
  const int M = Uniform ? I : g.M;
#pragma unroll
  for (int j = 0; j < I; ++j)
    if (j < M) dv[j] = (Src::kZeroFilled || !Edge || g.full || g.r0 + j < g.n) ? src.d(j) : T(0);
  T kcur = g.K ? ((!Edge || g.full || g.r0 < g.n) ? src.K(0) : T(1)) : g.kconst;
  T hlo = T(0);
  if (!Edge || g.r0 > 0) hlo = face_mean(g.K ? src.K(-1) : g.kconst, kcur);
#pragma unroll
  for (int j = 0; j < I; ++j) {
    if (j < M) {
      const index_t row = g.r0 + j;
      const bool next_in = !Edge || row + 1 < g.n;
      const T knext = g.K ? (next_in ? src.K(j + 1) : T(1)) : g.kconst;
      const T hhi = face_mean(kcur, knext);
      const T sj = g.rho ? ((!Edge || g.full || row < g.n) ? g.inv_h2 * src.rho(j) : T(0)) : g.s_const;
      T ra, rb, rc;
      interior_row(hlo, hhi, sj, g.theta_dt, ra, rb, rc);
      if (Edge) {
        if (row == 0) ra = g.ea, rb = g.eb, rc = g.ec;
        if (row == g.n - 1) ra = g.za, rb = g.zb, rc = g.zc;
        if (row >= g.n) ra = T(0), rb = T(1), rc = T(0);  // padding: identity
      }
      hlo = hhi;
      kcur = knext;
      eliminate<T, I>(j, M, ra, rb, rc, dv, al, gv, a0, b0, c0, lA, lC, lD);
    }
  }
}

// The rows a segment of the stepper's solve reads, staged into shared memory
// with cp.async while the block reduces and stores the previous tile (as
// stage_rows does for the library's arrays): d rows 0..I-1, K rows -1..I
// (the face means need each neighbour), 1/c rows 0..I-1, and the
// accumulator's rows 0..I-1 (the fused update u += x) in one of two slot
// sets, since this tile's are still to be added when the next tile's are
// requested. Slot k of thread `me`: stage[k T + me], T threads; rows off the
// line are zero-filled, never read. Per thread: each thread reads back only
// what it copied itself.
template <class T, int I>
__device__ __forceinline__ void stage_fields(T* stage, int threads, int me, const T* w, const T* K, const T* rho,
                                             const T* acc, int acc_set, index_t seg0, unsigned rb, index_t r0,
                                             index_t n, bool line) {
  T* slot = stage + me;
  const char* p = reinterpret_cast<const char*>(w + seg0);
#pragma unroll 1
  for (int j = 0; j < I; ++j, p += rb) {
    const bool v = line && r0 + j < n;
    cp_async(slot + j * threads, v ? reinterpret_cast<const T*>(p) : w, v);
  }
  if (K) {
    p = reinterpret_cast<const char*>(K + seg0) - rb;
#pragma unroll 1
    for (int j = -1; j <= I; ++j, p += rb) {
      const bool v = line && r0 + j >= 0 && r0 + j < n;
      cp_async(slot + (I + 1 + j) * threads, v ? reinterpret_cast<const T*>(p) : w, v);
    }
  }
  if (rho) {
    p = reinterpret_cast<const char*>(rho + seg0);
#pragma unroll 1
    for (int j = 0; j < I; ++j, p += rb) {
      const bool v = line && r0 + j < n;
      cp_async(slot + (2 * I + 2 + j) * threads, v ? reinterpret_cast<const T*>(p) : w, v);
    }
  }
  if (acc) {
    p = reinterpret_cast<const char*>(acc + seg0);
    T* a = slot + (3 * I + 2 + acc_set * I) * threads;
#pragma unroll 1
    for (int j = 0; j < I; ++j, p += rb) {
      const bool v = line && r0 + j < n;
      cp_async(a + j * threads, v ? reinterpret_cast<const T*>(p) : w, v);
    }
  }
}

// Rows of a line read from the library's coefficient arrays a, b, c (laid
// out like d) instead of computed: adi::cuda::solve_general / solve_cyclic.
// Off a ring, a at row 0 and c at row n-1 are not part of the system (the
// API ignores them, whatever they hold); on a ring they are its closure.
//
// The rows come from shared memory, where stage_rows put them with cp.async
// while the block was reducing and storing its previous tile: the 4 words a
// point that this solve reads stream in behind the barrier-bound reduction
// instead of stopping the sweep. (Reading them from global memory in the
// sweep, with L2 prefetches, kept DRAM well below its bandwidth with the
// traffic at its 5-word minimum: ncu, 1 block of 16 warps per SM, its warps
// waiting at the reduction's barriers and on loads.)
// Slot (q, j) of thread `me` is stage[(q I + j) T + me], T threads: each
// thread reads back only what it copied itself (no barrier), and a warp's
// reads of one slot are consecutive words (no bank conflict).
template <class T, int I>
__device__ __forceinline__ void stage_rows(T* stage, int threads, int me, const T* w, const ArrayRows<T>& R,
                                           index_t seg0, unsigned rb, int m) {
  // Rolled loops and a running address: the copies are issued while the
  // previous tile's sweep values fill the registers (unrolled, the 4 I
  // addresses spilled them in fp32).
  T* slot = stage + me;
#pragma unroll 1
  for (int q = 0; q < 4; ++q) {
    const char* p = reinterpret_cast<const char*>((q == 0 ? w : q == 1 ? R.a : q == 2 ? R.b : R.c) + seg0);
#pragma unroll 1
    for (int j = 0; j < I; ++j) {
      const bool v = j < m;  // rows past the line's end: zero-filled, nothing read
      cp_async(slot, v ? reinterpret_cast<const T*>(p) : w, v);
      p += rb;
      slot += threads;
    }
  }
}

// The arrays a contiguous tile copies, in slot order: d and the library's
// a, b, c, or (Fields) d, K and 1/c, the stepper's rows computed on the
// fly, where nullptr is a constant: nothing copied.
template <class T>
struct TileArrays {
  const T* p[4];
};

// stage_rows for lines whose rows are contiguous (the last axis of a
// C-ordered array): there a thread's own rows are I consecutive words and
// a warp's copy of one row touched 32 lines, 32 sectors for 32 words (far
// from the copy bandwidth). Instead the block copies the tile line by line,
// consecutive threads taking consecutive rows of one line (whole 128-byte
// lines per warp), each value into the slot of the thread that sweeps it:
// row r of line l is row j = r % I of segment s = r / I, slot
// (q I + j) pitch + s L + l. pitch = S L + 1: the j of a warp's 32 rows
// (I of them) then fall into distinct banks (bank = j + s L mod 32 for
// 4-byte words; for 8-byte words each half-warp's 16 are distinct), and the
// sweep's reads (a warp's consecutive slots) stay conflict-free. Uniform
// segments only (s = r / I). The slots are other threads': a barrier after
// the wait, and the next tile's copies only after a barrier that follows
// every thread's last read of this one.
template <class T, int I, bool Fields>
__device__ __forceinline__ void stage_rows_contig(T* stage, int pitch, int threads, int me, const T* w,
                                                  const TileArrays<T>& A, index_t tile0, index_t line_stride,
                                                  index_t lines_left, int S, int L, index_t n) {
  const int rows = S * I;  // a line's rows, padding included
#pragma unroll 1
  for (int it = 0; it < I; ++it) {
    const int k = it * threads + me;
    const int l = k / rows, r = k - l * rows;
    const bool v = l < lines_left && r < n;
    const index_t src = tile0 + l * line_stride + r;
    T* slot = stage + (r % I) * pitch + (r / I) * L + l;
#pragma unroll
    for (int q = 0; q < 4; ++q)
      if (Fields ? q < 3 && A.p[q] : true) cp_async(slot + q * I * pitch, v ? A.p[q] + src : w, v);
  }
}

// The same with 16-byte copies (V = 16 / sizeof(T) rows each), for lines
// and arrays aligned to them: a quarter of the copies and divisions. Each
// thread's slots are its I rows, consecutive (rows RS = I + V apart, 80
// bytes: the 16-byte reads of 8 threads, which the hardware serves
// together, then fall into 8 distinct groups of 4 banks), one array Q
// values after the other. A copy that runs past the line's end reads only
// the rows that exist and zero-fills the rest (src-size).
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, unsigned bytes) {
  const unsigned sp = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(sp), "l"(gmem), "r"(bytes) : "memory");
}

template <class T>
__device__ __forceinline__ void load_vec(const T* p, T (&v)[16 / sizeof(T)]) {
  if constexpr (sizeof(T) == 4) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  } else {
    const double2 q = *reinterpret_cast<const double2*>(p);
    v[0] = q.x, v[1] = q.y;
  }
}
template <class T>
__device__ __forceinline__ void store_vec(T* p, const T (&v)[16 / sizeof(T)]) {
  if constexpr (sizeof(T) == 4)
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  else
    *reinterpret_cast<double2*>(p) = make_double2(v[0], v[1]);
}

template <class T, int I, bool Fields>
__device__ __forceinline__ void stage_rows_vec(T* stage, index_t Q, int threads, int me, const T* w,
                                               const TileArrays<T>& A, index_t tile0, index_t line_stride,
                                               index_t lines_left, int S, int L, index_t n) {
  constexpr int V = 16 / sizeof(T), RS = I + V;
  const int chunks = S * I / V;  // of a line, padding included
#pragma unroll 1
  for (int it = 0; it < I / V; ++it) {
    const int k = it * threads + me;
    const int l = k / chunks, r = (k - l * chunks) * V;
    const index_t left = l < lines_left ? n - r : 0;
    const unsigned bytes = static_cast<unsigned>(left <= 0 ? 0 : left >= V ? V : left) * sizeof(T);
    const index_t src = tile0 + l * line_stride + r;
    T* slot = stage + ((r / I) * L + l) * RS + r % I;
#pragma unroll
    for (int q = 0; q < 4; ++q)
      if (Fields ? q < 3 && A.p[q] : true) cp_async16(slot + q * Q, bytes ? A.p[q] + src : w, bytes);
  }
}

// The stepper's rows of a segment from the slots of a contiguous tile
// (stage_rows_vec: Vec, a thread's rows consecutive, RS values a thread;
// stage_rows_contig: its rows pitch apart), read as forward asks for them
// (loading them all first spilled: ~50 values a thread): d, 1/c and K, K
// also at rows -1 and I, which are the neighbouring segments' (the slots
// of thread me -+ L) and exist wherever forward reads them (not before the
// line's first row nor past its last). With Vec a warp's reads are 16-byte
// vectors (at the RS pitch conflict-free, see stage_rows_vec; single words
// there would meet 4-way bank conflicts), each row's taken from its vector.
template <class T, int I, bool Vec>
struct ContigRows {
  static constexpr bool kZeroFilled = true;  // rows past the line's end read 0
  static constexpr int V = 16 / sizeof(T);
  const T* mine;  // this thread's row 0 of d
  index_t q;      // between the arrays' slots (d, K, 1/c)
  int rs;         // between a thread's consecutive rows (Vec: 1)
  int seg;        // to the same line's next segment
  __device__ __forceinline__ T at(const T* p, int j) const {
    if constexpr (Vec) {
      T x[V];
      load_vec<T>(p + (j / V) * V, x);
      return x[j % V];
    } else {
      return p[j * rs];
    }
  }
  __device__ __forceinline__ T d(int j) const { return at(mine, j); }
  __device__ __forceinline__ T K(int j) const {
    return j < 0 ? mine[q + (I - 1) * rs - seg] : j >= I ? mine[q + seg] : at(mine + q, j);
  }
  __device__ __forceinline__ T rho(int j) const { return at(mine + 2 * q, j); }
};

template <class T, int I, bool Vec>
__device__ __forceinline__ ContigRows<T, I, Vec> contig_rows(const T* stage, index_t q, int pitch, int me, int L) {
  constexpr int RS = I + 16 / static_cast<int>(sizeof(T));
  return Vec ? ContigRows<T, I, Vec>{stage + me * RS, q, 1, L * RS} : ContigRows<T, I, Vec>{stage + me, q, pitch, L};
}

// forward_arrays over the thread's own consecutive slots (stage_rows_vec):
// d read as vectors, a, b, c one vector per V rows. Uniform segments.
template <class T, int I, bool Edge, bool Cyclic>
__device__ __forceinline__ void forward_arrays_vec(const Seg<T>& g, const T* mine, index_t Q, T (&dv)[I],
                                                   T (&al)[I], T (&gv)[I], T& a0, T& b0, T& c0, T& lA, T& lC,
                                                   T& lD) {
  constexpr int V = 16 / sizeof(T);
#pragma unroll
  for (int v = 0; v < I / V; ++v) {
    T x[V];
    load_vec<T>(mine + v * V, x);
#pragma unroll
    for (int q = 0; q < V; ++q) dv[v * V + q] = x[q];  // 0 past the line's end
  }
  T va[V], vb[V], vc[V];
#pragma unroll
  for (int j = 0; j < I; ++j) {
    if (j % V == 0) {
      load_vec<T>(mine + Q + j, va);
      load_vec<T>(mine + 2 * Q + j, vb);
      load_vec<T>(mine + 3 * Q + j, vc);
    }
    const index_t row = g.r0 + j;
    const bool in = !Edge || g.full || row < g.n;
    T ra = va[j % V];
    T rb = in ? vb[j % V] : T(1);  // padding: identity
    T rc = vc[j % V];
    if (Edge && !Cyclic) {
      if (row == 0) ra = T(0);
      if (row == g.n - 1) rc = T(0);
    }
    eliminate<T, I>(j, I, ra, rb, rc, dv, al, gv, a0, b0, c0, lA, lC, lD);
  }
}

template <class T, int I, bool Uniform, bool Edge, bool Cyclic>
__device__ __forceinline__ void forward_arrays(const Seg<T>& g, const T* stage, int pitch, int me, T (&dv)[I],
                                               T (&al)[I], T (&gv)[I], T& a0, T& b0, T& c0, T& lA, T& lC, T& lD) {
  const int M = Uniform ? I : g.M;
#pragma unroll
  for (int j = 0; j < I; ++j)
    if (j < M) dv[j] = stage[j * pitch + me];  // 0 past the line's end
#pragma unroll
  for (int j = 0; j < I; ++j) {
    if (j < M) {
      const index_t row = g.r0 + j;
      const bool in = !Edge || g.full || row < g.n;
      T ra = stage[(I + j) * pitch + me];
      T rb = in ? stage[(2 * I + j) * pitch + me] : T(1);  // padding: identity
      T rc = stage[(3 * I + j) * pitch + me];
      if (Edge && !Cyclic) {
        if (row == 0) ra = T(0);
        if (row == g.n - 1) rc = T(0);
      }
      eliminate<T, I>(j, M, ra, rb, rc, dv, al, gv, a0, b0, c0, lA, lC, lD);
    }
  }
}

// Uniform: every segment has I rows (lines padded at the end with identity
// rows; on a ring n = S I exactly). Otherwise M = n / S or n / S + 1 rows
// (a ring whose n is no such product).
//
// Arrays: the rows come from R through the staging slots (stage_rows,
// forward_arrays), P holds only the grid's extents and strides.
template <class T, int I, bool Cyclic, bool Uniform, bool Arrays, bool Staged, int Contig = 0>
__global__ void __launch_bounds__(max_threads<T>())
    general_lanes_kernel(T* __restrict__ w, T* __restrict__ acc, GeneralParams<T> P, ArrayRows<T> R, int a,
                         index_t lines_u, index_t tiles_u, index_t tiles, unsigned row_bytes,
                         int* __restrict__ error) {
  extern __shared__ __align__(16) unsigned char gl_smem[];
  const int L = blockDim.x, S = blockDim.y, lane = threadIdx.x, s = threadIdx.y;
  // One row per segment and line: segment s of line l at s L + l. A warp
  // holds 32 / L consecutive segments of L lines: 32 consecutive words, and
  // the neighbours s -+ st of a reduction step too (no bank conflict).
  T* RA = reinterpret_cast<T*>(gl_smem);
  T* RB = RA + S * L;
  T* RC = RB + S * L;
  T* RD = RC + S * L;
  T* stage = RD + S * L;  // Arrays: 4 I S L values (stage_rows); Staged: (5 I + 2) S L (stage_fields)
  const int me = s * L + lane;
  const index_t n = P.n[a], stride = P.stride[a];
  const int p1 = a == 0 ? 1 : 0, p2 = a == 2 ? 1 : 2;
  Seg<T> g;
  g.rb = row_bytes;
  g.n = n;
  if (Uniform) {
    g.M = I;
    g.r0 = static_cast<index_t>(s) * I;
  } else {
    const index_t nb = n / S, rem = n % S;
    g.M = static_cast<int>(nb + (s < rem ? 1 : 0));
    g.r0 = s * nb + (s < rem ? s : rem);
  }
  const int M = Uniform ? I : g.M;
  g.full = g.r0 + M <= n;
  const bool edge = g.r0 == 0 || g.r0 + M > n - 1;
  g.kconst = P.kconst[a];
  g.inv_h2 = P.ends[a].inv_h2;
  g.s_const = g.inv_h2 * P.rho_const;
  g.theta_dt = P.theta_dt;

  // Rows of this thread's segment that exist (the padding rows of the last
  // segment are not loaded).
  const int m_real = static_cast<int>(g.r0 + M <= n ? M : n - g.r0);
  // The lines of tile t this thread copies (inactive lanes: nothing).
  auto stage_tile = [&](index_t t) {
    const index_t t2 = t / tiles_u, t1 = (t - t2 * tiles_u) * L + lane;
    const index_t base = (t1 < lines_u ? t1 : 0) * P.stride[p1] + t2 * P.stride[p2] + g.r0 * stride;
    stage_rows<T, I>(stage, S * L, me, w, R, base, row_bytes, t1 < lines_u ? m_real : 0);
    cp_async_commit();
  };
  // The rows of tile t this thread copies, the accumulator's into slot set `set`.
  auto stage_field_tile = [&](index_t t, int set) {
    const index_t t2 = t / tiles_u, t1 = (t - t2 * tiles_u) * L + lane;
    const index_t base = (t1 < lines_u ? t1 : 0) * P.stride[p1] + t2 * P.stride[p2] + g.r0 * stride;
    stage_fields<T, I>(stage, S * L, me, w, P.K[a], P.rho, acc, set, base, row_bytes, g.r0, n, t1 < lines_u);
    cp_async_commit();
  };
  // Contig (Uniform, rows one element apart): the tile copied line by line,
  // 1: word by word (stage_rows_contig), slots pitch S L + 1 apart; 2: 16
  // bytes at a time (stage_rows_vec), a thread's slots consecutive, RS
  // apart, Q an array. Arrays: d, a, b, c; Staged: d, K and 1/c (a
  // constant's slots unused), in place (no accumulator). Then the solution's
  // slots.
  const int pitch = Contig == 1 ? S * L + 1 : S * L;
  constexpr int RS = I + 16 / static_cast<int>(sizeof(T));
  const index_t Q = static_cast<index_t>(S) * L * RS;
  constexpr int kSlotArrays = Arrays ? 4 : 3;
  auto stage_tile_contig = [&](index_t t) {
    // Built here from the kernel's parameters: kept live across the loop,
    // the four pointers spilled registers.
    const TileArrays<T> tile_arrays = Arrays ? TileArrays<T>{{w, R.a, R.b, R.c}}
                                             : TileArrays<T>{{w, P.K[a], P.rho, nullptr}};
    const index_t t2 = t / tiles_u, l0 = (t - t2 * tiles_u) * L;
    const index_t tile0 = l0 * P.stride[p1] + t2 * P.stride[p2];
    if (Contig == 2)
      stage_rows_vec<T, I, !Arrays>(stage, Q, S * L, me, w, tile_arrays, tile0, P.stride[p1], lines_u - l0, S, L,
                                    n);
    else
      stage_rows_contig<T, I, !Arrays>(stage, pitch, S * L, me, w, tile_arrays, tile0, P.stride[p1], lines_u - l0, S,
                                       L, n);
    cp_async_commit();
  };
  if (Contig && blockIdx.x < tiles)
    stage_tile_contig(blockIdx.x);
  else if (Arrays && blockIdx.x < tiles)
    stage_tile(blockIdx.x);
  if (Staged && !Contig && blockIdx.x < tiles) stage_field_tile(blockIdx.x, 0);
  int set = 0;  // Staged: this tile's accumulator slots
  for (index_t tile = blockIdx.x; tile < tiles; tile += gridDim.x, set ^= 1) {
    const index_t c2 = tile / tiles_u, c1 = (tile - c2 * tiles_u) * L + lane;
    const bool active = c1 < lines_u;
    const index_t lbase = (active ? c1 : 0) * P.stride[p1] + c2 * P.stride[p2];
    const index_t seg0 = lbase + g.r0 * stride;
    if (!Staged && active && acc) prefetch_rows<T, I>(acc + seg0, row_bytes, m_real);
    if (!Arrays && !Staged && tile + gridDim.x < tiles) {
      const index_t t2 = tile + gridDim.x;
      const index_t d2 = t2 / tiles_u, e2 = (t2 - d2 * tiles_u) * L + lane;
      if (e2 < lines_u) {
        const index_t s2 = e2 * P.stride[p1] + d2 * P.stride[p2] + g.r0 * stride;
        prefetch_rows<T, I>(w + s2, row_bytes, m_real);
        if (P.K[a]) prefetch_rows<T, I>(P.K[a] + s2, row_bytes, m_real);
        if (P.rho) prefetch_rows<T, I>(P.rho + s2, row_bytes, m_real);
      }
    }
    T dv[I], al[I], gv[I];
    T fA = T(0), fC = T(0), fD = T(0), lA = T(0), lC = T(0), lD = T(0);
    if (Arrays || Staged) cp_async_wait<0>();  // this thread's copies of the tile have landed
    if (Contig) __syncthreads();                // and every other thread's (its slots were copied by others)
    if (active) {
      g.w = w + seg0;
      g.K = P.K[a] ? P.K[a] + seg0 : nullptr;
      g.rho = P.rho ? P.rho + seg0 : nullptr;
      g.ea = g.zc = T(0);
      g.eb = g.zb = T(1);
      g.ec = g.za = T(0);
      T a0 = T(0), b0 = T(1), c0 = T(0);
      if (Arrays) {
        if (Contig == 2 && edge)
          forward_arrays_vec<T, I, true, Cyclic>(g, stage + me * RS, Q, dv, al, gv, a0, b0, c0, lA, lC, lD);
        else if (Contig == 2)
          forward_arrays_vec<T, I, false, Cyclic>(g, stage + me * RS, Q, dv, al, gv, a0, b0, c0, lA, lC, lD);
        else if (edge)
          forward_arrays<T, I, Uniform, true, Cyclic>(g, stage, pitch, me, dv, al, gv, a0, b0, c0, lA, lC, lD);
        else
          forward_arrays<T, I, Uniform, false, Cyclic>(g, stage, pitch, me, dv, al, gv, a0, b0, c0, lA, lC, lD);
      } else if (edge) {
        // The line's end rows (Fixed, Mirror, Wrap) through the generic row
        // function (the oracle's), before the segment's registers fill up.
        const LineRows<T> rows{P, a, lbase};
        if (g.r0 == 0) rows.row(0, g.ea, g.eb, g.ec);
        if (g.r0 + M > n - 1) rows.row(n - 1, g.za, g.zb, g.zc);
        if (Contig)
          forward<T, I, Uniform, true>(g, contig_rows<T, I, Contig == 2>(stage, Contig == 2 ? Q : I * pitch, pitch, me, L),
                                       dv, al, gv, a0, b0, c0, lA, lC, lD);
        else if (Staged)
          forward<T, I, Uniform, true>(g, SlotRows<T, I>{stage + me, S * L}, dv, al, gv, a0, b0, c0, lA, lC, lD);
        else
          forward<T, I, Uniform, true>(g, GlobalRows<T>{g}, dv, al, gv, a0, b0, c0, lA, lC, lD);
      } else if (Contig) {
        forward<T, I, Uniform, false>(g, contig_rows<T, I, Contig == 2>(stage, Contig == 2 ? Q : I * pitch, pitch, me, L),
                                      dv, al, gv, a0, b0, c0, lA, lC, lD);
      } else if (Staged) {
        forward<T, I, Uniform, false>(g, SlotRows<T, I>{stage + me, S * L}, dv, al, gv, a0, b0, c0, lA, lC, lD);
      } else {
        forward<T, I, Uniform, false>(g, GlobalRows<T>{g}, dv, al, gv, a0, b0, c0, lA, lC, lD);
      }
      T en = T(0), sn = T(0), tn = T(-1);  // (e, s, t) of row M-1: x_{M-1} itself
#pragma unroll
      for (int j = I - 2; j >= 1; --j) {
        if (j <= M - 2) {
          const T e = dv[j] - gv[j] * en, sj = al[j] - gv[j] * sn, t = -gv[j] * tn;
          dv[j] = e;
          al[j] = sj;
          gv[j] = t;
          en = e;
          sn = sj;
          tn = t;
        }
      }
      const T q0 = rcp(b0 - c0 * sn);
      fA = a0 * q0;
      fC = -c0 * tn * q0;
      fD = (dv[0] - c0 * en) * q0;
    }
    // The tile's rows are in registers: the next tile's go into the same
    // slots while this one is reduced and stored.
    if (Arrays && Contig == 0 && tile + gridDim.x < tiles) stage_tile(tile + gridDim.x);
    if (Staged && !Contig && tile + gridDim.x < tiles) stage_field_tile(tile + gridDim.x, set ^ 1);
    // The reduced system, 2S rows per line, cut to S before any exchange of
    // reduction steps: with f_s = fD - fA l_{s-1} - fC l_s (this segment's
    // first row) and f_{s+1} from the next segment's first row, this
    // segment's last row becomes an equation in l_{s-1}, l_s, l_{s+1} only:
    //   (-lA fA) l_{s-1} + (1 - lA fC - lC fA') l_s + (-lC fC') l_{s+1}
    //        = lD - lA fD - lC fD'                        (' : segment s+1)
    // A tridiagonal system of the S last unknowns (on a ring, indices modulo
    // S), one row per thread. Off a ring, segment S-1 has lC = 0 (the line's
    // last row, or a padding row, has no upper neighbour) and segment 0 fA = 0.
    RA[me] = fA;
    RC[me] = fC;
    RD[me] = fD;
    __syncthreads();
    // Every thread has read its slots of this tile (before the barrier).
    if (Contig && tile + gridDim.x < tiles) stage_tile_contig(tile + gridDim.x);
    T ra, rb, rc, rd;
    {
      const bool has_next = Cyclic || s + 1 < S;
      const int nx = s + 1 < S ? s + 1 : 0;
      const T fAn = has_next ? RA[nx * L + lane] : T(0), fCn = has_next ? RC[nx * L + lane] : T(0),
              fDn = has_next ? RD[nx * L + lane] : T(0);
      ra = -lA * fA;
      rb = T(1) - lA * fC - lC * fAn;
      rc = -lC * fCn;
      rd = lD - lA * fD - lC * fDn;
      if (!active) ra = rc = rd = T(0), rb = T(1);
    }
    // Parallel cyclic reduction: row s minus k1 times row s - st minus k2
    // times row s + st removes its couplings to l_{s -+ st}; it then couples
    // l_{s -+ 2 st}. On a ring (S a power of two) after the step st = S / 2
    // a row couples only l_s, from both sides; off a ring, nothing.
    for (int st = 1; st < S; st *= 2) {
      __syncthreads();  // the previous reads of RA.. are done
      RA[me] = ra;
      RB[me] = rb;
      RC[me] = rc;
      RD[me] = rd;
      __syncthreads();
      int lo = s - st, hi = s + st;
      bool has_lo = lo >= 0, has_hi = hi < S;
      if (Cyclic) {
        lo &= S - 1;
        hi &= S - 1;
        has_lo = has_hi = true;
      }
      T k1 = T(0), k2 = T(0), la = T(0), lc = T(0), ld = T(0), ha = T(0), hc = T(0), hd = T(0);
      if (has_lo) {
        k1 = ra * rcp(RB[lo * L + lane]);
        la = RA[lo * L + lane];
        lc = RC[lo * L + lane];
        ld = RD[lo * L + lane];
      }
      if (has_hi) {
        k2 = rc * rcp(RB[hi * L + lane]);
        ha = RA[hi * L + lane];
        hc = RC[hi * L + lane];
        hd = RD[hi * L + lane];
      }
      const T na = -la * k1, nc = -hc * k2;
      rb = rb - lc * k1 - ha * k2;
      rd = rd - ld * k1 - hd * k2;
      ra = na;
      rc = nc;
    }
    // l_s; on a ring the last step's couplings point at l_s itself.
    const T l = rd * rcp(Cyclic ? ra + rb + rc : rb);
    __syncthreads();
    RD[me] = l;
    __syncthreads();
    const T lprev = Cyclic || s > 0 ? RD[(s > 0 ? s - 1 : S - 1) * L + lane] : T(0);  // off a ring fA = 0 at s = 0
    const T f = fD - fA * lprev - fC * l;
    __syncthreads();  // the shared rows are rewritten by the next tile
    // Row j of the segment's solution: its ends f and l, the interior from
    // the back substitution's (e, s, t) in dv, al, gv.
    const auto x_at = [&](int j) { return j == 0 ? f : j == M - 1 ? l : dv[j] - al[j] * f - gv[j] * l; };
    // Contig: the solution goes through slots too (after the inputs' slots,
    // which the next tile's copies are filling), then out line by line,
    // consecutive threads storing consecutive rows.
    T* xs = stage + kSlotArrays * (Contig == 2 ? Q : static_cast<index_t>(I) * pitch);
    if (Contig == 2) {
      constexpr int V = 16 / sizeof(T);
      if (active) {
        T chk = T(0);
#pragma unroll
        for (int v = 0; v < I / V; ++v) {
          T x[V];
#pragma unroll
          for (int q = 0; q < V; ++q) {
            const int j = v * V + q;
            x[q] = x_at(j);
            if (!edge || g.full || g.r0 + j < n) chk = fma(x[q], T(0), chk);
          }
          store_vec<T>(xs + me * RS + v * V, x);
        }
        if (chk != T(0)) atomicOr(error, kPivotErrorX << a);
      }
      __syncthreads();
      const index_t l0 = (tile - c2 * tiles_u) * L;
      const int chunks = S * I / V;
      T* tile_out = w + l0 * P.stride[p1] + c2 * P.stride[p2];
#pragma unroll 1
      for (int it = 0; it < I / V; ++it) {
        const int k = it * (S * L) + me;
        const int ll = k / chunks, r = (k - ll * chunks) * V;
        if (ll < lines_u - l0 && r < n) {
          T x[V];
          load_vec<T>(xs + ((r / I) * L + ll) * RS + r % I, x);
          T* o = tile_out + ll * P.stride[p1] + r;
          if (r + V <= n) {
            store_vec<T>(o, x);
          } else {
#pragma unroll
            for (int q = 0; q < V; ++q)
              if (r + q < n) o[q] = x[q];
          }
        }
      }
    }
    if (Contig == 1 && active) {
      T chk = T(0);
#pragma unroll
      for (int j = 0; j < I; ++j) {
        const T x = x_at(j);
        if (!edge || g.full || g.r0 + j < n) chk = fma(x, T(0), chk);
        xs[j * pitch + me] = x;
      }
      if (chk != T(0)) atomicOr(error, kPivotErrorX << a);
    }
    if (Contig == 1) {
      __syncthreads();
      const index_t l0 = (tile - c2 * tiles_u) * L;
      const int rows = S * I;
      T* tile_out = w + l0 * P.stride[p1] + c2 * P.stride[p2];
#pragma unroll 1
      for (int it = 0; it < I; ++it) {
        const int k = it * (S * L) + me;
        const int ll = k / rows, r = k - ll * rows;
        if (ll < lines_u - l0 && r < n) tile_out[ll * P.stride[p1] + r] = xs[(r % I) * pitch + (r / I) * L + ll];
      }
    }
    if (Contig == 0 && active) {
      // A zero or non-finite pivot anywhere (sweeps, reduction) leaves an
      // infinity or NaN in the solution: chk = sum of 0 * x is NaN then.
      T chk = T(0);
      T* out = (acc ? acc : w) + seg0;
      const T* sacc = stage + (3 * I + 2 + set * I) * (S * L) + me;  // Staged: this tile's accumulator rows
#pragma unroll
      for (int j = 0; j < I; ++j) {
        if (j < M && (!edge || g.full || g.r0 + j < n)) {
          const T x = x_at(j);
          chk = fma(x, T(0), chk);
          T* o = at_row(out, row_bytes, j);
          if (acc)
            *o = (Staged ? sacc[j * (S * L)] : *o) + x;
          else
            *o = x;
        }
      }
      if (chk != T(0)) atomicOr(error, kPivotErrorX << a);
    }
  }
}

// Dynamic shared memory of a block: the reduction's 4 rows per thread, and
// with array rows the staging slots of 4 I values per thread (stage_rows);
// with staged field rows 5 I + 2 (stage_fields).
enum class Rows { Computed, Arrays, Staged };
template <class T>
std::size_t lanes_smem(const LanesShape& sh, int I, Rows rows, int contig = 0) {
  const std::size_t SL = static_cast<std::size_t>(sh.S) * sh.L;
  if (contig) {
    // Contiguous lines: the inputs' slots (d, a, b, c or d, K, 1/c) and
    // the solution's; 16-byte copies: RS = I + V values a thread, word by
    // word: I slot rows of pitch S L + 1.
    const std::size_t arrays = (rows == Rows::Arrays ? 4 : 3) + 1;
    const std::size_t per = contig == 2 ? (static_cast<std::size_t>(I) + 16 / sizeof(T)) * SL : I * (SL + 1);
    return (4 * SL + arrays * per) * sizeof(T);
  }
  const std::size_t slots = rows == Rows::Arrays ? 4 * static_cast<std::size_t>(I)
                            : rows == Rows::Staged ? 5 * static_cast<std::size_t>(I) + 2
                                                   : 0;
  return (4 + slots) * SL * sizeof(T);
}

// Threads of a block that stages the stepper's contiguous lines (x) tile
// by tile: its slots (4 arrays of I rows a thread, 84 KB fp32 at I = 16)
// then let two blocks share a multiprocessor, so one block's copies and
// stores overlap the other's barrier-bound reduction. The tile's width in
// lines no longer matters for coalescing there (a line is copied whole).
constexpr int kContigThreads = 256;

template <class T>
LanesShape contig_shape(LanesShape sh) {
  sh.L = std::clamp(kContigThreads / sh.S, 1, sh.L);
  return sh;
}

// The kernel for a line kind: rows from arrays, staged or computed from
// global memory, ring or not, uniform segments or balanced ones (rings only).
template <class T, int I, bool Arrays, bool Staged>
auto lanes_kernel_for(bool cyclic, bool uniform) {
  return cyclic && uniform ? general_lanes_kernel<T, I, true, true, Arrays, Staged>
         : cyclic          ? general_lanes_kernel<T, I, true, false, Arrays, Staged>
                           : general_lanes_kernel<T, I, false, true, Arrays, Staged>;
}

// Whether the device gives a block `smem` bytes of shared memory (opt-in).
inline bool smem_fits(std::size_t smem) {
  int dev = 0, optin = 0;
  ADI_CUDA_CHECK(cudaGetDevice(&dev));
  ADI_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  return smem <= static_cast<std::size_t>(optin);
}

// Lines whose rows are contiguous (x), in uniform segments, solved in place
// or from arrays: the tile is copied line by line, 16 bytes at a time (2)
// where every array, line and plane starts on 16 bytes and the slots fit
// (stage_rows_vec), else word by word (1, stage_rows_contig); 0: not
// contiguous, or with an accumulator (the fused update stages it per
// thread). sh: the block shape the launch will use.
template <class T>
int contig_mode(const GeneralParams<T>& P, const ArrayRows<T>* R, const T* w, const T* acc, int a,
                const LanesShape& sh) {
  if (!sh.uniform || P.stride[a] != 1 || acc) return 0;
  const Rows rows = R ? Rows::Arrays : Rows::Staged;
  const index_t V = 16 / sizeof(T);
  const auto al16 = [](const void* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; };
  const int p1 = a == 0 ? 1 : 0, p2 = a == 2 ? 1 : 2;
  const bool aligned = R ? al16(w) && al16(R->a) && al16(R->b) && al16(R->c)
                         : al16(w) && al16(P.K[a]) && al16(P.rho);  // nullptr is aligned
  if (sh.I % V == 0 && aligned && (P.n[p1] == 1 || P.stride[p1] % V == 0) &&
      (P.n[p2] == 1 || P.stride[p2] % V == 0) && smem_fits(lanes_smem<T>(sh, sh.I, rows, 2)))
    return 2;
  return smem_fits(lanes_smem<T>(sh, sh.I, rows, 1)) ? 1 : 0;
}

template <class T, int I>
void launch_i(T* w, T* acc, const GeneralParams<T>& P, const ArrayRows<T>* R, int a, bool cyclic,
              const LanesShape& shape, int contig, unsigned row_bytes, int* error, cudaStream_t st) {
  LanesShape sh = shape;
  // The stepper's rows staged through shared memory where the device has
  // it (sm_80+), else read from global memory behind L2 prefetches.
  const Rows rows = R                                                          ? Rows::Arrays
                    : contig || smem_fits(lanes_smem<T>(sh, I, Rows::Staged)) ? Rows::Staged
                                                                              : Rows::Computed;
  // Persistent blocks, as many as fit at once (each then prefetches its
  // next tile while working on the current one).
  int per_sm = 1, dev = 0, sms = 1;
  const bool arrays = R != nullptr;
  const auto fn = contig == 2 && arrays ? (cyclic ? general_lanes_kernel<T, I, true, true, true, false, 2>
                                                  : general_lanes_kernel<T, I, false, true, true, false, 2>)
                  : contig == 1 && arrays ? (cyclic ? general_lanes_kernel<T, I, true, true, true, false, 1>
                                                    : general_lanes_kernel<T, I, false, true, true, false, 1>)
                  : contig == 2 ? (cyclic ? general_lanes_kernel<T, I, true, true, false, true, 2>
                                          : general_lanes_kernel<T, I, false, true, false, true, 2>)
                  : contig == 1 ? (cyclic ? general_lanes_kernel<T, I, true, true, false, true, 1>
                                          : general_lanes_kernel<T, I, false, true, false, true, 1>)
                  : rows == Rows::Arrays ? lanes_kernel_for<T, I, true, false>(cyclic, sh.uniform)
                  : rows == Rows::Staged ? lanes_kernel_for<T, I, false, true>(cyclic, sh.uniform)
                                         : lanes_kernel_for<T, I, false, false>(cyclic, sh.uniform);
  // Lines a tile, for the stepper's lines whose rows are a row or a plane
  // apart (y, z): half as many (32 bytes of a row per segment instead of
  // 64) where that lets a quarter more warps reside on an SM. A block is
  // one reduction (barriers across all its warps), 128 registers a thread;
  // at 257 rows (17 segments of 16 lines: 272 threads) one block of 8.5
  // warps fit an SM, with 8 lines three of 136 threads, and the y and z
  // solves measured faster. Where the warps stay the same (512 rows: one
  // block of 16 warps or two of 8) the narrower rows only cost
  // (docs/PERFORMANCE.md, "Material fields"; "Tried and rejected").
  const auto warps_per_sm = [&](const LanesShape& s) {
    const int t = s.L * s.S;
    return kernels::resident_blocks(fn, t, lanes_smem<T>(s, I, rows, contig)) * ((t + 31) / 32);
  };
  if (!arrays && !contig && sh.L > 1) {
    LanesShape half = sh;
    half.L /= 2;
    if (4 * warps_per_sm(half) >= 5 * warps_per_sm(sh)) sh = half;
  }
  const std::size_t smem = lanes_smem<T>(sh, I, rows, contig);
  const dim3 block(static_cast<unsigned>(sh.L), static_cast<unsigned>(sh.S));
  const int p1 = a == 0 ? 1 : 0, p2 = a == 2 ? 1 : 2;
  const index_t lines_u = P.n[p1];
  const index_t tiles_u = (lines_u + sh.L - 1) / sh.L;
  const index_t tiles = tiles_u * P.n[p2];
  per_sm = kernels::resident_blocks(fn, sh.L * sh.S, smem);
  ADI_CUDA_CHECK(cudaGetDevice(&dev));
  ADI_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  if (per_sm < 1)
    ADI_THROW(BackendUnavailable, "general segmented kernel: a block of " + std::to_string(sh.L * sh.S) +
                                      " threads does not fit on a multiprocessor");
  const index_t blocks = std::min<index_t>(tiles, static_cast<index_t>(per_sm) * sms);
  fn<<<static_cast<unsigned>(blocks), block, smem, st>>>(w, acc, P, R ? *R : ArrayRows<T>{}, a, lines_u, tiles_u,
                                                         tiles, row_bytes, error);
  ADI_CUDA_CHECK_LAUNCH("general_lanes_kernel");
}

// launch_i for the line length's segment rows.
template <class T>
void launch_shape(T* w, T* acc, const GeneralParams<T>& P, const ArrayRows<T>* R, int a, bool cyclic,
                  const LanesShape& shape, int* error, cudaStream_t st) {
  // The stepper's contiguous lines in blocks of about kContigThreads.
  LanesShape sh = shape;
  int contig = 0;
  if (R) {
    contig = contig_mode<T>(P, R, w, acc, a, sh);
  } else {
    const LanesShape c = contig_shape<T>(sh);
    contig = contig_mode<T>(P, nullptr, w, acc, a, c);
    if (contig) sh = c;
  }
  const unsigned rb = static_cast<unsigned>(P.stride[a] * static_cast<index_t>(sizeof(T)));
  constexpr int imax = max_rows<T>();
  switch (sh.I) {
    case 4: launch_i<T, 4>(w, acc, P, R, a, cyclic, sh, contig, rb, error, st); break;
    case 8: launch_i<T, 8>(w, acc, P, R, a, cyclic, sh, contig, rb, error, st); break;
    default: launch_i<T, imax>(w, acc, P, R, a, cyclic, sh, contig, rb, error, st); break;
  }
}

// Lines per block: 64 bytes of a row per segment (two full sectors: with 32
// bytes the z solve, whose rows are a plane apart, ran at half the y solve's
// bandwidth), fewer when S is large, at least 32 bytes. launch_i halves it
// for the stepper's y and z lines where more warps then reside on an SM.
template <class T>
int lines_per_block(int S) {
  const int min_l = static_cast<int>(32 / sizeof(T));
  int L = std::max(static_cast<int>(64 / sizeof(T)), std::min(32, max_threads<T>() / 2 / S));
  while (L > min_l && L * S > max_threads<T>()) L /= 2;
  return L;
}

}  // namespace

template <class T>
LanesShape lanes_shape(index_t n, bool cyclic) {
  LanesShape sh;
  if (n < 2) return sh;
  constexpr int imax = max_rows<T>(), smax = 128;
  if (!cyclic) {
    // Segments of I rows, the line padded at its end to S I rows.
    sh.I = n >= 8 * imax ? imax : n >= 16 ? 8 : 4;
    const index_t S = (n + sh.I - 1) / sh.I;
    if (S > smax) return LanesShape{};  // longer lines: one line per thread
    sh.S = static_cast<int>(S);
    sh.uniform = true;
  } else {
    // A ring needs S a power of two (the reduction closes after log2 S
    // steps) and no padding: n = S I exactly, or balanced segments.
    for (int I : {16, 8, 4})
      if (I <= imax && n % I == 0 && n / I <= smax && ((n / I) & (n / I - 1)) == 0) {
        sh.I = I;
        sh.S = static_cast<int>(n / I);
        sh.uniform = true;
        break;
      }
    if (!sh.uniform) {
      // The fewest segments with at most imax rows each (at least 2 rows
      // each: S > 1 only when n > imax S / 2).
      int S = 1;
      while (S <= smax && (n + S - 1) / S > imax) S *= 2;
      if (S > smax) return LanesShape{};
      const index_t m = (n + S - 1) / S;
      sh.I = m <= 4 ? 4 : m <= 8 ? 8 : 16;
      sh.S = S;
    }
  }
  sh.L = lines_per_block<T>(sh.S);
  if (sh.L * sh.S > max_threads<T>()) return LanesShape{};
  return sh;
}

template <class T>
bool lanes_fit(const GeneralParams<T>& P, int a, bool cyclic) {
  const unsigned long long rb = static_cast<unsigned long long>(P.stride[a]) * sizeof(T);
  return lanes_shape<T>(P.n[a], cyclic).S > 0 && rb < (1ull << 31);
}

template <class T>
bool lanes_in_place(const GeneralParams<T>& P, int a, bool cyclic) {
  const LanesShape sh = lanes_shape<T>(P.n[a], cyclic);
  if (!lanes_fit(P, a, cyclic) || !sh.uniform || P.stride[a] != 1) return false;
  return smem_fits(lanes_smem<T>(contig_shape<T>(sh), sh.I, Rows::Staged, 1));
}

template <class T>
void launch_general_lanes(T* w, T* acc, const GeneralParams<T>& P, int a, bool cyclic, int* error,
                          cudaStream_t st) {
  const LanesShape sh = lanes_shape<T>(P.n[a], cyclic);
  ADI_REQUIRE(sh.S > 0 && lanes_fit(P, a, cyclic),
              "general segmented kernel: line of " + std::to_string(P.n[a]) + " rows does not fit");
  launch_shape<T>(w, acc, P, nullptr, a, cyclic, sh, error, st);
}

template <class T>
bool launch_array_lanes(const ArrayRows<T>& R, T* d, const Layout3& L, int axis, bool cyclic, int* error,
                        cudaStream_t st) {
  const LanesShape sh = lanes_shape<T>(L.n[axis], cyclic);
  if (sh.S == 0 || static_cast<unsigned long long>(L.stride[axis]) * sizeof(T) >= (1ull << 31)) return false;
  // The staging slots (at most 4 x 16 x 512 fp32 or 4 x 8 x 512 fp64 values,
  // 128 KiB + the reduction's 8 / 16 KiB; contiguous lines another 32 KiB
  // for the solution's slots) need the opt-in shared memory of sm_80+; a
  // device with less takes the one-thread-per-line kernels.
  if (!smem_fits(lanes_smem<T>(sh, sh.I, Rows::Arrays, sh.uniform && L.stride[axis] == 1 ? 1 : 0))) return false;
  // The kernel solves lines of its axis 1 (y), tiles of L lines consecutive
  // along its axis 0 (x), tiles stacked along its axis 2 (z): the line axis
  // goes to slot 1, the other axis with the smaller stride to slot 0, so
  // that a tile's lines are neighbours in memory whatever the layout.
  const int o1 = (axis + 1) % 3, o2 = (axis + 2) % 3;
  const int u = L.stride[o1] <= L.stride[o2] ? o1 : o2, v = u == o1 ? o2 : o1;
  GeneralParams<T> P;
  const int from[3] = {u, axis, v};
  for (int q = 0; q < 3; ++q) {
    P.n[q] = L.n[from[q]];
    P.stride[q] = L.stride[from[q]];
    P.flat[q] = P.n[q] == 1;
  }
  launch_shape<T>(d, nullptr, P, &R, 1, cyclic, sh, error, st);
  return true;
}

template LanesShape lanes_shape<float>(index_t, bool);
template LanesShape lanes_shape<double>(index_t, bool);
template bool lanes_fit<float>(const GeneralParams<float>&, int, bool);
template bool lanes_fit<double>(const GeneralParams<double>&, int, bool);
template bool lanes_in_place<float>(const GeneralParams<float>&, int, bool);
template bool lanes_in_place<double>(const GeneralParams<double>&, int, bool);
template bool launch_array_lanes<float>(const ArrayRows<float>&, float*, const Layout3&, int, bool, int*,
                                        cudaStream_t);
template bool launch_array_lanes<double>(const ArrayRows<double>&, double*, const Layout3&, int, bool, int*,
                                         cudaStream_t);
template void launch_general_lanes<float>(float*, float*, const GeneralParams<float>&, int, bool, int*, cudaStream_t);
template void launch_general_lanes<double>(double*, double*, const GeneralParams<double>&, int, bool, int*,
                                           cudaStream_t);

}  // namespace adi::cuda::general
