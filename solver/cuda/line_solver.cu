// LineSolver (line_solver.hpp): plans the kernel with the pure planner
// (adi::plan_line_kernel, solver/core/line_kernel_plan.cpp), uploads the
// segmented plan's tables (or the Thomas factor's for the generic kernel) and
// launches the family's kernel (solver/cuda/kernels/).

#include "line_solver.hpp"

#include "kernels/line_kernels.cuh"

#include <adi/line_kernel_plan.hpp>

#include <cstddef>
#include <cstdint>

#include <sstream>
#include <type_traits>
#include <utility>

namespace adi::cuda {

using kernels::LinesGeom;
using kernels::WarpGeom;

template <class T>
bool LineSolver<T>::cyclic_fits(Axis axis, const Layout3& L, const SolverOptions& options) {
  const int a = axis_index(axis);
  if (L.n[a] < 3 || L.n[a] >= (index_t(1) << 31)) return false;
  SolverOptions o = options;
  o.short_lines = false;  // a ring takes the segmented kernels' correction (the constructor re-plans)
  const Kind k = plan_line_kernel(L.n[a], axis, L.stride[a] == 1, sizeof(T), o).family;
  return k != Kind::Generic && k != Kind::Long && k != Kind::Block;
}

template <class T>
LineSolver<T>::LineSolver(const LineMatrix& m, Axis axis, const Layout3& L, const SolverOptions& options, bool cyclic)
    : axis_(axis), layout_(L) {
  fused_planes_ = options.fused_planes;
  L.validate("device line solve");
  const int a = axis_index(axis);
  const index_t n = L.n[a];
  ADI_REQUIRE(m.size() == n, "line matrix length differs from the line length");
  ADI_REQUIRE(n < (index_t(1) << 31), "lines longer than 2^31 rows are not supported");

  SolverOptions plan_options = options;
  if (cyclic) plan_options.short_lines = false;  // the short kernel solves open lines only
  const LineKernelPlan plan = plan_line_kernel(n, axis, L.stride[a] == 1, sizeof(T), plan_options, lines_geom().nu);
  kind_ = plan.family;
  I_ = plan.I;
  S_ = plan.S;
  G_ = plan.G;
  if (cyclic && (kind_ == Kind::Generic || kind_ == Kind::Long || kind_ == Kind::Block))
    ADI_THROW(BackendUnavailable, std::string("periodic ") + axis_name(axis) + " lines of " + std::to_string(n) +
                                      " rows are longer than the segmented kernels hold");
  if (kind_ == Kind::Long || kind_ == Kind::Block) {
    const SegmentedPlan<T> seg = SegmentedPlan<T>::build_long(m, I_);
    S_ = seg.segments;
    host_tables_ = plan_tables(seg);
    tables_.upload(host_tables_);
    view_ = PlanView<T>{tables_.get(), static_cast<int>(n), I_, S_};
    // Segments 1 .. S-2 hold only interior rows; with a constant matrix
    // their tables are segment 1's bit for bit (memcmp), and the kernel
    // takes them from the constant bank.
    long_uniform_ = S_ >= 3;
    for (int s = 2; s <= S_ - 2 && long_uniform_; ++s)
      long_uniform_ = same_tables_as_segment1(host_tables_, TableLayout{S_, I_}, s);
    if (kind_ == Kind::Block) return;  // one pass: no reduced rows in memory
    // The reduced systems: 2S rows a line, a constant unit-diagonal matrix,
    // stored [row][line] so that they are lines along y of a (lines, 2S, 1)
    // grid with unit-stride neighbours: the lanes kernel's case (or this
    // family again when 2S is long too; 2S < n, so that ends).
    index_t lines = 1;
    for (int b = 0; b < 3; ++b)
      if (b != a) lines *= L.n[b];
    red_.resize(static_cast<std::size_t>(lines) * 2 * S_);
    if (lines > 0)
      reduced_ = std::make_unique<LineSolver<T>>(seg.reduced_matrix(), Axis::Y,
                                                 Layout3::packed(lines, 2 * static_cast<index_t>(S_), 1), options);
    return;
  }
  if (kind_ != Kind::Generic && kind_ != Kind::Short) {
    // A ring: the plan of A' (corners folded into the diagonal), whose
    // interior segments equal an open line's (the constant-bank tables
    // still apply), plus z and the two scalars of the correction.
    const CyclicSplit split = cyclic ? cyclic_split(m) : CyclicSplit{};
    const SegmentedPlan<T> seg = SegmentedPlan<T>::build(cyclic ? split.tridiag : m, I_, S_);
    host_tables_ = plan_tables(seg, cyclic ? &split : nullptr);
    tables_.upload(host_tables_);
    interior_mask_ = interior_segment_mask(host_tables_, I_, S_);
    view_ = PlanView<T>{tables_.get(), static_cast<int>(n), I_, S_};
    if constexpr (std::is_same_v<T, float>)
      if (const LinesGeom lg = lines_geom(); kind_ == Kind::Lanes && kernels::lanes_pairs_built(I_, G_) && !cyclic &&
                                             options.lanes_pairs && kernels::lanes_pairs_fit(lg) &&
                                             (G_ != 32 || lanes_pairs_pay(lg.nu))) {
        pairs_ = true;
        pair_host_tables_.reserve(host_tables_.size());
        for (const float c : host_tables_) pair_host_tables_.emplace_back(c);
        pair_tables_.upload(pair_host_tables_);
        pair_view_ = PlanView<FloatPair>{pair_tables_.get(), static_cast<int>(n), I_, S_};
      }
    // The fused RHS + x kernel's compact tables (one copy of the interior
    // segments'), for x lines whose slabs leave no room for the full ones.
    if (axis == Axis::X && S_ == 32 && !cyclic && plan.family == Kind::Warp) {
      std::vector<T> compact = compact_tables(host_tables_, I_, S_, fused_compact_);
      if (compact.empty())
        fused_compact_ = CompactTables{};
      else
        fused_tables_.upload(compact);
    }
    // Lines of 33-64 rows: the fused kernel's tiles of 8 segments of 8 rows
    // (four lines a warp's transposition buffer), with a plan of their own.
    if (axis == Axis::X && S_ == 32 && !cyclic && plan.family == Kind::Warp && n > 32 &&
        n <= kernels::kFusedTileS * kernels::kFusedTileI) {
      const SegmentedPlan<T> tile = SegmentedPlan<T>::build(m, kernels::kFusedTileI, kernels::kFusedTileS);
      fused_tile_tables_.upload(plan_tables(tile));
      fused_tile_view_ = PlanView<T>{fused_tile_tables_.get(), static_cast<int>(n), kernels::kFusedTileI,
                                     kernels::kFusedTileS};
      fused_tile_ = true;
    }
    if (cyclic) {
      view_.ring = 1;
      view_.phi = static_cast<T>(split.phi);
      view_.psi = static_cast<T>(split.psi);
      view_.last_seg = static_cast<int>((n - 1) / I_);
      view_.last_row = static_cast<int>((n - 1) % I_);
    }
    return;
  }
  // Generic and Short: the plain Thomas factorisation.
  const ThomasFactor<T> f = ThomasFactor<T>::factor(m);
  if (kind_ == Kind::Short) {
    for (index_t i = 0; i < n; ++i) {
      short_.a[i] = f.lower()[i];
      short_.cp[i] = f.upper_over_pivot()[i];
      short_.inv[i] = f.inv_pivot()[i];
    }
    view_.n = static_cast<int>(n);
    return;
  }
  const std::vector<T> fa(f.lower(), f.lower() + n), fcp(f.upper_over_pivot(), f.upper_over_pivot() + n),
      finv(f.inv_pivot(), f.inv_pivot() + n);
  std::vector<T> host;
  auto append = [&](const std::vector<T>& v) {
    const std::size_t off = host.size();
    host.insert(host.end(), v.begin(), v.end());
    return off;
  };
  const std::size_t oa = append(fa), oc = append(fcp), oi = append(finv);
  tables_.upload(host);
  gen_a_ = tables_.get() + oa;
  gen_cp_ = tables_.get() + oc;
  gen_inv_ = tables_.get() + oi;
  view_.n = static_cast<int>(n);
}

template <class T>
void LineSolver<T>::solve(T* d, T* acc, cudaStream_t st) const {
  const Layout3& L = layout_;
  const int a = axis_index(axis_);
  const index_t n = L.n[a];
  if (L.points() == 0) return;
  if (kind_ == Kind::Warp) {
    const WarpGeom g = warp_geom(S_);
    const bool built = with_warp_segment_length(
        I_, [&](auto I) { kernels::launch_warp<T, decltype(I)::value>(d, acc, view_, g, st); });
    if (!built)
      ADI_THROW(InvalidArgument, "warp kernel: unsupported segment length " + std::to_string(I_));
    return;
  }
  const LinesGeom g = lines_geom();
  if (kind_ == Kind::Lanes) {
    if constexpr (std::is_same_v<T, float>)
      if (pairs_ && kernels::lanes_pairs_aligned(d) && kernels::lanes_pairs_aligned(acc)) {
        // (a pointer off an 8-byte boundary, from the library API, takes the
        // scalar build below)
        kernels::launch_lanes_pairs(d, acc, pair_view_, G_, g, pair_host_tables_, interior_mask_, st);
        return;
      }
    switch (I_) {
      case 4: kernels::launch_lanes<T, 4>(d, acc, view_, G_, g, host_tables_, interior_mask_, st); break;
      case 8: kernels::launch_lanes<T, 8>(d, acc, view_, G_, g, host_tables_, interior_mask_, st); break;
      case 9: kernels::launch_lanes<T, 9>(d, acc, view_, G_, g, host_tables_, interior_mask_, st); break;
      case 16: kernels::launch_lanes<T, 16>(d, acc, view_, G_, g, host_tables_, interior_mask_, st); break;
      case 17: kernels::launch_lanes<T, 17>(d, acc, view_, G_, g, host_tables_, interior_mask_, st); break;
      case 32: kernels::launch_lanes<T, 32>(d, acc, view_, G_, g, host_tables_, interior_mask_, st); break;
      case 33: kernels::launch_lanes<T, 33>(d, acc, view_, G_, g, host_tables_, interior_mask_, st); break;
      case 64:
        if constexpr (lanes_max_I(sizeof(T)) >= 64) {
          kernels::launch_lanes<T, 64>(d, acc, view_, G_, g, host_tables_, interior_mask_, st);
          break;
        }
        [[fallthrough]];
      default: ADI_THROW(InvalidArgument, "lanes kernel: unsupported segment length " + std::to_string(I_));
    }
    return;
  }
  if (kind_ == Kind::Block) {
    kernels::launch_block(d, acc, view_, g, host_tables_, long_uniform_, st);
    return;
  }
  if (kind_ == Kind::Long) {
    kernels::launch_long(d, acc, red_.get(), view_, g, false, host_tables_, long_uniform_, st);
    reduced_->solve(red_.get(), nullptr, st);
    kernels::launch_long(d, acc, red_.get(), view_, g, true, host_tables_, long_uniform_, st);
    return;
  }
  if (kind_ == Kind::Short) {
    kernels::launch_short(d, acc, short_, static_cast<int>(n), g, st);
    return;
  }
  kernels::launch_generic(d, acc, gen_a_, gen_cp_, gen_inv_, static_cast<int>(n), g, st);
}

template <class T>
WarpGeom LineSolver<T>::warp_geom(int S) const {
  const Layout3& L = layout_;
  WarpGeom g{};
  g.nj = L.n[1];
  g.sj = L.stride[1];
  g.nk = L.n[2];
  g.sk = L.stride[2];
  g.lines_per_tile = 32 / S;
  g.tiles_j = (g.nj + g.lines_per_tile - 1) / g.lines_per_tile;
  g.tiles = g.tiles_j * g.nk;
  return g;
}

template <class T>
LinesGeom LineSolver<T>::lines_geom() const {
  // Lines enumerated by the other two axes; the one with the smaller stride is
  // the lanes axis so that neighbouring threads touch neighbouring elements.
  const Layout3& L = layout_;
  const int a = axis_index(axis_);
  const int o1 = (a + 1) % 3, o2 = (a + 2) % 3;
  const int u = L.stride[o1] <= L.stride[o2] ? o1 : o2, v = u == o1 ? o2 : o1;
  return LinesGeom{L.stride[a], L.n[u], L.stride[u], L.n[v], L.stride[v]};
}


template <class T>
bool LineSolver<T>::fused_layout() const {
  // The fused kernel copies rows of u 16 bytes at a time (fused_geom's vec:
  // the stepper pads rows to 128 bytes, ADI_ROW_ALIGN to 16 at least).
  return kind_ == Kind::Warp && S_ == 32 && axis_ == Axis::X && !cyclic() && layout_.stride[0] == 1 &&
         fused_geom(nullptr).vec;
}

// A block of kFusedMinWarps (4) lines at least: with the full tables and a
// ring of 4, fp64 lines of ~1000 rows leave room for 2 (the slabs outgrow
// shared memory), and fused that way they measured slower than the two
// passes; the small build (compact tables, a ring of 3, fused_x_kernel.cu)
// takes 5 of them and measured faster (docs/PERFORMANCE.md, "The fused
// RHS + x kernel"). fp64 lines of 600 rows take 6 with the compact tables
// (fused_x_shape).
template <class T>
bool LineSolver<T>::can_fuse_rhs() const {
  return fused_layout() && fused_shape().warps >= kernels::kFusedMinWarps;
}

template <class T>
kernels::FusedGeom LineSolver<T>::fused_geom(const T* u) const {
  const Layout3& L = layout_;
  kernels::FusedGeom g{};
  g.nj = L.n[1];
  g.sj = L.stride[1];
  g.nk = L.n[2];
  g.sk = L.stride[2];
  g.n = static_cast<int>(L.n[0]);
  // 16-byte copies read a row up to n rounded up to 16 bytes: inside the row
  // pitch, and aligned when the rows and u are. A slab row in shared memory
  // holds just that (a warp's reads of a row are consecutive words wherever
  // it starts): 514 doubles for 513, where 544 kept fp64 lines of 513 rows
  // at 7 lines a block (8 were 1.3 KB over the 227 KB an SM gives a block).
  constexpr index_t V = 16 / sizeof(T);
  const index_t reach = (L.n[0] + V - 1) / V * V;
  g.row = static_cast<int>(reach);
  g.vec = L.stride[1] % V == 0 && L.stride[2] % V == 0 && reach <= L.stride[1] &&
          (reinterpret_cast<std::uintptr_t>(u) & 15u) == 0;
  g.s_tail = fused_compact_.s_tail;
  return g;
}

template <class T>
kernels::FusedLaunch LineSolver<T>::fused_shape() const {
  kernels::FusedLaunch s{};
  const kernels::FusedGeom g = fused_geom(nullptr);
  if (fused_tile_)
    return kernels::fused_x_shape<T, kernels::kFusedTileI>(g, fused_tile_view_, fused_planes_);
  with_warp_segment_length(
      I_, [&](auto I) { s = kernels::fused_x_shape<T, decltype(I)::value>(g, view_, fused_planes_); });
  return s;
}

template <class T>
void LineSolver<T>::solve_rhs_fused(const T* u, T* w, const RhsCoefficients<T>& kc, cudaStream_t st) const {
  ADI_REQUIRE(fused_layout(), "the RHS can be fused only into a single-line-tile x solve");
  // y and z ghost rows / planes (the stepper's box between Dirichlet faces)
  // are read like any neighbour (lower_neighbour gives index -1 / n); an x
  // ghost would need the row's ends from elsewhere.
  ADI_REQUIRE(!kc.lo_ghost[0] && !kc.hi_ghost[0], "the fused RHS + x kernel has no x ghost faces");
  ADI_REQUIRE(!kc.xfaces, "the fused RHS + x kernel has no x face terms");
  const kernels::FusedLaunch shape = fused_shape();
  ADI_REQUIRE(shape.warps >= kernels::kFusedMinWarps, "the fused RHS + x kernel needs a block of " +
                                                          std::to_string(kernels::kFusedMinWarps) + " lines at least");
  const kernels::FusedGeom g = fused_geom(u);
  if (fused_tile_) {
    kernels::launch_fused_x<T, kernels::kFusedTileI>(u, w, fused_tile_view_, g, kc, shape, nullptr, st);
    return;
  }
  if (!with_warp_segment_length(I_, [&](auto I) {
        kernels::launch_fused_x<T, decltype(I)::value>(u, w, view_, g, kc, shape, fused_tables_.get(), st);
      }))
    ADI_THROW(InvalidArgument, "fused RHS + x: unsupported segment length " + std::to_string(I_));
}

template <class T>
void LineSolver<T>::solve_like_fused(T* d, cudaStream_t st) const {
  if (!fused_tile_) {
    solve(d, nullptr, st);
    return;
  }
  if (layout_.points() == 0) return;
  kernels::launch_warp<T, kernels::kFusedTileI>(d, nullptr, fused_tile_view_, warp_geom(kernels::kFusedTileS), st);
}

template <class T>
std::string LineSolver<T>::describe_fused() const {
  const kernels::FusedLaunch s = fused_shape();
  std::ostringstream o;
  o << "rhs fused into x: " << s.warps * s.lines_per_warp << " lines a block";
  if (s.lines_per_warp > 1) o << " (" << s.lines_per_warp << " a warp)";
  if (fused_tile_) o << " in tiles of " << kernels::kFusedTileS << " segments of " << kernels::kFusedTileI << " rows";
  o << ", " << s.K << " planes each, " << s.blocks << " blocks, " << s.per_sm << " an SM, " << s.smem / 1024
    << " KiB shared";
  if (s.compact) o << ", one interior segment's tables";
  if (s.small) o << ", a ring of 3 slabs";
  return o.str();
}

template <class T>
std::string LineSolver<T>::describe() const {
  std::ostringstream s;
  s << axis_name(axis_) << ": ";
  switch (kind_) {
    case Kind::Warp: s << "warp kernel (transposed tiles), I = " << I_ << ", S = " << S_; break;
    case Kind::Lanes:
      s << "lanes kernel, I = " << I_ << ", S = " << S_;
      if (const int w = (view_.n + I_ - 1) / I_; w < S_) s << " (" << w << " with rows)";
      if (G_ != 32) s << ", " << G_ << " lines a tile";
      if (pairs_) s << (G_ != 32 ? " of" : ",") << " line pairs (8-byte values: " << 2 * G_ << " lines, " << 8 * G_ << "-byte rows)";
      break;
    case Kind::Long:
      s << "long-line kernel, I = " << I_ << ", S = " << S_ << " (three passes; reduced system: "
        << (reduced_ ? reduced_->describe() : std::string("none")) << ")";
      break;
    case Kind::Block:
      s << "block kernel, I = " << I_ << ", S = " << S_ << " (a line a block of " << (S_ + 31) / 32
        << " warps, one pass)";
      break;
    case Kind::Generic: s << "generic thread-per-line Thomas"; break;
    case Kind::Short: s << "short kernel (a line a thread in registers), n = " << view_.n; break;
  }
  if (cyclic()) s << ", periodic (Sherman-Morrison correction)";
  return s.str();
}

template class LineSolver<float>;
template class LineSolver<double>;

}  // namespace adi::cuda
