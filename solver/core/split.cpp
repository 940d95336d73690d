// The Strang step's sequence and its Dirichlet planes (split.hpp).

#include <adi/split.hpp>

namespace adi {

std::vector<SplitFactor> strang_sequence(const HeatProblem&) {
  // The same five factors for every grid: a flat axis' factors are the
  // identity but for their share of the source, so a 2D problem is exactly
  // the 3D one with a uniform, insulated third axis.
  return {{0, 0.5}, {1, 0.5}, {2, 1.0}, {1, 0.5}, {0, 0.5}};
}

std::array<double, 3> strang_fractions(const HeatProblem&) { return {{0.5, 0.5, 1.0}}; }

double strang_source_share(const HeatProblem&) { return 1.0 / 3.0; }

std::array<double, 6> split_table_values(const HeatProblem& p, double t) {
  std::array<double, 6> f{};
  for (int id = 0; id < 6; ++id) {
    const FaceData& d = (id % 2) ? p.hi_data[id / 2] : p.lo_data[id / 2];
    f[id] = d.table.at(t);
  }
  return f;
}

SplitDirichlet split_dirichlet(const DirichletData& d) {
  SplitDirichlet s;
  for (const DirichletFace& f : d.faces) {
    SplitDirichlet::Plane pl;
    pl.id = f.id;
    pl.axis = f.axis;
    pl.side = f.side;
    pl.plane = f.plane;
    pl.o1 = f.o1;
    pl.o2 = f.o2;
    pl.n1 = f.n1;
    pl.n2 = f.n2;
    const std::size_t np = static_cast<std::size_t>(f.n1 * f.n2);
    pl.owner.assign(np, -1);
    pl.value.assign(np, 0.0);
    for (index_t c2 = 0; c2 < f.n2; ++c2)
      for (index_t c1 = 0; c1 < f.n1; ++c1) {
        // The node's box-local indices, then the first face (priority order)
        // of the box whose plane holds it: its owner (build_dirichlet's rule).
        index_t x[3];
        x[f.axis] = f.plane;
        x[f.o1] = c1;
        x[f.o2] = c2;
        for (const DirichletFace& g : d.faces) {
          if (x[g.axis] != g.plane) continue;
          const index_t q = g.index(x[g.o1], x[g.o2]);
          if (!g.owned[q]) continue;  // not the owner (ownership is per node: the first face holding it)
          if (!g.table.empty()) {
            pl.owner[static_cast<std::size_t>(f.index(c1, c2))] = static_cast<std::int8_t>(g.id);
            pl.value[static_cast<std::size_t>(f.index(c1, c2))] = g.value[q];
            s.moving = true;
          }
          break;
        }
      }
    s.planes.push_back(std::move(pl));
  }
  return s;
}

}  // namespace adi
