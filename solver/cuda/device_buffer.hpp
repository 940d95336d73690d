#pragma once
// RAII device memory (plain cudaMalloc: never managed memory).
#include "cuda_check.hpp"

#include <cstddef>
#include <utility>
#include <vector>

namespace adi::cuda {

/// Copies n elements from host to device and returns only once they have
/// landed. A plain cudaMemcpy from pageable memory may return while its DMA
/// from the driver's staging buffer is still in flight (CUDA's "API
/// synchronization behavior"), and the kernels of our non-blocking streams
/// are not ordered after the legacy stream: a kernel queued right after a
/// table upload could read the memory's previous contents (stale tables of
/// a freed solver at the same address gave finite, wrong results). So the
/// copy goes on the legacy stream explicitly and the host waits for it.
template <class T>
void upload_blocking(T* dst, const T* src, std::size_t n) {
  if (!n) return;
  ADI_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyHostToDevice, cudaStreamLegacy));
  ADI_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

/// cudaMemset is asynchronous with respect to the host and runs on the
/// legacy stream: like upload_blocking, wait for it before a non-blocking
/// stream may touch the memory.
inline void memset_blocking(void* dst, int value, std::size_t bytes) {
  if (!bytes) return;
  ADI_CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, cudaStreamLegacy));
  ADI_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { resize(n); }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }

  void resize(std::size_t n) {
    reset();
    if (n) ADI_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)));
    n_ = n;
  }
  void reset() noexcept {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    n_ = 0;
  }
  /// Complete on return, for every stream (upload_blocking).
  void upload(const std::vector<T>& h) {
    if (h.size() != n_) resize(h.size());
    upload_blocking(p_, h.data(), n_);
  }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace adi::cuda
