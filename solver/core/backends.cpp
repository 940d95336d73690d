// Backend choice: the only place that knows which backends were built.

#include <adi/stepper.hpp>
#include <adi/version.hpp>

#include "../cpu/stepper_cpu.hpp"
#if ADI_WITH_CUDA
#include "../cuda/cuda_backend.hpp"
#endif

#include <cstdlib>

namespace adi {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::Cpu: return "cpu";
    case Backend::Cuda: return "cuda";
    case Backend::Auto: return "auto";
  }
  return "?";
}

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::Rhs: return "rhs";
    case Phase::SolveX: return "x";
    case Phase::SolveY: return "y";
    case Phase::SolveZ: return "z+update";
    case Phase::Step: return "step";
  }
  return "?";
}

bool backend_built(Backend b) {
  if (b == Backend::Cuda) return ADI_WITH_CUDA != 0;
  return true;
}

std::vector<DeviceInfo> cuda_devices() {
#if ADI_WITH_CUDA
  return cuda::devices();
#else
  return {};
#endif
}

std::string cuda_unavailable_reason() {
#if ADI_WITH_CUDA
  return cuda::unavailable_reason();
#else
  return "this adi3d was built without CUDA (configure with -DADI_ENABLE_CUDA=ON and a CUDA toolkit)";
#endif
}

Backend resolve_backend(Backend requested) {
  if (requested != Backend::Auto) return requested;
  return cuda_unavailable_reason().empty() ? Backend::Cuda : Backend::Cpu;
}

template <class T>
std::unique_ptr<Stepper<T>> make_stepper(const HeatProblem& p, Backend b) {
  p.validate();
  switch (resolve_backend(b)) {
    case Backend::Cuda: {
      const std::string why = cuda_unavailable_reason();
      if (!why.empty()) ADI_THROW(BackendUnavailable, "backend 'cuda' is not available: " + why);
#if ADI_WITH_CUDA
      return cuda::make_cuda_stepper<T>(p);
#else
      break;
#endif
    }
    case Backend::Cpu:
    case Backend::Auto: return cpu::make_cpu_stepper<T>(p);
  }
  ADI_THROW(BackendUnavailable, "unknown backend");
}

template std::unique_ptr<Stepper<float>> make_stepper<float>(const HeatProblem&, Backend);
template std::unique_ptr<Stepper<double>> make_stepper<double>(const HeatProblem&, Backend);

}  // namespace adi
