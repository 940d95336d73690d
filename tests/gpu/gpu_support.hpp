#pragma once
// The GPU tests' support, in one place: skip without a device (fail instead
// when ADI_REQUIRE_GPU=1: ADI_GPU_TEST_PRELUDE), a throwing CUDA check
// (ADI_TEST_CUDA, ADI_TEST_CUDA_LAUNCH), a device buffer that can be
// poisoned before a kernel (DeviceBuffer), and host fields on packed, padded
// and z-fastest layouts with NaN padding, compared point by point.

#include "gpu_required.hpp"
#include "test_util.hpp"

#include <adi/grid.hpp>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace adi::test {

/// "" when a CUDA device is usable, else why not (asked once per process).
inline const std::string& gpu_unavailable_reason() {
  static const std::string reason = [] {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return std::string("no usable CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(e) + ")";
    }
    if (n == 0) return std::string("no CUDA device");
    const cudaError_t f = cudaFree(nullptr);  // creates the context: a broken driver shows here
    if (f != cudaSuccess) return std::string("CUDA context creation failed: ") + cudaGetErrorString(f);
    return std::string();
  }();
  return reason;
}

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                           cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

/// A device array of n T; poison() fills every byte with 0xFF, which is a
/// NaN for float and double, so an element a kernel did not write cannot
/// compare equal to anything.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t n);
  /// A device copy of `h`.
  explicit DeviceBuffer(const std::vector<T>& h) : DeviceBuffer(h.size()) { upload(h); }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  void poison();
  void upload(const std::vector<T>& h);
  std::vector<T> download() const;

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace adi::test

/// Every CUDA runtime call in tests: throws (gtest reports the exception as a
/// failure with file, line and the call).
#define ADI_TEST_CUDA(call)                                                              \
  do {                                                                                   \
    const cudaError_t adi_test_err_ = (call);                                            \
    if (adi_test_err_ != cudaSuccess) ::adi::test::throw_cuda(adi_test_err_, #call, __FILE__, __LINE__); \
  } while (0)

/// After every launch: the launch error, then the kernel's own error.
#define ADI_TEST_CUDA_LAUNCH()                  \
  do {                                          \
    ADI_TEST_CUDA(cudaGetLastError());          \
    ADI_TEST_CUDA(cudaDeviceSynchronize());     \
  } while (0)

/// First statement of every GPU test: skip without a device, or fail when
/// ADI_REQUIRE_GPU=1.
#define ADI_GPU_TEST_PRELUDE()                                                       \
  do {                                                                               \
    const std::string& adi_why_ = ::adi::test::gpu_unavailable_reason();             \
    if (!adi_why_.empty()) {                                                         \
      if (::adi::test::gpu_required()) {                                             \
        FAIL() << "ADI_REQUIRE_GPU=1 but " << adi_why_;                              \
      } else {                                                                       \
        GTEST_SKIP() << adi_why_ << " (set ADI_REQUIRE_GPU=1 to make this a failure)"; \
      }                                                                              \
    }                                                                                \
  } while (0)

namespace adi::test {

template <class T>
DeviceBuffer<T>::DeviceBuffer(std::size_t n) : n_(n) {
  ADI_TEST_CUDA(cudaMalloc(&p_, n * sizeof(T) + 16));
}
template <class T>
void DeviceBuffer<T>::poison() {
  ADI_TEST_CUDA(cudaMemset(p_, 0xFF, n_ * sizeof(T)));
}
template <class T>
void DeviceBuffer<T>::upload(const std::vector<T>& h) {
  if (h.size() != n_) throw std::logic_error("DeviceBuffer::upload: size mismatch");
  ADI_TEST_CUDA(cudaMemcpy(p_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
}
template <class T>
std::vector<T> DeviceBuffer<T>::download() const {
  std::vector<T> h(n_);
  ADI_TEST_CUDA(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// ---- host fields on a layout (padding NaN) ----

enum class LayoutKind { Packed, Padded, ZFastest };
inline const char* kind_name(LayoutKind k) { return k == LayoutKind::Packed ? "packed" : k == LayoutKind::Padded ? "padded" : "zfastest"; }

inline Layout3 make_layout(index_t nx, index_t ny, index_t nz, LayoutKind k) {
  switch (k) {
    case LayoutKind::Packed: return Layout3::packed(nx, ny, nz);
    case LayoutKind::Padded: return Layout3::padded(nx, ny, nz, nx + 5, ny + 2);
    case LayoutKind::ZFastest: return Layout3{{nx, ny, nz}, {ny * nz, nz, 1}};
  }
  return {};
}

// Random values at the points, NaN in the padding.
template <class T>
std::vector<T> random_field(SeededRng& rng, const Layout3& L) {
  std::vector<T> d(static_cast<std::size_t>(L.span()), poison<T>());
  for (index_t k = 0; k < L.n[2]; ++k)
    for (index_t j = 0; j < L.n[1]; ++j)
      for (index_t i = 0; i < L.n[0]; ++i) d[L.offset(i, j, k)] = static_cast<T>(rng.uniform(-1, 1));
  return d;
}

// max |got - want| / max |want| over the points; padding must still be NaN.
template <class T>
double compare_fields(const std::vector<T>& got, const std::vector<T>& want, const Layout3& L) {
  std::vector<char> is_point(got.size(), 0);
  double worst = 0, scale = 1e-300;
  for (index_t k = 0; k < L.n[2]; ++k)
    for (index_t j = 0; j < L.n[1]; ++j)
      for (index_t i = 0; i < L.n[0]; ++i) {
        const index_t o = L.offset(i, j, k);
        is_point[o] = 1;
        const double g = got[o], w = want[o];
        if (!std::isfinite(g)) return INFINITY;
        worst = std::max(worst, std::fabs(g - w));
        scale = std::max(scale, std::fabs(w));
      }
  for (std::size_t q = 0; q < got.size(); ++q)
    if (!is_point[q] && !std::isnan(got[q])) return INFINITY;  // padding written
  return worst / scale;
}

}  // namespace adi::test
