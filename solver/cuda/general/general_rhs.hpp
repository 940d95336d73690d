#pragma once
// The general path's right-hand side at the interior nodes, fast form
// (general_rhs.cu).

#include <adi/common.hpp>
#include <adi/grid.hpp>

#include <cuda_runtime.h>

namespace adi::cuda::general {

template <class T>
struct GeneralParams;

/// The right-hand side at the interior nodes (not on any face), fast form:
/// fused multiply-adds and the fast reciprocal in the face means (agrees with
/// the oracle to round-off; general_rhs_kernel is the bit-exact form). The
/// faces are general_rhs_faces_kernel's either way.
template <class T>
void launch_fast_rhs(const T* u, T* w, const GeneralParams<T>& P, int sm_count, cudaStream_t st);

}  // namespace adi::cuda::general
