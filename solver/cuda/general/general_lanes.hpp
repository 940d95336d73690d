#pragma once
// The segmented line solve of the general path (general_lanes.cu): K / c
// fields, periodic lines and flux / Robin ends, rows computed on the fly.

#include <adi/common.hpp>
#include <adi/grid.hpp>

#include <cuda_runtime.h>

namespace adi::cuda::general {

template <class T>
struct GeneralParams;

/// Per-point coefficients laid out like the right-hand side (the library's
/// adi::cuda::solve_general / solve_cyclic): row i of a line reads
/// a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i].
template <class T>
struct ArrayRows {
  const T* a = nullptr;
  const T* b = nullptr;
  const T* c = nullptr;
};

/// Block shape of the segmented kernel for lines of n rows: S segments (a
/// power of two) of at most I rows, L lines per block. S = 0: the line does
/// not fit (longer than 1024 rows; the caller solves one line per thread).
struct LanesShape {
  int S = 0, I = 0, L = 0;
  bool uniform = false;  ///< every segment I rows (else n / S or n / S + 1)
};

template <class T>
LanesShape lanes_shape(index_t n, bool cyclic);

/// Whether the segmented kernel takes axis a of the grid P describes.
template <class T>
bool lanes_fit(const GeneralParams<T>& P, int a, bool cyclic);

/// Whether the segmented kernel solves axis a's lines in place with
/// coalesced copies: rows one element apart (x), uniform segments, the
/// tile's slots fit the device's shared memory. Then the x solve needs no
/// transposed grid (3 words a point instead of 7).
template <class T>
bool lanes_in_place(const GeneralParams<T>& P, int a, bool cyclic);

/// Solves every line of axis a of the grid P describes, in place in w, or
/// adds the solution into acc (the fused update u += D) when acc is not null.
/// cyclic: the axis is periodic. A zero or non-finite pivot sets bit
/// kPivotErrorX << a of *error.
template <class T>
void launch_general_lanes(T* w, T* acc, const GeneralParams<T>& P, int a, bool cyclic, int* error, cudaStream_t st);

/// The same segmented solve with rows read from R (the library API), in
/// place in d, along `axis` of any layout L. Returns false, launching
/// nothing, when the lines do not fit (longer than 128 segments, a single
/// node): the caller then solves one line per thread. A zero or non-finite
/// pivot sets a bit of *error.
template <class T>
bool launch_array_lanes(const ArrayRows<T>& R, T* d, const Layout3& L, int axis, bool cyclic, int* error,
                        cudaStream_t st);

}  // namespace adi::cuda::general
