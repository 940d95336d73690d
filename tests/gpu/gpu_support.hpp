#pragma once
// GPU test support: skip without a device (reported as skipped by ctest),
// fail instead when ADI_REQUIRE_GPU=1; checked device buffers.

#include "gpu_required.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace adi::test {

inline std::string gpu_missing_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA device: ") + cudaGetErrorString(e);
  }
  return n == 0 ? "no CUDA device" : "";
}


#define ADI_GPU_TEST_PRELUDE()                                                             \
  do {                                                                                     \
    const std::string why_ = ::adi::test::gpu_missing_reason();                            \
    if (!why_.empty()) {                                                                   \
      if (::adi::test::gpu_required()) FAIL() << "ADI_REQUIRE_GPU=1 but " << why_;         \
      GTEST_SKIP() << why_;                                                                \
    }                                                                                      \
  } while (0)

#define ADI_TEST_CUDA(call)                                                                     \
  do {                                                                                          \
    const cudaError_t e_ = (call);                                                              \
    ASSERT_EQ(e_, cudaSuccess) << #call << ": " << cudaGetErrorName(e_) << " " << cudaGetErrorString(e_); \
  } while (0)

/// A device copy of a host vector; throws (via gtest failure) on CUDA errors.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(const std::vector<T>& h) : n_(h.size()) {
    if (cudaMalloc(reinterpret_cast<void**>(&p_), n_ * sizeof(T)) != cudaSuccess) throw std::bad_alloc();
    if (cudaMemcpy(p_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
      throw std::runtime_error("cudaMemcpy to device failed");
  }
  ~DeviceArray() { cudaFree(p_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() const { return p_; }
  std::vector<T> download() const {
    std::vector<T> h(n_);
    if (cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess)
      throw std::runtime_error("cudaMemcpy to host failed");
    return h;
  }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace adi::test
