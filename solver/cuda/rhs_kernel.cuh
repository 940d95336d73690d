#pragma once
// The Douglas right-hand side w = dt (Lx + Ly + Lz) u on the GPU.
#include <adi/grid.hpp>
#include <adi/scheme.hpp>

#include <cuda_runtime.h>

namespace adi::cuda {
template <class T>
void launch_rhs(const T* u, T* w, const Layout3& L, const RhsCoefficients<T>& kc, cudaStream_t st);
}  // namespace adi::cuda
