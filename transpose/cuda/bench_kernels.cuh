#pragma once
// The kernels of transpose_bench, one __global__ function per (map, dtype, I,
// path) with a readable name, so `ncu -k regex:transpose_giles_f32` picks them
// out: transpose_<map>_<f32|f64>_i<I>_<scalar|vec16>.
//
// Each warp moves one contiguous 32 x I tile: global -> columns (load),
// `reps` extra round trips columns -> rows -> columns through shared memory,
// then columns -> global (store). With reps = 0 it is a plain round trip; a
// large reps makes the kernel shared-memory bound, which is where the maps
// differ.

#include <adi/transpose/bank_model.hpp>
#include <adi/transpose/warp_transpose.cuh>

#include <string>
#include <vector>

namespace adi::transpose::bench {

/// Warps per block: up to 8 within 40 KB of static shared memory.
template <class WT>
constexpr int warps_per_block() {
  int w = 8;
  while (w > 1 && w * static_cast<int>(sizeof(typename WT::TempStorage)) > 40 * 1024) --w;
  return w;
}

/// Scalar kernels use the scalar-only storage (exactly the map's slots), the
/// 16-byte kernels the 16-byte one.
template <class T, int I, MapKind M, Path P>
using BenchTranspose = WarpTranspose<T, I, M, P == Path::Vector16>;

template <class T, int I, MapKind M, Path P>
__device__ __forceinline__ void bench_body(const T* in, T* out, int tiles, int reps) {
  using WT = BenchTranspose<T, I, M, P>;
  constexpr int kWarps = warps_per_block<WT>();
  __shared__ typename WT::TempStorage storage[kWarps];
  const int w = static_cast<int>(threadIdx.x) / kWarpSize;
  const int tile = static_cast<int>(blockIdx.x) * kWarps + w;
  if (tile >= tiles) return;  // whole warps only
  WT wt(storage[w]);
  const index_t base = static_cast<index_t>(tile) * kWarpSize * I;
  const ContiguousRows<const T, I> src{in + base, index_t{kWarpSize} * I};
  const ContiguousRows<T, I> dst{out + base, index_t{kWarpSize} * I};
  T col[I], row[I];
  if constexpr (P == Path::Scalar) {
    wt.load_scalar(src, col, T(0));
    for (int r = 0; r < reps; ++r) {
      wt.columns_to_rows(col, row);
      wt.rows_to_columns(row, col);
    }
    wt.store_scalar(dst, col);
  } else {
    wt.load_vector16(src, col, T(0));
    for (int r = 0; r < reps; ++r) {
      wt.columns_to_rows16(col, row);
      wt.rows16_to_columns(row, col);
    }
    wt.store_vector16(dst, col);
  }
}

/// One benchmark kernel and what the host needs to launch and model it.
struct Entry {
  std::string name;
  MapKind map;
  int elem_bytes;
  int I;
  Path path;
  int warps_per_block;
  int storage_bytes;  ///< per warp
  void (*launch)(const void* in, void* out, int tiles, int reps);
};

/// All kernels of this executable (filled at static-initialisation time).
std::vector<Entry>& registry();
bool register_kernel(Entry e);

template <class T, int I, MapKind M, Path P>
void launch(void (*kernel)(const T*, T*, int, int), const void* in, void* out, int tiles, int reps) {
  using WT = BenchTranspose<T, I, M, P>;
  constexpr int kWarps = warps_per_block<WT>();
  kernel<<<(tiles + kWarps - 1) / kWarps, kWarps * kWarpSize>>>(static_cast<const T*>(in), static_cast<T*>(out),
                                                                tiles, reps);
}

}  // namespace adi::transpose::bench

// Defines transpose_<map>_<dt>_i<I>_<path> and registers it.
#define ADI_BENCH_KERNEL(map, Map, dt, T, I, path, Path_)                                                          \
  __global__ void transpose_##map##_##dt##_i##I##_##path(const T* in, T* out, int tiles, int reps) {              \
    ::adi::transpose::bench::bench_body<T, I, ::adi::transpose::MapKind::Map, ::adi::transpose::Path::Path_>(     \
        in, out, tiles, reps);                                                                                     \
  }                                                                                                                \
  [[maybe_unused]] static const bool adi_bench_registered_##map##_##dt##_##I##_##path = ::adi::transpose::bench::register_kernel({ \
      "transpose_" #map "_" #dt "_i" #I "_" #path, ::adi::transpose::MapKind::Map, static_cast<int>(sizeof(T)), I,  \
      ::adi::transpose::Path::Path_,                                                                               \
      ::adi::transpose::bench::warps_per_block<::adi::transpose::bench::BenchTranspose<                              \
          T, I, ::adi::transpose::MapKind::Map, ::adi::transpose::Path::Path_>>(),                                  \
      static_cast<int>(sizeof(typename ::adi::transpose::bench::BenchTranspose<                                     \
                              T, I, ::adi::transpose::MapKind::Map, ::adi::transpose::Path::Path_>::TempStorage)),  \
      [](const void* in, void* out, int tiles, int reps) {                                                         \
        ::adi::transpose::bench::launch<T, I, ::adi::transpose::MapKind::Map, ::adi::transpose::Path::Path_>(      \
            transpose_##map##_##dt##_i##I##_##path, in, out, tiles, reps);                                         \
      }})

/// The scalar kernel of every map at one (dt, T, I).
#define ADI_BENCH_SCALAR(dt, T, I)                              \
  ADI_BENCH_KERNEL(giles, Giles, dt, T, I, scalar, Scalar);    \
  ADI_BENCH_KERNEL(xor, Xor, dt, T, I, scalar, Scalar);        \
  ADI_BENCH_KERNEL(pitch, Pitch, dt, T, I, scalar, Scalar);    \
  ADI_BENCH_KERNEL(none, None, dt, T, I, scalar, Scalar)

/// The scalar and 16-byte kernels of every map (I a multiple of 16 / sizeof(T)).
#define ADI_BENCH_BOTH(dt, T, I)                                \
  ADI_BENCH_SCALAR(dt, T, I);                                   \
  ADI_BENCH_KERNEL(giles, Giles, dt, T, I, vec16, Vector16);   \
  ADI_BENCH_KERNEL(xor, Xor, dt, T, I, vec16, Vector16);       \
  ADI_BENCH_KERNEL(pitch, Pitch, dt, T, I, vec16, Vector16);   \
  ADI_BENCH_KERNEL(none, None, dt, T, I, vec16, Vector16)
