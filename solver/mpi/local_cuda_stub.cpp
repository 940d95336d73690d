// Built with MPI but without CUDA: CUDA ranks are unavailable.
#include "local_backend.hpp"

namespace adi::mpi::detail {
template <class T>
std::unique_ptr<LocalBackend<T>> make_cuda_local(const LocalProblem&, int) {
  ADI_THROW(BackendUnavailable,
            "this adi3d was built without CUDA (configure with -DADI_ENABLE_CUDA=ON and a CUDA toolkit)");
}
template std::unique_ptr<LocalBackend<float>> make_cuda_local<float>(const LocalProblem&, int);
template std::unique_ptr<LocalBackend<double>> make_cuda_local<double>(const LocalProblem&, int);
}  // namespace adi::mpi::detail
