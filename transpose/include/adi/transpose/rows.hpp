#pragma once
// "Rows" adaptors for WarpTranspose::load / store (warp_transpose.cuh): a
// tile is 32 rows, row j = rows.ptr(j)[0 .. rows.len(j)), 0 <= len <= I.
// Any type with these two members works; these cover the common cases.
// Host/device code without CUDA headers, so host tests can use them too.

#include <adi/common.hpp>

namespace adi::transpose {

/// Row j starts at base + j * stride and holds `length` elements for
/// j < count, none after: the lines of a padded array (stride = row pitch),
/// a ragged last tile (count < 32), a line's last chunk (length < I).
template <class T>
struct StridedRows {
  T* base = nullptr;
  index_t stride = 0;  ///< elements from one row's start to the next
  int count = 32;      ///< rows present, 0..32
  int length = 0;      ///< elements per present row, 0..I

  ADI_HD T* ptr(int j) const { return base + static_cast<index_t>(j) * stride; }
  ADI_HD int len(int j) const { return j < count ? length : 0; }
};

/// A contiguous segment of n elements cut into 32 rows of I: row j is
/// base[j I .. j I + I) clipped to n. The per-warp column phase of the hybrid
/// solver (one line per warp, I consecutive elements per lane) reads this.
template <class T, int I>
struct ContiguousRows {
  T* base = nullptr;
  index_t n = 0;  ///< valid elements from base

  ADI_HD T* ptr(int j) const { return base + static_cast<index_t>(j) * I; }
  ADI_HD int len(int j) const {
    const index_t left = n - static_cast<index_t>(j) * I;
    return left <= 0 ? 0 : left >= I ? I : static_cast<int>(left);
  }
};

}  // namespace adi::transpose
