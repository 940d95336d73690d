#pragma once
// Batches of lines for the CPU rank boxes (general_local_cpu.cpp): up to B lines
// along an axis a, adjacent along its first other axis (o1; su apart), so
// that the inner loops of a batch laid out [row][line] (line_rows.hpp) run
// across lines at unit stride. Task t holds lines line0 .. line0 + cnt - 1
// (line = c1 + n_o1 c2), node 0 of the first at offset base. Only the lines
// with c2 in [v0, v1) (the batches of planes of a split axis' reduce and
// finish): line0 counts from the first of them.

#include <adi/common.hpp>
#include <adi/grid.hpp>

#include <algorithm>
#include <array>

namespace adi::cpu::detail {

/// Bytes of one batch's row: a cache line's worth of lines.
constexpr index_t kLineBatchBytes = 128;

struct LineBatch {
  index_t base, cnt, line0;
};

struct LineBatches {
  index_t nu, su, sv, per_v, tasks, v0, B;
  LineBatch at(index_t t) const {
    const index_t u0 = (t % per_v) * B, v = t / per_v;
    return LineBatch{(v0 + v) * sv + u0 * su, std::min(B, nu - u0), v * nu + u0};
  }
};

/// The batches of B lines along axis a of layout L, planes v0 .. v1 of the
/// second other axis (v1 < 0: all of them).
inline LineBatches line_batches(const Layout3& L, int a, index_t B, index_t v0 = 0, index_t v1 = -1) {
  const std::array<int, 2> o = a == 0 ? std::array<int, 2>{{1, 2}} : a == 1 ? std::array<int, 2>{{0, 2}}
                                                                              : std::array<int, 2>{{0, 1}};
  if (v1 < 0) v1 = L.n[o[1]];
  const index_t nu = L.n[o[0]], per_v = (nu + B - 1) / B;
  return LineBatches{nu, L.stride[o[0]], L.stride[o[1]], per_v, (v1 - v0) * per_v, v0, B};
}

}  // namespace adi::cpu::detail
