#pragma once
// Basic vocabulary shared by every module: the index type and the
// host/device qualifier for small pointwise functions (AMReX style: the same
// arithmetic runs on the CPU and inside CUDA kernels).

#include <cstdint>

#if defined(__CUDACC__)
#define ADI_HD __host__ __device__
#define ADI_FORCEINLINE __forceinline__
#else
#define ADI_HD
#define ADI_FORCEINLINE inline
#endif

namespace adi {

/// All offsets are 64-bit: a 2048^3 grid has 2^33 points, and a padded plane
/// stride times nz overflows 32 bits long before memory runs out.
using index_t = std::int64_t;

enum class Axis : int { X = 0, Y = 1, Z = 2 };

constexpr int axis_index(Axis a) { return static_cast<int>(a); }
constexpr const char* axis_name(Axis a) { return a == Axis::X ? "x" : a == Axis::Y ? "y" : "z"; }

enum class Precision { F32, F64 };
constexpr const char* precision_name(Precision p) { return p == Precision::F32 ? "float32" : "float64"; }

template <class T> constexpr Precision precision_of();
template <> constexpr Precision precision_of<float>() { return Precision::F32; }
template <> constexpr Precision precision_of<double>() { return Precision::F64; }

/// Calls f(float{}) or f(double{}) according to p: precision is a template
/// parameter in the numerics and a run-time choice in the config.
template <class F> decltype(auto) dispatch_precision(Precision p, F&& f) {
  if (p == Precision::F32) return f(float{});
  return f(double{});
}

}  // namespace adi
