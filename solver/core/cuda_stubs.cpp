// Built only without CUDA: the device API links the same way and says why it
// cannot run.
#include <adi/cuda.hpp>

namespace adi::cuda {

[[noreturn]] void unavailable();
[[noreturn]] void unavailable() {
  ADI_THROW(BackendUnavailable,
            "this adi3d was built without CUDA (configure with -DADI_ENABLE_CUDA=ON and a CUDA toolkit)");
}

template <class T>
struct ConstantSolver<T>::Impl {};
template <class T>
ConstantSolver<T>::ConstantSolver(const LineMatrix&, Axis, const Layout3&) {
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
void douglas_rhs(const T*, T*, const Layout3&, const HeatProblem&, void*) {
  unavailable();
}
template <class T>
void douglas_rhs(const T*, T*, const Layout3&, const RhsCoefficients<T>&, void*) {
  unavailable();
}

template class ConstantSolver<float>;
template class ConstantSolver<double>;
#define ADI_INSTANTIATE(T)                                                                        \
  template void solve_constant<T>(Axis, const ThomasFactor<T>&, T*, const Layout3&, void*);      \
  template void solve_general<T>(Axis, const T*, const T*, const T*, T*, const Layout3&, void*); \
  template void douglas_rhs<T>(const T*, T*, const Layout3&, const HeatProblem&, void*);       \
  template void douglas_rhs<T>(const T*, T*, const Layout3&, const RhsCoefficients<T>&, void*);
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
