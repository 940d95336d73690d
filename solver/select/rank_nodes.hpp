#pragma once
// Internal to adi::solver: one rank's nodes as the temperature-dependent
// states see them (temperature.hpp, radiation.hpp) — its box and one ghost
// layer on each side of a split axis, as its stepper's material reads them
// (load_box_field) — and what the nonlinear step and the steady solve do
// with them on every rank together.

#include <adi/decomposition.hpp>
#include <adi/error.hpp>
#include <adi/mpi.hpp>
#include <adi/problem.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace adi::detail {

class RankNodes {
 public:
  RankNodes(const HeatProblem& p, const Decomposition& d, const LocalPart& part) : d_(d), part_(part) {
    for (int a = 0; a < 3; ++a) {
      g_[a] = d.is_split(a) ? 1 : 0;
      ext_[a] = part.box.size[a] + 2 * g_[a];
      std::vector<std::pair<index_t, index_t>> glob;  // (global, local)
      for (index_t l = -g_[a]; l < part.box.size[a] + g_[a]; ++l) {
        index_t x = part.box.begin[a] + l;
        if (x < 0 || x >= p.n[a]) x = p.periodic(a) ? (x + p.n[a]) % p.n[a] : std::clamp<index_t>(x, 0, p.n[a] - 1);
        glob.emplace_back(x, l);
      }
      // A ghost clamped onto the box's own end node (a non-periodic face)
      // duplicates it: take the box's node, which holds the value.
      const index_t m = part.box.size[a];
      std::sort(glob.begin(), glob.end(), [m](const auto& x, const auto& y) {
        const bool xin = x.second >= 0 && x.second < m, yin = y.second >= 0 && y.second < m;
        return x.first != y.first ? x.first < y.first : xin > yin;
      });
      for (const auto& [x, l] : glob)
        if (nodes_[a].empty() || nodes_[a].back() != x) {
          nodes_[a].push_back(x);
          local_[a].push_back(l);
        }
    }
  }

  /// Per axis the ascending global indices of the nodes.
  const std::array<std::vector<index_t>, 3>& nodes() const { return nodes_; }

  /// Per node of this rank's box (packed, x fastest) its position among the
  /// nodes (packed over nodes(), x fastest).
  std::vector<std::size_t> box_positions() const {
    const std::array<index_t, 3>& m = part_.box.size;
    std::array<std::vector<std::size_t>, 3> at;
    for (int a = 0; a < 3; ++a) {
      at[a].assign(static_cast<std::size_t>(m[a]), 0);
      for (std::size_t p = 0; p < local_[a].size(); ++p)
        if (local_[a][p] >= 0 && local_[a][p] < m[a]) at[a][static_cast<std::size_t>(local_[a][p])] = p;
    }
    const std::size_t n0 = nodes_[0].size(), n1 = nodes_[1].size();
    std::vector<std::size_t> out;
    out.reserve(static_cast<std::size_t>(m[0] * m[1] * m[2]));
    for (index_t k = 0; k < m[2]; ++k)
      for (index_t j = 0; j < m[1]; ++j)
        for (index_t i = 0; i < m[0]; ++i)
          out.push_back(at[0][static_cast<std::size_t>(i)] +
                        n0 * (at[1][static_cast<std::size_t>(j)] + n1 * at[2][static_cast<std::size_t>(k)]));
    return out;
  }

  /// This rank's box (packed, x fastest) on its nodes, the ghost layers'
  /// values from the neighbours (collective: one exchange).
  template <class T>
  std::vector<double> on_nodes(const T* box) const {
    const std::array<index_t, 3>& m = part_.box.size;
    std::vector<double> g(static_cast<std::size_t>(ext_[0] * ext_[1] * ext_[2]), 0.0);
    auto at = [&](index_t i, index_t j, index_t k) {
      return static_cast<std::size_t>((i + g_[0]) + ext_[0] * ((j + g_[1]) + ext_[1] * (k + g_[2])));
    };
    for (index_t k = 0; k < m[2]; ++k)
      for (index_t j = 0; j < m[1]; ++j)
        for (index_t i = 0; i < m[0]; ++i) g[at(i, j, k)] = static_cast<double>(box[(k * m[1] + j) * m[0] + i]);
    mpi::exchange_ghost_layers(d_, part_.rank, ext_, g.data());
    std::vector<double> out;
    out.reserve(nodes_[0].size() * nodes_[1].size() * nodes_[2].size());
    for (const index_t k : local_[2])
      for (const index_t j : local_[1])
        for (const index_t i : local_[0]) out.push_back(g[at(i, j, k)]);
    return out;
  }

 private:
  const Decomposition& d_;
  LocalPart part_;
  std::array<index_t, 3> g_{{0, 0, 0}}, ext_{{0, 0, 0}};
  std::array<std::vector<index_t>, 3> nodes_, local_;
};

/// Runs fn on every rank; a failure on one is every rank's: the lowest
/// failing rank rethrows its own error, the others throw PeerError with
/// `what` (collective). Returns whether some rank failed (it then threw).
template <class F>
void on_every_rank(F&& fn, const std::string& what) {
  std::exception_ptr own;
  try {
    fn();
  } catch (...) {
    own = std::current_exception();
  }
  const int rank = mpi::world_rank();
  double first = own ? 1e9 - rank : 0.0;
  mpi::allreduce_max(&first, 1);
  if (first == 0.0) return;
  const int who = static_cast<int>(std::lround(1e9 - first));
  if (own && who == rank) std::rethrow_exception(own);
  ADI_THROW(mpi::PeerError, "rank " + std::to_string(who) + " failed " + what + " (see its message)");
}

}  // namespace adi::detail
