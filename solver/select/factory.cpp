// Backend choice: the only place that picks a backend. A backend that was
// not built answers through its hooks (solver/hooks), so this file has no
// build-dependent code paths.

#include <adi/cuda.hpp>
#include <adi/detail/entry_points.hpp>
#include <adi/factory.hpp>
#include <adi/mpi.hpp>
#include <adi/steady.hpp>
#include <adi/stepper.hpp>
#include <adi/temperature.hpp>
#include <adi/temperature_stepper.hpp>
#include <adi/version.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace adi {

bool backend_built(Backend b) {
  if (b == Backend::Cuda) return ADI_WITH_CUDA != 0;
  return true;
}

std::vector<DeviceInfo> cuda_devices() { return cuda::devices(); }

std::string cuda_unavailable_reason() { return cuda::unavailable_reason(); }

namespace {
[[noreturn]] void cuda_not_available(const std::string& why) {
  ADI_THROW(BackendUnavailable, "backend 'cuda' is not available: " + why);
}
}  // namespace

StepperFootprint stepper_footprint(const HeatProblem& p, Backend b, Precision precision, int ranks,
                                   const SolverOptions& options, bool steady) {
  // A build without CUDA has no model of it: the run would stop at the
  // backend's choice, so the estimate stops with the same words.
  if (b == Backend::Cuda && p.any_stretched() && (ranks > 1 || !options.cuda_stretched))
    ADI_THROW(BackendUnavailable, ranks > 1 ? stretched_on_cuda_ranks() : stretched_on_cuda());
  if (b == Backend::Cuda && !backend_built(b)) cuda_not_available(cuda_unavailable_reason());
  StepperFootprint f = b == Backend::Cuda ? cuda::footprint(p, precision, ranks, options)
                                          : cpu::footprint(p, precision, ranks, options);
  if (steady) add_steady_footprint(f, b, p, ranks);
  // The nonlinear step's host arrays (temperature_stepper.cpp): three
  // fields (u^n and two iterates), five with the extrapolated step's u^(n-1)
  // and the copy an exchange makes (a checkpoint's /u_previous); the
  // state's per-node material index and its K and c values, twice while
  // they are evaluated.
  if (is_nonlinear(p)) f.host_bytes += (p.nonlinear == NonlinearStep::Extrapolated ? 5.0 : 3.0) * f.field_bytes;
  if (const auto& t = p.material.temperature) {
    const double points = static_cast<double>(p.points());
    const double values = (t->isotropic() ? 1.0 : 3.0) + 1.0;
    f.host_bytes += points * (4.0 + 2.0 * 8.0 * values);
  }
  return f;
}

Backend resolve_backend(Backend requested) {
  if (requested != Backend::Auto) return requested;
  return cuda_unavailable_reason().empty() ? Backend::Cuda : Backend::Cpu;
}

Backend choose_backend(const HeatProblem& p, Backend b) {
  // Every problem runs on every backend (the general path on CUDA); auto
  // takes the CPU for a stretched grid (its CUDA rows: stretched_on_cuda).
  if (p.any_stretched() && b == Backend::Auto) return Backend::Cpu;
  const Backend r = resolve_backend(b);
  if (r == Backend::Cuda) {
    const std::string why = cuda_unavailable_reason();
    if (!why.empty()) cuda_not_available(why);
  }
  return r;
}

template <class T>
std::unique_ptr<Stepper<T>> make_stepper(const HeatProblem& p, Backend b, const SolverOptions& options) {
  p.validate();
  std::unique_ptr<Stepper<T>> s;
  const HeatProblem& inner = is_nonlinear(p) ? nonlinear_inner_problem(p) : p;
  if (b == Backend::Cuda && p.any_stretched() && !options.cuda_stretched)
    ADI_THROW(BackendUnavailable, stretched_on_cuda());
  switch (choose_backend(p, b)) {
    case Backend::Cuda: s = cuda::make_cuda_stepper<T>(inner, options); break;
    case Backend::Cpu:
    case Backend::Auto: s = cpu::make_cpu_stepper<T>(inner, options); break;
  }
  if (!s) ADI_THROW(BackendUnavailable, "unknown backend");
  if (is_nonlinear(p)) return wrap_temperature_stepper<T>(std::move(s), p);
  return s;
}

double copy_bandwidth(Backend b, std::size_t bytes, int reps) {
  if (resolve_backend(b) == Backend::Cuda) return cuda::device_copy_bandwidth(bytes, reps);
  // A parallel copy of doubles, first-touched by the same threads that copy
  // them (NUMA placement as in the stepper's own loops).
  const std::size_t n = std::max<std::size_t>(bytes / sizeof(double), 1);
  std::vector<double> src(n), dst(n);
  const auto ni = static_cast<index_t>(n);
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < ni; ++i) src[i] = static_cast<double>(i), dst[i] = 0.0;
  std::vector<double> secs;
  for (int r = 0; r < std::max(reps, 1) + 1; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < ni; ++i) dst[i] = src[i];
    const auto t1 = std::chrono::steady_clock::now();
    if (r > 0) secs.push_back(std::chrono::duration<double>(t1 - t0).count());  // first one warms up
  }
  std::sort(secs.begin(), secs.end());
  volatile double sink = dst[n / 2];
  (void)sink;
  return 2.0 * static_cast<double>(n * sizeof(double)) / secs[secs.size() / 2];
}

template <class T>
std::unique_ptr<Stepper<T>> make_stepper(const HeatProblem& p, const StepperSpec& spec) {
  if (spec.distributed) {
    if (!is_nonlinear(p)) return mpi::make_distributed_stepper<T>(p, spec.backend, spec.grid, spec.options);
    return wrap_temperature_stepper<T>(
        mpi::make_distributed_stepper<T>(nonlinear_inner_problem(p), spec.backend, spec.grid, spec.options), p);
  }
  return make_stepper<T>(p, spec.backend, spec.options);
}

template std::unique_ptr<Stepper<float>> make_stepper<float>(const HeatProblem&, Backend, const SolverOptions&);
template std::unique_ptr<Stepper<double>> make_stepper<double>(const HeatProblem&, Backend, const SolverOptions&);
template std::unique_ptr<Stepper<float>> make_stepper<float>(const HeatProblem&, const StepperSpec&);
template std::unique_ptr<Stepper<double>> make_stepper<double>(const HeatProblem&, const StepperSpec&);

}  // namespace adi
