#pragma once
// Device side of the segmented plan (adi/segmented.hpp): the per-thread
// modified Thomas sweeps over a segment held in registers, and the reduced
// system solved by two affine scans across the S threads that own a line's
// segments (shuffles of width S: several lines can share a warp).
//
// The plan's tables are copied once per block into shared memory, in the
// layout they are read in (see plan_tables): the five per-row tables
// segment-major with a row pitch of I + 1 words, so a thread's reads are
// base + j with j a compile-time immediate (one LDS each, no address
// arithmetic), and lanes that own different segments read words I + 1 apart
// (I even, so I + 1 odd: 32 distinct banks for 4-byte, 16 distinct bank
// pairs per half-warp for 8-byte words); lanes that own the same segment
// read one broadcast word.

#include "float_pair.cuh"

#include <adi/segmented.hpp>

#include <cuda_runtime.h>

#include <cstring>
#include <vector>

namespace adi::cuda {

/// Offsets (in elements) of the tables in the flat layout shared by device
/// memory and the per-block shared-memory copy. A periodic line (ring) has a
/// sixth per-row table after the reduced system's: the Sherman-Morrison
/// vector z (adi::CyclicSplit), segment-major with the same pitch, so that
/// lanes owning different segments read it from distinct banks too.
struct TableLayout {
  int S = 0, I = 0;
  bool ring = false;
  __host__ __device__ constexpr int pitch() const { return I + 1; }
  __host__ __device__ constexpr int fw_mul() const { return 0; }
  __host__ __device__ constexpr int fw_ms() const { return S * pitch(); }
  __host__ __device__ constexpr int bw_c() const { return 2 * S * pitch(); }
  __host__ __device__ constexpr int fin_a() const { return 3 * S * pitch(); }
  __host__ __device__ constexpr int fin_c() const { return 4 * S * pitch(); }
  __host__ __device__ constexpr int bw0() const { return 5 * S * pitch(); }
  __host__ __device__ constexpr int red_inv() const { return bw0() + S; }
  __host__ __device__ constexpr int red_a() const { return red_inv() + 2 * S; }
  __host__ __device__ constexpr int red_c() const { return red_a() + 2 * S; }
  __host__ __device__ constexpr int ring_z() const { return red_c() + 2 * S; }
  /// Total, rounded up to 16 bytes for the block copy.
  __host__ __device__ constexpr int total(int elem_bytes) const {
    const int n = ring_z() + (ring ? S * pitch() : 0), per = 16 / elem_bytes;
    return (n + per - 1) / per * per;
  }
};

/// Flattens a plan into the TableLayout order; with `ring`, the plan is of
/// ring->tridiag and z follows.
template <class T>
std::vector<T> plan_tables(const SegmentedPlan<T>& plan, const CyclicSplit* ring = nullptr) {
  TableLayout L{plan.segments, plan.seg_len, ring != nullptr};
  std::vector<T> t(static_cast<std::size_t>(L.total(sizeof(T))), T(0));
  for (int s = 0; s < L.S; ++s)
    for (int j = 0; j < L.I; ++j) {
      const std::size_t src = static_cast<std::size_t>(s) * L.I + j, dst = static_cast<std::size_t>(s) * L.pitch() + j;
      t[L.fw_mul() + dst] = plan.fw_mul[src];
      t[L.fw_ms() + dst] = plan.fw_ms[src];
      t[L.bw_c() + dst] = plan.bw_c[src];
      t[L.fin_a() + dst] = plan.fin_a[src];
      t[L.fin_c() + dst] = plan.fin_c[src];
    }
  for (int s = 0; s < L.S; ++s) t[L.bw0() + s] = plan.bw0_mul[s];
  for (int r = 0; r < 2 * L.S; ++r) {
    t[L.red_inv() + r] = plan.red_inv[r];
    t[L.red_a() + r] = plan.red_a[r];
    t[L.red_c() + r] = plan.red_c[r];
  }
  if (ring)
    for (index_t r = 0; r < plan.n; ++r)
      t[L.ring_z() + (r / L.I) * L.pitch() + r % L.I] = static_cast<T>(ring->z[static_cast<std::size_t>(r)]);
  return t;
}

/// What a kernel gets: the tables in device memory and the line geometry.
/// On a ring (periodic line) also the Sherman-Morrison scalars and where
/// row n-1 lives: segment last_seg, row last_row of it (inside the segment
/// when the line is ragged, so known only after the back substitution).
template <class T>
struct PlanView {
  const T* tables;
  int n;  // rows of the real line
  int I;  // rows per segment (the kernel's compile-time I must equal it)
  int S;  // segments per line
  int ring = 0;
  T phi = T(0), psi = T(0);
  int last_seg = 0, last_row = 0;
  __host__ __device__ TableLayout layout() const { return TableLayout{S, I, ring != 0}; }
};

/// Block-cooperative copy of the tables into shared memory (16-byte steps);
/// the caller synchronises before use.
template <class T>
__device__ __forceinline__ void stage_tables(const T* tables, int elems, T* smem) {
  const int n16 = elems * static_cast<int>(sizeof(T)) / 16;
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int nthreads = blockDim.x * blockDim.y * blockDim.z;
  const float4* src = reinterpret_cast<const float4*>(tables);
  float4* dst = reinterpret_cast<float4*>(smem);
  for (int q = tid; q < n16; q += nthreads) dst[q] = src[q];
}
/// The plan's tables (TableLayout::total elements).
template <class T>
__device__ __forceinline__ void stage_tables(const PlanView<T>& p, T* smem) {
  stage_tables(p.tables, p.layout().total(sizeof(T)), smem);
}

/// This thread's segment's row tables (shared-memory pointers).
template <class T>
struct SegmentView {
  const T* fm;
  const T* fs;
  const T* bc;
  const T* fa;
  const T* fc;
  T bw0;
  const T* red_inv;
  const T* red_a;
  const T* red_c;
};

/// The row tables of the "interior" segments, passed by value as a kernel
/// parameter (`const __grid_constant__`): with a constant-coefficient matrix
/// every segment whose rows are all interior rows of the line (not the first
/// segment with the boundary row, not the ones holding row n-1 or padding)
/// has the same local block, hence bit-identical tables. A warp whose
/// segment is in `mask` reads them from the constant bank at compile-time
/// offsets, as FFMA operands: no shared-memory load and no address
/// arithmetic per row (the shared tables cost five LDS per element, which
/// made the fp32 solves issue-bound). The arithmetic is the same, so the
/// result is bit-identical to the shared-table path.
template <class T, int I>
struct SegmentConsts {
  // The same names as SegmentView's: local_sweeps / finish_segment read
  // v.fm[j] ... from either.
  T fm[I], fs[I], bc[I], fa[I], fc[I];
  T bw0;
  unsigned mask;  ///< bit s: segment s's tables equal these bit for bit
};

/// Whether segments s and r have the same row tables and bw0 bit for bit
/// (memcmp: -0.0 and NaN payloads count as different), in a flattened plan
/// (plan_tables' layout).
template <class T>
bool same_segment_tables(const std::vector<T>& tables, const TableLayout& L, int s, int r) {
  const int offs[5] = {L.fw_mul(), L.fw_ms(), L.bw_c(), L.fin_a(), L.fin_c()};
  bool same = std::memcmp(&tables[L.bw0() + s], &tables[L.bw0() + r], sizeof(T)) == 0;
  for (int t = 0; t < 5 && same; ++t)
    same = std::memcmp(&tables[offs[t] + s * L.pitch()], &tables[offs[t] + r * L.pitch()], sizeof(T) * L.I) == 0;
  return same;
}
template <class T>
bool same_tables_as_segment1(const std::vector<T>& tables, const TableLayout& L, int s) {
  return same_segment_tables(tables, L, s, 1);
}

/// Bit s set when segment s's row tables (and bw0) equal segment 1's bit for
/// bit, for a flattened plan in plan_tables' layout. 0 for S < 3 (no interior
/// segment to share).
template <class T>
unsigned interior_segment_mask(const std::vector<T>& tables, int I, int S) {
  const TableLayout L{S, I};
  if (S < 3 || tables.size() < static_cast<std::size_t>(L.total(sizeof(T)))) return 0;
  unsigned mask = 0;
  for (int s = 0; s < S; ++s)
    if (same_tables_as_segment1(tables, L, s)) mask |= 1u << s;
  return mask;
}

/// SegmentConsts holding segment 1's tables (from a flattened plan) and the
/// given mask (interior_segment_mask, computed once per plan).
template <class T, int I>
SegmentConsts<T, I> segment_consts(const std::vector<T>& tables, int S, unsigned mask) {
  SegmentConsts<T, I> c{};
  if (mask == 0) return c;
  const TableLayout L{S, I};
  const int offs[5] = {L.fw_mul(), L.fw_ms(), L.bw_c(), L.fin_a(), L.fin_c()};
  T* dst[5] = {c.fm, c.fs, c.bc, c.fa, c.fc};
  for (int t = 0; t < 5; ++t) std::memcpy(dst[t], &tables[offs[t] + L.pitch()], sizeof(T) * I);
  c.bw0 = tables[L.bw0() + 1];
  c.mask = mask;
  return c;
}

/// The tables of a constant-coefficient plan with one copy of the interior
/// segments' row tables: segment 0, one interior segment (all of 1 ..
/// s_tail - 1 are bit for bit segment 1: interior_segment_mask), and the
/// tail s_tail .. S - 1 (the segments holding row n - 1 or padding) in two
/// slots: s_tail, then s_tail + 1, which every later segment must equal bit
/// for bit (only padding, identity rows: 257 rows in 32 segments of 9 have
/// row 256 in segment 28 and 29 .. 31 all padding); the five row tables and
/// bw0 laid out as a TableLayout of Sc = 4
/// segments (a fixed count, so that every offset but the segment's is a
/// compile-time constant), then the reduced system's three tables of 2 S rows
/// each. For S = 32 segments of 32-33 rows, 45 KB (fp64) become ~7 KB, which
/// is what lets the fused RHS + x kernel keep fp64 lines of ~1000 rows 5 to
/// a block (kernels/fused_x_kernel.cu).
struct CompactTables {
  static constexpr int kSlots = 4;
  int S = 0, I = 0, s_tail = 0;
  __host__ __device__ constexpr int Sc() const { return kSlots; }
  __host__ __device__ int slot(int s) const {
    return s == 0 ? 0 : s < s_tail ? 1 : s - s_tail < kSlots - 2 ? 2 + s - s_tail : kSlots - 1;
  }
  __host__ __device__ constexpr TableLayout rows() const { return TableLayout{Sc(), I}; }
  __host__ __device__ constexpr int red_inv() const { return rows().bw0() + Sc(); }
  __host__ __device__ constexpr int total(int elem_bytes) const {
    const int n = red_inv() + 6 * S, per = 16 / elem_bytes;
    return (n + per - 1) / per * per;
  }
};

/// The compact tables of a flattened plan (plan_tables' layout, no ring), or
/// an empty vector when the interior segments are not 1 .. s_tail - 1 of one
/// table; `c` receives the layout.
template <class T>
std::vector<T> compact_tables(const std::vector<T>& tables, int I, int S, CompactTables& c) {
  const TableLayout L{S, I};
  c = CompactTables{S, I, 0};
  if (S < 3 || tables.size() < static_cast<std::size_t>(L.total(sizeof(T)))) return {};
  int tail = 1;
  while (tail < S && same_tables_as_segment1(tables, L, tail)) ++tail;
  if (tail < 2) return {};
  // Segments past the last slot's first must be copies of it.
  for (int s = tail + CompactTables::kSlots - 2; s < S; ++s)
    if (!same_segment_tables(tables, L, s, tail + CompactTables::kSlots - 3)) return {};
  c.s_tail = tail;
  const TableLayout R = c.rows();
  std::vector<T> t(static_cast<std::size_t>(c.total(sizeof(T))), T(0));
  const int offs[5] = {L.fw_mul(), L.fw_ms(), L.bw_c(), L.fin_a(), L.fin_c()};
  const int roffs[5] = {R.fw_mul(), R.fw_ms(), R.bw_c(), R.fin_a(), R.fin_c()};
  for (int s = 0; s < S; ++s) {
    const int q = c.slot(s);
    if (s > 0 && c.slot(s - 1) == q) continue;  // the slot holds its first segment's tables
    for (int k = 0; k < 5; ++k)
      std::memcpy(&t[roffs[k] + q * R.pitch()], &tables[offs[k] + s * L.pitch()], sizeof(T) * I);
    t[R.bw0() + q] = tables[L.bw0() + s];
  }
  std::memcpy(&t[c.red_inv()], &tables[L.red_inv()], sizeof(T) * 6 * S);
  return t;
}

template <class T>
__device__ __forceinline__ SegmentView<T> segment_view(const T* tab, const CompactTables& c, int s) {
  const TableLayout R = c.rows();
  const int q = c.slot(s);
  const T* b = tab + q * R.pitch();
  const T* red = tab + c.red_inv();
  return SegmentView<T>{b + R.fw_mul(), b + R.fw_ms(), b + R.bw_c(), b + R.fin_a(), b + R.fin_c(),
                        tab[R.bw0() + q],  red, red + 2 * c.S, red + 4 * c.S};
}

template <class T>
__device__ __forceinline__ SegmentView<T> segment_view(const T* tab, const TableLayout& L, int s) {
  const T* b = tab + s * L.pitch();
  return SegmentView<T>{b + L.fw_mul(), b + L.fw_ms(), b + L.bw_c(), b + L.fin_a(), b + L.fin_c(),
                        tab[L.bw0() + s],  tab + L.red_inv(), tab + L.red_a(), tab + L.red_c()};
}

/// Forward and backward modified-Thomas sweeps over one segment. After it,
/// d[0] and d[I-1] are the right-hand sides of the segment's two reduced rows.
/// Only the forward chain is serial (one FMA per row: fm_j * d_j is off it).
/// V: SegmentView (shared-memory tables) or SegmentConsts (constant bank).
template <class T, int I, class V>
__device__ __forceinline__ void local_sweeps(T (&d)[I], const V& v) {
  static_assert(I >= 2, "segments need at least two rows");
  d[0] *= v.fm[0];
  d[1] *= v.fm[1];
#pragma unroll
  for (int j = 2; j < I; ++j) d[j] = v.fm[j] * d[j] - v.fs[j] * d[j - 1];
#pragma unroll
  for (int j = I - 3; j >= 1; --j) d[j] -= v.bc[j] * d[j + 1];
  if (I >= 3) d[0] = v.bw0 * (d[0] - v.bc[0] * d[1]);
}

/// Solves the reduced system of the line whose segment s (= this lane's
/// position in its group of S lanes) has reduced right-hand sides (first,
/// last); returns the solution in place. All 32 lanes must call it together.
/// Forward: y_r = red_inv_r d_r + red_a_r y_{r-1}. A lane composes its two rows
/// into one affine map and an inclusive Hillis-Steele scan composes the maps
/// across the group (log2 S shuffle steps). Backward likewise with a suffix scan.
/// Every multiplier is below 1 in magnitude for a diagonally dominant matrix,
/// so the re-associated sums are as accurate as the sequential recurrence.
template <class T>
__device__ __forceinline__ void reduced_solve(T& first, T& last, const SegmentView<T>& v, int s, int S) {
  const unsigned full = 0xffffffffu;
  const int r0 = 2 * s, r1 = 2 * s + 1;
  const T A0 = v.red_a[r0], A1 = v.red_a[r1];
  const T B0 = v.red_inv[r0] * first, B1 = v.red_inv[r1] * last;
  T alpha = A1 * A0, beta = A1 * B0 + B1;  // y_{r1} = alpha * y_{r0-1} + beta
  for (int o = 1; o < S; o <<= 1) {
    const T a_up = shfl_up(full, alpha, o, S);
    const T b_up = shfl_up(full, beta, o, S);
    if (s >= o) {
      beta = beta + alpha * b_up;
      alpha = alpha * a_up;
    }
  }
  T y_prev = shfl_up(full, beta, 1, S);
  if (s == 0) y_prev = T(0);
  const T y0 = A0 * y_prev + B0, y1 = beta;
  const T C0 = v.red_c[r0], C1 = v.red_c[r1];
  T gamma = C0 * C1, delta = y0 + C0 * y1;  // z_{r0} = gamma * z_{r0 of s+1} + delta
  for (int o = 1; o < S; o <<= 1) {
    const T g_dn = shfl_down(full, gamma, o, S);
    const T d_dn = shfl_down(full, delta, o, S);
    if (s + o < S) {
      delta = delta + gamma * d_dn;
      gamma = gamma * g_dn;
    }
  }
  T z_next = shfl_down(full, delta, 1, S);
  if (s == S - 1) z_next = T(0);
  first = delta;
  last = y1 + C1 * z_next;
}

/// Row j (a run-time index) of a segment held in registers: a select over
/// compile-time indices (a run-time index would put d in local memory).
template <class T, int I>
__device__ __forceinline__ T row_of(const T (&d)[I], int j) {
  T v = d[0];
#pragma unroll
  for (int q = 1; q < I; ++q)
    if (q == j) v = d[q];
  return v;
}

/// The ring correction x = y - lambda z over a segment (z: its row of the
/// ring table), lambda = (y_0 + phi y_{n-1}) psi (adi::CyclicSplit).
template <class T, int I>
__device__ __forceinline__ void ring_correct(T (&d)[I], const T* z, T lambda) {
#pragma unroll
  for (int j = 0; j < I; ++j) d[j] -= lambda * z[j];
}

/// Back substitution of the segment's interior from its solved first/last unknowns.
template <class T, int I, class V>
__device__ __forceinline__ void finish_segment(T (&d)[I], const V& v, T zf, T zl) {
#pragma unroll
  for (int j = 1; j <= I - 2; ++j) d[j] = d[j] - v.fa[j] * zf - v.fc[j] * zl;
  d[0] = zf;
  d[I - 1] = zl;
}

}  // namespace adi::cuda
