#pragma once
// Internal to the CPU backend: the in-register transposition of small
// square tiles, the CPU twin of the warp transposition (transpose/). An x
// line is contiguous, so a vector load takes V consecutive rows of ONE line;
// the Thomas recurrence wants one row of V DIFFERENT lines per vector. A
// V x V tile (V = 4 floats or 2 doubles: one 16-byte register, what every
// x86-64 and AArch64 core has without extra compiler flags) is loaded as V
// line vectors, shuffled into V row vectors, and stored with one vector
// store per row; the same shuffles take it back. Two shuffle stages for
// 4 x 4 (unpack pairs, then pairs of pairs), one for 2 x 2: 0.5 shuffles per
// element instead of the scalar strided copy's load and store per element.
//
// GCC and Clang vector extensions (__builtin_shufflevector: GCC >= 12,
// Clang); other compilers take the scalar loops. The values are moved, never
// combined: the transposition is exact.

#include <adi/common.hpp>

#include <cstring>
#include <type_traits>

namespace adi::cpu::detail {

#if defined(__GNUC__) && ((defined(__clang__)) || __GNUC__ >= 12) && !defined(ADI_CPU_SCALAR_TRANSPOSE)
#define ADI_CPU_VECTOR_TRANSPOSE 1
#endif

/// Lines per register tile: 16 bytes of T.
template <class T>
constexpr int simd_width() {
  return static_cast<int>(16 / sizeof(T));
}

#ifdef ADI_CPU_VECTOR_TRANSPOSE
typedef float v4f __attribute__((vector_size(16)));
typedef double v2d __attribute__((vector_size(16)));
template <class T>
using simd_vec = std::conditional_t<sizeof(T) == 4, v4f, v2d>;

template <class V, class T>
inline V load_vec(const T* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));  // unaligned; compiles to one vector load
  return v;
}
template <class V, class T>
inline void store_vec(T* p, V v) {
  std::memcpy(p, &v, sizeof(V));
}

/// The square register transposition, its own inverse: r[k] lane l <- r[l] lane k.
inline void transpose_regs(v4f (&r)[4]) {
  const v4f ab_lo = __builtin_shufflevector(r[0], r[1], 0, 4, 1, 5), ab_hi = __builtin_shufflevector(r[0], r[1], 2, 6, 3, 7);
  const v4f cd_lo = __builtin_shufflevector(r[2], r[3], 0, 4, 1, 5), cd_hi = __builtin_shufflevector(r[2], r[3], 2, 6, 3, 7);
  r[0] = __builtin_shufflevector(ab_lo, cd_lo, 0, 1, 4, 5);
  r[1] = __builtin_shufflevector(ab_lo, cd_lo, 2, 3, 6, 7);
  r[2] = __builtin_shufflevector(ab_hi, cd_hi, 0, 1, 4, 5);
  r[3] = __builtin_shufflevector(ab_hi, cd_hi, 2, 3, 6, 7);
}
inline void transpose_regs(v2d (&r)[2]) {
  const v2d a = r[0], b = r[1];
  r[0] = __builtin_shufflevector(a, b, 0, 2);
  r[1] = __builtin_shufflevector(a, b, 1, 3);
}
#endif

/// in[l] points at V rows of line l (contiguous); out + r * out_pitch gets
/// row r of the V lines (contiguous). V = simd_width<T>().
template <class T>
inline void transpose_tile(const T* const* in, T* out, index_t out_pitch) {
  constexpr int V = simd_width<T>();
#ifdef ADI_CPU_VECTOR_TRANSPOSE
  simd_vec<T> r[V];
  for (int l = 0; l < V; ++l) r[l] = load_vec<simd_vec<T>>(in[l]);
  transpose_regs(r);
  for (int k = 0; k < V; ++k) store_vec(out + k * out_pitch, r[k]);
#else
  for (int k = 0; k < V; ++k)
    for (int l = 0; l < V; ++l) out[k * out_pitch + l] = in[l][k];
#endif
}

/// The inverse: in + r * in_pitch holds row r of V lines; out[l] gets the V
/// rows of line l. With acc (acc[l] parallel to out[l]) the rows are also
/// added into acc[l] (the fused Douglas update; same addition as the scalar
/// acc += x).
template <class T>
inline void untranspose_tile(const T* in, index_t in_pitch, T* const* out, T* const* acc) {
  constexpr int V = simd_width<T>();
#ifdef ADI_CPU_VECTOR_TRANSPOSE
  simd_vec<T> r[V];
  for (int k = 0; k < V; ++k) r[k] = load_vec<simd_vec<T>>(in + k * in_pitch);
  transpose_regs(r);
  for (int l = 0; l < V; ++l) {
    store_vec(out[l], r[l]);
    if (acc) store_vec(acc[l], load_vec<simd_vec<T>>(acc[l]) + r[l]);
  }
#else
  for (int l = 0; l < V; ++l)
    for (int k = 0; k < V; ++k) {
      out[l][k] = in[k * in_pitch + l];
      if (acc) acc[l][k] += out[l][k];
    }
#endif
}

}  // namespace adi::cpu::detail
