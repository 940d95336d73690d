#pragma once
// The Douglas right-hand side w = dt (Lx + Ly + Lz) u on the GPU.
#include <adi/grid.hpp>
#include <adi/options.hpp>
#include <adi/scheme.hpp>

#include <cuda_runtime.h>

#include <string>

namespace adi::cuda {
/// "" when launch_rhs can cover the layout's extents in one launch, else why
/// not (CUDA limits a grid's y and z to 65535 blocks: ny <= 524280 rows of 8,
/// nz <= 2097120 planes in chunks of 32). Checked when a stepper is made, so
/// such a grid is refused before a run writes anything.
std::string rhs_unlaunchable(const Layout3& L);

/// `options.rhs_vec` (points per thread, -1: by precision) is the experiment
/// knob ADI_RHS_VEC, read by the app.
template <class T>
void launch_rhs(const T* u, T* w, const Layout3& L, const RhsCoefficients<T>& kc, cudaStream_t st,
                const SolverOptions& options = {});
}  // namespace adi::cuda
