// One MPI rank's box of the GENERAL problem on its GPU: the CUDA twin of
// GeneralCpuLocal (solver/cpu/general_local_cpu.cpp; the design is in
// detail/general_local.hpp). The same rows, built from discrete.hpp with the
// node's GLOBAL index and the domain's ends; the same partition method for
// lines that cross ranks; the same reduced systems (solve_reduced_line's
// operations, on the device). Compiled with -fmad=false, as the
// whole-grid general stepper's generic kernels, so the per-node arithmetic
// is the oracle's operation for operation.
//
// Storage: LocalStorage with one ghost layer along every split axis and rows
// padded so that every x row starts on 128 bytes (row_align); u, w, K per axis
// (one array for an isotropic field), 1/c and q on the box and its ghosts;
// along a split axis three scratch grids (the interior's coefficients alpha,
// beta of the reduced unknowns, and the forward sweep's c'), which the
// one-line-per-thread whole-line solves reuse as their c' and z.
//
// Kernels, per phase (each phase ends with its stream synchronised, since
// the distributed stepper times and orders phases on the host):
//  - rhs: the whole-grid path's fast interior kernel (launch_fast_rhs) on
//    the box widened by its ghost planes, then the domain's face planes of
//    the box by the CPU's generic per-node form (box_rhs_kernel); with
//    general_segmented off, box_rhs_kernel over the whole box;
//  - solve_whole (an axis the rank holds whole: x always): the segmented
//    kernel of the whole-grid path (general_lanes.cu) on the box's view
//    where it fits (SolverOptions::general_segmented), else Thomas or cyclic
//    Sherman-Morrison one line per thread (general_line_kernels.cuh);
//  - reduce / finish (a split axis): one thread per line, lines adjacent
//    along x (coalesced); the 8 numbers of each line to the host for the
//    all-gather, the gathered rows back, the reduced systems solved on the
//    device (box_reduced_kernel: solve_reduced_line's arithmetic).
// Not yet at the whole-grid path's speed: the split axes' partition method
// moves ~14 words a point (the interior's alpha, beta and c' go through
// memory), one thread per line.

#include <adi/box/general_local.hpp>
#include <adi/dirichlet.hpp>
#include <adi/discrete.hpp>

#include "../box_copy.cuh"
#include "../cuda_check.hpp"
#include "../device_buffer.hpp"
#include "../field_stats.cuh"
#include "../stepper_support.cuh"
#include "dirichlet_nodes.hpp"
#include "general_line_kernels.cuh"
#include "general_rhs_kernels.cuh"
#include "general_local_kernels.cuh"
#include "general_lanes.hpp"
#include "general_rhs.hpp"
#include "split_kernels.cuh"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

namespace adi::box {

namespace {

using cuda::DeviceBuffer;
using cuda::general::GeneralParams;
using cuda::general::kPivotErrorX;

unsigned blocks_for(index_t count) {
  const index_t b = (count + kThreads - 1) / kThreads;
  if (b <= 0 || b > 0x7fffffff)
    ADI_THROW(BackendUnavailable, "CUDA general rank: launch of " + std::to_string(count) + " threads does not fit a grid");
  return static_cast<unsigned>(b);
}

template <class T>
class GeneralCudaLocal final : public GeneralLocal<T> {
 public:
  GeneralCudaLocal(const HeatProblem& p, const Decomposition& d, int rank, int device, const SolverOptions& o)
      : p_(p), part_(d.part(rank)), options_(o), device_((cuda::set_sync_checks(o.cuda_sync), set_device(device))) {
    cudaDeviceProp prop{};
    ADI_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    name_ = prop.name;
    sm_count_ = prop.multiProcessorCount;
    std::array<bool, 3> ghosts{};
    for (int a = 0; a < 3; ++a) {
      ghosts[a] = d.is_split(a);
      split_[a] = d.split(a);
    }
    ADI_REQUIRE(!ghosts[0], "CUDA ranks: the x axis is never split");
    ghosts_ = ghosts;
    // Rows padded as in the classic rank (SolverOptions::device_row_pitch): every x row, and
    // every ghost plane, starts aligned.
    st_ = LocalStorage::make(part_.box.size, ghosts, cuda::detail::row_align_elems<T>(o));

    // Host side first (fields read and checked, Dirichlet data): a bad
    // input throws before any device memory is taken.
    // Every field is read before a bad one throws (load_box_material).
    BoxMaterial<T> mat = load_box_material<T>(p_, part_, ghosts, st_, d.ranks() > 1);
    std::array<std::vector<T>, 3>& k_host = mat.k;
    const std::array<int, 3> k_shared = mat.k_shared;
    const std::vector<T>& rho_host = mat.rho;
    const std::vector<T>& q_host = mat.q;
    dirichlet_ = build_dirichlet(p_, part_.box.begin, part_.box.size);
    const Layout3& L = st_.layout;
    const cuda::general::DirichletNodes dn = cuda::general::flatten_dirichlet(dirichlet_, strides());

    B_.P = cuda::general::general_params<T>(p_, L);
    GeneralParams<T>& P = B_.P;
    strang_ = p_.scheme_in_use() == SchemeType::Strang;
    const std::array<double, 3> frac = strang_fractions(p_);
    for (int a = 0; a < 3; ++a) tau_[a] = strang_ ? static_cast<T>(p_.theta * frac[a] * p_.dt) : P.theta_dt;
    for (int a = 0; a < 3; ++a) {
      B_.begin[a] = part_.box.begin[a];
      B_.lo_cut[a] = part_.lo_cut[a];
      B_.hi_cut[a] = part_.hi_cut[a];
    }
    // Per axis the rank holds whole: the segmented kernel where it takes the
    // lines, else one line per thread (scratch grids). Split axes: the
    // partition method (scratch grids).
    bool scratch = false;
    for (int a = 0; a < 3; ++a) {
      if (p_.flat(a)) continue;
      if (d.is_split(a)) {
        scratch = true;
        continue;
      }
      segmented_[a] = o.general_segmented && cuda::general::lanes_fit<T>(P, a, p_.periodic(a));
      if (!segmented_[a]) scratch = true;
    }

    const std::size_t n = static_cast<std::size_t>(st_.elements);
    std::size_t need = sizeof(T) * n * (2 + (scratch ? 3 : 0));
    for (const auto& k : k_host) need += sizeof(T) * k.size();
    need += sizeof(T) * (rho_host.size() + q_host.size());
    need += dn.off.size() * (sizeof(index_t) + 1 + 6 * sizeof(double));
    std::size_t free_b = 0, total_b = 0;
    ADI_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need > free_b) {
      std::ostringstream s;
      s << "this rank's box of the general problem needs " << need / (1 << 20) << " MiB of device memory (u, the "
        << "work array, material fields and scratch, ghost planes included) but " << name_ << " (device " << device_
        << ") has " << free_b / (1 << 20) << " MiB free";
      ADI_THROW(BackendUnavailable, s.str());
    }
    ADI_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    u_.resize(n);
    w_.resize(n);
    if (scratch) {
      al_.resize(n);
      be_.resize(n);
      cp_.resize(n);
    }
    for (int a = 0; a < 3; ++a) k_[a].upload(k_host[a]);
    for (int a = 0; a < 3; ++a) {
      const int b = k_shared[a] >= 0 ? k_shared[a] : a;
      P.K[a] = k_host[b].empty() ? nullptr : k_[b].get() + st_.origin;
    }
    if (!rho_host.empty()) rho_.upload(rho_host), P.rho = rho_.get() + st_.origin;
    if (!q_host.empty()) q_.upload(q_host), P.q = q_.get() + st_.origin;
    dirichlet_count_ = static_cast<index_t>(dn.off.size());
    if (dirichlet_count_) {
      d_off_.upload(dn.off);
      d_mask_.upload(dn.mask);
      d_w_.upload(dn.w);
    }
    // Per split axis: the reduced systems' layout (reduced_layout: cnt, then off).
    for (int a = 0; a < 3; ++a) {
      if (!d.is_split(a)) continue;
      std::vector<index_t> cnt, off;
      reduced_layout(split_[a], cnt, off);
      reduced_unknowns_[a] = off.back();
      cnt.insert(cnt.end(), off.begin(), off.end());
      co_[a].upload(cnt);
    }
    error_.resize(1);
    stats_.allocate();
    if (strang_) strang_dev_.setup(p_, dirichlet_);
    // stream_ does not wait for the legacy default stream: the zero fills go on it.
    ADI_CUDA_CHECK(cudaMemsetAsync(u_.get(), 0, u_.bytes(), stream_));
    ADI_CUDA_CHECK(cudaMemsetAsync(w_.get(), 0, w_.bytes(), stream_));
    ADI_CUDA_CHECK(cudaMemsetAsync(error_.get(), 0, sizeof(int), stream_));
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  ~GeneralCudaLocal() override {
    cudaSetDevice(device_);
    for (cudaEvent_t e : events_)
      if (e) cudaEventDestroy(e);
    if (stream_) cudaStreamDestroy(stream_);
  }

  // New values into the same device arrays (the rows keep their pointers),
  // after the queued work that read the old ones.
  void reload_material(bool collective) override {
    BoxMaterial<T> m = load_box_material<T>(p_, part_, ghosts_, st_, collective);
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (int a = 0; a < 3; ++a) {
      ADI_REQUIRE(m.k[a].size() == k_[a].size(), "CUDA rank: the conductivity fields changed shape");
      k_[a].upload(m.k[a]);
    }
    ADI_REQUIRE(m.rho.size() == rho_.size(), "CUDA rank: the heat capacity field changed shape");
    rho_.upload(m.rho);
    ADI_REQUIRE(m.q.size() == q_.size(), "CUDA rank: the source field changed shape");
    if (!m.q.empty()) q_.upload(m.q);
    // Moving Dirichlet faces: their W arrays are made of the in-plane operators.
    if (dirichlet_.moving) {
      refresh_dirichlet_terms(dirichlet_, p_, part_.box.begin);
      d_w_.upload(cuda::general::flatten_dirichlet(dirichlet_, strides()).w);
    }
  }

  std::string device_name() const override {
    std::ostringstream s;
    s << name_ << " (device " << device_ << "; general path: ";
    for (int a = 0; a < 3; ++a)
      s << (a ? ", " : "") << "xyz"[a] << " "
        << (p_.flat(a)                ? "flat"
            : split_[a].parts > 1     ? "split across ranks"
            : segmented_[a]           ? "segmented"
                                      : "one line per thread");
    s << ")";
    return s.str();
  }
  std::size_t bytes_allocated() const override {
    std::size_t b = u_.bytes() + w_.bytes() + al_.bytes() + be_.bytes() + cp_.bytes() + rho_.bytes() + q_.bytes() +
                    rows_.bytes() + fl_.bytes() + g_[1].bytes() + g_[2].bytes() + zr_.bytes() + d_off_.bytes() +
                    d_mask_.bytes() + d_w_.bytes() + error_.bytes() + strang_dev_.bytes();
    for (const auto& k : k_) b += k.bytes();
    for (const auto& c : co_) b += c.bytes();
    return b;
  }

  void set_field(const T* packed) override {
    current();
    cuda::box_copy(U(), st_.layout, const_cast<T*>(packed), true, stream_);
  }
  void get_field(T* packed) override {
    current();
    cuda::box_copy(U(), st_.layout, packed, false, stream_);
  }
  void set_work(const T* packed) override {
    current();
    cuda::box_copy(W(), st_.layout, const_cast<T*>(packed), true, stream_);
  }
  void get_work(T* packed) override {
    current();
    cuda::box_copy(W(), st_.layout, packed, false, stream_);
  }
  FieldStats field_stats() override {
    current();
    return stats_.reduce(U(), st_.layout, energy_weights(p_, part_.box.begin), B_.P.rho, stream_);
  }

  T* host_buffer(int slot, std::size_t n) override {
    current();
    return pinned_[slot].reserve(n);
  }

  index_t lines(int axis) const override {
    const int o1 = axis == 0 ? 1 : 0, o2 = axis == 2 ? 1 : 2;
    return st_.layout.n[o1] * st_.layout.n[o2];
  }
  void pack_face(int axis, int side, T* host) override {
    current();
    cuda::plane_copy(U(), st_.layout, axis, side ? st_.layout.n[axis] - 1 : 0, host, true, 0, n_o2(axis), stream_);
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void unpack_ghost(int axis, int side, const T* host) override {
    current();
    cuda::plane_copy(U(), st_.layout, axis, side ? st_.layout.n[axis] : -1, const_cast<T*>(host), false, 0,
                     n_o2(axis), stream_);
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  // Once per run: through the host, with the CPU's own impose_dirichlet.
  void impose_boundary_values(double t) override {
    if (dirichlet_.faces.empty()) return;
    const Layout3& L = st_.layout;
    std::vector<T> h(static_cast<std::size_t>(L.n[0] * L.n[1] * L.n[2]));
    get_field(h.data());
    impose_dirichlet(dirichlet_, t, h.data(), {{1, L.n[0], L.n[0] * L.n[1]}});
    set_field(h.data());
  }

  void rhs(double t0) override {
    current();
    const double tstar = t0 + p_.theta * p_.dt;
    GeneralParams<T>& P = B_.P;
    face_betas(p_, tstar, P.beta);
    P.qf = static_cast<T>(p_.source_table.at(tstar));
    const Layout3& L = st_.layout;
    NodeRange all;
    for (int a = 0; a < 3; ++a) all.hi[a] = L.n[a];
    if (!options_.general_segmented) {
      launch_rhs(all);
    } else {
      // The whole-grid path's fast interior kernel on the box widened by its
      // ghost planes along the split axes: its "interior" (one node in from
      // every end) is then the box along a split axis (neighbours across a
      // cut in the ghost planes) and [1, n-1) along the others. The box's
      // face planes that are not cuts (the domain's faces: end rows, face
      // data, Dirichlet nodes) are then (re)computed by the generic kernel.
      GeneralParams<T> E = P;
      index_t shift = 0;
      for (int a = 1; a < 3; ++a)
        if (split_[a].parts > 1) E.n[a] += 2, shift += L.stride[a];
      for (int a = 0; a < 3; ++a)
        if (E.K[a]) E.K[a] -= shift;
      if (E.rho) E.rho -= shift;
      if (E.q) E.q -= shift;
      cuda::general::launch_fast_rhs<T>(U() - shift, W() - shift, E, sm_count_, stream_);
      for (int a = 0; a < 3; ++a) {
        if (p_.flat(a)) continue;
        for (int side = 0; side < 2; ++side) {
          if (side ? part_.hi_cut[a] : part_.lo_cut[a]) continue;
          NodeRange face = all;
          face.lo[a] = side ? L.n[a] - 1 : 0;
          face.hi[a] = face.lo[a] + 1;
          launch_rhs(face);
        }
      }
    }
    if (dirichlet_.moving && dirichlet_count_ > 0) {
      const auto df = dirichlet_.increments(p_, t0, t0 + p_.dt);
      cuda::general::DirichletIncrements inc;
      for (int f = 0; f < 6; ++f) inc.df[f] = df[static_cast<std::size_t>(f)];
      cuda::general::general_dirichlet_rhs_kernel<T><<<blocks_for(dirichlet_count_), kThreads, 0, stream_>>>(
          W(), d_off_.get(), d_mask_.get(), d_w_.get(), dirichlet_count_, st_.elements - st_.origin, inc,
          error_.get());
      ADI_CUDA_CHECK_LAUNCH("general_dirichlet_rhs_kernel");
    }
    finish_phase();
  }

  // The Strang step's pieces (split_kernels.cuh), each phase synchronised.
  void split_terms(double t0, double t1) override {
    current();
    strang_dev_.terms(U(), B_, dirichlet_, t0, t1, stream_);
    finish_phase();
  }
  void factor_rhs(int a, double t0) override {
    current();
    strang_dev_.rhs(U(), W(), B_, a, t0, stream_);
    finish_phase();
  }
  void split_reset() override {
    current();
    strang_dev_.reset(U(), B_, stream_);
    finish_phase();
  }

  void solve_whole(int a, bool add_to_u) override {
    current();
    GeneralParams<T> P = B_.P;
    P.theta_dt = tau_[a];
    T* acc = add_to_u ? U() : nullptr;
    if (p_.flat(a)) {  // no operator along a: D_a = D_{a-1}
      if (add_to_u) {
        box_add_kernel<T><<<box_grid(), dim3(32, 8), 0, stream_>>>(W(), U(), B_);
        ADI_CUDA_CHECK_LAUNCH("box_add_kernel");
      }
    } else if (segmented_[a]) {
      cuda::general::launch_general_lanes<T>(W(), acc, P, a, p_.periodic(a), error_.get(), stream_);
    } else {
      const index_t nl = lines(a);
      if (p_.periodic(a))
        cuda::general::general_cyclic_kernel<T><<<blocks_for(nl), kThreads, 0, stream_>>>(
            W(), cp_.get() + st_.origin, be_.get() + st_.origin, acc, P, a, nl, error_.get());
      else
        cuda::general::general_thomas_kernel<T><<<blocks_for(nl), kThreads, 0, stream_>>>(
            W(), cp_.get() + st_.origin, acc, P, a, nl, error_.get());
      ADI_CUDA_CHECK_LAUNCH("general line solve (one line per thread)");
    }
    finish_phase();
  }

  // A batch of lines of a split axis (general_local.hpp): its elimination
  // and the copy of its reduced rows to the host queued on the stream, an
  // event after them (rows_ready waits for it). The batches' device
  // buffers are one region each, reused (the stream runs the batches in
  // order), sized once for all the axis' lines, so no cudaFree ever waits
  // on queued work.
  void reduce(int a, index_t c2b, index_t c2e, int batch, T* out) override {
    current();
    const index_t first = c2b * st_.layout.n[0], nl = (c2e - c2b) * st_.layout.n[0];
    const std::size_t values = static_cast<std::size_t>(kReducedValues * nl);
    const std::size_t most = static_cast<std::size_t>(lines(a));
    if (rows_.size() < kReducedValues * most) rows_.resize(kReducedValues * most);
    BoxParams<T> B = B_;
    B.P.theta_dt = tau_[a];
    box_reduce_kernel<T><<<blocks_for(nl), kThreads, 0, stream_>>>(W(), al_.get() + st_.origin,
                                                                  be_.get() + st_.origin, cp_.get() + st_.origin,
                                                                  B, a, first, nl, rows_.get(), error_.get());
    ADI_CUDA_CHECK_LAUNCH("box_reduce_kernel");
    ADI_CUDA_CHECK(cudaMemcpyAsync(out, rows_.get(), values * sizeof(T), cudaMemcpyDeviceToHost, stream_));
    ADI_CUDA_CHECK(cudaMemcpyAsync(flag(batch), error_.get(), sizeof(int), cudaMemcpyDeviceToHost, stream_));
    ADI_CUDA_CHECK(cudaEventRecord(event(batch), stream_));
  }
  // A pivot this rank's eliminations found is reported here, before its
  // rows go to its peers, as the CPU rank's reduce reports it: a peer that
  // then fails on those rows fails later in the step's order, so the
  // distributed stepper names this rank (its agree()), not the peer.
  void rows_ready(int batch) override {
    current();
    ADI_CUDA_CHECK(cudaEventSynchronize(event(batch)));
    if (const int err = *flag(batch)) {
      // Queued after every batch's elimination: the flag starts clean for the next phase.
      ADI_CUDA_CHECK(cudaMemsetAsync(error_.get(), 0, sizeof(int), stream_));
      check_pivots(err);
    }
  }

  // The batch's gathered rows uploaded, its reduced systems solved on the
  // device (one thread per line), its lines completed; all queued. The
  // gathered rows of every batch of an axis stay on the device (the batch's
  // region, at its first line): after the first step only the right-hand
  // sides go up, 2 of each rank's 8 values a line.
  void finish(int a, index_t c2b, index_t c2e, const T* gathered, bool add_to_u, bool rhs_only) override {
    current();
    const index_t first = c2b * st_.layout.n[0], nl = (c2e - c2b) * st_.layout.n[0];
    const int P = split_[a].parts;
    const index_t N = reduced_unknowns_[a];
    const std::size_t gv = static_cast<std::size_t>(P) * kReducedValues * static_cast<std::size_t>(nl);
    const std::size_t most = static_cast<std::size_t>(lines(a));  // every batch's buffers fit, sized once
    DeviceBuffer<T>& g = g_[a];
    if (g.size() < P * kReducedValues * most) {
      ADI_REQUIRE(!rhs_only, "CUDA general rank: right-hand sides alone before the rows' first upload");
      g.resize(P * kReducedValues * most);
    }
    if (zr_.size() < 7 * static_cast<std::size_t>(N) * most) zr_.resize(7 * static_cast<std::size_t>(N) * most);
    if (fl_.size() < 2 * most) fl_.resize(2 * most);
    T* gb = g.get() + static_cast<std::size_t>(P) * kReducedValues * static_cast<std::size_t>(first);
    if (!rhs_only) {
      ADI_CUDA_CHECK(cudaMemcpyAsync(gb, gathered, gv * sizeof(T), cudaMemcpyHostToDevice, stream_));
    } else {
      // Rank q's block: value v of line l at (q kReducedValues + v) nl + l; v = 3, 7 are the d's.
      for (int q = 0; q < P; ++q)
        for (int v : {3, 7}) {
          const std::size_t o = static_cast<std::size_t>((q * kReducedValues + v) * nl);
          ADI_CUDA_CHECK(cudaMemcpyAsync(gb + o, gathered + o, static_cast<std::size_t>(nl) * sizeof(T),
                                         cudaMemcpyHostToDevice, stream_));
        }
    }
    box_reduced_kernel<T><<<blocks_for(nl), kThreads, 0, stream_>>>(gb, nl, co_[a].get(), P,
                                                                   p_.periodic(a) ? 1 : 0, part_.coords[a],
                                                                   zr_.get(), fl_.get(), a, error_.get());
    ADI_CUDA_CHECK_LAUNCH("box_reduced_kernel");
    box_finish_kernel<T><<<blocks_for(nl), kThreads, 0, stream_>>>(W(), U(), al_.get() + st_.origin,
                                                                  be_.get() + st_.origin, B_, a, first, nl,
                                                                  fl_.get(), add_to_u ? 1 : 0);
    ADI_CUDA_CHECK_LAUNCH("box_finish_kernel");
  }
  void end_lines(int /*axis*/) override {
    current();
    finish_phase();
  }

 private:
  static int set_device(int device) {
    ADI_CUDA_CHECK(cudaSetDevice(device));
    return device;
  }
  // This rank's device is made current on every entry (the process may have
  // used another one in between), as in the classic rank.
  void current() const { ADI_CUDA_CHECK(cudaSetDevice(device_)); }
  // Per batch: the error flag as it stood after the batch's eliminations
  // (its own page-locked word, so no batch's copy moves another's).
  int* flag(int batch) { return flags_[batch].reserve(1); }
  cudaEvent_t event(int batch) {
    if (static_cast<std::size_t>(batch) >= events_.size()) events_.resize(static_cast<std::size_t>(batch) + 1, nullptr);
    cudaEvent_t& e = events_[static_cast<std::size_t>(batch)];
    if (!e) ADI_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    return e;
  }
  T* U() const { return u_.get() + st_.origin; }
  T* W() const { return w_.get() + st_.origin; }
  std::array<index_t, 3> strides() const {
    return {{st_.layout.stride[0], st_.layout.stride[1], st_.layout.stride[2]}};
  }
  index_t n_o2(int axis) const { return st_.layout.n[axis == 2 ? 1 : 2]; }
  // A (32 x 8)-thread block grid over nodes [lo, hi) of the box, z by grid-stride.
  static dim3 node_grid(const NodeRange& R) {
    const index_t n0 = R.hi[0] - R.lo[0], n1 = R.hi[1] - R.lo[1], n2 = R.hi[2] - R.lo[2];
    ADI_REQUIRE((n1 + 7) / 8 <= 65535, "CUDA general rank: ny too large for the box kernels' grid");
    return dim3(static_cast<unsigned>((n0 + 31) / 32), static_cast<unsigned>((n1 + 7) / 8),
                static_cast<unsigned>(std::min<index_t>(n2, 65535)));
  }
  dim3 box_grid() const {
    NodeRange all;
    for (int a = 0; a < 3; ++a) all.hi[a] = st_.layout.n[a];
    return node_grid(all);
  }
  void launch_rhs(const NodeRange& R) {
    box_rhs_kernel<T><<<node_grid(R), dim3(32, 8), 0, stream_>>>(U(), W(), B_, R);
    ADI_CUDA_CHECK_LAUNCH("box_rhs_kernel");
  }

  // The end of a phase: its work done (the distributed stepper orders and
  // times phases on the host), and any zero or non-finite pivot reported
  // as the CPU rank reports it.
  void finish_phase() {
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
    int err = 0;
    ADI_CUDA_CHECK(cudaMemcpyAsync(&err, error_.get(), sizeof(int), cudaMemcpyDeviceToHost, stream_));
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (err) {
      // On the rank's stream: the next phase's kernels are ordered after it.
      ADI_CUDA_CHECK(cudaMemsetAsync(error_.get(), 0, sizeof(int), stream_));
      check_pivots(err);
    }
  }
  void check_pivots(int err) const {
    if (err & 8) ADI_THROW(NumericalError, "CUDA general rank: a Dirichlet node's offset lies outside the box");
    for (int a = 0; a < 3; ++a)
      if (err & (kPivotErrorX << a))
        ADI_THROW(NumericalError, std::string("line solve along ") + axis_name(static_cast<Axis>(a)) +
                                      ": zero or non-finite pivot (non-finite or extreme material values?)");
  }

  HeatProblem p_;
  LocalPart part_;
  SolverOptions options_;
  int device_;
  std::string name_;
  int sm_count_ = 1;
  std::array<Split1D, 3> split_{};
  LocalStorage st_;
  std::array<bool, 3> ghosts_{};  // the split axes: one ghost layer each side
  BoxParams<T> B_;
  bool strang_ = false;            // the Strang step (split.hpp), else Douglas
  T tau_[3] = {T(0), T(0), T(0)};  // theta dt of each axis' solves
  cuda::general::SplitDevice<T> strang_dev_;
  std::array<bool, 3> segmented_{{false, false, false}};
  DirichletData dirichlet_;
  index_t dirichlet_count_ = 0;
  DeviceBuffer<T> u_, w_, al_, be_, cp_, rho_, q_, rows_, fl_, zr_;
  DeviceBuffer<T> g_[3];  // per split axis: every batch's gathered rows (kept: the coefficients)
  std::array<DeviceBuffer<index_t>, 3> co_;  // per split axis: cnt, then off (reduced_layout)
  std::array<index_t, 3> reduced_unknowns_{{0, 0, 0}};
  std::vector<cudaEvent_t> events_;           // per batch: its reduced rows are on the host
  std::array<DeviceBuffer<T>, 3> k_;
  DeviceBuffer<index_t> d_off_;
  DeviceBuffer<std::uint8_t> d_mask_;
  DeviceBuffer<double> d_w_;
  DeviceBuffer<int> error_;
  cuda::FieldStatsReducer stats_;
  std::map<int, cuda::PinnedBuffer<T>> pinned_;  // host_buffer's
  std::map<int, cuda::PinnedBuffer<int>> flags_;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

template <class T>
std::unique_ptr<GeneralLocal<T>> make_general_cuda_local(const HeatProblem& p, const Decomposition& d, int rank,
                                                         int device, const SolverOptions& options) {
  return std::make_unique<GeneralCudaLocal<T>>(p, d, rank, device, options);
}
template std::unique_ptr<GeneralLocal<float>> make_general_cuda_local<float>(const HeatProblem&, const Decomposition&,
                                                                            int, int, const SolverOptions&);
template std::unique_ptr<GeneralLocal<double>> make_general_cuda_local<double>(const HeatProblem&,
                                                                              const Decomposition&, int, int,
                                                                              const SolverOptions&);

}  // namespace adi::box
