#pragma once
// The segmented line solve of the general path, device side: the kernel
// (general_lanes_kernel) and its helpers. Included once, by general_lanes.cu,
// which plans and launches it and says why it is built as it is; the
// anonymous namespace is that translation unit's.

#include "../async_copy.cuh"
#include "../kernels/line_kernels.cuh"
#include "fast_math.cuh"
#include "general_rows.cuh"
#include "general_lanes.hpp"

#include <cstdint>

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

}  // namespace

}  // namespace adi::cuda::general
