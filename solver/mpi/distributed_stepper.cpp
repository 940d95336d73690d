// The distributed Douglas step (adi/mpi.hpp): one rank per sub-box, a local
// backend (CPU or CUDA, local_backend.hpp) for the arithmetic, MPI for the
// ghost planes and the reduced systems. docs/MPI.md has the design.

#include <adi/mpi.hpp>

#include <adi/cuda.hpp>

#include <adi/detail/local_backend.hpp>
#include "general_distributed.hpp"
#include "mpi_check.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

namespace adi::mpi {

namespace {

using Clock = std::chrono::steady_clock;
using detail::datatype;
using detail::LocalBackend;
using detail::LocalProblem;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Host buffer slots of the local backend.
enum Slot : int {
  kSendLo = 0,  // + 4 * axis
  kSendHi = 1,
  kRecvLo = 2,
  kRecvHi = 3,
  kBox = 15,
  kEnds = 16,      // + 8 * axis + batch
  kGathered = 48,  // + 8 * axis + batch
};
constexpr int kMaxBatches = 8;

// Large messages go in pieces whose counts fit an int.
constexpr index_t kChunk = index_t(1) << 28;

template <class T>
void send_all(const T* p, index_t n, int dest, int tag, MPI_Comm comm) {
  for (index_t o = 0; o < n; o += kChunk)
    ADI_MPI_CHECK(MPI_Send(p + o, static_cast<int>(std::min(kChunk, n - o)), datatype<T>(), dest, tag, comm));
}
template <class T>
void recv_all(T* p, index_t n, int src, int tag, MPI_Comm comm) {
  for (index_t o = 0; o < n; o += kChunk)
    ADI_MPI_CHECK(MPI_Recv(p + o, static_cast<int>(std::min(kChunk, n - o)), datatype<T>(), src, tag, comm,
                           MPI_STATUS_IGNORE));
}

template <class T>
class MpiStepper final : public DistributedStepper<T> {
 public:
  MpiStepper(const HeatProblem& p, const Decomposition& d, std::unique_ptr<LocalBackend<T>> local, MPI_Comm comm,
             const LocalProblem& lp, bool overlap, int batches)
      : p_(p), dec_(d), lp_(lp), local_(std::move(local)), comm_(comm), overlap_(overlap), batches_(batches) {
    ADI_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    for (int a = 0; a < 3; ++a) {
      line_comm_[a] = MPI_COMM_NULL;
      if (!dec_.is_split(a)) continue;
      // The ranks sharing this rank's lines along a: same coordinates on the
      // other axes; ordered by the coordinate along a.
      std::array<int, 3> c = lp_.part.coords;
      c[a] = 0;
      ADI_MPI_CHECK(MPI_Comm_split(comm_, dec_.rank_of(c), lp_.part.coords[a], &line_comm_[a]));
    }
  }
  ~MpiStepper() override {
    for (MPI_Comm& c : line_comm_)
      if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    MPI_Comm_free(&comm_);
  }

  const HeatProblem& problem() const override { return p_; }
  Backend backend() const override { return local_->kind(); }
  std::string device_name() const override {
    std::string how = ", reduced-system line solves";
    if (dec_.is_split(1) || dec_.is_split(2))
      how += overlap_ ? ", communication overlapped (" + std::to_string(batches_) + " batches of lines)"
                      : ", no overlap";
    return local_->device_name() + "; " + dec_.describe() + how;
  }
  const Decomposition& decomposition() const override { return dec_; }
  const LocalPart& part() const override { return lp_.part; }

  void set_field(const T* host) override { local_->set_field(host); }
  void get_work(T* host) override {
    local_->synchronize();
    local_->get_work(host);
  }
  void get_field(T* host) override {
    local_->synchronize();
    local_->get_field(host);
  }

  void scatter_field(const T* root_host) override {
    // Rank 0's box is the largest (the first ranks of a split get the extra
    // nodes), so its buffer holds any rank's box.
    const index_t n = lp_.part.box.points();
    T* mine = local_->host_buffer(kBox, static_cast<std::size_t>(n));
    if (rank_ == 0) {
      ADI_REQUIRE(root_host != nullptr, "scatter_field: rank 0 must pass the global field");
      for (int r = dec_.ranks() - 1; r >= 0; --r) {  // rank 0's own box last: it stays in `mine`
        const Box b = dec_.part(r).box;
        copy_box(root_host, mine, b, true);
        if (r != 0) send_all(mine, b.points(), r, 100, comm_);
      }
    } else {
      recv_all(mine, n, 0, 100, comm_);
    }
    local_->set_field(mine);
  }

  void gather_field(T* root_host) override {
    local_->synchronize();
    const index_t n = lp_.part.box.points();
    T* mine = local_->host_buffer(kBox, static_cast<std::size_t>(n));
    if (rank_ == 0) {
      ADI_REQUIRE(root_host != nullptr, "gather_field: rank 0 must pass room for the global field");
      std::vector<T> theirs;
      for (int r = 0; r < dec_.ranks(); ++r) {
        const Box b = dec_.part(r).box;
        T* buf = mine;
        if (r == 0) {
          local_->get_field(mine);
        } else {
          theirs.resize(static_cast<std::size_t>(b.points()));
          buf = theirs.data();
          recv_all(buf, b.points(), r, 101, comm_);
        }
        copy_box(root_host, buf, b, false);
      }
    } else {
      local_->get_field(mine);
      send_all(mine, n, 0, 101, comm_);
    }
  }

  void step() override {
    const auto t0 = Clock::now();
    run_phase(Phase::Rhs);
    run_phase(Phase::SolveX);
    run_phase(Phase::SolveY);
    run_phase(Phase::SolveZ);
    local_->synchronize();
    times_.step += since(t0);
    ++times_.steps;
    ++this->step_index_;
  }

  FieldStats field_stats() override {
    local_->synchronize();
    const FieldStats mine = local_->field_stats();
    double v[2] = {mine.max_abs, mine.finite ? 0.0 : 1.0}, e = mine.energy;
    ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, comm_));
    ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_DOUBLE, MPI_SUM, comm_));
    return FieldStats{v[0], v[1] == 0.0, e};
  }

  void run_phase(Phase ph) override {
    switch (ph) {
      case Phase::Rhs: halo_and_rhs(); break;
      case Phase::SolveX: local_->solve_local(0, 0, n_o2(0)); break;
      case Phase::SolveY:
        if (dec_.is_split(1)) solve_split(1, false);
        else local_->solve_local(1, 0, n_o2(1));
        break;
      case Phase::SolveZ:
        if (dec_.is_split(2)) solve_split(2, true);
        else local_->solve_local_fused_z();
        break;
      case Phase::Step: step(); break;
      case Phase::RhsSolveX:
        // Not among phases(): the fused single-GPU kernel reads x neighbours
        // across the whole line, which a split x would not have.
        ADI_THROW(InvalidArgument, "the fused rhs+x phase is not available in a distributed run");
    }
  }

  std::vector<double> time_phase(Phase p, int warmup, int reps) override {
    for (int r = 0; r < warmup; ++r) run_phase(p);
    local_->synchronize();
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
      ADI_MPI_CHECK(MPI_Barrier(comm_));
      const auto t0 = Clock::now();
      run_phase(p);
      local_->synchronize();
      ms.push_back(since(t0) * 1e3);
    }
    // The slowest rank sets the pace of a step.
    if (!ms.empty())
      ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, ms.data(), static_cast<int>(ms.size()), MPI_DOUBLE, MPI_MAX, comm_));
    return ms;
  }

  void solve_lines(Axis axis, T* box) override {
    const int a = axis_index(axis);
    local_->set_work(box);
    if (dec_.is_split(a)) solve_split(a, false);
    else local_->solve_local(a, 0, n_o2(a));
    local_->synchronize();
    local_->get_work(box);
  }

  std::size_t bytes_allocated() const override { return local_->bytes_allocated(); }
  CommTimes comm_times() const override { return times_; }
  void reset_comm_times() override { times_ = CommTimes{}; }

 private:
  // The box b of a packed global array <-> a packed box.
  void copy_box(const T* global, T* box, const Box& b, bool extract) const {
    const index_t nx = p_.n[0], ny = p_.n[1];
    for (index_t k = 0; k < b.size[2]; ++k)
      for (index_t j = 0; j < b.size[1]; ++j) {
        const index_t g = b.begin[0] + nx * ((b.begin[1] + j) + ny * (b.begin[2] + k));
        T* row = box + b.size[0] * (j + b.size[1] * k);
        if (extract)
          std::memcpy(row, global + g, sizeof(T) * b.size[0]);
        else
          std::memcpy(const_cast<T*>(global) + g, row, sizeof(T) * b.size[0]);
      }
  }

  index_t n_o2(int axis) const { return lp_.part.box.size[detail::other_axes(axis)[1]]; }

  // One ghost plane from each neighbour along every split axis, then the
  // right-hand side. A plane sent down (to the lower neighbour, which keeps
  // it as its upper ghost) travels with tag 2a, one sent up with tag 2a + 1.
  // With overlap the RHS of the interior (every node whose neighbours are
  // all in the box) is queued while the planes travel, and the shell next
  // to the cut faces follows once the ghosts are in.
  void halo_and_rhs() {
    const std::array<index_t, 3> n = lp_.part.box.size;
    const std::array<index_t, 3> zero{{0, 0, 0}};
    if (!dec_.is_split(1) && !dec_.is_split(2)) {
      local_->rhs(zero, n);
      return;
    }
    std::array<index_t, 3> ilo = zero, ihi = n;  // the interior
    for (int a = 1; a < 3; ++a) {
      ilo[a] = lp_.part.lo_cut[a] ? 1 : 0;
      ihi[a] = n[a] - (lp_.part.hi_cut[a] ? 1 : 0);
    }
    const bool overlap = overlap_ && ihi[1] > ilo[1] && ihi[2] > ilo[2];

    local_->synchronize();  // u is final: what follows is communication
    const auto t0 = Clock::now();
    MPI_Request req[8];
    int nreq = 0;
    struct Recv {
      int axis, side;
      T* buf;
    } recvs[4];
    int nrecv = 0;
    for (int a = 1; a < 3; ++a) {
      if (!dec_.is_split(a)) continue;
      const index_t L = lp_.lines(a);
      for (int side = 0; side < 2; ++side) {
        const int nb = dec_.neighbour(rank_, a, side ? +1 : -1);
        if (nb < 0) continue;
        T* rb = local_->host_buffer(4 * a + (side ? kRecvHi : kRecvLo), static_cast<std::size_t>(L));
        // From the lower neighbour comes a plane travelling up, and vice versa.
        ADI_MPI_CHECK(MPI_Irecv(rb, static_cast<int>(L), datatype<T>(), nb, side ? 2 * a : 2 * a + 1, comm_,
                                &req[nreq++]));
        recvs[nrecv++] = Recv{a, side, rb};
      }
    }
    for (int a = 1; a < 3; ++a) {
      if (!dec_.is_split(a)) continue;
      const index_t L = lp_.lines(a);
      for (int side = 0; side < 2; ++side) {
        const int nb = dec_.neighbour(rank_, a, side ? +1 : -1);
        if (nb < 0) continue;
        T* sb = local_->host_buffer(4 * a + (side ? kSendHi : kSendLo), static_cast<std::size_t>(L));
        local_->pack_face(a, side, sb);
        ADI_MPI_CHECK(MPI_Isend(sb, static_cast<int>(L), datatype<T>(), nb, side ? 2 * a + 1 : 2 * a, comm_,
                                &req[nreq++]));
      }
    }
    if (overlap) local_->rhs(ilo, ihi);  // queued: runs while the planes travel
    ADI_MPI_CHECK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    for (int q = 0; q < nrecv; ++q) local_->unpack_ghost(recvs[q].axis, recvs[q].side, recvs[q].buf);
    if (!overlap) local_->synchronize();  // the ghosts are in: the exchange is over
    times_.halo += since(t0);
    if (!overlap) {
      local_->rhs(zero, n);
      return;
    }
    // The shell: the cut z planes whole, then the cut y rows between them.
    if (lp_.part.lo_cut[2]) local_->rhs(zero, {n[0], n[1], 1});
    if (lp_.part.hi_cut[2]) local_->rhs({0, 0, n[2] - 1}, n);
    if (lp_.part.lo_cut[1]) local_->rhs({0, 0, ilo[2]}, {n[0], 1, ihi[2]});
    if (lp_.part.hi_cut[1]) local_->rhs({0, n[1] - 1, ilo[2]}, {n[0], n[1], ihi[2]});
  }

  // The lines along a split axis: local solve, the reduced systems (two
  // values per line from every rank of the axis, all-gathered), the
  // correction (into w, or added into u: the split z solve with the Douglas
  // update). With overlap the lines go in batches (by their outer index):
  // the GPU solves batch b + 1 while batch b's values are on the wire, and
  // the corrections of early batches run while later ones are exchanged;
  // one non-blocking all-gather per batch, so the message count depends on
  // the batch count, never on the number of lines.
  void solve_split(int axis, bool add_to_u) {
    const index_t n2 = n_o2(axis), n1 = lp_.part.box.size[0];
    const int P = dec_.grid()[axis];
    const int B = overlap_ ? static_cast<int>(std::min<index_t>(batches_, n2)) : 1;
    ADI_REQUIRE(2 * n1 * n2 * P < std::numeric_limits<int>::max(),
                "distributed line solve: too many lines per rank for one all-gather");
    std::vector<index_t> edge(static_cast<std::size_t>(B) + 1);
    for (int b = 0; b <= B; ++b) edge[b] = n2 * b / B;
    std::vector<T*> ends(B), all(B);
    for (int b = 0; b < B; ++b) {
      const index_t L = n1 * (edge[b + 1] - edge[b]);
      ends[b] = local_->host_buffer(kEnds + 8 * axis + b, static_cast<std::size_t>(2 * L));
      all[b] = local_->host_buffer(kGathered + 8 * axis + b, static_cast<std::size_t>(2 * L * P));
    }
    for (int b = 0; b < B; ++b) {
      local_->solve_local(axis, edge[b], edge[b + 1]);
      local_->pack_ends(axis, edge[b], edge[b + 1], ends[b]);
      local_->record(b);
    }
    std::vector<MPI_Request> req(B, MPI_REQUEST_NULL);
    Clock::time_point t0{};
    bool started = false;
    for (int b = 0; b < B; ++b) {
      // Wait for batch b's end planes, driving the earlier all-gathers meanwhile.
      while (!local_->done(b)) {
        if (b > 0) {
          int flag = 0;
          ADI_MPI_CHECK(MPI_Testall(b, req.data(), &flag, MPI_STATUSES_IGNORE));
        }
      }
      if (!started) t0 = Clock::now(), started = true;  // the first values are ready to go
      const int count = static_cast<int>(2 * n1 * (edge[b + 1] - edge[b]));
      ADI_MPI_CHECK(
          MPI_Iallgather(ends[b], count, datatype<T>(), all[b], count, datatype<T>(), line_comm_[axis], &req[b]));
    }
    for (int b = 0; b < B; ++b) {
      ADI_MPI_CHECK(MPI_Wait(&req[b], MPI_STATUS_IGNORE));
      local_->upload_gathered(axis, edge[b], edge[b + 1], all[b]);
      if (!overlap_) {  // the values are back on the device: the exchange is over
        local_->synchronize();
        times_.reduced += since(t0);
      }
      local_->correct(axis, edge[b], edge[b + 1], add_to_u);
    }
    if (overlap_) times_.reduced += since(t0);
  }

  HeatProblem p_;
  Decomposition dec_;
  LocalProblem lp_;
  std::unique_ptr<LocalBackend<T>> local_;
  MPI_Comm comm_;
  MPI_Comm line_comm_[3];
  int rank_ = 0;
  CommTimes times_;
  bool overlap_ = true;  // interior RHS during the halo, batches of lines pipelined
  int batches_ = 4;
};

}  // namespace

namespace detail {
int rank_device(const SolverOptions& options) {
  const std::string why = cuda_unavailable_reason();
  if (!why.empty()) ADI_THROW(BackendUnavailable, "backend 'cuda' is not available: " + why);
  const auto devs = cuda_devices();
  // One rank per GPU: the local rank picks the device, unless the
  // options name one (SolverOptions::cuda_device, ADI_CUDA_DEVICE).
  const int ndev = static_cast<int>(devs.size());
  if (options.cuda_device >= ndev)
    ADI_THROW(BackendUnavailable, "ADI_CUDA_DEVICE=" + std::to_string(options.cuda_device) + " but " +
                                      std::to_string(ndev) + " CUDA device(s) are visible");
  return options.cuda_device >= 0 ? options.cuda_device : local_rank() % ndev;
}
}  // namespace detail

template <class T>
std::unique_ptr<DistributedStepper<T>> make_distributed_stepper(const HeatProblem& p, Backend b,
                                                                const std::array<int, 3>& grid,
                                                                const SolverOptions& options) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  ADI_REQUIRE(initialized, "make_distributed_stepper: MPI is not initialised (no adi::mpi::Session)");
  p.validate();
  // Problems beyond the classic ones (material fields, sources, flux /
  // convective / periodic faces, time tables, flat axes) have their own
  // stepper (general_distributed.cpp), on the CPU or the CUDA local backend
  // (detail/general_local.hpp); the classic path below is untouched.
  const bool general = !p.classic();
  MPI_Comm comm;
  ADI_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  try {
    // The same on every rank (a deterministic function of the arguments):
    // when it throws, every rank throws the same error.
    ADI_REQUIRE(grid[0] == 0 || grid[0] == 1,
                "process grid: the x axis is never split (x lines stay on one rank); expected [1, Py, Pz]");
    const Decomposition d = Decomposition::plan(p.n, size, grid);
    // Auto: CUDA when every rank has a device.
    Backend resolved = b;
    if (b == Backend::Auto) {
      int usable = cuda_unavailable_reason().empty() ? 1 : 0;
      ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &usable, 1, MPI_INT, MPI_MIN, comm));
      resolved = usable ? Backend::Cuda : Backend::Cpu;
    }
    if (general) return detail::make_general_distributed<T>(p, d, comm, resolved, options);
    const LocalProblem lp = LocalProblem::make(p, d, rank);
    // Collective: a rank that cannot set up its backend makes all of them throw.
    std::unique_ptr<LocalBackend<T>> local;
    std::exception_ptr failure;
    try {
      if (resolved == Backend::Cuda) {
        local = detail::make_cuda_local<T>(lp, detail::rank_device(options), options);
      } else {
        local = detail::make_cpu_local<T>(lp);
      }
    } catch (...) {
      failure = std::current_exception();
    }
    int first_failed = failure ? rank : size;
    ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first_failed, 1, MPI_INT, MPI_MIN, comm));
    if (failure) std::rethrow_exception(failure);
    if (first_failed < size)
      ADI_THROW(PeerError, "rank " + std::to_string(first_failed) + " could not set up its " +
                                        backend_name(resolved) + " backend (see its message)");
    // Overlap (default on) and the batch count (SolverOptions::mpi_overlap,
    // mpi_batches; ADI_MPI_OVERLAP=0, ADI_MPI_BATCHES=N). Every rank must
    // take the same path (the collectives must match): the smallest values win.
    int knobs[2] = {options.mpi_overlap ? 1 : 0, options.mpi_batches > 0 ? options.mpi_batches : 4};
    knobs[1] = std::clamp(knobs[1], 1, kMaxBatches);
    ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, knobs, 2, MPI_INT, MPI_MIN, comm));
    return std::make_unique<MpiStepper<T>>(p, d, std::move(local), comm, lp, knobs[0] != 0, knobs[1]);
  } catch (...) {
    MPI_Comm_free(&comm);
    throw;
  }
}

template std::unique_ptr<DistributedStepper<float>> make_distributed_stepper<float>(const HeatProblem&, Backend,
                                                                                    const std::array<int, 3>&,
                                                                                    const SolverOptions&);
template std::unique_ptr<DistributedStepper<double>> make_distributed_stepper<double>(const HeatProblem&, Backend,
                                                                                      const std::array<int, 3>&,
                                                                                      const SolverOptions&);

}  // namespace adi::mpi
