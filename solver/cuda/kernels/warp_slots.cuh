#pragma once
// The row phase of the x kernels (warp_kernel.cu, fused_x_kernel.cu): where
// element e = 32 r + lane of a tile sits in the padded transposition buffer
// of adi::transpose (Giles' map), and the split that lets a lane address its
// row-phase slots as one base register plus compile-time offsets.

#include <adi/transpose/warp_transpose.cuh>

namespace adi::cuda::kernels {

using transpose::MapKind;
using transpose::WarpTranspose;

// The row phase of the warp kernel moves element e = 32 r + lane of a tile
// (r = 0 .. I-1). For a power-of-two I the padded map splits into a part of
// the lane and a part of r (Giles: k = e + e / (W F) with W F a power of two
// dividing 32, or k = e + e / I for P > W, and 32 r + lane never carries into
// the quotient): slot(32 r + lane) = slot(lane) + slot(32 r). So a lane's
// copies address one base register with compile-time offsets. Checked for
// every r and lane at compile time below.
template <class T, int I>
__host__ __device__ constexpr int warp_slot(int e) {  // = WarpTranspose<T, I, Giles>::index(e % I, e / I)
  return transpose::map_index(MapKind::Giles, e % I, e / I, I, WarpTranspose<T, I, MapKind::Giles>::kW);
}
template <class T, int I>
__host__ __device__ constexpr int warp_row_slot(int r) {
  return warp_slot<T, I>(32 * r);
}
template <class T, int I>
constexpr bool warp_row_slots_split() {
  for (int r = 0; r < I; ++r)
    for (int lane = 0; lane < 32; ++lane)
      if (warp_slot<T, I>(32 * r + lane) != warp_slot<T, I>(lane) + warp_row_slot<T, I>(r)) return false;
  return true;
}
#define ADI_CHECK_ROW_SLOTS(T, I) \
  static_assert(warp_row_slots_split<T, I>(), "the full-line copies assume slot(32 r + lane) = slot(lane) + slot(32 r)")
ADI_CHECK_ROW_SLOTS(float, 2);
ADI_CHECK_ROW_SLOTS(float, 4);
ADI_CHECK_ROW_SLOTS(float, 8);
ADI_CHECK_ROW_SLOTS(float, 9);  // odd I: the map is the identity, which splits too
ADI_CHECK_ROW_SLOTS(float, 16);
ADI_CHECK_ROW_SLOTS(float, 17);
ADI_CHECK_ROW_SLOTS(float, 32);
ADI_CHECK_ROW_SLOTS(float, 33);
ADI_CHECK_ROW_SLOTS(float, 64);
ADI_CHECK_ROW_SLOTS(double, 2);
ADI_CHECK_ROW_SLOTS(double, 4);
ADI_CHECK_ROW_SLOTS(double, 8);
ADI_CHECK_ROW_SLOTS(double, 9);
ADI_CHECK_ROW_SLOTS(double, 16);
ADI_CHECK_ROW_SLOTS(double, 17);
ADI_CHECK_ROW_SLOTS(double, 32);
ADI_CHECK_ROW_SLOTS(double, 33);
ADI_CHECK_ROW_SLOTS(double, 64);
#undef ADI_CHECK_ROW_SLOTS

template <class T, int I>
constexpr int warp_slots() {
  // per buffer, rounded up to 16 bytes
  constexpr int n = WarpTranspose<T, I, MapKind::Giles>::kSlots;
  return (n * static_cast<int>(sizeof(T)) + 15) / 16 * 16 / static_cast<int>(sizeof(T));
}

}  // namespace adi::cuda::kernels
