#pragma once
// Internal to the CPU backend.
#include <adi/tridiag.hpp>

namespace adi::cpu {
/// solve_constant that also adds the solution into `acc` (same layout) during
/// back substitution: the fused Douglas update u += D. acc may be null.
template <class T>
void solve_constant_fused(Axis axis, const ThomasFactor<T>& f, T* d, T* acc, const Layout3& layout);
}  // namespace adi::cpu
