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
//
// This file is the host side (the shape of a line's segments and tiles,
// the launches, what fits: general_lanes.hpp); the kernel is
// general_lanes_kernel.cuh.

#include "../cuda_check.hpp"
#include "general_lanes_kernel.cuh"

#include <algorithm>
#include <cstdint>
#include <string>

namespace adi::cuda::general {

namespace {

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
  ADI_REQUIRE(!P.ends[a].sm, "general segmented kernel: a stretched axis' rows need their scales (one-line kernels)");
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
