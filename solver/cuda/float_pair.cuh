#pragma once
// Two fp32 lines solved by one thread as one 8-byte value (the lanes kernel's
// pair build, kernels/lanes_kernel.cu). A lane of a 16-line tile then reads
// two neighbouring lines at once, so a half-warp's row is 128 bytes instead of
// 64 (fp64's rows, and fp64's registers: I pairs are 2 I floats, as I doubles).
//
// Why: fp32 lines of 1025-1056 rows (1025^3, h = 1/1024 with both boundary
// nodes) take 16-line tiles, i.e. 64-byte rows of each tile, and ran far
// further from the copy bandwidth than fp64 on the same tiles (128-byte rows;
// docs/PERFORMANCE.md, "Segment lengths and tiles"); z lines touch a new DRAM
// page every row, so bytes a row is what a page opening buys.
//
// The arithmetic is component-wise: the line matrix is the same for every
// line, so a table entry holds one coefficient twice and every operation of
// the scalar code is two independent fp32 operations of the same form.

#include <cuda_runtime.h>

namespace adi::cuda {

struct alignas(8) FloatPair {
  float x, y;
  FloatPair() = default;
  __host__ __device__ constexpr explicit FloatPair(float v) : x(v), y(v) {}
  __host__ __device__ constexpr FloatPair(float a, float b) : x(a), y(b) {}
};

__host__ __device__ __forceinline__ FloatPair operator+(FloatPair a, FloatPair b) { return {a.x + b.x, a.y + b.y}; }
__host__ __device__ __forceinline__ FloatPair operator-(FloatPair a, FloatPair b) { return {a.x - b.x, a.y - b.y}; }
__host__ __device__ __forceinline__ FloatPair operator*(FloatPair a, FloatPair b) { return {a.x * b.x, a.y * b.y}; }
__host__ __device__ __forceinline__ FloatPair& operator*=(FloatPair& a, FloatPair b) { return a = a * b; }
__host__ __device__ __forceinline__ FloatPair& operator-=(FloatPair& a, FloatPair b) { return a = a - b; }

template <class T>
struct is_float_pair {
  static constexpr bool value = false;
};
template <>
struct is_float_pair<FloatPair> {
  static constexpr bool value = true;
};

// Warp shuffles for the reduced system's scans (segmented.cuh): the built-ins
// for float / double, two of them for a pair.
template <class T>
__device__ __forceinline__ T shfl_up(unsigned mask, T v, unsigned o, int width) {
  return __shfl_up_sync(mask, v, o, width);
}
template <class T>
__device__ __forceinline__ T shfl_down(unsigned mask, T v, unsigned o, int width) {
  return __shfl_down_sync(mask, v, o, width);
}
template <>
__device__ __forceinline__ FloatPair shfl_up(unsigned mask, FloatPair v, unsigned o, int width) {
  return {__shfl_up_sync(mask, v.x, o, width), __shfl_up_sync(mask, v.y, o, width)};
}
template <>
__device__ __forceinline__ FloatPair shfl_down(unsigned mask, FloatPair v, unsigned o, int width) {
  return {__shfl_down_sync(mask, v.x, o, width), __shfl_down_sync(mask, v.y, o, width)};
}

}  // namespace adi::cuda
