#pragma once
// Entry points of the CUDA backend that the backend-neutral core calls.
// Deliberately free of CUDA headers: core code includes this.
#include <adi/stepper.hpp>

#include <memory>
#include <string>
#include <vector>

namespace adi::cuda {
template <class T>
std::unique_ptr<Stepper<T>> make_cuda_stepper(const HeatProblem& p);
std::vector<DeviceInfo> devices();
/// "" when a device is usable, otherwise the reason (driver error text).
std::string unavailable_reason();
}  // namespace adi::cuda
