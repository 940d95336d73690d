#pragma once
// Internal to adi::core: the node sets of the states that serve fields
// evaluated during a run (temperature.hpp, radiation.hpp) — the whole grid,
// or one rank's box and ghost layers, as ascending global indices per axis —
// and reads of any part of such a set.

#include <adi/common.hpp>
#include <adi/error.hpp>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace adi::detail {

using NodeSet = std::array<std::vector<index_t>, 3>;

/// Every index of an axis of n nodes.
inline std::vector<index_t> all_indices(index_t n) {
  std::vector<index_t> v(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

/// The nodes of the box [lo, lo + size) of a grid of n nodes (FieldSource::read
/// as an index read); `what` names the field in the error.
inline NodeSet box_indices(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& size,
                           const std::array<index_t, 3>& n, const std::string& what) {
  NodeSet idx;
  for (int a = 0; a < 3; ++a) {
    ADI_REQUIRE(lo[a] >= 0 && size[a] >= 0 && lo[a] + size[a] <= n[a], what + ": box outside the grid");
    for (index_t i = 0; i < size[a]; ++i) idx[a].push_back(lo[a] + i);
  }
  return idx;
}

/// The values v (packed over `nodes`, x fastest) at the nodes idx, a part of
/// `nodes`, packed over idx into out; a node outside the set is an
/// InvalidArgument naming `what`.
inline void gather_nodes(const NodeSet& nodes, const std::vector<double>& v, const NodeSet& idx, double* out,
                         const std::string& what) {
  if (idx == nodes) {
    std::copy(v.begin(), v.end(), out);
    return;
  }
  std::array<std::vector<std::size_t>, 3> pos;
  for (int a = 0; a < 3; ++a)
    for (const index_t x : idx[a]) {
      const auto it = std::lower_bound(nodes[a].begin(), nodes[a].end(), x);
      if (it == nodes[a].end() || *it != x)
        ADI_THROW(InvalidArgument,
                  what + ": node " + "xyz"[a] + " = " + std::to_string(x) + " is not on this process");
      pos[a].push_back(static_cast<std::size_t>(it - nodes[a].begin()));
    }
  const std::size_t n0 = nodes[0].size(), n1 = nodes[1].size();
  std::size_t q = 0;
  for (const std::size_t k : pos[2])
    for (const std::size_t j : pos[1])
      for (const std::size_t i : pos[0]) out[q++] = v[i + n0 * (j + n1 * k)];
}

}  // namespace adi::detail
