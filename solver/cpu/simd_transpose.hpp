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

namespace adi::cpu::detail {

#if defined(__GNUC__) && ((defined(__clang__)) || __GNUC__ >= 12)
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
#endif

/// in[l] points at V rows of line l (contiguous); out + r * out_pitch gets
/// row r of the V lines (contiguous). V = simd_width<T>().
inline void transpose_tile(const float* const* in, float* out, index_t out_pitch) {
#ifdef ADI_CPU_VECTOR_TRANSPOSE
  const v4f a = load_vec<v4f>(in[0]), b = load_vec<v4f>(in[1]), c = load_vec<v4f>(in[2]), d = load_vec<v4f>(in[3]);
  const v4f ab_lo = __builtin_shufflevector(a, b, 0, 4, 1, 5), ab_hi = __builtin_shufflevector(a, b, 2, 6, 3, 7);
  const v4f cd_lo = __builtin_shufflevector(c, d, 0, 4, 1, 5), cd_hi = __builtin_shufflevector(c, d, 2, 6, 3, 7);
  store_vec(out, __builtin_shufflevector(ab_lo, cd_lo, 0, 1, 4, 5));
  store_vec(out + out_pitch, __builtin_shufflevector(ab_lo, cd_lo, 2, 3, 6, 7));
  store_vec(out + 2 * out_pitch, __builtin_shufflevector(ab_hi, cd_hi, 0, 1, 4, 5));
  store_vec(out + 3 * out_pitch, __builtin_shufflevector(ab_hi, cd_hi, 2, 3, 6, 7));
#else
  for (int r = 0; r < 4; ++r)
    for (int l = 0; l < 4; ++l) out[r * out_pitch + l] = in[l][r];
#endif
}
inline void transpose_tile(const double* const* in, double* out, index_t out_pitch) {
#ifdef ADI_CPU_VECTOR_TRANSPOSE
  const v2d a = load_vec<v2d>(in[0]), b = load_vec<v2d>(in[1]);
  store_vec(out, __builtin_shufflevector(a, b, 0, 2));
  store_vec(out + out_pitch, __builtin_shufflevector(a, b, 1, 3));
#else
  for (int r = 0; r < 2; ++r)
    for (int l = 0; l < 2; ++l) out[r * out_pitch + l] = in[l][r];
#endif
}

/// The inverse: in + r * in_pitch holds row r of V lines; out[l] gets the V
/// rows of line l. With acc (acc[l] parallel to out[l]) the rows are also
/// added into acc[l] (the fused Douglas update; same addition as the scalar
/// acc += x).
inline void untranspose_tile(const float* in, index_t in_pitch, float* const* out, float* const* acc) {
#ifdef ADI_CPU_VECTOR_TRANSPOSE
  const v4f a = load_vec<v4f>(in), b = load_vec<v4f>(in + in_pitch), c = load_vec<v4f>(in + 2 * in_pitch),
            d = load_vec<v4f>(in + 3 * in_pitch);
  const v4f ab_lo = __builtin_shufflevector(a, b, 0, 4, 1, 5), ab_hi = __builtin_shufflevector(a, b, 2, 6, 3, 7);
  const v4f cd_lo = __builtin_shufflevector(c, d, 0, 4, 1, 5), cd_hi = __builtin_shufflevector(c, d, 2, 6, 3, 7);
  const v4f line[4] = {__builtin_shufflevector(ab_lo, cd_lo, 0, 1, 4, 5), __builtin_shufflevector(ab_lo, cd_lo, 2, 3, 6, 7),
                       __builtin_shufflevector(ab_hi, cd_hi, 0, 1, 4, 5), __builtin_shufflevector(ab_hi, cd_hi, 2, 3, 6, 7)};
  for (int l = 0; l < 4; ++l) {
    store_vec(out[l], line[l]);
    if (acc) store_vec(acc[l], load_vec<v4f>(acc[l]) + line[l]);
  }
#else
  for (int l = 0; l < 4; ++l)
    for (int r = 0; r < 4; ++r) {
      out[l][r] = in[r * in_pitch + l];
      if (acc) acc[l][r] += out[l][r];
    }
#endif
}
inline void untranspose_tile(const double* in, index_t in_pitch, double* const* out, double* const* acc) {
#ifdef ADI_CPU_VECTOR_TRANSPOSE
  const v2d a = load_vec<v2d>(in), b = load_vec<v2d>(in + in_pitch);
  const v2d line[2] = {__builtin_shufflevector(a, b, 0, 2), __builtin_shufflevector(a, b, 1, 3)};
  for (int l = 0; l < 2; ++l) {
    store_vec(out[l], line[l]);
    if (acc) store_vec(acc[l], load_vec<v2d>(acc[l]) + line[l]);
  }
#else
  for (int l = 0; l < 2; ++l)
    for (int r = 0; r < 2; ++r) {
      out[l][r] = in[r * in_pitch + l];
      if (acc) acc[l][r] += out[l][r];
    }
#endif
}

}  // namespace adi::cpu::detail
