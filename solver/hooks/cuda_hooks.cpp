// Built only without CUDA (adi_cuda_hooks): every CUDA entry point links the
// same way and says why it cannot run.
#include "not_built.hpp"

#include <adi/cuda.hpp>
#include <adi/detail/entry_points.hpp>
#include <adi/box/general_local.hpp>
#include <adi/box/local_backend.hpp>

namespace adi::cuda {

namespace {
[[noreturn]] void unavailable() { hooks::not_built(hooks::Missing::Cuda); }
}  // namespace

template <class T>
std::unique_ptr<Stepper<T>> make_cuda_stepper(const HeatProblem&, const SolverOptions&) {
  unavailable();
}
template std::unique_ptr<Stepper<float>> make_cuda_stepper<float>(const HeatProblem&, const SolverOptions&);
template std::unique_ptr<Stepper<double>> make_cuda_stepper<double>(const HeatProblem&, const SolverOptions&);
std::vector<DeviceInfo> devices() { return {}; }
std::string unavailable_reason() { return hooks::not_built_message(hooks::Missing::Cuda); }
StepperFootprint footprint(const HeatProblem&, Precision, int, const SolverOptions&) { unavailable(); }

template <class T>
struct ConstantSolver<T>::Impl {};
template <class T>
ConstantSolver<T>::ConstantSolver(const LineMatrix&, Axis, const Layout3&, const SolverOptions&) {
  unavailable();
}
template <class T>
ConstantSolver<T>::~ConstantSolver() = default;
template <class T>
ConstantSolver<T>::ConstantSolver(ConstantSolver&&) noexcept = default;
template <class T>
ConstantSolver<T>& ConstantSolver<T>::operator=(ConstantSolver&&) noexcept = default;
template <class T>
void ConstantSolver<T>::solve(T*, void*) const {
  unavailable();
}
template <class T>
void ConstantSolver<T>::solve_add(const T*, T*, void*) const {
  unavailable();
}
template <class T>
std::string ConstantSolver<T>::describe() const {
  return "unavailable";
}
template <class T>
void solve_constant(Axis, const ThomasFactor<T>&, T*, const Layout3&, void*) {
  unavailable();
}
template <class T>
void solve_general(Axis, const T*, const T*, const T*, T*, const Layout3&, void*) {
  unavailable();
}
template <class T>
void solve_cyclic(Axis, const T*, const T*, const T*, T*, const Layout3&, void*) {
  unavailable();
}
template <class T>
void solve_conductive(Axis, const T*, const typename adi::detail::NoDeduce<T>::type*, const ConductiveLines<T>&, T*,
                      const Layout3&, void*) {
  unavailable();
}
template <class T>
void douglas_rhs(const T*, T*, const Layout3&, const HeatProblem&, void*, const SolverOptions&) {
  unavailable();
}
template <class T>
void douglas_rhs(const T*, T*, const Layout3&, const RhsCoefficients<T>&, void*, const SolverOptions&) {
  unavailable();
}

template class ConstantSolver<float>;
template class ConstantSolver<double>;
#define ADI_INSTANTIATE(T)                                                                        \
  template void solve_constant<T>(Axis, const ThomasFactor<T>&, T*, const Layout3&, void*);      \
  template void solve_general<T>(Axis, const T*, const T*, const T*, T*, const Layout3&, void*); \
  template void solve_cyclic<T>(Axis, const T*, const T*, const T*, T*, const Layout3&, void*);  \
  template void solve_conductive<T>(Axis, const T*, const T*, const ConductiveLines<T>&, T*, const Layout3&, void*); \
  template void douglas_rhs<T>(const T*, T*, const Layout3&, const HeatProblem&, void*, const SolverOptions&); \
  template void douglas_rhs<T>(const T*, T*, const Layout3&, const RhsCoefficients<T>&, void*,               \
                               const SolverOptions&);
ADI_INSTANTIATE(float)
ADI_INSTANTIATE(double)
#undef ADI_INSTANTIATE

}  // namespace adi::cuda

namespace adi::cuda {
template <class T>
BaselineTimings cusparse_baseline(const HeatProblem&, int, int) {
  unavailable();
}
template BaselineTimings cusparse_baseline<float>(const HeatProblem&, int, int);
template BaselineTimings cusparse_baseline<double>(const HeatProblem&, int, int);
double device_copy_bandwidth(std::size_t, int) { unavailable(); }
}  // namespace adi::cuda

namespace adi::box {
template <class T>
std::unique_ptr<LocalBackend<T>> make_cuda_local(const LocalProblem&, int, const SolverOptions&) {
  adi::hooks::not_built(adi::hooks::Missing::Cuda);
}
template std::unique_ptr<LocalBackend<float>> make_cuda_local<float>(const LocalProblem&, int, const SolverOptions&);
template std::unique_ptr<LocalBackend<double>> make_cuda_local<double>(const LocalProblem&, int, const SolverOptions&);
template <class T>
std::unique_ptr<GeneralLocal<T>> make_general_cuda_local(const HeatProblem&, const Decomposition&, int, int,
                                                         const SolverOptions&) {
  adi::hooks::not_built(adi::hooks::Missing::Cuda);
}
template std::unique_ptr<GeneralLocal<float>> make_general_cuda_local<float>(const HeatProblem&, const Decomposition&,
                                                                            int, int, const SolverOptions&);
template std::unique_ptr<GeneralLocal<double>> make_general_cuda_local<double>(const HeatProblem&,
                                                                              const Decomposition&, int, int,
                                                                              const SolverOptions&);
}  // namespace adi::box
