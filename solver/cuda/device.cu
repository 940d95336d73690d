// Device discovery and the error-check helpers.

#include <adi/detail/backends.hpp>
#include "cuda_check.hpp"

#include <cstdlib>
#include <atomic>
#include <sstream>

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

}  // namespace adi::cuda
