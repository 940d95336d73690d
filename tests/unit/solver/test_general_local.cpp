// The ranks of a distributed run of the general problem, simulated in one
// process (HeFFTe style, no mpirun): one GeneralLocal per rank
// (detail/general_local.hpp), the halo exchange and the all-gather of the
// reduced rows done by hand exactly as distributed_stepper.cpp does them
// over MPI. Covers what the 2-core MPI tests cannot afford: many ranks along
// an axis (rings of 5 and 7, one-plane boxes everywhere), pencils of 6.

#include "test_util.hpp"

#include <adi/decomposition.hpp>
#include <adi/box/general_local.hpp>
#include <adi/factory.hpp>

#include <cmath>
#include <sstream>

using namespace adi;
using namespace adi::test;
using adi::box::GeneralLocal;
using adi::box::kReducedValues;

namespace {

template <class T>
std::vector<T> box_of(const std::vector<T>& global, const HeatProblem& p, const Box& b) {
  std::vector<T> out(static_cast<std::size_t>(b.points()));
  for (index_t k = 0; k < b.size[2]; ++k)
    for (index_t j = 0; j < b.size[1]; ++j)
      for (index_t i = 0; i < b.size[0]; ++i)
        out[i + b.size[0] * (j + b.size[1] * k)] =
            global[(b.begin[0] + i) + p.n[0] * ((b.begin[1] + j) + p.n[1] * (b.begin[2] + k))];
  return out;
}

struct SimulatedRun {
  HeatProblem p;
  Decomposition d;
  std::vector<std::unique_ptr<GeneralLocal<double>>> ranks;
  index_t steps = 0;
  int batches = 1;  // of lines per split-axis solve, as MpiStepper's

  SimulatedRun(const HeatProblem& prob, const std::array<int, 3>& grid, int nb = 1) : p(prob), batches(nb) {
    d = Decomposition::plan(p.n, grid[0] * grid[1] * grid[2], grid);
    d.set_periodic({{p.periodic(0), p.periodic(1), p.periodic(2)}});
    for (int r = 0; r < d.ranks(); ++r) ranks.push_back(box::make_general_cpu_local<double>(p, d, r));
  }
  double time() const { return static_cast<double>(steps) * p.dt; }

  void halo() {
    for (int a = 1; a < 3; ++a) {
      if (!d.is_split(a)) continue;
      for (int r = 0; r < d.ranks(); ++r)
        for (int side = 0; side < 2; ++side) {
          const int nb = d.neighbour(r, a, side ? +1 : -1);
          if (nb < 0) continue;
          std::vector<double> plane(static_cast<std::size_t>(ranks[r]->lines(a)));
          ranks[nb]->pack_face(a, 1 - side, plane.data());  // its face next to r
          ranks[r]->unpack_ghost(a, side, plane.data());
        }
    }
  }

  void solve(int a, bool add_to_u) {
    if (!d.is_split(a)) {
      for (auto& l : ranks) l->solve_whole(a, add_to_u);
      return;
    }
    // Batches of whole rows of lines (c_o2 ranges, the same on the ranks
    // that share lines); per batch every rank's reduced rows, then per group
    // of ranks sharing lines the all-gather (blocks in the order of the
    // coordinate along a).
    const int o2 = a == 1 ? 2 : 1;
    std::vector<std::vector<double>> rows(ranks.size());
    for (int bt = 0; bt < batches; ++bt) {
      for (int r = 0; r < d.ranks(); ++r) {
        const Box& bx = d.part(r).box;
        const index_t n2 = bx.size[o2], nb = std::min<index_t>(batches, n2);
        if (bt >= nb) continue;
        const index_t c2b = n2 * bt / nb, c2e = n2 * (bt + 1) / nb;
        rows[r].assign(static_cast<std::size_t>(kReducedValues * (c2e - c2b) * bx.size[0]), poison<double>());
        ranks[r]->reduce(a, c2b, c2e, bt, rows[r].data());
        ranks[r]->rows_ready(bt);
      }
      for (int r = 0; r < d.ranks(); ++r) {
        const Box& bx = d.part(r).box;
        const index_t n2 = bx.size[o2], nb = std::min<index_t>(batches, n2);
        if (bt >= nb) continue;
        std::vector<double> gathered;
        std::array<int, 3> c = d.coords(r);
        for (c[a] = 0; c[a] < d.grid()[a]; ++c[a]) {
          const auto& blk = rows[d.rank_of(c)];
          gathered.insert(gathered.end(), blk.begin(), blk.end());
        }
        ranks[r]->finish(a, n2 * bt / nb, n2 * (bt + 1) / nb, gathered.data(), add_to_u, false);
      }
    }
    for (auto& l : ranks) l->end_lines(a);
  }

  void step() {
    if (p.scheme_in_use() == SchemeType::Strang) {  // as MpiStepper's Strang step
      halo();
      const double t1 = static_cast<double>(steps + 1) * p.dt;
      for (auto& l : ranks) l->split_terms(time(), t1);
      for (const SplitFactor& f : strang_sequence(p)) {
        if (!p.flat(f.axis)) halo();
        for (auto& l : ranks) l->factor_rhs(f.axis, time());
        if (!p.flat(f.axis)) solve(f.axis, true);
      }
      for (auto& l : ranks) l->split_reset();
      ++steps;
      return;
    }
    halo();
    for (auto& l : ranks) l->rhs(time());
    solve(0, false);
    solve(1, false);
    solve(2, true);
    ++steps;
  }
};

std::shared_ptr<const FieldSource> random_field(const HeatProblem& p, const char* name, double lo, double hi,
                                                SeededRng& rng) {
  std::vector<double> v(static_cast<std::size_t>(p.points()));
  for (double& x : v) x = rng.uniform(lo, hi);
  return std::make_shared<ArrayField>(name, p.n, std::move(v));
}

TimeTable table(double a, double b) {
  TimeTable t;
  t.t = {0.0, 0.004, 0.012};
  t.v = {1.0, a, b};
  return t;
}

/// Rough fields (every node independent, K and c over 10x), every face kind.
HeatProblem problem(const std::array<index_t, 3>& n, SeededRng& rng, int periodic_axes) {
  HeatProblem p;
  p.n = n;
  p.length = {1.0, 0.8, 0.9};
  p.dt = 2e-3;
  p.material.conductivity = {random_field(p, "K0", 0.2, 2.0, rng), random_field(p, "K1", 0.3, 3.0, rng),
                             random_field(p, "K2", 0.1, 1.0, rng)};
  p.material.capacity = random_field(p, "c", 0.5, 5.0, rng);
  p.material.source = random_field(p, "q", -1.0, 2.0, rng);
  p.source_table = table(1.5, 0.3);
  p.lo = {Boundary::Dirichlet, Boundary::Robin, Boundary::Neumann};
  p.hi = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Robin};
  p.lo_data[0].table = table(1.2, 0.7);  // from the initial field, moving
  p.hi_data[0].flux = 0.8;
  p.lo_data[1].h = 2.0;
  p.lo_data[1].ambient = 0.4;
  p.lo_data[1].table = table(2.0, 0.5);
  p.hi_data[1].value_from_initial = false;
  p.hi_data[1].value = -0.3;
  p.lo_data[2].flux = -1.1;
  p.lo_data[2].table = table(0.0, 1.0);
  p.hi_data[2].h = 0.7;
  p.hi_data[2].ambient = 1.0;
  for (int a = 0; a < 3; ++a)
    if (periodic_axes & (1 << a)) {
      p.lo[a] = p.hi[a] = Boundary::Periodic;
      p.lo_data[a] = p.hi_data[a] = FaceData{};
    }
  return p;
}

double compare(HeatProblem p, const std::array<int, 3>& grid, index_t steps, SeededRng& rng, int batches = 1) {
  std::vector<double> u0(static_cast<std::size_t>(p.points()));
  for (double& v : u0) v = rng.uniform(-1, 1);
  p.initial_field = std::make_shared<ArrayField>("u0", p.n, u0);
  auto ref = make_stepper<double>(p, Backend::Cpu);
  ref->set_field(u0.data());
  ref->impose_boundary_values();
  ref->advance(steps);
  std::vector<double> want(u0.size());
  ref->get_field(want.data());

  SimulatedRun run(p, grid, batches);
  for (int r = 0; r < run.d.ranks(); ++r) {
    const std::vector<double> box = box_of(u0, p, run.d.part(r).box);
    run.ranks[r]->set_field(box.data());
    run.ranks[r]->impose_boundary_values(0.0);
  }
  for (index_t s = 0; s < steps; ++s) run.step();
  double diff = 0.0, scale = 1e-300;
  for (int r = 0; r < run.d.ranks(); ++r) {
    const Box b = run.d.part(r).box;
    std::vector<double> got(static_cast<std::size_t>(b.points()), poison<double>());
    run.ranks[r]->get_field(got.data());
    const std::vector<double> w = box_of(want, p, b);
    for (std::size_t q = 0; q < got.size(); ++q) {
      diff = std::max(diff, std::isfinite(got[q]) ? std::fabs(got[q] - w[q]) : INFINITY);
      scale = std::max(scale, std::fabs(w[q]));
    }
  }
  return diff / scale;
}

TEST(GeneralLocal, SimulatedRanksMatchTheOracle) {
  SeededRng rng;
  const std::array<index_t, 3> n{9, 11, 7};
  for (int periodic : {0, 2, 4, 6, 7}) {
    for (const std::array<int, 3> g : {std::array<int, 3>{1, 1, 7}, {1, 5, 1}, {1, 11, 1}, {1, 2, 3}, {1, 3, 2},
                                       {1, 1, 2}, {1, 2, 1}, {1, 1, 1}}) {
      const HeatProblem p = problem(n, rng, periodic);
      const double d = compare(p, g, 12, rng);
      EXPECT_LE(d, 1e-12) << "periodic axes mask " << periodic << ", grid 1x" << g[1] << "x" << g[2];
    }
  }
}

// Constant coefficients (a q field, flux / Robin / periodic faces): the
// ranks' whole axes solve with one shared factorisation (ThomasShared,
// CyclicShared) and their split axes with one shared elimination
// (SharedElimination, no alpha / beta arrays), one-row and two-row boxes
// included (they take the general batch).
TEST(GeneralLocal, SimulatedRanksWithConstantCoefficientsMatchTheOracle) {
  SeededRng rng;
  const std::array<index_t, 3> n{9, 11, 7};
  for (int periodic : {0, 2, 7}) {
    for (const std::array<int, 3> g : {std::array<int, 3>{1, 1, 7}, {1, 5, 1}, {1, 11, 1}, {1, 2, 3}, {1, 3, 2},
                                       {1, 1, 1}}) {
      HeatProblem p = problem(n, rng, periodic);
      p.material.conductivity = {nullptr, nullptr, nullptr};
      p.material.capacity = nullptr;
      p.alpha = {0.7, 1.3, 0.4};
      p.capacity = 1.6;
      const double d = compare(p, g, 12, rng);
      EXPECT_LE(d, 1e-12) << "periodic axes mask " << periodic << ", grid 1x" << g[1] << "x" << g[2];
    }
  }
}

// The split axes' lines in batches of whole rows (MpiStepper's
// overlap; on CPU ranks with ADI_MPI_BATCHES): more batches than rows
// (clamped), uneven batches, pencils, rings, a shared elimination.
TEST(GeneralLocal, BatchesOfLinesMatchTheOracle) {
  SeededRng rng;
  const std::array<index_t, 3> n{9, 11, 7};
  for (int batches : {2, 3, 8}) {
    for (int periodic : {0, 6}) {
      for (const std::array<int, 3> g : {std::array<int, 3>{1, 1, 3}, {1, 4, 1}, {1, 2, 3}}) {
        HeatProblem p = problem(n, rng, periodic);
        double d = compare(p, g, 8, rng, batches);
        EXPECT_LE(d, 1e-12) << batches << " batches, periodic mask " << periodic << ", grid 1x" << g[1] << "x" << g[2];
        p.material.conductivity = {nullptr, nullptr, nullptr};
        p.material.capacity = nullptr;
        d = compare(p, g, 8, rng, batches);
        EXPECT_LE(d, 1e-12) << batches << " batches, constant coefficients, periodic mask " << periodic;
      }
    }
  }
}

TEST(GeneralLocal, FlatAxisAndOneRowBoxes) {
  SeededRng rng;
  for (int periodic : {0, 2}) {
    HeatProblem p = problem({13, 6, 1}, rng, periodic);
    p.lo[2] = p.hi[2] = Boundary::Dirichlet;  // a flat axis has no faces
    p.lo_data[2] = p.hi_data[2] = FaceData{};
    for (const std::array<int, 3> g : {std::array<int, 3>{1, 6, 1}, {1, 4, 1}, {1, 1, 1}}) {
      const double d = compare(p, g, 10, rng);
      EXPECT_LE(d, 1e-12) << "nz = 1, periodic mask " << periodic << ", grid 1x" << g[1] << "x1";
    }
  }
}

/// A field that counts the nodes each read asks for and checks every read
/// stays inside the grid.
class CountingField final : public FieldSource {
 public:
  CountingField(const std::array<index_t, 3>& n, double v) : n_(n), v_(v) {}
  std::string name() const override { return "counting"; }
  void read(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& size, double* out) const override {
    for (int a = 0; a < 3; ++a) EXPECT_TRUE(lo[a] >= 0 && size[a] >= 1 && lo[a] + size[a] <= n_[a]);
    const index_t pts = size[0] * size[1] * size[2];
    read_points += pts;
    ++reads;
    for (index_t q = 0; q < pts; ++q) out[q] = v_;
  }
  mutable index_t read_points = 0, reads = 0;

 private:
  std::array<index_t, 3> n_;
  double v_;
};

TEST(GeneralLocal, EachRankReadsOnlyItsBoxAndGhostLayers) {
  for (int periodic : {0, 6}) {
    HeatProblem p;
    p.n = {10, 13, 9};
    p.lo.fill(Boundary::Neumann);
    p.hi.fill(Boundary::Robin);
    for (int a = 1; a < 3; ++a)
      if (periodic & (1 << a)) p.lo[a] = p.hi[a] = Boundary::Periodic;
    for (const std::array<int, 3> g : {std::array<int, 3>{1, 3, 2}, {1, 1, 4}, {1, 1, 1}}) {
      Decomposition d = Decomposition::plan(p.n, g[1] * g[2], g);
      d.set_periodic({{p.periodic(0), p.periodic(1), p.periodic(2)}});
      for (int r = 0; r < d.ranks(); ++r) {
        auto K = std::make_shared<CountingField>(p.n, 2.0);
        auto c = std::make_shared<CountingField>(p.n, 3.0);
        HeatProblem q = p;
        q.material.conductivity = {K, K, K};  // isotropic: read once
        q.material.capacity = c;
        box::make_general_cpu_local<double>(q, d, r);
        // The box and its ghost layers, each node once: a ghost layer beyond
        // a domain face (not a cut) is the face's own plane again, not read twice.
        const LocalPart part = d.part(r);
        const Box b = part.box;
        index_t expected = 1;
        for (int a = 0; a < 3; ++a)
          expected *= b.size[a] + (d.is_split(a) ? (part.lo_cut[a] ? 1 : 0) + (part.hi_cut[a] ? 1 : 0) : 0);
        EXPECT_EQ(K->read_points, expected) << "rank " << r << " of 1x" << g[1] << "x" << g[2];
        EXPECT_EQ(c->read_points, expected);
        if (d.ranks() > 1) {
          EXPECT_LT(K->read_points, p.points());
        }
      }
    }
  }
}

}  // namespace
