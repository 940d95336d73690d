// The decomposition plan (decomposition.hpp): pure code, no MPI.

#include <adi/decomposition.hpp>

#include <limits>
#include <sstream>

namespace adi {

int Split1D::owner(index_t i) const {
  const index_t q = n / parts, r = n % parts;
  // The first r parts hold q + 1 nodes each, i.e. nodes 0 .. r (q + 1) - 1.
  if (i < r * (q + 1)) return static_cast<int>(i / (q + 1));
  return static_cast<int>(r + (i - r * (q + 1)) / q);
}

namespace {

double cut_area_of(const std::array<index_t, 3>& n, const std::array<int, 3>& d) {
  double area = 0;
  for (int a = 0; a < 3; ++a) {
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    area += static_cast<double>(d[a] - 1) * static_cast<double>(n[b]) * static_cast<double>(n[c]);
  }
  return area;
}

std::string grid_str(const std::array<int, 3>& d) {
  std::ostringstream s;
  s << d[0] << " x " << d[1] << " x " << d[2];
  return s.str();
}

}  // namespace

Decomposition Decomposition::plan(const std::array<index_t, 3>& n, int ranks, const std::array<int, 3>& grid) {
  ADI_REQUIRE(ranks >= 1, "a decomposition needs at least one rank");
  for (int a = 0; a < 3; ++a) {
    ADI_REQUIRE(n[a] >= 1, "a decomposition needs at least one node per axis");
    ADI_REQUIRE(grid[a] >= 0, "process grid entries must be >= 1 (or 0: chosen automatically)");
  }
  const char* names = "xyz";
  // Every factorisation of `ranks` that agrees with the fixed entries; an
  // automatic x entry is 1 (x lines stay on one rank).
  const bool all_auto = grid[0] == 0 && grid[1] == 0 && grid[2] == 0;
  std::array<int, 3> best{{0, 0, 0}};
  double best_cost = std::numeric_limits<double>::infinity();
  std::string why_not;
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px) continue;
    if (grid[0] ? px != grid[0] : px != 1) continue;
    for (int py = 1; py <= ranks / px; ++py) {
      if ((ranks / px) % py) continue;
      const int pz = ranks / px / py;
      const std::array<int, 3> d{{px, py, pz}};
      if ((grid[1] && py != grid[1]) || (grid[2] && pz != grid[2])) continue;
      bool fits = true;
      for (int a = 0; a < 3; ++a)
        if (d[a] > n[a]) {
          fits = false;
          std::ostringstream s;
          s << grid_str(d) << " puts " << d[a] << " ranks on the " << n[a] << " nodes along " << names[a];
          why_not = s.str();
        }
      if (!fits) continue;
      const double cost = cut_area_of(n, d);
      // py grows along the loop: on a tie the first candidate, with more z
      // cuts (contiguous planes), is kept.
      if (cost < best_cost) best_cost = cost, best = d;
    }
  }
  if (best[0] == 0) {
    std::ostringstream s;
    if (!all_auto && grid[0] && grid[1] && grid[2] && grid[0] * grid[1] * grid[2] != ranks)
      s << "process grid " << grid_str(grid) << " has " << grid[0] * grid[1] * grid[2] << " ranks, the run has "
        << ranks;
    else if (!why_not.empty())
      s << "cannot split " << n[0] << " x " << n[1] << " x " << n[2] << " nodes among " << ranks
        << " ranks: every process grid that fits the request has an axis with more ranks than nodes (e.g. "
        << why_not << ")";
    else
      s << "no process grid " << (all_auto ? "" : "matching " + grid_str(grid) + " ") << "has " << ranks
        << " ranks";
    ADI_THROW(InvalidArgument, s.str());
  }
  Decomposition d;
  d.n_ = n;
  d.dims_ = best;
  return d;
}

std::array<int, 3> Decomposition::coords(int rank) const {
  ADI_REQUIRE(rank >= 0 && rank < ranks(), "rank outside the process grid");
  return {{rank % dims_[0], (rank / dims_[0]) % dims_[1], rank / (dims_[0] * dims_[1])}};
}

int Decomposition::rank_of(const std::array<int, 3>& c) const {
  for (int a = 0; a < 3; ++a)
    if (c[a] < 0 || c[a] >= dims_[a]) return -1;
  return c[0] + dims_[0] * (c[1] + dims_[1] * c[2]);
}

int Decomposition::neighbour(int rank, int axis, int dir) const {
  std::array<int, 3> c = coords(rank);
  c[axis] += dir;
  if (wraps(axis)) c[axis] = (c[axis] + dims_[axis]) % dims_[axis];
  return rank_of(c);
}

LocalPart Decomposition::part(int rank) const {
  LocalPart lp;
  lp.rank = rank;
  lp.coords = coords(rank);
  for (int a = 0; a < 3; ++a) {
    const Split1D s = split(a);
    lp.box.begin[a] = s.begin(lp.coords[a]);
    lp.box.size[a] = s.size(lp.coords[a]);
    lp.lo_cut[a] = lp.coords[a] > 0 || wraps(a);
    lp.hi_cut[a] = lp.coords[a] < dims_[a] - 1 || wraps(a);
  }
  return lp;
}

double Decomposition::cut_area() const { return cut_area_of(n_, dims_); }

std::string Decomposition::describe() const {
  std::ostringstream s;
  const int r = ranks();
  s << r << " rank" << (r == 1 ? "" : "s") << " as " << grid_str(dims_);
  int cuts = 0;
  std::string axes;
  for (int a = 0; a < 3; ++a)
    if (dims_[a] > 1) {
      axes += (cuts ? ", " : "") + std::string(1, "xyz"[a]);
      ++cuts;
    }
  if (cuts == 1) s << " (slabs along " << axes << ")";
  else if (cuts >= 2) s << " (" << (cuts == 2 ? "pencils" : "blocks") << " over " << axes << ")";
  s << ", sub-boxes ";
  for (int a = 0; a < 3; ++a) {
    const Split1D sp = split(a);
    const index_t lo = sp.size(sp.parts - 1), hi = sp.size(0);
    s << (a ? " x " : "") << lo;
    if (hi != lo) s << ".." << hi;
  }
  return s.str();
}

LocalStorage LocalStorage::make(const std::array<index_t, 3>& size, const std::array<bool, 3>& ghosts,
                                index_t row_align) {
  ADI_REQUIRE(row_align >= 1, "row alignment must be >= 1");
  std::array<index_t, 3> g{}, ext{};
  for (int a = 0; a < 3; ++a) {
    ADI_REQUIRE(size[a] >= 1, "a local box needs at least one node per axis");
    g[a] = ghosts[a] ? 1 : 0;
    ext[a] = size[a] + 2 * g[a];
  }
  const index_t pitch = (ext[0] + row_align - 1) / row_align * row_align;
  LocalStorage s;
  s.layout = Layout3{{size[0], size[1], size[2]}, {1, pitch, pitch * ext[1]}};
  s.origin = g[0] + g[1] * pitch + g[2] * pitch * ext[1];
  s.elements = pitch * ext[1] * ext[2];
  return s;
}

}  // namespace adi
