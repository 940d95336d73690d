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
// The 16-byte path (I a multiple of v = 16 / sizeof(T): 4 floats, 2 doubles),
// I = 8 floats: before rows16_to_columns lane t holds the 16-byte vectors
// 32 q + t, i.e. row[4 q + r] = element 4 (32 q + t) + r:
//     lane 0: {e0..e3, e128..e131}   lane 1: {e4..e7, e132..e135}  ...
//   after, lane t holds col[i] = element i + 8 t, as before. Shared memory is
//   then written and read with 16-byte accesses through the 16-byte variant of
//   the map (map_index16), which keeps each vector contiguous and aligned and
//   is conflict-free in both passes (bank_model.hpp proves it for every I).
//
// Every member function must be called by all 32 lanes of the warp together
// (it synchronises with __syncwarp() / __all_sync over the full mask). The
// lane is the hardware lane id, so 2D/3D blocks work too.
//
// Only for CUDA translation units (this header lives in transpose/include and
// is included by */cuda/ code and GPU tests only).

#include <adi/transpose/maps.hpp>
#include <adi/transpose/rows.hpp>

#include <cstdint>

namespace adi::transpose {

namespace detail {

__device__ __forceinline__ int lane_id() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return static_cast<int>(lane);
}

/// The 16-byte vector of T and conversions from/to v consecutive registers.
template <class T>
struct Vector16;
template <>
struct Vector16<float> {
  using type = float4;
  static __device__ __forceinline__ type pack(const float* a) { return make_float4(a[0], a[1], a[2], a[3]); }
  static __device__ __forceinline__ void unpack(const type& x, float* a) {
    a[0] = x.x, a[1] = x.y, a[2] = x.z, a[3] = x.w;
  }
};
template <>
struct Vector16<double> {
  using type = double2;
  static __device__ __forceinline__ type pack(const double* a) { return make_double2(a[0], a[1]); }
  static __device__ __forceinline__ void unpack(const type& x, double* a) { a[0] = x.x, a[1] = x.y; }
};

}  // namespace detail

/// T: float or double; I: elements per thread (1..256); Map: the shared-memory
/// index map (maps.hpp); Vector16: allow the 16-byte path (load/store pick it
/// for aligned rows). With Vector16 = false the storage is exactly the scalar
/// map's, for callers that only use the scalar path or index().
template <class T, int I, MapKind Map = MapKind::Giles, bool Vector16 = true>
class WarpTranspose {
  static_assert(I >= 1 && I <= 256, "WarpTranspose: I (elements per thread) must be in 1..256");
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "WarpTranspose: 4- or 8-byte elements");

  using Vec = typename detail::Vector16<T>::type;
  using VecOps = detail::Vector16<T>;

 public:
  /// Elements per conflict-free wavefront: 32 (4-byte) or 16 (8-byte).
  static constexpr int kW = wavefront_elems(static_cast<int>(sizeof(T)));
  /// Elements per 16-byte vector: 4 (float) or 2 (double).
  static constexpr int kVec = vector_elems(static_cast<int>(sizeof(T)));
  /// Whether the 16-byte path exists: allowed, and rows are whole vectors.
  static constexpr bool kHasVector16 = Vector16 && I % kVec == 0;
  static constexpr int kVecPerRow = I / kVec;
  /// Slots each path needs (the padding is decided by the map; see maps.hpp
  /// for the bank arithmetic behind it).
  static constexpr int kScalarSlots = map_size(Map, I, kW);
  static constexpr int kVector16Slots = kHasVector16 ? map_size16(Map, I, static_cast<int>(sizeof(T))) : 0;
  static constexpr int kSlots = kScalarSlots > kVector16Slots ? kScalarSlots : kVector16Slots;

  /// One warp's shared memory, 16-byte aligned when the 16-byte path exists.
  struct alignas(kHasVector16 ? kVectorBytes : alignof(T)) TempStorage {
    T slot[kSlots];
  };

  __device__ __forceinline__ explicit WarpTranspose(TempStorage& s) : s_(s) {}

  /// Slot of element (i, j) on the scalar path.
  static __device__ __forceinline__ int index(int i, int j) { return map_index(Map, i, j, I, kW); }
  /// Vector slot (in 16-byte units) of vector m of row j on the 16-byte path.
  static __device__ __forceinline__ int index16(int m, int j) {
    return map_index(Map, m, j, kVecPerRow, kWavefrontBytes / kVectorBytes);
  }

  // -------------------------------------------------------------------------
  // The warp-level row <-> column switch (registers to registers).
  // -------------------------------------------------------------------------

  /// row[q] = element 32 q + lane  ->  col[i] = element i + lane I.
  __device__ __forceinline__ void rows_to_columns(const T (&row)[I], T (&col)[I]) {
    const int lane = detail::lane_id();
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
    const int lane = detail::lane_id();
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

  /// 16-byte rows: row[q kVec + r] = element kVec (32 q + lane) + r  ->
  /// col[i] = element i + lane I. Shared memory is written and read in
  /// 16-byte accesses only.
  __device__ __forceinline__ void rows16_to_columns(const T (&row)[I], T (&col)[I]) {
    static_assert(kHasVector16, "WarpTranspose: the 16-byte path needs Vector16 and I a multiple of 16 / sizeof(T)");
    const int lane = detail::lane_id();
    Vec* sv = reinterpret_cast<Vec*>(s_.slot);
#pragma unroll
    for (int q = 0; q < kVecPerRow; ++q) {
      const int p = q * kWarpSize + lane;
      sv[index16(p % kVecPerRow, p / kVecPerRow)] = VecOps::pack(&row[q * kVec]);
    }
    __syncwarp();
#pragma unroll
    for (int m = 0; m < kVecPerRow; ++m) VecOps::unpack(sv[index16(m, lane)], &col[m * kVec]);
    __syncwarp();
  }

  /// The inverse of rows16_to_columns.
  __device__ __forceinline__ void columns_to_rows16(const T (&col)[I], T (&row)[I]) {
    static_assert(kHasVector16, "WarpTranspose: the 16-byte path needs Vector16 and I a multiple of 16 / sizeof(T)");
    const int lane = detail::lane_id();
    Vec* sv = reinterpret_cast<Vec*>(s_.slot);
#pragma unroll
    for (int m = 0; m < kVecPerRow; ++m) sv[index16(m, lane)] = VecOps::pack(&col[m * kVec]);
    __syncwarp();
#pragma unroll
    for (int q = 0; q < kVecPerRow; ++q) {
      const int p = q * kWarpSize + lane;
      VecOps::unpack(sv[index16(p % kVecPerRow, p / kVecPerRow)], &row[q * kVec]);
    }
    __syncwarp();
  }

  // -------------------------------------------------------------------------
  // Global memory <-> columns. `rows` has ptr(j) (row j's first element) and
  // len(j) (its valid elements, 0..I; see rows.hpp). Nothing outside
  // [ptr(j), ptr(j) + len(j)) is read or written: ragged tiles are predicated.
  // -------------------------------------------------------------------------

  /// True (on every lane) when the 16-byte path can serve `rows`: I is a
  /// multiple of kVec and every non-empty row starts 16-byte aligned.
  template <class Rows>
  static __device__ __forceinline__ bool vector16_ok(const Rows& rows) {
    if constexpr (!kHasVector16) {
      (void)rows;
      return false;
    } else {
      const int lane = detail::lane_id();
      const bool ok = rows.len(lane) <= 0 || reinterpret_cast<std::uintptr_t>(rows.ptr(lane)) % kVectorBytes == 0;
      return __all_sync(0xffffffffu, ok) != 0;
    }
  }

  /// Loads a tile whose row j (lane j's chunk) is rows.ptr(j)[0 .. rows.len(j)),
  /// 0 <= len <= I, and gives lane j its chunk in col[]; missing elements get
  /// `fill`. Takes the 16-byte path when vector16_ok(rows), else the scalar one.
  template <class Rows>
  __device__ __forceinline__ void load(const Rows& rows, T (&col)[I], T fill) {
    if constexpr (kHasVector16) {
      if (vector16_ok(rows)) {
        load_vector16(rows, col, fill);
        return;
      }
    }
    load_scalar(rows, col, fill);
  }

  /// The inverse of load: lane j's col[] goes to rows.ptr(j)[0 .. rows.len(j)).
  template <class Rows>
  __device__ __forceinline__ void store(const Rows& rows, const T (&col)[I]) {
    if constexpr (kHasVector16) {
      if (vector16_ok(rows)) {
        store_vector16(rows, col);
        return;
      }
    }
    store_scalar(rows, col);
  }

  /// Scalar path: lane t reads element 32 q + t, so rows that follow each
  /// other in memory are read fully coalesced.
  template <class Rows>
  __device__ __forceinline__ void load_scalar(const Rows& rows, T (&col)[I], T fill) {
    const int lane = detail::lane_id();
    T row[I];
#pragma unroll
    for (int q = 0; q < I; ++q) {
      const int e = q * kWarpSize + lane;
      const int j = e / I, i = e % I;
      row[q] = i < rows.len(j) ? rows.ptr(j)[i] : fill;
    }
    rows_to_columns(row, col);
  }

  template <class Rows>
  __device__ __forceinline__ void store_scalar(const Rows& rows, const T (&col)[I]) {
    const int lane = detail::lane_id();
    T row[I];
    columns_to_rows(col, row);
#pragma unroll
    for (int q = 0; q < I; ++q) {
      const int e = q * kWarpSize + lane;
      const int j = e / I, i = e % I;
      if (i < rows.len(j)) rows.ptr(j)[i] = row[q];
    }
  }

  /// 16-byte path (precondition: vector16_ok(rows)): lane t loads vector
  /// 32 q + t of the tile (vector m = p mod I/kVec of row p / (I/kVec)) as
  /// one float4 / double2 when it lies wholly inside the row's len, and
  /// element by element (predicated) when the row ends inside it.
  template <class Rows>
  __device__ __forceinline__ void load_vector16(const Rows& rows, T (&col)[I], T fill) {
    static_assert(kHasVector16, "WarpTranspose: the 16-byte path needs Vector16 and I a multiple of 16 / sizeof(T)");
    const int lane = detail::lane_id();
    T row[I];
#pragma unroll
    for (int q = 0; q < kVecPerRow; ++q) {
      const int p = q * kWarpSize + lane;
      const int j = p / kVecPerRow, i0 = (p % kVecPerRow) * kVec;
      const int len = rows.len(j);
      if (i0 + kVec <= len) {
        VecOps::unpack(*reinterpret_cast<const Vec*>(rows.ptr(j) + i0), &row[q * kVec]);
      } else {
#pragma unroll
        for (int r = 0; r < kVec; ++r) row[q * kVec + r] = i0 + r < len ? rows.ptr(j)[i0 + r] : fill;
      }
    }
    rows16_to_columns(row, col);
  }

  template <class Rows>
  __device__ __forceinline__ void store_vector16(const Rows& rows, const T (&col)[I]) {
    static_assert(kHasVector16, "WarpTranspose: the 16-byte path needs Vector16 and I a multiple of 16 / sizeof(T)");
    const int lane = detail::lane_id();
    T row[I];
    columns_to_rows16(col, row);
#pragma unroll
    for (int q = 0; q < kVecPerRow; ++q) {
      const int p = q * kWarpSize + lane;
      const int j = p / kVecPerRow, i0 = (p % kVecPerRow) * kVec;
      const int len = rows.len(j);
      if (i0 + kVec <= len) {
        *reinterpret_cast<Vec*>(rows.ptr(j) + i0) = VecOps::pack(&row[q * kVec]);
      } else {
#pragma unroll
        for (int r = 0; r < kVec; ++r)
          if (i0 + r < len) rows.ptr(j)[i0 + r] = row[q * kVec + r];
      }
    }
  }

 private:
  TempStorage& s_;
};

}  // namespace adi::transpose
