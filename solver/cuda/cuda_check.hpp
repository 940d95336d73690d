#pragma once
// The one error-check macro for CUDA calls: throws adi::cuda::CudaError with
// the file, line and the call's text. Errors that poison the context (an
// illegal address, a kernel trap) are "sticky": every later call fails too,
// so callers must not try to carry on; CudaError::sticky() tells them apart
// from recoverable ones (out of memory, invalid value).

#include <adi/error.hpp>

#include <cuda_runtime.h>

#include <string>

namespace adi::cuda {

class CudaError : public BackendUnavailable {
 public:
  CudaError(cudaError_t code, const std::string& what, const char* file, int line)
      : BackendUnavailable(what, file, line), code_(code) {}
  cudaError_t code() const { return code_; }
  bool sticky() const {
    switch (code_) {
      case cudaErrorIllegalAddress:
      case cudaErrorLaunchFailure:
      case cudaErrorAssert:
      case cudaErrorHardwareStackError:
      case cudaErrorIllegalInstruction:
      case cudaErrorMisalignedAddress:
      case cudaErrorInvalidAddressSpace:
      case cudaErrorInvalidPc:
      case cudaErrorECCUncorrectable: return true;
      default: return false;
    }
  }

 private:
  cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line);

/// After a launch: the launch-configuration error now, and in checking builds
/// (or with ADI_CUDA_SYNC=1 in the environment) the kernel's own error too.
void check_launch(const char* what, const char* file, int line);
/// SolverOptions::cuda_sync (ADI_CUDA_SYNC=1): every checked launch also
/// synchronises, so an asynchronous fault is reported at the kernel that
/// caused it. A debugging switch of the process (debug builds always do
/// it); a stepper built with the option turns it on.
void set_sync_checks(bool on);
/// Whether checked launches synchronise (set_sync_checks, or a debug build):
/// a synchronising launch cannot be captured into a CUDA graph.
bool sync_checks_enabled();

}  // namespace adi::cuda

#define ADI_CUDA_CHECK(call)                                                                  \
  do {                                                                                        \
    const cudaError_t adi_cuda_err_ = (call);                                                 \
    if (adi_cuda_err_ != cudaSuccess) ::adi::cuda::throw_cuda_error(adi_cuda_err_, #call, __FILE__, __LINE__); \
  } while (0)

#define ADI_CUDA_CHECK_LAUNCH(what) ::adi::cuda::check_launch((what), __FILE__, __LINE__)
