#pragma once
// Layout of a 3D array: extents and element strides along x, y, z.
// The usual layout is x fastest (stride 1), rows padded to a pitch, planes
// padded to a plane pitch; any positive strides are accepted by the CPU
// solvers, which makes them the oracle for every device layout.

#include <adi/common.hpp>
#include <adi/error.hpp>

#include <string>

namespace adi {

struct Layout3 {
  index_t n[3] = {0, 0, 0};       ///< extents nx, ny, nz
  index_t stride[3] = {1, 0, 0};  ///< element strides along x, y, z

  /// Packed x-fastest layout: strides 1, nx, nx*ny.
  static Layout3 packed(index_t nx, index_t ny, index_t nz) {
    return Layout3{{nx, ny, nz}, {1, nx, nx * ny}};
  }
  /// x-fastest with rows padded to `row_pitch` elements and planes to
  /// `row_pitch * rows_per_plane` (rows_per_plane >= ny).
  static Layout3 padded(index_t nx, index_t ny, index_t nz, index_t row_pitch, index_t rows_per_plane) {
    return Layout3{{nx, ny, nz}, {1, row_pitch, row_pitch * rows_per_plane}};
  }

  ADI_HD index_t offset(index_t i, index_t j, index_t k) const {
    return i * stride[0] + j * stride[1] + k * stride[2];
  }
  ADI_HD index_t points() const { return n[0] * n[1] * n[2]; }
  /// Elements an allocation must hold: one past the largest offset.
  ADI_HD index_t span() const {
    return points() == 0 ? 0 : offset(n[0] - 1, n[1] - 1, n[2] - 1) + 1;
  }
  ADI_HD index_t length(Axis a) const { return n[axis_index(a)]; }
  ADI_HD index_t stride_of(Axis a) const { return stride[axis_index(a)]; }
  /// Number of lines along axis a (the product of the other two extents).
  ADI_HD index_t lines(Axis a) const { return points() / (n[axis_index(a)] ? n[axis_index(a)] : 1); }

  /// Throws InvalidArgument unless extents are >= 1, strides >= 1 and no two
  /// points share an element (checked for the common nested-stride case).
  void validate(const char* what = "array") const;
  std::string str() const;
};

}  // namespace adi
