#pragma once
// The moving Dirichlet nodes of a grid or of one rank's box, flattened for
// general_dirichlet_rhs_kernel (general_rhs_kernels.cuh): per node its offset in
// the layout of `stride`, the mask of the faces whose terms it has, and W of
// each face (six slots). Shared by the whole-grid general stepper and the
// general MPI rank.

#include <adi/dirichlet.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace adi::cuda::general {

struct DirichletNodes {
  std::vector<index_t> off;
  std::vector<std::uint8_t> mask;
  std::vector<double> w;
};

inline DirichletNodes flatten_dirichlet(const DirichletData& d, const std::array<index_t, 3>& stride) {
  DirichletNodes out;
  if (!d.moving) return out;
  for (const DirichletFace& f : d.faces) {
    std::uint8_t mask = 0;
    for (const auto& term : f.terms) mask = static_cast<std::uint8_t>(mask | (1u << term.face));
    for (index_t c2 = 0; c2 < f.n2; ++c2)
      for (index_t c1 = 0; c1 < f.n1; ++c1) {
        const index_t q = f.index(c1, c2);
        if (!f.owned[q]) continue;
        out.off.push_back(f.plane * stride[f.axis] + c1 * stride[f.o1] + c2 * stride[f.o2]);
        out.mask.push_back(mask);
        const std::size_t at = out.w.size();
        out.w.resize(at + 6, 0.0);
        for (const auto& term : f.terms) out.w[at + static_cast<std::size_t>(term.face)] = term.w[q];
      }
  }
  return out;
}

}  // namespace adi::cuda::general
