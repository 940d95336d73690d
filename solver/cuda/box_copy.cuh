#pragma once
// Host <-> device copies of one MPI rank's box (ghost layers along its split
// axes, rows possibly padded: LocalStorage) and the pinned host buffers its
// messages are staged in, shared by the classic rank (local_cuda.cu) and the
// general one (general/general_local_cuda.cu).

#include "cuda_check.hpp"

#include <adi/grid.hpp>

#include <cuda_runtime.h>

#include <cstddef>

namespace adi::cuda {

/// The box of `field` (pointing at node (0, 0, 0)) <-> packed host data
/// (x fastest), one 2-D copy per z plane; synchronises `stream`.
template <class T>
void box_copy(T* field, const Layout3& L, T* packed, bool in, cudaStream_t stream) {
  const std::size_t row = sizeof(T) * static_cast<std::size_t>(L.n[0]);
  const std::size_t pitch = sizeof(T) * static_cast<std::size_t>(L.stride[1]);
  for (index_t k = 0; k < L.n[2]; ++k) {
    T* dev = field + k * L.stride[2];
    T* host = packed + L.n[0] * L.n[1] * k;
    if (in)
      ADI_CUDA_CHECK(cudaMemcpy2DAsync(dev, pitch, host, row, row, static_cast<std::size_t>(L.n[1]),
                                       cudaMemcpyHostToDevice, stream));
    else
      ADI_CUDA_CHECK(cudaMemcpy2DAsync(host, row, dev, pitch, row, static_cast<std::size_t>(L.n[1]),
                                       cudaMemcpyDeviceToHost, stream));
  }
  ADI_CUDA_CHECK(cudaStreamSynchronize(stream));
}

/// The plane at index idx (-1 .. n) along axis 1 or 2 of `field` (pointing
/// at node (0, 0, 0)), rows c_o2 in [b, e) <-> packed host data, x fastest:
/// one 2-D copy (queued on `stream`) whose rows are x rows of the box, a row
/// pitch apart for a z plane, a plane pitch apart for a y plane.
template <class T>
void plane_copy(T* field, const Layout3& L, int axis, index_t idx, T* host, bool out, index_t b, index_t e,
                cudaStream_t stream) {
  ADI_REQUIRE(axis == 1 || axis == 2, "CUDA ranks exchange y and z planes only");
  const int o2 = axis == 1 ? 2 : 1;
  const std::size_t row = sizeof(T) * static_cast<std::size_t>(L.n[0]);
  const std::size_t pitch = sizeof(T) * static_cast<std::size_t>(L.stride[o2]);
  T* dev = field + idx * L.stride[axis] + b * L.stride[o2];
  const std::size_t rows = static_cast<std::size_t>(e - b);
  if (out)
    ADI_CUDA_CHECK(cudaMemcpy2DAsync(host, row, dev, pitch, row, rows, cudaMemcpyDeviceToHost, stream));
  else
    ADI_CUDA_CHECK(cudaMemcpy2DAsync(dev, pitch, host, row, row, rows, cudaMemcpyHostToDevice, stream));
}

/// Pinned host memory (page-locked: async DMA copies, no bounce buffer).
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() {
    if (p_) cudaFreeHost(p_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  T* reserve(std::size_t n) {
    if (n > n_) {
      if (p_) ADI_CUDA_CHECK(cudaFreeHost(p_));
      p_ = nullptr;
      ADI_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&p_), n * sizeof(T)));
      n_ = n;
    }
    return p_;
  }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace adi::cuda
