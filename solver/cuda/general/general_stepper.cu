// The CUDA stepper, one class for every plan (step_plan.hpp). The constant
// tables run constant_tables.cu's stages (scheme.hpp's matrices and RHS,
// the fused RHS + x kernel, only the unknowns moved). Every other plan —
// K, c and q fields, heat sources, flux / convective / periodic faces,
// moving Dirichlet values, flat axes (problem.hpp, discrete.hpp) — runs the
// stages below, whose step is CpuStepper's (solver/cpu/stages_cpu.cpp, the
// oracle):
//   rhs      w = dt (sum_a A_a u + rho (beta(t*) + q f(t*))), 0 at Dirichlet
//            nodes, then the moving Dirichlet nodes' W terms (dirichlet.hpp);
//   solve x  w <- (I - theta dt A_x)^{-1} w
//   solve y  w <- (I - theta dt A_y)^{-1} w
//   solve z  u += (I - theta dt A_z)^{-1} w    (the fused update)
// A flat axis has no solve (solve z on a flat z is u += w).
//
// Which kernels:
//  - constant K and c, no flat axis, general_segmented on: the classic RHS
//    and LineSolver kernels with this problem's line matrices (flux and
//    Robin ends are other end rows of the same constant matrix; a periodic
//    axis a ring, solved by Sherman-Morrison inside the kernels, unless its
//    lines are too long for them or SolverOptions::classic_rings is off),
//    plus the face terms (the x faces' in the RHS kernel,
//    RhsCoefficients::xfaces; y and z by general_mirror_faces_kernel) and a
//    constant source;
//  - otherwise one of two sets (SolverOptions::general_segmented):
//  - segmented (the default, general_lanes.cu): the RHS's interior nodes by
//    fast_rhs_kernel, the faces by the generic general_rhs_faces_kernel, and
//    every line of up to 1024 rows by the segmented kernel (rows on the fly
//    from K and 1/c, segments in registers, the reduced system by parallel
//    cyclic reduction, closed into a ring on a periodic axis). Agrees with
//    the oracle to round-off (~1e-14 fp64).
//  - one line per thread (general_line_kernels.cuh), the oracle's operations in
//    the oracle's order (-fmad=false): the RHS and the sweeps bit for bit:
//    the host's ThomasFactor for constant coefficients on a non-periodic
//    axis, Thomas with rows on the fly when K or c is a field, cyclic
//    Sherman-Morrison on a periodic axis. Lines longer than 1024 rows take
//    these kernels in either mode.
// x lines are solved in place, their tiles copied line by line (coalesced),
// where their segments are uniform; other x lines on the x <-> y transposed
// grid, unless ny < 8 or SolverOptions::general_x_transpose is off.
// Device memory: u, w, the transposed work grid (x lines not solved in
// place), the material fields (K per axis, one array for an isotropic field;
// 1/c; q), the moving Dirichlet nodes' W terms; one line per thread also
// needs a scratch grid for c' and, with a periodic axis, one for the
// Sherman-Morrison vector z.
//
// Note: on the one-line-per-thread path, after SolveZ the work array holds
// the forward-swept values, not D2 (the CPU oracle keeps D2 there on its
// on-the-fly path): get_work is meaningful after Rhs, SolveX and SolveY.

#include <adi/detail/entry_points.hpp>
#include "../constant_tables.cuh"
#include "../cuda_check.hpp"
#include "../device_grid.cuh"
#include "../line_solver.hpp"
#include "../rhs_kernel.cuh"
#include "dirichlet_nodes.hpp"
#include "general_line_kernels.cuh"
#include "general_rhs_kernels.cuh"
#include "general_lanes.hpp"
#include "general_rhs.hpp"
#include "nonlinear_material.cuh"
#include "split_kernels.cuh"

#include <adi/dirichlet.hpp>
#include <adi/step_plan.hpp>
#include <adi/discrete.hpp>
#include <adi/radiation.hpp>
#include <adi/temperature.hpp>
#include <adi/tridiag.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <vector>

namespace adi::cuda {

namespace {

using general::GeneralParams;

constexpr int kThreads = 256;

/// Blocks for `count` threads of kThreads; throws if the grid would not fit.
unsigned blocks_for(index_t count) {
  const index_t b = (count + kThreads - 1) / kThreads;
  if (b <= 0 || b > 0x7fffffff)
    ADI_THROW(BackendUnavailable,
              "CUDA general path: launch of " + std::to_string(count) + " threads does not fit a grid");
  return static_cast<unsigned>(b);
}

}  // namespace

template <class T>
class CudaStepper final : public detail::DeviceGridStepper<T>, private DeviceIterates<T> {
  using Base = detail::DeviceGridStepper<T>;
  using Base::device_;
  using Base::layout_;
  using Base::name_;
  using Base::options_;
  using Base::p_;
  using Base::sm_count_;
  using Base::stats_;
  using Base::stream_;
  using Base::u_;
  using Base::use_graph_;
  using Base::w_;

 public:
  CudaStepper(const HeatProblem& p, const SolverOptions& o)
      : Base(p, o, plan_step(p).constant_tables() ? ConstantTables<T>::layout_for(p, o) : p.layout()),
        plan_(plan_step(p)) {
    p_.validate();
    if (plan_.constant_tables()) {
      plan_constant_tables();
      return;
    }

    // Host side first (fields read and checked, factors, Dirichlet data):
    // a bad input throws before any device memory is taken.
    std::array<std::vector<T>, 3> k_host;
    std::array<int, 3> k_shared{{-1, -1, -1}};
    std::vector<T> rho_host, q_host;
    load_material(k_host, k_shared, rho_host);
    if (p_.material.source) q_host = load(*p_.material.source, "heat source", true);

    P_ = general::general_params<T>(p_, layout_, true);
    // A stretched axis: its rows' scales (discrete.hpp) on the host for the
    // constant line matrices built here; P_'s ends point at device copies
    // (below).
    std::array<AxisEnds<T>, 3> host_ends;
    for (int a = 0; a < 3; ++a) host_ends[a] = domain_ends<T>(p_, a, host_scales_[a]);
    dirichlet_ = build_dirichlet(p_, {{0, 0, 0}}, p_.n);
    // The solves' theta dt per axis: the Douglas step's, or theta times the
    // Strang factor's fraction of dt (split.hpp).
    strang_ = p_.scheme_in_use() == SchemeType::Strang;
    const std::array<double, 3> frac = strang_fractions(p_);
    for (int a = 0; a < 3; ++a) tau_[a] = strang_ ? static_cast<T>(p_.theta * frac[a] * p_.dt) : P_.theta_dt;

    // Per axis: which solve. Constant coefficients on a non-periodic axis use
    // the host's ThomasFactor, exactly as the CPU oracle does. The constant
    // line matrix is the oracle's too; on a periodic axis its a[0] and
    // c[n-1] close the ring (the classic kernels' cyclic LineSolver).
    std::array<ThomasFactor<T>, 3> factors;
    std::array<LineMatrix, 3> rings;
    auto constant_matrix = [&](int a) {
      const index_t na = p_.n[a];
      LineMatrix m(na);
      const T k = static_cast<T>(p_.alpha[a]), rho = static_cast<T>(1.0 / p_.capacity);
      for (index_t i = 0; i < na; ++i) {
        if (fixed_row(i, host_ends[a])) continue;
        T ra, rb, rc;
        implicit_row(row_coupling<T>(i, host_ends[a], k, k, k, rho), tau_[a], ra, rb, rc);
        m.a[i] = ra;
        m.b[i] = rb;
        m.c[i] = rc;
      }
      return m;
    };
    for (int a = 0; a < 3; ++a) {
      if (p_.flat(a)) continue;
      if (p_.periodic(a)) {
        kind_[a] = SolveKind::Cyclic;
        if (!p_.material.lines_vary()) rings[a] = constant_matrix(a);
        continue;
      }
      if (p_.material.lines_vary()) {
        kind_[a] = SolveKind::OnTheFly;
        continue;
      }
      kind_[a] = SolveKind::Factor;
      LineMatrix m = constant_matrix(a);
      m.a[0] = 0.0;
      m.c[p_.n[a] - 1] = 0.0;
      factors[a] = ThomasFactor<T>::factor(m);
    }

    // Constant K and c, constant (or no) source, no flat axis: the classic
    // kernels with this problem's line matrices (flux and Robin ends are
    // just other end rows; a periodic axis is a ring the kernels solve by
    // Sherman-Morrison with one table, when its lines fit the segmented
    // kernels) and its RHS (neighbours wrapped on a periodic axis) plus the
    // face terms (the x faces' in the RHS kernel, the y and z faces' by
    // general_mirror_faces_kernel): the speed of the all-Dirichlet step.
    // (Not on a stretched grid: the classic kernels have one 1 / h^2 per axis.)
    classic_ = !strang_ && o.general_segmented && !p_.material.lines_vary() && !p_.material.source &&
               !p_.any_stretched() && rhs_unlaunchable(layout_).empty();
    for (int a = 0; a < 3; ++a)
      classic_ = classic_ && layout_.n[a] >= 3 &&
                 (kind_[a] == SolveKind::Factor ||
                  (kind_[a] == SolveKind::Cyclic && o.classic_rings &&
                   LineSolver<T>::cyclic_fits(static_cast<Axis>(a), layout_, o)));
    if (classic_) {
      // The classic stepper's layout: rows padded (SolverOptions::device_row_pitch) so
      // that every row starts aligned (at 257^3 the packed rows cost the y
      // and z solves 10-15 % in fp64, H100). Host copies go through
      // cudaMemcpy2D (set_field, get_field, get_work).
      layout_ = Layout3::padded(p_.n[0], p_.n[1], p_.n[2], options_.device_row_pitch(p_.n[0], sizeof(T)), p_.n[1]);
      for (int a = 0; a < 3; ++a) P_.stride[a] = layout_.stride[a];
      for (int a = 0; a < 3; ++a) {
        const double h = p_.spacing(a);
        const bool ring = kind_[a] == SolveKind::Cyclic;
        kc_.c[a] = static_cast<T>(p_.dt * p_.alpha[a] / p_.capacity / (h * h));
        kc_.lo_neumann[a] = p_.lo[a] != Boundary::Dirichlet && !ring;
        kc_.hi_neumann[a] = p_.hi[a] != Boundary::Dirichlet && !ring;
        kc_.lo_fixed[a] = p_.lo[a] == Boundary::Dirichlet;
        kc_.hi_fixed[a] = p_.hi[a] == Boundary::Dirichlet;
        kc_.lo_ghost[a] = kc_.hi_ghost[a] = 0;
        kc_.periodic[a] = ring ? 1 : 0;
        classic_solver_[a] = std::make_unique<LineSolver<T>>(ring ? rings[a] : factors[a].matrix(),
                                                             static_cast<Axis>(a), layout_, o, ring);
      }
    }

    // Lines of up to 1024 rows run the segmented kernel (general_lanes.cu),
    // which needs no scratch grid; longer ones, or all with
    // general_segmented off, one line per thread.
    // x lines in place where the segmented kernel copies their tiles line by
    // line (uniform segments: every open line of up to 1024 rows, rings of
    // S I rows), else through the x <-> y transposed grid
    // (general_transpose_kernel): one more grid, and the x conductivity and
    // 1/c fields transposed once, 7 words a point instead of 3. Not for
    // ny < 8 (nothing to coalesce) or more planes than a grid's z.
    // (The Strang step's x solves add into u, in place: no transposed grid.)
    x_transposed_ = !strang_ && !classic_ && kind_[0] != SolveKind::None && layout_.n[1] >= 8 &&
                    layout_.n[2] <= 65535;
    if (x_transposed_ && o.general_segmented) {
      const bool ring = kind_[0] == SolveKind::Cyclic;
      if ((o.general_x_in_place && general::lanes_in_place<T>(P_, 0, ring)) ||
          (!o.general_x_transpose && general::lanes_fit<T>(P_, 0, ring)))
        x_transposed_ = false;
    }
    // The fast RHS and the segmented kernels read one 1 / h^2 per axis: a
    // stretched grid's RHS takes the bit-exact general_rhs_kernel, and a
    // stretched axis' lines the one-line-per-thread kernels (their rows
    // through row_coupling, the scales included).
    fast_rhs_ = o.general_segmented && !p_.any_stretched();
    bool need_cp = false, need_z = false;
    for (int a = 0; a < 3; ++a) {
      if (kind_[a] == SolveKind::None) continue;
      GeneralParams<T> geometry = P_;
      if (a == 0 && x_transposed_) geometry.stride[0] = layout_.n[1];
      segmented_[a] = !classic_ && o.general_segmented && !p_.stretched(a) &&
                      general::lanes_fit<T>(geometry, a, kind_[a] == SolveKind::Cyclic);
      if (segmented_[a]) continue;
      if (kind_[a] != SolveKind::Factor) need_cp = true;
      if (kind_[a] == SolveKind::Cyclic) need_z = true;
    }

    // The moving Dirichlet nodes, flattened: offset, term mask, W per face.
    general::DirichletNodes dn =
        general::flatten_dirichlet(dirichlet_, {{layout_.stride[0], layout_.stride[1], layout_.stride[2]}});
    const std::vector<index_t>& d_off = dn.off;
    const std::vector<std::uint8_t>& d_mask = dn.mask;
    const std::vector<double>& d_w = dn.w;

    // Device memory: check that it fits, then allocate and upload.
    const std::size_t n = static_cast<std::size_t>(layout_.span());
    std::size_t need = sizeof(T) * n * (2 + (need_cp ? 1 : 0) + (need_z ? 1 : 0) + (x_transposed_ ? 1 : 0));
    if (x_transposed_) need += sizeof(T) * (k_host[0].size() + rho_host.size());
    for (const auto& k : k_host) need += sizeof(T) * k.size();
    need += sizeof(T) * (rho_host.size() + q_host.size());
    need += d_off.size() * (sizeof(index_t) + 1 + 6 * sizeof(double));
    std::size_t free_b = 0, total_b = 0;
    ADI_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need > free_b) {
      std::ostringstream s;
      s << "the general CUDA path needs " << need / (1 << 20) << " MiB of device memory for this grid but " << name_
        << " has " << free_b / (1 << 20) << " MiB free";
      ADI_THROW(BackendUnavailable, s.str());
    }
    this->create_stream();
    for (int a = 0; a < 3; ++a) {
      if (host_scales_[a].sm.empty()) continue;
      sm_[a].upload(host_scales_[a].sm);
      sp_[a].upload(host_scales_[a].sp);
      P_.ends[a].sm = sm_[a].get();
      P_.ends[a].sp = sp_[a].get();
      // The energy's weights read the coordinates on the device too.
      coords_[a].upload(p_.coordinates[a]);
    }
    u_.resize(n);
    w_.resize(n);
    if (need_cp) cp_.resize(n);
    if (need_z) z_.resize(n);
    for (int a = 0; a < 3; ++a) k_[a].upload(k_host[a]);
    for (int a = 0; a < 3; ++a) {
      const int b = k_shared[a] >= 0 ? k_shared[a] : a;
      P_.K[a] = k_host[b].empty() ? nullptr : k_[b].get();
    }
    if (!rho_host.empty()) rho_.upload(rho_host), P_.rho = rho_.get();
    if (!q_host.empty()) q_.upload(q_host), P_.q = q_.get();
    if (x_transposed_) {
      // The transposed grid: node (i, j, k) at k nx ny + i ny + j, so the
      // strides of the logical axes become (ny, 1, nx ny); the kernels index
      // w, the scratch grids, K and 1/c with the same offsets.
      wt_.resize(n);
      PT_ = P_;
      PT_.stride[0] = layout_.n[1];
      PT_.stride[1] = 1;
      PT_.stride[2] = layout_.n[0] * layout_.n[1];
      if (!k_host[0].empty()) kxt_.upload(transpose_xy(k_host[0])), PT_.K[0] = kxt_.get();
      if (!rho_host.empty()) rhot_.upload(transpose_xy(rho_host)), PT_.rho = rhot_.get();
    }
    for (int a = 0; a < 3; ++a) {
      if (kind_[a] != SolveKind::Factor) continue;
      const index_t na = factors[a].size();
      fa_[a].upload(std::vector<T>(factors[a].lower(), factors[a].lower() + na));
      fcp_[a].upload(std::vector<T>(factors[a].upper_over_pivot(), factors[a].upper_over_pivot() + na));
      finv_[a].upload(std::vector<T>(factors[a].inv_pivot(), factors[a].inv_pivot() + na));
    }
    dirichlet_count_ = static_cast<index_t>(d_off.size());
    if (dirichlet_count_) {
      d_off_.upload(d_off);
      d_mask_.upload(d_mask);
      d_w_.upload(d_w);
    }
    // The classic mode's step as one CUDA graph (SolverOptions::cuda_graph),
    // when its launches are the same every step: no time table (the face
    // data and the source factor at t* are kernel arguments) and no moving
    // Dirichlet face. The launch gaps matter on small grids (the classic
    // stepper's graph: 129^3 -4 to -7 %, docs/perf_notes.md).
    use_graph_ = classic_ && o.cuda_graph && !sync_checks_enabled() && !dirichlet_.moving &&
                 !p_.has_time_dependent_faces() && p_.source_table.empty();
    stats_.allocate();
    error_.resize(1);
    B_.P = P_;  // the whole grid as a box: begin 0, no cuts
    if (strang_) split_.setup(p_, dirichlet_);
    ADI_CUDA_CHECK(cudaMemsetAsync(u_.get(), 0, u_.bytes(), stream_));
    ADI_CUDA_CHECK(cudaMemsetAsync(w_.get(), 0, w_.bytes(), stream_));
    ADI_CUDA_CHECK(cudaMemsetAsync(error_.get(), 0, sizeof(int), stream_));
    // DeviceBuffer::upload is a plain cudaMemcpy from pageable memory, which
    // may return before its DMA lands, and stream_ does not wait for the
    // legacy stream: wait for everything once here.
    ADI_CUDA_CHECK(cudaDeviceSynchronize());
    plan_device_material();
  }

  std::string device_name() const override {
    std::ostringstream s;
    if (tables_) {
      s << name_ << " (device " << device_ << "; " << tables_->describe()
        << (use_graph_ ? "; a step is one CUDA graph" : "") << tables_->describe_box() << ")";
      return s.str();
    }
    if (classic_) {
      s << name_ << " (device " << device_ << "; general path: classic kernels, x=" << classic_solver_[0]->describe()
        << " y=" << classic_solver_[1]->describe() << " z=" << classic_solver_[2]->describe()
        << (use_graph_ ? "; a step is one CUDA graph" : "") << ")";
      return s.str();
    }
    s << name_ << " (device " << device_ << "; general path" << (strang_ ? ", Strang step" : "") << ":";
    for (int a = 0; a < 3; ++a)
      s << " " << axis_name(static_cast<Axis>(a)) << "="
        << (kind_[a] == SolveKind::None       ? "flat"
            : segmented_[a]                    ? (kind_[a] == SolveKind::Cyclic ? "segmented-ring" : "segmented")
            : kind_[a] == SolveKind::Factor   ? "thomas-factor"
            : kind_[a] == SolveKind::OnTheFly ? "thomas-on-the-fly"
                                              : "cyclic")
        << (a == 0 && x_transposed_ ? " (transposed grid)" : "");
    s << (nl_ ? "; the nonlinear step's material evaluated on the device" : "") << ")";
    return s.str();
  }

  // Once per run: through the host, with the CPU's own impose_dirichlet.
  void impose_boundary_values() override {
    if (dirichlet_.faces.empty()) return;
    std::vector<T> h(static_cast<std::size_t>(p_.points()));
    this->get_field(h.data());
    impose_dirichlet(dirichlet_, this->time(), h.data(), {{1, p_.n[0], p_.n[0] * p_.n[1]}});
    this->set_field(h.data());
  }

  std::vector<Phase> phases() const override {
    if (tables_) return tables_->phases();
    return scheme_phases(p_, plan_);
  }

  void run_phase(Phase ph) override {
    if (tables_) {  // Phase::Step: the step's launches, the step index left alone
      if (ph == Phase::Step) launch_tables_step();
      else tables_->run(ph, u_.get(), w_.get(), stream_);
      return;
    }
    if (strang_) {  // Rhs: the Dirichlet terms; SolveX..Z: one factor
      switch (ph) {
        case Phase::Rhs: split_terms(); break;
        case Phase::SolveX: factor(0); break;
        case Phase::SolveY: factor(1); break;
        case Phase::SolveZ: factor(2); break;
        case Phase::Step: launch_step(); break;
        case Phase::RhsSolveX:
          split_terms();
          factor(0);
          break;
      }
      return;
    }
    switch (ph) {
      case Phase::Rhs: rhs(); break;
      case Phase::SolveX: solve(0, nullptr); break;
      case Phase::SolveY: solve(1, nullptr); break;
      case Phase::SolveZ: solve(2, u_.get()); break;
      case Phase::RhsSolveX:
        rhs();
        solve(0, nullptr);
        break;
      case Phase::Step:  // like CpuStepper: a whole step, the step index included
        launch_step();
        break;
    }
  }

  void step() override {
    if (tables_) {
      launch_tables_step();
      ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
      ++this->step_index_;
      return;
    }
    launch_step();
    check_errors();
  }
  void advance(index_t count) override {
    if (tables_) {
      for (index_t s = 0; s < count; ++s) launch_tables_step();
      ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
      this->step_index_ += count;
      return;
    }
    for (index_t s = 0; s < count; ++s) launch_step();
    check_errors();
  }

  FieldStats field_stats() override {
    const T* rho = tables_ ? static_cast<const T*>(nullptr) : P_.rho;
    EnergyWeights ew = energy_weights(p_);
    for (int a = 0; a < 3; ++a) ew.x[a] = p_.stretched(a) ? coords_[a].get() : nullptr;  // device copies
    return stats_.reduce(u_.get(), layout_, ew, rho, stream_);
  }
  std::array<index_t, 3> moved_extents() const override { return tables_ ? tables_->moved_extents() : p_.n; }
  index_t moved_yz_lanes() const override { return tables_ ? tables_->moved_yz_lanes() : moved_extents()[0]; }

  std::size_t bytes_allocated() const override {
    if (tables_) return u_.bytes() + w_.bytes();
    std::size_t b = u_.bytes() + w_.bytes() + cp_.bytes() + z_.bytes() + rho_.bytes() + q_.bytes() + wt_.bytes() +
                    kxt_.bytes() + rhot_.bytes();
    for (int a = 0; a < 3; ++a) b += k_[a].bytes() + fa_[a].bytes() + fcp_[a].bytes() + finv_[a].bytes();
    b += d_off_.bytes() + d_mask_.bytes() + d_w_.bytes() + error_.bytes() + split_.bytes();
    if (nl_) b += nl_->bytes();
    return b;
  }

  DeviceIterates<T>* device_iterates() override { return nl_ ? this : nullptr; }

 private:
  enum class SolveKind { None, Factor, OnTheFly, Cyclic };

  // The constant tables (step_plan.hpp): constant_tables.cu's stages, u and
  // w with padded rows, a step one CUDA graph.
  void plan_constant_tables() {
    tables_ = std::make_unique<ConstantTables<T>>(p_, options_, layout_);
    const std::size_t n = tables_->elements();
    std::size_t free_b = 0, total_b = 0;
    ADI_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (2 * n * sizeof(T) > free_b) {
      std::ostringstream s;
      s << "the grid needs " << 2 * n * sizeof(T) / (1 << 20) << " MiB of device memory (u and one work array) but "
        << name_ << " has " << free_b / (1 << 20) << " MiB free"
        << detail::row_align_hint<T>(options_, 2, free_b, [&](index_t a) {
             return (p_.n[0] + a - 1) / a * a * p_.n[1] * p_.n[2];
           });
      ADI_THROW(BackendUnavailable, s.str());
    }
    u_.resize(n);
    w_.resize(n);
    this->create_stream();
    ADI_CUDA_CHECK(cudaMemsetAsync(u_.get(), 0, u_.bytes(), stream_));
    ADI_CUDA_CHECK(cudaMemsetAsync(w_.get(), 0, w_.bytes(), stream_));
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
    stats_.allocate();
    // A synchronising check after each launch (ADI_CUDA_SYNC=1, debug
    // builds) is illegal inside a capture: those runs launch one by one.
    use_graph_ = options_.cuda_graph && !sync_checks_enabled();
  }
  void launch_tables_step() {
    this->launch_step_kernels([&] {
      for (Phase q : tables_->phases()) tables_->run(q, u_.get(), w_.get(), stream_);
    });
  }

  // K per axis (an isotropic field: the first axis' array, k_shared) and 1/c.
  void load_material(std::array<std::vector<T>, 3>& k_host, std::array<int, 3>& k_shared,
                     std::vector<T>& rho_host) const {
    for (int a = 0; a < 3; ++a) {
      const auto& src = p_.material.conductivity[a];
      if (!src || p_.flat(a)) continue;
      for (int b = 0; b < a; ++b)
        if (p_.material.conductivity[b] == src && !k_host[b].empty()) k_shared[a] = b;
      if (k_shared[a] < 0) k_host[a] = load(*src, "conductivity", false);
    }
    if (p_.material.capacity) {
      rho_host = load(*p_.material.capacity, "heat capacity", false);
      for (T& r : rho_host) r = T(1) / r;
    }
  }

 public:
  // New values into the same device arrays (the graph's kernels keep their
  // pointers), after the queued steps that read the old ones.
  void reload_material() override {
    ADI_REQUIRE(!plan_.constant_tables() && !classic_,
                "CUDA stepper: a problem of constant coefficients has no material fields to re-read");
    std::array<std::vector<T>, 3> k_host;
    std::array<int, 3> k_shared{{-1, -1, -1}};
    std::vector<T> rho_host;
    load_material(k_host, k_shared, rho_host);
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (int a = 0; a < 3; ++a) {
      ADI_REQUIRE(k_host[a].size() == k_[a].size(), "CUDA stepper: the conductivity fields changed shape");
      k_[a].upload(k_host[a]);
    }
    ADI_REQUIRE(rho_host.size() == rho_.size(), "CUDA stepper: the heat capacity field changed shape");
    rho_.upload(rho_host);
    // A source field that changes too (radiating faces: adi/radiation.hpp).
    if (p_.material.source) {
      const std::vector<T> q_host = load(*p_.material.source, "heat source", true);
      ADI_REQUIRE(q_host.size() == q_.size(), "CUDA stepper: the source field changed shape");
      q_.upload(q_host);
    }
    if (x_transposed_) {
      if (!k_host[0].empty()) kxt_.upload(transpose_xy(k_host[0]));
      if (!rho_host.empty()) rhot_.upload(transpose_xy(rho_host));
    }
    // Moving Dirichlet faces: their W arrays are made of the in-plane operators.
    if (dirichlet_.moving) {
      refresh_dirichlet_terms(dirichlet_, p_, {{0, 0, 0}});
      d_w_.upload(general::flatten_dirichlet(dirichlet_, {{layout_.stride[0], layout_.stride[1], layout_.stride[2]}}).w);
    }
  }

 private:
  // The nonlinear step's material on the device (DeviceIterates) where the
  // arrays the rows read are the temperature state's and the radiation's
  // fields, the device has room for two more fields (and the region ids,
  // the problem's own source field) and SolverOptions::device_material is
  // on. Not with moving Dirichlet faces (their W terms are made on the
  // host from the fields: such runs keep the host evaluation).
  void plan_device_material() {
    const TemperatureState* st = p_.material.temperature.get();
    const RadiationState* rad = p_.radiation.get();
    if (!options_.device_material || dirichlet_.moving || !general::NonlinearMaterial<T>::supported(p_)) return;
    general::MaterialTargets<T> out;
    if (st) {
      for (int a = 0; a < 3; ++a)
        if (!p_.flat(a) && p_.material.conductivity[a] != st->conductivity(a)) return;
      if (p_.material.capacity != st->capacity() || rho_.size() == 0) return;
      out.k_properties = st->isotropic() ? 1 : 3;
      for (int a = 0; a < 3; ++a) {
        if (k_[a].size() == 0) continue;
        out.k[st->isotropic() ? 0 : a] = k_[a].get();
      }
      out.rho = rho_.get();
    }
    if (rad) {
      if (p_.material.source != rad->source() || q_.size() == 0) return;
      out.q = q_.get();
    }
    const std::size_t n = u_.size();
    std::size_t free_b = 0, total_b = 0;
    ADI_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (general::NonlinearMaterial<T>::bytes_needed(p_, n) + (std::size_t(64) << 20) > free_b) return;
    nl_ = std::make_unique<general::NonlinearMaterial<T>>(p_, n);
    nl_out_ = out;
  }
  T* iterate(int s) { return s == DeviceIterates<T>::kField ? u_.get() : nl_->slot(s); }
  void store_iterate(int s) override {
    ADI_CUDA_CHECK(cudaMemcpyAsync(nl_->slot(s), u_.get(), u_.bytes(), cudaMemcpyDeviceToDevice, stream_));
  }
  void load_iterate(int s) override {
    ADI_CUDA_CHECK(cudaMemcpyAsync(u_.get(), nl_->slot(s), u_.bytes(), cudaMemcpyDeviceToDevice, stream_));
  }
  void evaluate_material(int a, int b, double tstar) override {
    if (!nl_->evaluate(iterate(a), iterate(b), tstar, nl_out_, stream_)) {
      // A node the host refuses: its evaluation throws its own message (and
      // were it to pass, the arrays are then the host's).
      std::vector<T> h0(u_.size()), h1(u_.size());
      ADI_CUDA_CHECK(cudaMemcpyAsync(h0.data(), iterate(a), u_.bytes(), cudaMemcpyDeviceToHost, stream_));
      ADI_CUDA_CHECK(cudaMemcpyAsync(h1.data(), iterate(b), u_.bytes(), cudaMemcpyDeviceToHost, stream_));
      ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
      if (p_.material.temperature) p_.material.temperature->evaluate_step(h0.data(), h1.data());
      if (p_.radiation) p_.radiation->evaluate(h0.data(), h1.data(), tstar);
      reload_material();
      return;
    }
    if (x_transposed_) {  // the x solve's copies of K and 1/c
      if (nl_out_.k_properties && kxt_.size()) transpose(k_[0].get(), kxt_.get(), layout_.n[1], layout_.n[0]);
      if (nl_out_.rho && rhot_.size()) transpose(rho_.get(), rhot_.get(), layout_.n[1], layout_.n[0]);
    }
  }
  std::array<double, 3> iterate_change(int prev, int base) override {
    return nl_->change(u_.get(), iterate(prev), iterate(base), stream_);
  }
  void extrapolate_iterate(int prev, int out) override {
    nl_->extrapolate(u_.get(), iterate(prev), iterate(out), stream_);
  }
  void conserve_enthalpy(int a, int b, const std::array<bool, 6>& fixed) override {
    if (nl_->conserve(iterate(a), iterate(b), u_.get(), fixed, stream_)) return;
    // A node the host refuses: its correction throws its own message (the
    // nodes the device did correct are corrected again; a node that failed
    // there is untouched and fails here too).
    std::vector<T> h0(u_.size()), h1(u_.size()), v(u_.size());
    ADI_CUDA_CHECK(cudaMemcpyAsync(h0.data(), iterate(a), u_.bytes(), cudaMemcpyDeviceToHost, stream_));
    ADI_CUDA_CHECK(cudaMemcpyAsync(h1.data(), iterate(b), u_.bytes(), cudaMemcpyDeviceToHost, stream_));
    ADI_CUDA_CHECK(cudaMemcpyAsync(v.data(), u_.get(), u_.bytes(), cudaMemcpyDeviceToHost, stream_));
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
    p_.material.temperature->evaluate_step(h0.data(), h1.data());
    p_.material.temperature->conserve_enthalpy(h0.data(), h1.data(), v.data(), v.size(), fixed);
    ADI_THROW(NumericalError, "the device's enthalpy correction failed where the host's passed");
  }

  std::vector<T> load(const FieldSource& f, const char* what, bool signed_ok) const {
    std::vector<double> v(static_cast<std::size_t>(p_.points()));
    f.read({{0, 0, 0}}, p_.n, v.data());
    check_field_values(v, what, f.name(), p_.n, signed_ok);
    return std::vector<T>(v.begin(), v.end());
  }

  void launch_step() {
    this->launch_step_kernels([&] { step_kernels(); });
    ++this->step_index_;
  }
  void step_kernels() {
    if (strang_) {
      split_terms();
      for (const SplitFactor& f : strang_sequence(p_)) factor(f.axis);
      split_.reset(u_.get(), B_, stream_);
      return;
    }
    rhs();
    solve(0, nullptr);
    solve(1, nullptr);
    solve(2, u_.get());
  }
  // The Strang step's pieces (split_kernels.cuh).
  void split_terms() {
    split_.terms(u_.get(), B_, dirichlet_, this->time(), this->time_at(this->step_index() + 1),
                 stream_);
  }
  void factor(int a) {
    if (split_.rhs(u_.get(), w_.get(), B_, a, this->time(), stream_)) solve(a, u_.get());
  }

  // The time-dependent data at t* = t + theta dt, on the host as the CPU does.
  void rhs() {
    const double t0 = this->time(), tstar = t0 + p_.theta * p_.dt;
    GeneralParams<T> P = P_;
    face_betas(p_, tstar, P.beta);
    P.qf = static_cast<T>(p_.source_table.at(tstar));
    if (classic_) {
      // Flux / Robin faces: dt rho (beta - g_r u) at their nodes, beta at
      // t*; the x faces' in the RHS kernel (RhsCoefficients::xfaces), the y
      // and z faces' by general_mirror_faces_kernel.
      RhsCoefficients<T> kc = kc_;
      for (int side = 0; side < 2; ++side) {
        const AxisEnds<T>& e = P.ends[0];
        if ((side ? e.hi : e.lo) != LineEnd::Mirror) continue;
        kc.xg[side] = P.dt * P.rho_const * (side ? e.hi_robin : e.lo_robin);
        kc.xb[side] = P.dt * P.rho_const * P.beta[0][side];
        kc.xfaces = 1;
      }
      launch_rhs<T>(u_.get(), w_.get(), layout_, kc, stream_, options_);
      bool mirror = false;  // a flux or Robin face of y or z (periodic axes have none)
      for (int a = 1; a < 3; ++a)
        for (Boundary b : {p_.lo[a], p_.hi[a]}) mirror = mirror || b == Boundary::Neumann || b == Boundary::Robin;
      if (mirror) {
        // Threads along x (both faces' rows run along it); grid-stride over
        // z (y faces) or y (z faces).
        const dim3 grid(static_cast<unsigned>(std::min<index_t>((layout_.n[0] + 31) / 32, 1024)),
                        static_cast<unsigned>(std::min<index_t>((std::max(layout_.n[1], layout_.n[2]) + 7) / 8, 1024)),
                        4u);
        general::general_mirror_faces_kernel<T><<<grid, dim3(32, 8), 0, stream_>>>(u_.get(), w_.get(), P);
        ADI_CUDA_CHECK_LAUNCH("general_mirror_faces_kernel");
      }
      if (P.qconst != T(0)) {
        const dim3 grid(static_cast<unsigned>((layout_.n[0] + 31) / 32), static_cast<unsigned>((layout_.n[1] + 7) / 8),
                        static_cast<unsigned>(std::min<index_t>(layout_.n[2], 1024)));
        general::general_const_source_kernel<T><<<grid, dim3(32, 8), 0, stream_>>>(w_.get(), P);
        ADI_CUDA_CHECK_LAUNCH("general_const_source_kernel");
      }
    } else {
      if (fast_rhs_) {
        general::launch_fast_rhs<T>(u_.get(), w_.get(), P, sm_count_, stream_);
      } else {
        index_t kchunk = 1;
        const dim3 grid = general::rhs_interior_grid(P, sm_count_, kchunk);
        if (grid.x > 0) {
          general::general_rhs_kernel<T>
              <<<grid, dim3(general::kRhsBlockX, general::kRhsBlockY), 0, stream_>>>(u_.get(), w_.get(), P, kchunk);
          ADI_CUDA_CHECK_LAUNCH("general_rhs_kernel");
        }
      }
      const index_t face_max = max_face_nodes();
      if (face_max > 0) {
        general::general_rhs_faces_kernel<T><<<face_grid(face_max), kThreads, 0, stream_>>>(u_.get(), w_.get(), P);
        ADI_CUDA_CHECK_LAUNCH("general_rhs_faces_kernel");
      }
    }
    if (dirichlet_.moving && dirichlet_count_ > 0) {
      const auto df = dirichlet_.increments(p_, t0, t0 + p_.dt);
      general::DirichletIncrements inc;
      for (int f = 0; f < 6; ++f) inc.df[f] = df[f];
      general::general_dirichlet_rhs_kernel<T><<<blocks_for(dirichlet_count_), kThreads, 0, stream_>>>(
          w_.get(), d_off_.get(), d_mask_.get(), d_w_.get(), dirichlet_count_, layout_.span(), inc, error_.get());
      ADI_CUDA_CHECK_LAUNCH("general_dirichlet_rhs_kernel");
    }
  }

  void solve(int a, T* acc) {
    const index_t total = layout_.points();
    if (kind_[a] == SolveKind::None) {  // flat axis: no operator, D_a = D_{a-1}
      if (acc) {
        general::general_add_kernel<T><<<blocks_for(total), kThreads, 0, stream_>>>(w_.get(), acc, total);
        ADI_CUDA_CHECK_LAUNCH("general_add_kernel");
      }
      return;
    }
    if (classic_) {
      classic_solver_[a]->solve(w_.get(), acc, stream_);
      return;
    }
    const index_t lines = total / layout_.n[a];
    const bool transposed = a == 0 && x_transposed_ && acc == nullptr;
    T* w = transposed ? wt_.get() : w_.get();
    GeneralParams<T> P = transposed ? PT_ : P_;
    P.theta_dt = tau_[a];
    if (transposed) transpose(w_.get(), wt_.get(), layout_.n[1], layout_.n[0]);
    if (segmented_[a]) {
      general::launch_general_lanes<T>(w, acc, P, a, kind_[a] == SolveKind::Cyclic, error_.get(), stream_);
      if (transposed) transpose(wt_.get(), w_.get(), layout_.n[0], layout_.n[1]);
      return;
    }
    switch (kind_[a]) {
      case SolveKind::Factor:
        general::general_factor_kernel<T><<<blocks_for(lines), kThreads, 0, stream_>>>(
            w, acc, fa_[a].get(), fcp_[a].get(), finv_[a].get(), P, a, lines);
        ADI_CUDA_CHECK_LAUNCH("general_factor_kernel");
        break;
      case SolveKind::OnTheFly:
        general::general_thomas_kernel<T><<<blocks_for(lines), kThreads, 0, stream_>>>(w, cp_.get(), acc, P,
                                                                                         a, lines, error_.get());
        ADI_CUDA_CHECK_LAUNCH("general_thomas_kernel");
        break;
      case SolveKind::Cyclic:
        general::general_cyclic_kernel<T><<<blocks_for(lines), kThreads, 0, stream_>>>(
            w, cp_.get(), z_.get(), acc, P, a, lines, error_.get());
        ADI_CUDA_CHECK_LAUNCH("general_cyclic_kernel");
        break;
      case SolveKind::None: break;
    }
    if (transposed) transpose(wt_.get(), w_.get(), layout_.n[0], layout_.n[1]);
  }

  // The largest face plane of a non-flat axis, and the grid of the face
  // kernels over it (blockIdx.y: the six planes).
  index_t max_face_nodes() const {
    index_t m = 0;
    for (int f = 0; f < 6; ++f)
      if (!p_.flat(f / 2)) m = std::max(m, general::face_nodes(P_, f));
    return m;
  }
  static dim3 face_grid(index_t nodes) {
    return dim3(static_cast<unsigned>(std::min<index_t>((nodes + kThreads - 1) / kThreads, 4096)), 6u);
  }

  // out = in with x and y swapped in every plane: in is R rows of C values.
  void transpose(const T* in, T* out, index_t R, index_t C) {
    const dim3 block(general::kTransposeTile, general::kTransposeRows);
    const dim3 grid(static_cast<unsigned>((C + general::kTransposeTile - 1) / general::kTransposeTile),
                    static_cast<unsigned>((R + general::kTransposeTile - 1) / general::kTransposeTile),
                    static_cast<unsigned>(layout_.n[2]));
    ADI_REQUIRE(grid.y <= 65535 && grid.z <= 65535, "general path: grid too large for the x transposition");
    general::general_transpose_kernel<T><<<grid, block, 0, stream_>>>(in, out, R, C);
    ADI_CUDA_CHECK_LAUNCH("general_transpose_kernel");
  }

  /// A host field (packed, x fastest) in the transposed layout of the x solve.
  std::vector<T> transpose_xy(const std::vector<T>& v) const {
    const index_t nx = layout_.n[0], ny = layout_.n[1], nz = layout_.n[2];
    std::vector<T> t(v.size());
    for (index_t k = 0; k < nz; ++k)
      for (index_t j = 0; j < ny; ++j)
        for (index_t i = 0; i < nx; ++i) t[(k * nx + i) * ny + j] = v[(k * ny + j) * nx + i];
    return t;
  }

  // The device error word, read after a step (one 4-byte copy): a zero or
  // non-finite pivot is a NumericalError naming the axis, as on the CPU.
  void check_errors() {
    int err = 0;
    ADI_CUDA_CHECK(cudaMemcpyAsync(&err, error_.get(), sizeof(int), cudaMemcpyDeviceToHost, stream_));
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (err == 0) return;
    ADI_CUDA_CHECK(cudaMemsetAsync(error_.get(), 0, sizeof(int), stream_));
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (err & 8) ADI_THROW(NumericalError, "CUDA general path: a Dirichlet node's offset lies outside the grid");
    std::string axes;
    for (int a = 0; a < 3; ++a)
      if (err & (general::kPivotErrorX << a))
        axes += std::string(axes.empty() ? "" : ", ") + axis_name(static_cast<Axis>(a));
    ADI_THROW(NumericalError, "line solve along " + axes +
                                  ": zero or non-finite pivot (non-finite or extreme material values?)");
  }

  StepPlan plan_;  // step_plan.hpp: the constant tables' stages, or the rows' below
  GeneralParams<T> P_;
  bool strang_ = false;                     // the Strang step (split.hpp), else Douglas
  T tau_[3] = {T(0), T(0), T(0)};           // theta dt of each axis' solves
  general::BoxParams<T> B_;                 // P_ as a box (the Strang kernels')
  general::SplitDevice<T> split_;
  bool x_transposed_ = false;  // x lines solved on the x <-> y transposed grid
  bool segmented_[3] = {false, false, false};  // axis solved by the segmented kernel (general_lanes.cu)
  bool fast_rhs_ = true;  // interior RHS by fast_rhs_kernel (else the bit-exact general_rhs_kernel)
  bool classic_ = false;  // constant coefficients: the classic RHS and line kernels (see the constructor)
  RhsCoefficients<T> kc_{};
  std::unique_ptr<LineSolver<T>> classic_solver_[3];
  GeneralParams<T> PT_;        // P_ with the transposed strides and fields
  DeviceBuffer<T> wt_, kxt_, rhot_;
  SolveKind kind_[3] = {SolveKind::None, SolveKind::None, SolveKind::None};
  DirichletData dirichlet_;
  index_t dirichlet_count_ = 0;
  DeviceBuffer<T> cp_, z_, rho_, q_;
  DeviceBuffer<T> k_[3], fa_[3], fcp_[3], finv_[3];
  std::array<AxisScales<T>, 3> host_scales_{};  // a stretched axis' sm, sp (discrete.hpp)
  DeviceBuffer<T> sm_[3], sp_[3];               // ... on the device: P_.ends[a].sm, .sp
  DeviceBuffer<double> coords_[3];              // a stretched axis' coordinates (the energy's weights)
  DeviceBuffer<index_t> d_off_;
  DeviceBuffer<std::uint8_t> d_mask_;
  DeviceBuffer<double> d_w_;
  DeviceBuffer<int> error_;
  std::unique_ptr<ConstantTables<T>> tables_;  // the constant tables' stages (else the rows' below)
  std::unique_ptr<general::NonlinearMaterial<T>> nl_;  // the nonlinear step's material on the device
  general::MaterialTargets<T> nl_out_;                 // the arrays it writes
};

template <class T>
std::unique_ptr<Stepper<T>> make_cuda_stepper(const HeatProblem& p, const SolverOptions& options) {
  return std::make_unique<CudaStepper<T>>(p, options);
}

template std::unique_ptr<Stepper<float>> make_cuda_stepper<float>(const HeatProblem&, const SolverOptions&);
template std::unique_ptr<Stepper<double>> make_cuda_stepper<double>(const HeatProblem&,
                                                                                const SolverOptions&);

}  // namespace adi::cuda
