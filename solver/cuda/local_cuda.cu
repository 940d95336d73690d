// One MPI rank's box on its GPU: the whole-grid CUDA backend's kernels
// (launch_rhs with ghost faces, LineSolver with the rank's block matrices)
// on the box's layout, plus the small kernels of the distributed step: the
// pointwise correction of split lines (field_stats: field_stats.cu).
//
// The MPI libraries adi3d meets are not CUDA-aware, so everything that
// crosses ranks is staged through pinned host buffers (cudaMallocHost, so
// that the copies are DMA transfers at full PCIe/NVLink-C2C speed): ghost
// planes and the end planes of the local solves go device -> host with one
// 2-D copy each (a z plane is rows of the box at the row pitch, a y plane is
// one row per z plane at the plane pitch), and the all-gathered values of
// the reduced systems go host -> device before the correction kernel.
// No MPI here (solver/mpi/distributed_stepper.cpp moves the data).

#include <adi/box/local_backend.hpp>

#include "box_copy.cuh"
#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "field_stats.cuh"
#include "line_solver.hpp"
#include "rhs_kernel.cuh"
#include "stepper_support.cuh"

#include <algorithm>
#include <map>
#include <utility>
#include <sstream>
#include <vector>

namespace adi::box {

namespace {

using cuda::DeviceBuffer;
using cuda::LineSolver;
using cuda::PinnedBuffer;

constexpr int kCorrectRows = 8;    // threads per line along the rows (blockDim.y)

// x = w + alpha_r X_prev + beta_r X_next for every node of the box, the
// lines along `axis` (y or z) indexed (i, c2): i = x, c2 = the other axis.
// A block is 32 neighbouring lines (coalesced along x) times kCorrectRows
// threads that share the rows of those lines; each thread computes its
// line's X_prev, X_next from the 2P gathered values (reads coalesced along
// x: the gathered layout is [k][line]).
// A batch of lines c2 = c2b .. c2b + gridDim.y - 1; the gathered values of
// the batch are [k][line in the batch], `lines` per k.
template <class T>
__global__ void __launch_bounds__(32 * kCorrectRows)
    correct_kernel(T* __restrict__ w, T* __restrict__ u, Layout3 L, int axis, index_t c2b, const T* __restrict__ g,
                   index_t lines, int K, const T* __restrict__ wp, const T* __restrict__ wn,
                   const T* __restrict__ al, const T* __restrict__ be, int add) {
  const index_t i = static_cast<index_t>(blockIdx.x) * 32 + threadIdx.x;
  const index_t c2 = c2b + blockIdx.y;
  if (i >= L.n[0]) return;
  T xp, xn;
  interface_values(g + i + L.n[0] * static_cast<index_t>(blockIdx.y), lines, K, wp, wn, xp, xn);
  const int o2 = axis == 1 ? 2 : 1;
  const index_t m = L.n[axis], s = L.stride[axis];
  const index_t base = i + c2 * L.stride[o2];
  for (index_t r = threadIdx.y; r < m; r += kCorrectRows) {
    const index_t o = base + r * s;
    const T x = w[o] + al[r] * xp + be[r] * xn;
    if (add)
      u[o] += x;
    else
      w[o] = x;
  }
}

template <class T>
DeviceBuffer<T> upload(const std::vector<double>& v) {
  DeviceBuffer<T> d;
  d.upload(std::vector<T>(v.begin(), v.end()));
  return d;
}

template <class T>
class CudaLocal final : public LocalBackend<T> {
 public:
  CudaLocal(const LocalProblem& lp, int device, const SolverOptions& o)
      : lp_(lp), options_(o), device_((cuda::set_sync_checks(o.cuda_sync), set_device(device))),
        st_(LocalStorage::make(lp.size(), lp.ghosts, cuda::detail::row_align_elems<T>(o))),
        solver_{LineSolver<T>(lp.plans[0].local, Axis::X, st_.layout, o),
                LineSolver<T>(lp.plans[1].local, Axis::Y, st_.layout, o),
                LineSolver<T>(lp.plans[2].local, Axis::Z, st_.layout, o)} {
    ADI_REQUIRE(!lp.ghosts[0], "CUDA ranks: the x axis is never split");
    cudaDeviceProp prop{};
    ADI_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    name_ = prop.name;
    const std::size_t n = static_cast<std::size_t>(st_.elements);
    std::size_t free_b = 0, total_b = 0;
    ADI_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (2 * n * sizeof(T) > free_b) {
      std::ostringstream s;
      s << "this rank's box needs " << 2 * n * sizeof(T) / (1 << 20) << " MiB of device memory (u and one work "
        << "array, ghost planes included) but " << name_ << " (device " << device_ << ") has "
        << free_b / (1 << 20) << " MiB free" << cuda::detail::row_align_hint<T>(o, 2, free_b, [&](index_t a) {
             return LocalStorage::make(lp.size(), lp.ghosts, a).elements;
           });
      ADI_THROW(BackendUnavailable, s.str());
    }
    u_.resize(n);
    w_.resize(n);
    for (int a = 1; a < 3; ++a) {
      const DistributedLinePlan& pl = lp_.plans[a];
      if (!pl.coupled()) continue;
      alpha_[a] = upload<T>(pl.alpha);
      beta_[a] = upload<T>(pl.beta);
      w_prev_[a] = upload<T>(pl.w_prev);
      w_next_[a] = upload<T>(pl.w_next);
      gathered_[a].resize(static_cast<std::size_t>(pl.gathered() * lp_.lines(a)));
    }
    // stream_ does not wait for the legacy default stream: the zero fill goes
    // on it (a plain cudaMemset could land after set_field's copy).
    ADI_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    ADI_CUDA_CHECK(cudaMemsetAsync(u_.get(), 0, u_.bytes(), stream_));
    ADI_CUDA_CHECK(cudaMemsetAsync(w_.get(), 0, w_.bytes(), stream_));
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
    stats_.allocate();
  }
  ~CudaLocal() override {
    cudaSetDevice(device_);
    for (auto& e : events_)
      if (e.second) cudaEventDestroy(e.second);
    if (stream_) cudaStreamDestroy(stream_);
  }

  Backend kind() const override { return Backend::Cuda; }
  std::string device_name() const override {
    std::ostringstream s;
    s << name_ << " (device " << device_ << "; " << solver_[0].describe() << "; " << solver_[1].describe() << "; "
      << solver_[2].describe() << ")";
    return s.str();
  }
  std::size_t bytes_allocated() const override {
    std::size_t b = u_.bytes() + w_.bytes();
    for (int a = 0; a < 3; ++a) b += gathered_[a].bytes();
    return b;
  }

  void set_field(const T* packed) override {
    current();
    box_copy(u_.get(), const_cast<T*>(packed), true);
  }
  void get_field(T* packed) override {
    current();
    box_copy(u_.get(), packed, false);
  }
  void set_work(const T* packed) override {
    current();
    box_copy(w_.get(), const_cast<T*>(packed), true);
  }
  void get_work(T* packed) override {
    current();
    box_copy(w_.get(), packed, false);
  }

  FieldStats field_stats() override {
    current();
    return stats_.reduce(U(), st_.layout, energy_weights(lp_.global, lp_.part.box.begin), static_cast<const T*>(nullptr),
                         stream_);
  }

  T* host_buffer(int slot, std::size_t n) override {
    current();
    return pinned_[slot].reserve(n);
  }

  void pack_face(int axis, int side, T* host) override {
    current();
    plane_copy(U(), axis, side ? lp_.size()[axis] - 1 : 0, host, true, 0, n_o2(axis));
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void unpack_ghost(int axis, int side, const T* host) override {
    current();
    plane_copy(U(), axis, side ? lp_.size()[axis] : -1, const_cast<T*>(host), false, 0, n_o2(axis));
  }
  void rhs(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& hi) override {
    current();
    const index_t o = st_.layout.offset(lo[0], lo[1], lo[2]);
    cuda::launch_rhs(U() + o, W() + o, sub_layout(st_.layout, lo, hi), lp_.rhs_coefficients_of<T>(lo, hi), stream_, options_);
  }
  void solve_local_fused_z() override {
    current();
    solver_[2].solve(W(), U(), stream_);
  }
  void solve_local(int axis, index_t b, index_t e) override {
    current();
    if (b == 0 && e == n_o2(axis)) {
      solver_[axis].solve(W(), nullptr, stream_);
      return;
    }
    // A batch of lines: the same matrix on the batch's part of the layout
    // (one planned solver per batch size, kept).
    std::array<index_t, 3> lo, hi;
    line_range(st_.layout, axis, b, e, lo, hi);
    const auto key = std::make_pair(axis, e - b);
    auto it = batch_solver_.find(key);
    if (it == batch_solver_.end())
      it = batch_solver_
               .emplace(key, LineSolver<T>(lp_.plans[axis].local, static_cast<Axis>(axis),
                                           sub_layout(st_.layout, lo, hi), options_))
               .first;
    it->second.solve(W() + st_.layout.offset(lo[0], lo[1], lo[2]), nullptr, stream_);
  }
  void pack_ends(int axis, index_t b, index_t e, T* host) override {
    current();
    const index_t L = st_.layout.n[0] * (e - b);
    plane_copy(W(), axis, 0, host, true, b, e);
    plane_copy(W(), axis, lp_.size()[axis] - 1, host + L, true, b, e);
  }
  void upload_gathered(int axis, index_t b, index_t e, const T* gathered) override {
    current();
    const std::size_t n = static_cast<std::size_t>(lp_.plans[axis].gathered() * st_.layout.n[0] * (e - b));
    ADI_CUDA_CHECK(cudaMemcpyAsync(gathered_[axis].get() + batch_offset(axis, b), gathered, n * sizeof(T),
                                   cudaMemcpyHostToDevice, stream_));
  }
  void correct(int axis, index_t b, index_t e, bool add_to_u) override {
    current();
    ADI_REQUIRE(axis == 1 || axis == 2, "distributed solves split y or z lines only");
    const Layout3& L = st_.layout;
    ADI_REQUIRE(e - b <= 65535, "correction kernel: more than 65535 planes in a batch");
    const dim3 block(32, kCorrectRows);
    const dim3 grid(static_cast<unsigned>((L.n[0] + 31) / 32), static_cast<unsigned>(e - b));
    correct_kernel<T><<<grid, block, 0, stream_>>>(W(), U(), L, axis, b, gathered_[axis].get() + batch_offset(axis, b),
                                                   L.n[0] * (e - b), lp_.plans[axis].gathered(), w_prev_[axis].get(),
                                                   w_next_[axis].get(), alpha_[axis].get(), beta_[axis].get(),
                                                   add_to_u ? 1 : 0);
    ADI_CUDA_CHECK_LAUNCH("correct_kernel");
  }
  void record(int slot) override {
    current();
    cudaEvent_t& ev = events_[slot];
    if (!ev) ADI_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    ADI_CUDA_CHECK(cudaEventRecord(ev, stream_));
  }
  bool done(int slot) override {
    current();
    const cudaError_t e = cudaEventQuery(events_.at(slot));
    if (e == cudaErrorNotReady) return false;
    ADI_CUDA_CHECK(e);
    return true;
  }
  void synchronize() override {
    current();
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  static int set_device(int device) {
    ADI_CUDA_CHECK(cudaSetDevice(device));
    return device;
  }
  // This rank's device is made current on every entry: the process may have
  // used another one in between (a test builds a single-GPU stepper on
  // device 0 next to rank 1's), and launches need their stream's device.
  void current() const { ADI_CUDA_CHECK(cudaSetDevice(device_)); }
  T* U() const { return u_.get() + st_.origin; }
  T* W() const { return w_.get() + st_.origin; }

  // The box of `field` <-> packed host data (box_copy.cuh).
  void box_copy(T* field, T* packed, bool in) { cuda::box_copy(field + st_.origin, st_.layout, packed, in, stream_); }

  index_t n_o2(int axis) const { return st_.layout.n[other_axes(axis)[1]]; }
  // Where the gathered values of the batch of lines starting at c_o2 = b go
  // in the device buffer (the batches before it, 2P L_batch values each).
  index_t batch_offset(int axis, index_t b) const {
    return static_cast<index_t>(lp_.plans[axis].gathered()) * st_.layout.n[0] * b;
  }

  // The plane at index idx along axis 1 or 2 of `field` (pointing at node
  // (0, 0, 0)), rows c_o2 in [b, e) <-> packed host data (box_copy.cuh).
  void plane_copy(T* field, int axis, index_t idx, T* host, bool out, index_t b, index_t e) {
    cuda::plane_copy(field, st_.layout, axis, idx, host, out, b, e, stream_);
  }

  LocalProblem lp_;
  SolverOptions options_;
  int device_;
  LocalStorage st_;
  LineSolver<T> solver_[3];
  std::string name_;
  DeviceBuffer<T> u_, w_;
  DeviceBuffer<T> alpha_[3], beta_[3], w_prev_[3], w_next_[3], gathered_[3];
  cuda::FieldStatsReducer stats_;
  std::map<int, PinnedBuffer<T>> pinned_;
  std::map<std::pair<int, index_t>, LineSolver<T>> batch_solver_;
  std::map<int, cudaEvent_t> events_;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

template <class T>
std::unique_ptr<LocalBackend<T>> make_cuda_local(const LocalProblem& lp, int device, const SolverOptions& options) {
  return std::make_unique<CudaLocal<T>>(lp, device, options);
}
template std::unique_ptr<LocalBackend<float>> make_cuda_local<float>(const LocalProblem&, int, const SolverOptions&);
template std::unique_ptr<LocalBackend<double>> make_cuda_local<double>(const LocalProblem&, int,
                                                                       const SolverOptions&);

}  // namespace adi::box
