// Device discovery and the error-check helpers.

#include <adi/detail/entry_points.hpp>
#include "cuda_check.hpp"
#include "device_buffer.hpp"

#include <cstdlib>
#include <algorithm>
#include <atomic>
#include <sstream>
#include <vector>

namespace adi::cuda {

void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
  std::ostringstream s;
  s << "CUDA error " << cudaGetErrorName(e) << " (" << cudaGetErrorString(e) << ") in " << call;
  cudaGetLastError();  // clear a non-sticky error so the caller may carry on
  throw CudaError(e, s.str(), file, line);
}

namespace {
std::atomic<bool> g_sync_checks{false};
bool sync_checks() {
#ifndef NDEBUG
  return true;
#else
  return g_sync_checks.load(std::memory_order_relaxed);
#endif
}
}  // namespace

void set_sync_checks(bool on) {
  if (on) g_sync_checks.store(true, std::memory_order_relaxed);
}

bool sync_checks_enabled() { return sync_checks(); }

void check_launch(const char* what, const char* file, int line) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess && sync_checks()) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) throw_cuda_error(e, what, file, line);
}

std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> out;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return out;
  }
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
    DeviceInfo info;
    info.index = d;
    info.name = prop.name;
    info.global_memory = prop.totalGlobalMem;
    info.multiprocessors = prop.multiProcessorCount;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    out.push_back(info);
  }
  return out;
}

std::string unavailable_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA device (") + cudaGetErrorString(e) + ")";
  }
  if (n == 0) return "no CUDA device found";
  return "";
}

// The device-to-device copy bandwidth (bytes read + written per second):
// the reference every benchmark ratio is taken against, measured in the
// same process (cuda.hpp).
namespace {
double median_ms(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}
}  // namespace

double device_copy_bandwidth(std::size_t bytes, int reps) {
  DeviceBuffer<char> a(bytes), b(bytes);
  memset_blocking(a.get(), 1, bytes);
  memset_blocking(b.get(), 0, bytes);
  cudaEvent_t e0, e1;
  ADI_CUDA_CHECK(cudaEventCreate(&e0));
  ADI_CUDA_CHECK(cudaEventCreate(&e1));
  std::vector<double> ms;
  for (int r = 0; r < std::max(reps, 1) + 2; ++r) {
    ADI_CUDA_CHECK(cudaEventRecord(e0));
    ADI_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice));
    ADI_CUDA_CHECK(cudaEventRecord(e1));
    ADI_CUDA_CHECK(cudaEventSynchronize(e1));
    float t = 0;
    ADI_CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
    if (r >= 2) ms.push_back(t);  // two warm-ups
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return 2.0 * static_cast<double>(bytes) / (median_ms(ms) * 1e-3);
}

}  // namespace adi::cuda
