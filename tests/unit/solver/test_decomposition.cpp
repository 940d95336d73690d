// The decomposition plan and the distributed line-solve plan, without MPI:
// the ranks are simulated in one process (HeFFTe style), and the ghost-face
// RHS of every sub-box is compared with the whole grid's.

#include "test_util.hpp"

#include <adi/decomposition.hpp>
#include <adi/distributed_line.hpp>

#include <cmath>
#include <set>

using namespace adi;
using namespace adi::test;

namespace {

TEST(Split1D, EvenAsPossibleFirstRangesLonger) {
  for (index_t n = 1; n <= 40; ++n)
    for (int P = 1; P <= n; ++P) {
      const Split1D s{n, P};
      index_t next = 0;
      for (int p = 0; p < P; ++p) {
        EXPECT_EQ(s.begin(p), next);
        EXPECT_GE(s.size(p), 1);
        EXPECT_EQ(s.size(p), n / P + (p < n % P ? 1 : 0));
        for (index_t i = s.begin(p); i < s.end(p); ++i) EXPECT_EQ(s.owner(i), p) << "n=" << n << " P=" << P;
        next = s.end(p);
      }
      EXPECT_EQ(next, n);
    }
}

TEST(Decomposition, WorkedExampleOfTheHeader) {
  const Decomposition d = Decomposition::plan({37, 29, 23}, 4);
  EXPECT_EQ(d.grid(), (std::array<int, 3>{1, 2, 2}));
  EXPECT_DOUBLE_EQ(d.cut_area(), 37.0 * 23 + 37.0 * 29);
  const LocalPart p = d.part(3);
  EXPECT_EQ(p.coords, (std::array<int, 3>{0, 1, 1}));
  EXPECT_EQ(p.box.begin, (std::array<index_t, 3>{0, 15, 12}));
  EXPECT_EQ(p.box.size, (std::array<index_t, 3>{37, 14, 11}));
  EXPECT_EQ(p.lo_cut, (std::array<bool, 3>{false, true, true}));
  EXPECT_EQ(p.hi_cut, (std::array<bool, 3>{false, false, false}));
  EXPECT_EQ(d.describe(), "4 ranks as 1 x 2 x 2 (pencils over y, z), sub-boxes 37 x 14..15 x 11..12");
  EXPECT_EQ(Decomposition::plan({37, 29, 23}, 1).describe(), "1 rank as 1 x 1 x 1, sub-boxes 37 x 29 x 23");
}

TEST(Decomposition, AutomaticGridHasTheSmallestCutAndNeverSplitsX) {
  for (const std::array<index_t, 3> n : {std::array<index_t, 3>{37, 29, 23}, {64, 64, 64}, {10, 3, 200},
                                         {5, 200, 4}, {3, 3, 3}})
    for (int ranks = 1; ranks <= 12; ++ranks) {
      Decomposition d;
      try {
        d = Decomposition::plan(n, ranks);
      } catch (const InvalidArgument&) {
        // Only when no y x z factorisation fits.
        for (int py = 1; py <= ranks; ++py) {
          if (ranks % py == 0) {
            EXPECT_TRUE(py > n[1] || ranks / py > n[2]);
          }
        }
        continue;
      }
      EXPECT_EQ(d.grid()[0], 1);
      EXPECT_EQ(d.ranks(), ranks);
      for (int py = 1; py <= ranks; ++py) {
        if (ranks % py) continue;
        const int pz = ranks / py;
        if (py > n[1] || pz > n[2]) continue;
        const double cut = static_cast<double>(py - 1) * n[0] * n[2] + static_cast<double>(pz - 1) * n[0] * n[1];
        EXPECT_LE(d.cut_area(), cut) << ranks << " ranks, candidate 1 x " << py << " x " << pz;
      }
    }
  // A cube on two ranks: a tie, broken towards z slabs.
  EXPECT_EQ(Decomposition::plan({64, 64, 64}, 2).grid(), (std::array<int, 3>{1, 1, 2}));
  // Too few nodes along z: the ranks go to y.
  EXPECT_EQ(Decomposition::plan({10, 40, 3}, 4).grid(), (std::array<int, 3>{1, 4, 1}));
}

TEST(Decomposition, RequestedGrids) {
  EXPECT_EQ(Decomposition::plan({37, 29, 23}, 6, {1, 3, 2}).grid(), (std::array<int, 3>{1, 3, 2}));
  EXPECT_EQ(Decomposition::plan({37, 29, 23}, 6, {0, 0, 6}).grid(), (std::array<int, 3>{1, 1, 6}));
  EXPECT_EQ(Decomposition::plan({37, 29, 23}, 6, {1, 6, 0}).grid(), (std::array<int, 3>{1, 6, 1}));
  EXPECT_EQ(Decomposition::plan({37, 29, 23}, 4, {2, 1, 2}).grid(), (std::array<int, 3>{2, 1, 2}));
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([] { Decomposition::plan({37, 29, 23}, 3, {1, 2, 2}); }),
            "process grid 1 x 2 x 2 has 4 ranks, the run has 3");
  EXPECT_NE(message([] { Decomposition::plan({37, 29, 5}, 6, {1, 1, 6}); }).find("6 ranks on the 5 nodes along z"),
            std::string::npos);
  EXPECT_NE(message([] { Decomposition::plan({37, 3, 3}, 5); }).find("cannot split"), std::string::npos);
  EXPECT_NE(message([] { Decomposition::plan({37, 29, 23}, 4, {1, 3, 0}); }).find("no process grid matching"),
            std::string::npos);
}

TEST(Decomposition, PartsTileTheGridAndNeighboursAgree) {
  for (const std::array<int, 3> g : {std::array<int, 3>{1, 2, 2}, {1, 3, 1}, {1, 1, 4}, {2, 3, 2}, {1, 5, 3}}) {
    const std::array<index_t, 3> n{17, 11, 7};
    const Decomposition d = Decomposition::plan(n, g[0] * g[1] * g[2], g);
    std::vector<int> owner(static_cast<std::size_t>(n[0] * n[1] * n[2]), -1);
    for (int r = 0; r < d.ranks(); ++r) {
      EXPECT_EQ(d.rank_of(d.coords(r)), r);
      const LocalPart p = d.part(r);
      for (index_t k = p.box.begin[2]; k < p.box.end(2); ++k)
        for (index_t j = p.box.begin[1]; j < p.box.end(1); ++j)
          for (index_t i = p.box.begin[0]; i < p.box.end(0); ++i) {
            int& o = owner[static_cast<std::size_t>(i + n[0] * (j + n[1] * k))];
            EXPECT_EQ(o, -1);
            o = r;
          }
      for (int a = 0; a < 3; ++a) {
        const int lo = d.neighbour(r, a, -1), hi = d.neighbour(r, a, +1);
        EXPECT_EQ(lo >= 0, p.lo_cut[a]);
        EXPECT_EQ(hi >= 0, p.hi_cut[a]);
        if (hi >= 0) {
          EXPECT_EQ(d.neighbour(hi, a, -1), r);
          EXPECT_EQ(d.part(hi).box.begin[a], p.box.end(a));
        }
      }
    }
    for (int o : owner) EXPECT_GE(o, 0);
  }
}

TEST(Decomposition, PeriodicSplitAxesFormARing) {
  const std::array<index_t, 3> n{17, 11, 7};
  for (const std::array<int, 3> g : {std::array<int, 3>{1, 2, 2}, {1, 3, 1}, {1, 1, 4}, {1, 1, 1}}) {
    Decomposition d = Decomposition::plan(n, g[0] * g[1] * g[2], g);
    const Decomposition plain = d;
    d.set_periodic({{true, true, false}});  // x (never split) and y periodic
    EXPECT_EQ(d.grid(), plain.grid());       // the plan does not change
    for (int r = 0; r < d.ranks(); ++r) {
      const LocalPart p = d.part(r), q = plain.part(r);
      const std::array<int, 3> c = d.coords(r);
      // x: one rank, no neighbour, no cut (the wrap stays inside the box).
      EXPECT_EQ(d.neighbour(r, 0, -1), -1);
      EXPECT_FALSE(p.lo_cut[0] || p.hi_cut[0]);
      // y: a ring when split (with 2 ranks both neighbours are the same rank).
      const int P = g[1];
      if (P > 1) {
        EXPECT_EQ(d.coords(d.neighbour(r, 1, -1))[1], (c[1] + P - 1) % P);
        EXPECT_EQ(d.coords(d.neighbour(r, 1, +1))[1], (c[1] + 1) % P);
        EXPECT_EQ(d.neighbour(d.neighbour(r, 1, +1), 1, -1), r);
        EXPECT_TRUE(p.lo_cut[1] && p.hi_cut[1]);
      } else {
        EXPECT_EQ(d.neighbour(r, 1, +1), -1);
        EXPECT_FALSE(p.lo_cut[1] || p.hi_cut[1]);
      }
      // z: not periodic, as without set_periodic.
      EXPECT_EQ(d.neighbour(r, 2, -1), plain.neighbour(r, 2, -1));
      EXPECT_EQ(d.neighbour(r, 2, +1), plain.neighbour(r, 2, +1));
      EXPECT_EQ(p.lo_cut[2], q.lo_cut[2]);
      EXPECT_EQ(p.hi_cut[2], q.hi_cut[2]);
    }
  }
}

TEST(LocalStorage, GhostLayersAndAlignment) {
  const LocalStorage s = LocalStorage::make({37, 14, 11}, {false, true, true}, 32);
  EXPECT_EQ(s.layout.n[0], 37);
  EXPECT_EQ(s.layout.stride[1], 64);
  EXPECT_EQ(s.layout.stride[2], 64 * 16);
  EXPECT_EQ(s.origin, 64 + 64 * 16);
  EXPECT_EQ(s.elements, 64 * 16 * 13);
  EXPECT_EQ(s.origin % 32, 0);  // rows of the box start aligned
  // Ghost planes -1 and n are inside the allocation.
  EXPECT_EQ(s.origin + s.layout.offset(0, -1, -1), 0);
  EXPECT_EQ(s.origin + s.layout.offset(36, 14, 11), s.elements - 64 + 36);
  const LocalStorage p = LocalStorage::make({5, 4, 3}, {false, false, false});
  EXPECT_EQ(p.origin, 0);
  EXPECT_EQ(p.elements, 60);
}

// ---- the distributed line solve, ranks simulated ---------------------------

// Solves `lines` right-hand sides (line l at d[l * n]) split as `split`: each
// part solves its block (Thomas in T), contributes (y_first, y_last), the
// values are "gathered" in the MPI layout [k][line], each part computes
// X_prev, X_next and corrects.
template <class T>
std::vector<T> simulate(const LineMatrix& m, const Split1D& split, const std::vector<T>& d, index_t lines) {
  const index_t n = m.size();
  const int P = split.parts;
  std::vector<DistributedLinePlan> plans;
  for (int p = 0; p < P; ++p) plans.push_back(DistributedLinePlan::build(m, split, p));
  std::vector<T> y = d;
  std::vector<T> gathered(static_cast<std::size_t>(2 * P * lines));
  for (int p = 0; p < P; ++p) {
    const auto f = ThomasFactor<T>::factor(plans[p].local);
    const index_t r0 = plans[p].begin, len = plans[p].size;
    // The block of every line, as a (len x lines) array with lines fastest.
    std::vector<T> blk(static_cast<std::size_t>(len * lines));
    for (index_t l = 0; l < lines; ++l)
      for (index_t i = 0; i < len; ++i) blk[i * lines + l] = y[l * n + r0 + i];
    cpu::solve_constant(Axis::Y, f, blk.data(), Layout3::packed(lines, len, 1));
    for (index_t l = 0; l < lines; ++l) {
      for (index_t i = 0; i < len; ++i) y[l * n + r0 + i] = blk[i * lines + l];
      gathered[(2 * p) * lines + l] = blk[l];
      gathered[(2 * p + 1) * lines + l] = blk[(len - 1) * lines + l];
    }
  }
  std::vector<T> x = y;
  for (int p = 0; p < P; ++p) {
    const DistributedLinePlan& pl = plans[p];
    const std::vector<T> wp(pl.w_prev.begin(), pl.w_prev.end()), wn(pl.w_next.begin(), pl.w_next.end());
    for (index_t l = 0; l < lines; ++l) {
      T xp, xn;
      interface_values(gathered.data() + l, lines, pl.gathered(), wp.data(), wn.data(), xp, xn);
      for (index_t i = 0; i < pl.size; ++i) {
        T& v = x[l * n + pl.begin + i];
        v = v + static_cast<T>(pl.alpha[i]) * xp + static_cast<T>(pl.beta[i]) * xn;
      }
    }
  }
  return x;
}

LineMatrix douglas_matrix(index_t n, double r, Boundary lo, Boundary hi) {
  HeatProblem p;
  p.n = {n, 3, 3};
  p.lo[0] = lo;
  p.hi[0] = hi;
  p.alpha = {r / ((n - 1.0) * (n - 1.0) * p.dt * p.theta), 1.0, 1.0};  // theta dt alpha / h^2 = r
  return douglas_line_matrix(p, Axis::X);
}

template <class T>
void check_distributed(const LineMatrix& m, SeededRng& rng, double tol, const std::string& what) {
  const index_t n = m.size(), lines = 5;
  std::vector<T> d(static_cast<std::size_t>(n * lines));
  for (auto& v : d) v = static_cast<T>(rng.uniform(-1, 1));
  for (int P = 1; P <= std::min<index_t>(n, 9); ++P) {
    const Split1D split{n, P};
    const std::vector<T> x = simulate(m, split, d, lines);
    for (index_t l = 0; l < lines; ++l) {
      const std::vector<double> rhs(d.begin() + l * n, d.begin() + (l + 1) * n);
      const std::vector<double> want = dense_lu_solve(m, rhs);
      double worst = 0, scale = 1e-300;
      for (index_t i = 0; i < n; ++i) {
        worst = std::max(worst, std::fabs(static_cast<double>(x[l * n + i]) - want[i]));
        scale = std::max(scale, std::fabs(want[i]));
      }
      ASSERT_LE(worst / scale, tol) << what << ", n = " << n << ", P = " << P << ", line " << l;
    }
  }
}

TEST(DistributedLinePlan, SimulatedRanksMatchTheDirectSolve) {
  SeededRng rng;
  for (index_t n : {3, 4, 7, 8, 20, 101}) {
    for (double r : {0.0, 0.05, 1.0, 40.0})
      for (Boundary lo : {Boundary::Dirichlet, Boundary::Neumann})
        for (Boundary hi : {Boundary::Dirichlet, Boundary::Neumann}) {
          const LineMatrix m = douglas_matrix(n, r, lo, hi);
          const std::string what = std::string("douglas r = ") + std::to_string(r) + " " + boundary_name(lo) +
                                   "/" + boundary_name(hi);
          check_distributed<double>(m, rng, 1e-13, what);
          check_distributed<float>(m, rng, 2e-5, what);
        }
    check_distributed<double>(random_dominant(rng, n), rng, 1e-13, "random dominant");
    check_distributed<float>(random_dominant(rng, n), rng, 2e-5, "random dominant");
  }
}

TEST(DistributedLinePlan, SingleRankIsThePlainSolveAndEndsAreUncoupled) {
  const LineMatrix m = douglas_matrix(11, 2.0, Boundary::Neumann, Boundary::Dirichlet);
  const DistributedLinePlan one = DistributedLinePlan::build(m, Split1D{11, 1}, 0);
  EXPECT_FALSE(one.coupled());
  EXPECT_EQ(one.local.b, m.b);
  for (double v : one.alpha) EXPECT_EQ(v, 0.0);
  for (double v : one.beta) EXPECT_EQ(v, 0.0);
  const Split1D s{11, 4};
  const DistributedLinePlan first = DistributedLinePlan::build(m, s, 0), last = DistributedLinePlan::build(m, s, 3);
  for (double v : first.alpha) EXPECT_EQ(v, 0.0);
  for (double v : first.w_prev) EXPECT_EQ(v, 0.0);
  for (double v : last.beta) EXPECT_EQ(v, 0.0);
  for (double v : last.w_next) EXPECT_EQ(v, 0.0);
  const DistributedLinePlan mid = DistributedLinePlan::build(m, s, 1);
  EXPECT_EQ(mid.begin, 3);
  EXPECT_EQ(mid.size, 3);
  EXPECT_EQ(mid.gathered(), 8);
  EXPECT_LT(std::fabs(mid.alpha[0]), 1.0);
  EXPECT_LT(std::fabs(mid.beta[2]), 1.0);
}

// ---- the RHS on sub-boxes with ghost faces ----------------------------------

template <class T>
void check_ghost_rhs(const HeatProblem& p, const std::array<int, 3>& grid, SeededRng& rng) {
  const Layout3 G = p.layout();
  std::vector<T> u(static_cast<std::size_t>(p.points())), want(u.size());
  for (auto& v : u) v = static_cast<T>(rng.uniform(-1, 1));
  cpu::douglas_rhs(u.data(), want.data(), G, p);
  const Decomposition d = Decomposition::plan(p.n, grid[0] * grid[1] * grid[2], grid);
  const std::array<bool, 3> ghosts{{d.is_split(0), d.is_split(1), d.is_split(2)}};
  for (int r = 0; r < d.ranks(); ++r) {
    const LocalPart part = d.part(r);
    const LocalStorage st = LocalStorage::make(part.box.size, ghosts, 4);
    std::vector<T> lu(static_cast<std::size_t>(st.elements), poison<T>()), lw(lu.size(), poison<T>());
    // The box and, on cut faces, the ghost planes, as a halo exchange leaves them.
    for (index_t k = -1; k <= part.box.size[2]; ++k)
      for (index_t j = -1; j <= part.box.size[1]; ++j)
        for (index_t i = -1; i <= part.box.size[0]; ++i) {
          const std::array<index_t, 3> l{{i, j, k}};
          int outside = 0;
          bool ok = true;
          for (int a = 0; a < 3; ++a) {
            if (l[a] >= 0 && l[a] < part.box.size[a]) continue;
            ++outside;
            ok = ok && (l[a] < 0 ? part.lo_cut[a] : part.hi_cut[a]);
          }
          if (outside > 1 || !ok) continue;  // corners are never read
          const index_t gi = part.box.begin[0] + i, gj = part.box.begin[1] + j, gk = part.box.begin[2] + k;
          lu[st.origin + st.layout.offset(i, j, k)] = u[G.offset(gi, gj, gk)];
        }
    const RhsCoefficients<T> kc = rhs_coefficients<T>(p, part.lo_cut, part.hi_cut);
    cpu::douglas_rhs(lu.data() + st.origin, lw.data() + st.origin, st.layout, kc);
    for (index_t k = 0; k < part.box.size[2]; ++k)
      for (index_t j = 0; j < part.box.size[1]; ++j)
        for (index_t i = 0; i < part.box.size[0]; ++i) {
          const T got = lw[st.origin + st.layout.offset(i, j, k)];
          const T ref = want[G.offset(part.box.begin[0] + i, part.box.begin[1] + j, part.box.begin[2] + k)];
          // Same arithmetic in the same order: bit for bit.
          ASSERT_EQ(got, ref) << "rank " << r << " of " << grid[0] << "x" << grid[1] << "x" << grid[2]
                              << ", node (" << i << ", " << j << ", " << k << ")";
        }
  }
}

TEST(GhostRhs, SubBoxesReproduceTheWholeGridBitForBit) {
  SeededRng rng;
  HeatProblem p;
  p.n = {37, 29, 23};
  p.length = {1.3, 1.0, 0.7};
  p.alpha = {1.0, 0.6, 1.7};
  p.dt = 4e-4;
  for (int bc = 0; bc < 3; ++bc) {
    if (bc == 1) {
      p.lo = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Neumann};
      p.hi = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
    } else if (bc == 2) {
      p.lo.fill(Boundary::Neumann);
      p.hi.fill(Boundary::Neumann);
    }
    for (const std::array<int, 3> g : {std::array<int, 3>{1, 2, 2}, {1, 3, 1}, {1, 1, 4}, {1, 29, 1}, {1, 1, 23},
                                       {1, 4, 3}, {3, 2, 1}}) {
      check_ghost_rhs<double>(p, g, rng);
      check_ghost_rhs<float>(p, g, rng);
    }
  }
}

TEST(GhostRhs, WithoutGhostFacesTheCoefficientsAreThePlainOnes) {
  HeatProblem p;
  p.lo = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Neumann};
  const auto a = rhs_coefficients<double>(p), b = rhs_coefficients<double>(p, {}, {});
  for (int q = 0; q < 3; ++q) {
    EXPECT_EQ(a.lo_fixed[q], b.lo_fixed[q]);
    EXPECT_EQ(a.lo_neumann[q], b.lo_neumann[q]);
    EXPECT_EQ(b.lo_ghost[q], 0);
    EXPECT_EQ(b.hi_ghost[q], 0);
  }
  const auto c = rhs_coefficients<double>(p, {false, true, false}, {false, false, true});
  EXPECT_EQ(c.lo_fixed[1], 0);
  EXPECT_EQ(c.lo_ghost[1], 1);
  EXPECT_EQ(c.hi_neumann[2], 0);
  EXPECT_EQ(c.hi_ghost[2], 1);
  for (index_t i : {0, 5, 9}) {
    EXPECT_EQ(lower_neighbour(a, 0, i, 10), lower_neighbour(i));
    EXPECT_EQ(upper_neighbour(a, 0, i, 10), upper_neighbour(i, 10));
  }
  EXPECT_EQ(lower_neighbour(c, 1, 0, 10), -1);
  EXPECT_EQ(upper_neighbour(c, 2, 9, 10), 10);
  // A periodic axis wraps (u[-1] = u[n-1], u[n] = u[0]) and has no fixed face.
  HeatProblem q = p;
  q.lo[0] = q.hi[0] = Boundary::Periodic;
  const auto r = rhs_coefficients<double>(q);
  EXPECT_EQ(r.periodic[0], 1);
  EXPECT_EQ(r.periodic[1], 0);
  EXPECT_EQ(r.lo_fixed[0] + r.hi_fixed[0] + r.lo_neumann[0] + r.hi_neumann[0], 0);
  EXPECT_EQ(lower_neighbour(r, 0, 0, 10), 9);
  EXPECT_EQ(upper_neighbour(r, 0, 9, 10), 0);
  EXPECT_EQ(lower_neighbour(r, 0, 5, 10), 4);
  EXPECT_EQ(upper_neighbour(r, 0, 5, 10), 6);
  EXPECT_EQ(lower_neighbour(r, 1, 0, 10), lower_neighbour(0));
}

}  // namespace
