// Placeholder until the CUDA kernels land (issue #4): asking for the CUDA
// backend is a clear error, never a crash.
#include "cuda_backend.hpp"

namespace adi::cuda {
template <class T>
std::unique_ptr<Stepper<T>> make_cuda_stepper(const HeatProblem&) {
  ADI_THROW(BackendUnavailable, "the CUDA stepper is not implemented yet in this build");
}
template std::unique_ptr<Stepper<float>> make_cuda_stepper<float>(const HeatProblem&);
template std::unique_ptr<Stepper<double>> make_cuda_stepper<double>(const HeatProblem&);
}  // namespace adi::cuda
