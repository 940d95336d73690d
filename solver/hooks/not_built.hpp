#pragma once
// The one message for "this backend was not built" (Ginkgo's device hooks:
// every stub of a missing backend lives in solver/hooks and says the same).
#include <adi/error.hpp>

#include <string>

namespace adi::hooks {

enum class Missing { Cuda, Mpi };

inline std::string not_built_message(Missing m) {
  return m == Missing::Cuda
             ? "this adi3d was built without CUDA (configure with -DADI_ENABLE_CUDA=ON and a CUDA toolkit)"
             : "this adi3d was built without MPI (configure with -DADI_ENABLE_MPI=ON and an MPI library)";
}

[[noreturn]] inline void not_built(Missing m) { ADI_THROW(BackendUnavailable, not_built_message(m)); }

}  // namespace adi::hooks
