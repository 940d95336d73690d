#pragma once
// Warp-level transposition through shared memory (CUB BlockExchange style:
// the caller owns the TempStorage, so primitives compose).
//
// Worked example, I = 3, 4-byte elements, Giles map (odd I: no padding):
//   before rows_to_columns, lane t holds row[q] = tile element 32 q + t:
//     lane 0: {e0, e32, e64}   lane 1: {e1, e33, e65}  ...  lane 31: {e31, e63, e95}
//   after, lane t holds col[i] = element i + 3 t:
//     lane 0: {e0, e1, e2}     lane 1: {e3, e4, e5}    ...  lane 31: {e93, e94, e95}
// so a warp can load 32 consecutive elements per instruction (coalesced) and
// then give each thread its own chunk of I consecutive elements.
//
// Only for CUDA translation units (this header lives in transpose/include and
// is included by */cuda/ code only).

#include <adi/transpose/maps.hpp>

namespace adi::transpose {

template <class T, int I, MapKind Map = MapKind::Giles>
class WarpTranspose {
  static_assert(I >= 1 && I <= 256, "WarpTranspose: I (elements per thread) must be in 1..256");
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "WarpTranspose: 4- or 8-byte elements");

 public:
  static constexpr int kW = wavefront_elems(static_cast<int>(sizeof(T)));
  static constexpr int kSlots = map_size(Map, I, kW);
  struct TempStorage {
    T slot[kSlots];
  };

  __device__ __forceinline__ explicit WarpTranspose(TempStorage& s) : s_(s) {}

  static __device__ __forceinline__ int index(int i, int j) { return map_index(Map, i, j, I, kW); }

  /// row[q] = element 32 q + lane  ->  col[i] = element i + lane I.
  __device__ __forceinline__ void rows_to_columns(const T (&row)[I], T (&col)[I]) {
    const int lane = threadIdx.x & (kWarpSize - 1);
#pragma unroll
    for (int q = 0; q < I; ++q) {
      const int e = q * kWarpSize + lane;
      s_.slot[index(e % I, e / I)] = row[q];
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < I; ++i) col[i] = s_.slot[index(i, lane)];
    __syncwarp();  // the storage may be reused right away
  }

  /// The inverse: col[i] = element i + lane I  ->  row[q] = element 32 q + lane.
  __device__ __forceinline__ void columns_to_rows(const T (&col)[I], T (&row)[I]) {
    const int lane = threadIdx.x & (kWarpSize - 1);
#pragma unroll
    for (int i = 0; i < I; ++i) s_.slot[index(i, lane)] = col[i];
    __syncwarp();
#pragma unroll
    for (int q = 0; q < I; ++q) {
      const int e = q * kWarpSize + lane;
      row[q] = s_.slot[index(e % I, e / I)];
    }
    __syncwarp();
  }

  /// Loads a tile whose row j (lane j's chunk) is rows.ptr(j)[0 .. rows.len(j)),
  /// 0 <= len <= I, and gives lane j its chunk in col[]; missing elements get
  /// `fill`. Reads are row-wise: lane t reads element 32 q + t, so rows that
  /// follow each other in memory are read fully coalesced; nothing is read
  /// past a row's len (ragged tiles are predicated, not over-read).
  template <class Rows>
  __device__ __forceinline__ void load(const Rows& rows, T (&col)[I], T fill) {
    const int lane = threadIdx.x & (kWarpSize - 1);
    T row[I];
#pragma unroll
    for (int q = 0; q < I; ++q) {
      const int e = q * kWarpSize + lane;
      const int j = e / I, i = e % I;
      row[q] = i < rows.len(j) ? rows.ptr(j)[i] : fill;
    }
    rows_to_columns(row, col);
  }

  /// The inverse of load: lane j's col[] goes to rows.ptr(j)[0 .. rows.len(j)).
  template <class Rows>
  __device__ __forceinline__ void store(const Rows& rows, const T (&col)[I]) {
    const int lane = threadIdx.x & (kWarpSize - 1);
    T row[I];
    columns_to_rows(col, row);
#pragma unroll
    for (int q = 0; q < I; ++q) {
      const int e = q * kWarpSize + lane;
      const int j = e / I, i = e % I;
      if (i < rows.len(j)) rows.ptr(j)[i] = row[q];
    }
  }

 private:
  TempStorage& s_;
};

}  // namespace adi::transpose
