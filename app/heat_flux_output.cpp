// The heat flux of each output step (heat_flux_output.hpp).

#include "heat_flux_output.hpp"

#include <adi/mpi.hpp>

#include <algorithm>

namespace adi::app {

template <class T>
HeatFluxOutput<T>::HeatFluxOutput(const io::RunConfig& c, bool root, const std::optional<io::FieldPart>& part,
                                  const std::optional<Decomposition>& dec)
    : active_(c.output.heat_flux && !c.output.file.empty()), root_(root), p_(c.problem), part_(part), dec_(dec) {
  if (!active_) return;
  if (part_) {
    K_ = std::make_unique<io::FluxConductivity>(p_, part_->offset, part_->count);
  } else if (root_) {
    K_ = std::make_unique<io::FluxConductivity>(p_, std::array<index_t, 3>{{0, 0, 0}}, p_.n);
  }
}

template <class T>
const T* HeatFluxOutput<T>::compute(double t, const T* values) {
  if (!active_) return nullptr;
  if (!part_) {  // the whole field, on the rank that writes it
    if (!root_) return nullptr;
    io::GhostedBox<T> whole;
    whole.size = p_.n;
    whole.box = values;
    K_->update(p_, whole);
    flux_ = io::heat_flux_whole(p_, t, values, *K_);
    return flux_.data();
  }
  // Collective writes: this rank's box, and the planes beyond it along each
  // split axis from the ranks that own them. Every rank puts its first and
  // last plane along the axis into its slots of one buffer, which an
  // all-reduce sums: each value comes from one rank (the others add 0), so
  // the planes arrive unchanged.
  const Decomposition& d = *dec_;
  const int me = mpi::world_rank();
  const std::array<index_t, 3>& begin = part_->offset;
  const std::array<index_t, 3>& size = part_->count;
  io::GhostedBox<T> u;
  u.begin = begin;
  u.size = size;
  u.box = values;
  for (int a = 0; a < 3; ++a) {
    if (!d.is_split(a)) continue;  // every rank holds the axis whole
    const int o1 = a == 0 ? 1 : 0, o2 = a == 2 ? 1 : 2;
    auto plane_of = [&](const Box& b) { return b.size[o1] * b.size[o2]; };
    std::vector<std::size_t> offset(static_cast<std::size_t>(d.ranks()) + 1, 0);
    for (int r = 0; r < d.ranks(); ++r)
      offset[static_cast<std::size_t>(r) + 1] = offset[static_cast<std::size_t>(r)] + 2 * static_cast<std::size_t>(plane_of(d.part(r).box));
    std::vector<double> buf(offset.back(), 0.0);
    const std::size_t plane = static_cast<std::size_t>(plane_of(d.part(me).box));
    const index_t sx = size[0], sy = size[1];
    for (int side = 0; side < 2; ++side) {
      const index_t l = side == 0 ? 0 : size[a] - 1;
      double* dst = buf.data() + offset[static_cast<std::size_t>(me)] + static_cast<std::size_t>(side) * plane;
      std::size_t q = 0;
      for (index_t k = 0; k < size[2]; ++k)
        for (index_t j = 0; j < size[1]; ++j)
          for (index_t i = 0; i < size[0]; ++i) {
            const index_t at[3] = {i, j, k};
            if (at[a] != l) continue;
            dst[q++] = static_cast<double>(values[i + sx * (j + sy * k)]);
          }
    }
    // In pieces: MPI counts are ints.
    constexpr std::size_t kPiece = std::size_t(1) << 26;
    for (std::size_t at = 0; at < buf.size(); at += kPiece)
      mpi::allreduce_sum(buf.data() + at, static_cast<int>(std::min(kPiece, buf.size() - at)));
    const std::array<int, 3> c = d.coords(me);
    for (int side = 0; side < 2; ++side) {
      ghost_[a][side].clear();
      u.ghost[a][side] = nullptr;
      if (!io::GhostedBox<T>::needs_ghost(p_, begin, size, a, side)) continue;
      std::array<int, 3> nc = c;
      nc[a] = (c[a] + (side == 0 ? -1 : 1) + d.grid()[a]) % d.grid()[a];
      const int nb = d.rank_of(nc);
      // The neighbour below gives its last plane, the one above its first.
      const double* src = buf.data() + offset[static_cast<std::size_t>(nb)] + (side == 0 ? plane : 0);
      ghost_[a][side].assign(src, src + plane);
      u.ghost[a][side] = ghost_[a][side].data();
    }
  }
  flux_.resize(static_cast<std::size_t>(3 * size[0] * size[1] * size[2]));
  K_->update(p_, u);
  io::heat_flux(p_, t, u, *K_, flux_.data());
  return flux_.data();
}

template class HeatFluxOutput<float>;
template class HeatFluxOutput<double>;

}  // namespace adi::app
