#pragma once
// Internal to the CPU backend: how lines along an axis are enumerated and
// batched. Lines along `axis` are indexed by the other two axes; the one with
// the smaller stride ("across") is walked in batches so that the inner loop
// touches neighbouring lines together: for y and z lines that is x, stride 1,
// and the inner loop vectorises; for x lines the batch gives the out-of-order
// core several independent recurrences to overlap.

#include <adi/grid.hpp>

#include <algorithm>

namespace adi::cpu::detail {

struct LineSweep {
  index_t n = 0;        ///< line length
  index_t s = 0;        ///< stride along the line
  index_t nu = 0, su = 0;  ///< across axis (batched)
  index_t nv = 0, sv = 0;  ///< outer axis
  index_t batch = 0;    ///< lines per batch
  index_t batches_u = 0;

  LineSweep(Axis axis, const Layout3& L) {
    const int a = axis_index(axis);
    const int o1 = (a + 1) % 3, o2 = (a + 2) % 3;
    const bool o1_inner = L.stride[o1] <= L.stride[o2];
    const int u = o1_inner ? o1 : o2, v = o1_inner ? o2 : o1;
    n = L.n[a];
    s = L.stride[a];
    nu = L.n[u];
    su = L.stride[u];
    nv = L.n[v];
    sv = L.stride[v];
    batch = su == 1 ? std::min<index_t>(nu, 256) : std::min<index_t>(nu, 32);
    batches_u = (nu + batch - 1) / batch;
  }
};

}  // namespace adi::cpu::detail
