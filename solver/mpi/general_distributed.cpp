// The distributed Douglas step of the general problem (K, c, q fields,
// sources, every face kind, periodic axes cut across ranks, flat axes) on the
// CPU or the CUDA local backend (GeneralCpuLocal, GeneralCudaLocal). Per step:
//   1. ghost planes of u from the neighbours along every split axis; along a
//      split periodic axis the ranks form a ring (Decomposition::set_periodic),
//      so the first rank's lower ghost is the last rank's top plane;
//   2. the right-hand side on the box (general_local.hpp: the oracle's rows
//      with global indices, face data only where the rank owns the face);
//   3. x lines locally (x is never split); y and z lines locally where the
//      axis is not split, otherwise by the partition method of
//      general_local.hpp: interior elimination, one all-gather over the ranks
//      of the axis per batch of lines (one batch on CPU ranks unless asked, 4
//      on GPU ranks), the reduced tridiagonal (on a periodic axis cyclic)
//      system per line, and the local completion; the z solve adds into u.
//      The all-gather carries 8 numbers a line at the first solve of an
//      axis and 2 after it (below: the reduced rows' coefficients do not
//      change from step to step, only their right-hand sides do).
// The split axes' lines go in batches (whole rows of lines): every batch's
// elimination is queued first, then each batch is all-gathered and its
// completion queued, so on a GPU rank the exchange of a batch overlaps the
// device's work on the others. No overlap of the halo with the RHS yet.

#include "general_distributed.hpp"

#include <adi/detail/general_local.hpp>
#include "mpi_check.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <vector>

namespace adi::mpi::detail {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

constexpr index_t kChunk = index_t(1) << 28;  // message pieces whose counts fit an int
constexpr int kMaxBatches = 8;                 // batches of lines per split-axis solve, at most

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
class GeneralMpiStepper final : public DistributedStepper<T> {
 public:
  GeneralMpiStepper(const HeatProblem& p, const Decomposition& d, std::unique_ptr<GeneralLocal<T>> local,
                    MPI_Comm comm, Backend backend, int batches)
      : p_(p), dec_(d), local_(std::move(local)), comm_(comm), backend_(backend),
        strang_(p.scheme_in_use() == SchemeType::Strang), batches_(batches) {
    ADI_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    part_ = dec_.part(rank_);
    for (int a = 0; a < 3; ++a) {
      line_comm_[a] = MPI_COMM_NULL;
      if (!dec_.is_split(a)) continue;
      std::array<int, 3> c = part_.coords;
      c[a] = 0;
      ADI_MPI_CHECK(MPI_Comm_split(comm_, dec_.rank_of(c), part_.coords[a], &line_comm_[a]));
    }
  }
  ~GeneralMpiStepper() override {
    for (MPI_Comm& c : line_comm_)
      if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    MPI_Comm_free(&comm_);
  }

  const HeatProblem& problem() const override { return p_; }
  Backend backend() const override { return backend_; }
  std::string device_name() const override {
    return local_->device_name() + "; " + dec_.describe() + ", reduced-system line solves per line";
  }
  const Decomposition& decomposition() const override { return dec_; }
  const LocalPart& part() const override { return part_; }

  void set_field(const T* host) override { local_->set_field(host); }
  void get_field(T* host) override { local_->get_field(host); }
  void get_work(T* host) override { local_->get_work(host); }
  void set_work(const T* host) override { local_->set_work(host); }
  void impose_boundary_values() override { local_->impose_boundary_values(this->time()); }

  void scatter_field(const T* root_host) override {
    const index_t n = part_.box.points();
    std::vector<T> mine(static_cast<std::size_t>(n));
    if (rank_ == 0) {
      ADI_REQUIRE(root_host != nullptr, "scatter_field: rank 0 must pass the global field");
      std::vector<T> theirs;
      for (int r = 1; r < dec_.ranks(); ++r) {
        const Box b = dec_.part(r).box;
        theirs.resize(static_cast<std::size_t>(b.points()));
        copy_box(root_host, theirs.data(), b, true);
        send_all(theirs.data(), b.points(), r, 100, comm_);
      }
      copy_box(root_host, mine.data(), part_.box, true);
    } else {
      recv_all(mine.data(), n, 0, 100, comm_);
    }
    local_->set_field(mine.data());
  }

  void gather_field(T* root_host) override {
    const index_t n = part_.box.points();
    std::vector<T> mine(static_cast<std::size_t>(n));
    local_->get_field(mine.data());
    if (rank_ == 0) {
      ADI_REQUIRE(root_host != nullptr, "gather_field: rank 0 must pass room for the global field");
      copy_box(root_host, mine.data(), part_.box, false);
      std::vector<T> theirs;
      for (int r = 1; r < dec_.ranks(); ++r) {
        const Box b = dec_.part(r).box;
        theirs.resize(static_cast<std::size_t>(b.points()));
        recv_all(theirs.data(), b.points(), r, 101, comm_);
        copy_box(root_host, theirs.data(), b, false);
      }
    } else {
      send_all(mine.data(), n, 0, 101, comm_);
    }
  }

  std::vector<Phase> phases() const override {
    if (!strang_) return DistributedStepper<T>::phases();
    std::vector<Phase> ph{Phase::Rhs};
    for (const SplitFactor& f : strang_sequence(p_))
      ph.push_back(f.axis == 0 ? Phase::SolveX : f.axis == 1 ? Phase::SolveY : Phase::SolveZ);
    return ph;
  }

  void step() override {
    const auto t0 = Clock::now();
    if (strang_) {
      run_phase(Phase::Rhs);
      for (const SplitFactor& f : strang_sequence(p_)) factor(f.axis);
      local_->split_reset();
    } else {
      run_phase(Phase::Rhs);
      run_phase(Phase::SolveX);
      run_phase(Phase::SolveY);
      run_phase(Phase::SolveZ);
    }
    ++this->step_index_;
    times_.step += since(t0);
    ++times_.steps;
  }

  FieldStats field_stats() override {
    const FieldStats mine = local_->field_stats();
    double v[2] = {mine.max_abs, mine.finite ? 0.0 : 1.0}, e = mine.energy;
    ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, comm_));
    ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_DOUBLE, MPI_SUM, comm_));
    return FieldStats{v[0], v[1] == 0.0, e};
  }

  void run_phase(Phase ph) override {
    if (strang_) {  // Rhs: the Dirichlet terms; SolveX..Z: one factor
      switch (ph) {
        case Phase::Rhs:
          halo({{true, true, true}});
          local_->split_terms(this->time(), this->time_at(this->step_index() + 1));
          break;
        case Phase::SolveX: factor(0); break;
        case Phase::SolveY: factor(1); break;
        case Phase::SolveZ: factor(2); break;
        case Phase::Step: step(); break;
        case Phase::RhsSolveX:
          ADI_THROW(InvalidArgument, "the fused rhs+x phase is not available in a distributed run");
      }
      return;
    }
    switch (ph) {
      case Phase::Rhs:
        halo({{true, true, true}});
        local_->rhs(this->time());
        break;
      case Phase::SolveX: solve(0, false); break;
      case Phase::SolveY: solve(1, false); break;
      case Phase::SolveZ: solve(2, true); break;
      case Phase::Step: step(); break;
      case Phase::RhsSolveX:
        ADI_THROW(InvalidArgument, "the fused rhs+x phase is not available in a distributed run");
    }
  }

  std::vector<double> time_phase(Phase p, int warmup, int reps) override {
    for (int r = 0; r < warmup; ++r) run_phase(p);
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
      ADI_MPI_CHECK(MPI_Barrier(comm_));
      const auto t0 = Clock::now();
      run_phase(p);
      ms.push_back(since(t0) * 1e3);
    }
    if (!ms.empty())
      ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, ms.data(), static_cast<int>(ms.size()), MPI_DOUBLE, MPI_MAX, comm_));
    return ms;
  }

  void solve_lines(Axis axis, T* box) override {
    local_->set_work(box);
    solve(axis_index(axis), false);
    local_->get_work(box);
  }

  std::size_t bytes_allocated() const override { return local_->bytes_allocated(); }
  CommTimes comm_times() const override { return times_; }
  void reset_comm_times() override { times_ = CommTimes{}; }

 private:
  void copy_box(const T* global, T* box, const Box& b, bool extract) const {
    const index_t nx = p_.n[0], ny = p_.n[1];
    for (index_t k = 0; k < b.size[2]; ++k)
      for (index_t j = 0; j < b.size[1]; ++j) {
        const index_t g = b.begin[0] + nx * ((b.begin[1] + j) + ny * (b.begin[2] + k));
        T* row = box + b.size[0] * (j + b.size[1] * k);
        if (extract) std::memcpy(row, global + g, sizeof(T) * b.size[0]);
        else std::memcpy(const_cast<T*>(global) + g, row, sizeof(T) * b.size[0]);
      }
  }

  // One Strang factor along a: its right-hand side (the ghost planes of a
  // split axis first), then the line solve adding into u.
  void factor(int a) {
    if (p_.flat(a)) {
      local_->factor_rhs(a, this->time());
      return;
    }
    if (dec_.is_split(a)) {
      std::array<bool, 3> only{};
      only[a] = true;
      halo(only);
    }
    local_->factor_rhs(a, this->time());
    solve(a, true);
  }

  // One plane from each neighbour along every split axis (of `axes`) into the
  // ghost layers. A plane sent down travels with tag 2a, one sent up with 2a + 1,
  // so a ring of two ranks (both neighbours the same rank) still tells its
  // two planes apart.
  void halo(const std::array<bool, 3>& axes) {
    const auto t0 = Clock::now();
    MPI_Request req[8];
    int nreq = 0;
    for (int a = 1; a < 3; ++a) {
      if (!dec_.is_split(a) || !axes[a]) continue;
      const index_t L = local_->lines(a);
      for (int side = 0; side < 2; ++side) {
        const int nb = dec_.neighbour(rank_, a, side ? +1 : -1);
        if (nb < 0) continue;
        T* rb = local_->host_buffer(halo_slot(a, side, false), static_cast<std::size_t>(L));
        ADI_MPI_CHECK(MPI_Irecv(rb, static_cast<int>(L), datatype<T>(), nb, side ? 2 * a : 2 * a + 1, comm_,
                                &req[nreq++]));
      }
    }
    for (int a = 1; a < 3; ++a) {
      if (!dec_.is_split(a) || !axes[a]) continue;
      const index_t L = local_->lines(a);
      for (int side = 0; side < 2; ++side) {
        const int nb = dec_.neighbour(rank_, a, side ? +1 : -1);
        if (nb < 0) continue;
        T* sb = local_->host_buffer(halo_slot(a, side, true), static_cast<std::size_t>(L));
        local_->pack_face(a, side, sb);
        ADI_MPI_CHECK(MPI_Isend(sb, static_cast<int>(L), datatype<T>(), nb, side ? 2 * a + 1 : 2 * a, comm_,
                                &req[nreq++]));
      }
    }
    ADI_MPI_CHECK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    for (int a = 1; a < 3; ++a)
      for (int side = 0; side < 2; ++side)
        if (dec_.is_split(a) && axes[a] && dec_.neighbour(rank_, a, side ? +1 : -1) >= 0)
          local_->unpack_ghost(a, side, local_->host_buffer(halo_slot(a, side, false), 0));
    times_.halo += since(t0);
  }

  void solve(int a, bool add_to_u) {
    if (!dec_.is_split(a)) {
      local_->solve_whole(a, add_to_u);
      return;
    }
    // Batches of whole rows of lines (c_o2 ranges; x is o1 for a split y or
    // z): all eliminations are queued first, then batch by batch its rows
    // are all-gathered and its completion queued, so on a GPU rank the
    // exchange of batch b runs while the device eliminates the later ones
    // and completes the earlier ones. The same batches on every rank
    // (batches_ agreed at construction; the box sizes along o2 agree across
    // the ranks of an axis communicator, which share their o2 range).
    const int o1 = 0, o2 = a == 1 ? 2 : 1;
    const index_t n1 = part_.box.size[o1], n2 = part_.box.size[o2];
    const int P = dec_.grid()[a];
    const int nb = static_cast<int>(std::min<index_t>(batches_, n2));
    auto c2 = [&](int b) { return n2 * b / nb; };
    index_t most = 0;
    for (int b = 0; b < nb; ++b) most = std::max(most, (c2(b + 1) - c2(b)) * n1);
    ADI_REQUIRE(kReducedValues * most * P < std::numeric_limits<int>::max(),
                "distributed line solve: too many lines per rank for one all-gather");
    for (int b = 0; b < nb; ++b) {
      const index_t lb = (c2(b + 1) - c2(b)) * n1;
      local_->reduce(a, c2(b), c2(b + 1), b,
                     local_->host_buffer(rows_slot(b), static_cast<std::size_t>(kReducedValues * lb)));
    }
    // The reduced rows' coefficients (values 0-2 and 4-6 of a line: a, b, c
    // of its first and last row) are functions of the line matrix alone:
    // K, c, dt and the faces' conductances, none of which changes during a
    // run (a face's table scales its beta, a right-hand side). So every rank
    // keeps the whole all-gather of an axis' first solve, batch by batch,
    // and afterwards only the right-hand sides travel (values 3 and 7): a
    // quarter of the bytes, and the gathered rows the same bit for bit
    // (the same operations on the same numbers).
    const bool rhs_only = gathered_once_[a];
    for (int b = 0; b < nb; ++b) {
      const index_t lb = (c2(b + 1) - c2(b)) * n1;
      T* rows = local_->host_buffer(rows_slot(b), 0);
      T* gathered =
          local_->host_buffer(gathered_slot(a, b), static_cast<std::size_t>(kReducedValues * lb * P));
      local_->rows_ready(b);
      const auto t0 = Clock::now();
      if (!rhs_only) {
        const int count = static_cast<int>(kReducedValues * lb);
        ADI_MPI_CHECK(MPI_Allgather(rows, count, datatype<T>(), gathered, count, datatype<T>(), line_comm_[a]));
      } else {
        // rows: value v of line l at v * lb + l; send the d's packed to the front.
        const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(lb);
        std::memmove(rows, rows + 3 * lb, bytes);
        std::memmove(rows + lb, rows + 7 * lb, bytes);
        T* ds = local_->host_buffer(rhs_slot(b), static_cast<std::size_t>(2 * lb * P));
        const int count = static_cast<int>(2 * lb);
        ADI_MPI_CHECK(MPI_Allgather(rows, count, datatype<T>(), ds, count, datatype<T>(), line_comm_[a]));
        for (int q = 0; q < P; ++q) {
          T* block = gathered + static_cast<index_t>(q) * kReducedValues * lb;
          std::memcpy(block + 3 * lb, ds + static_cast<index_t>(q) * 2 * lb, bytes);
          std::memcpy(block + 7 * lb, ds + static_cast<index_t>(q) * 2 * lb + lb, bytes);
        }
      }
      times_.reduced += since(t0);
      local_->finish(a, c2(b), c2(b + 1), gathered, add_to_u, rhs_only);
    }
    local_->end_lines(a);
    gathered_once_[a] = true;
  }

  // The rank's host buffers (GeneralLocal::host_buffer): a plane sent /
  // received per side of a split axis, the reduced rows of each batch, their
  // all-gather per axis and batch (kept: its coefficients serve every later
  // step) and the all-gather of the right-hand sides alone.
  static int halo_slot(int a, int side, bool send) { return 4 * a + 2 * side + (send ? 1 : 0); }
  static int rows_slot(int b) { return 16 + b; }
  static int rhs_slot(int b) { return 16 + kMaxBatches + b; }
  static int gathered_slot(int a, int b) { return 16 + 2 * kMaxBatches + (a - 1) * kMaxBatches + b; }

  HeatProblem p_;
  Decomposition dec_;
  LocalPart part_;
  std::unique_ptr<GeneralLocal<T>> local_;
  MPI_Comm comm_;
  Backend backend_;
  bool strang_ = false;  // the Strang step (split.hpp), else Douglas
  int batches_ = 1;  // of lines per split-axis solve (>= 1)
  bool gathered_once_[3] = {false, false, false};  // the axis' reduced coefficients are in gathered_slot
  MPI_Comm line_comm_[3];
  int rank_ = 0;
  CommTimes times_;
};

}  // namespace

template <class T>
std::unique_ptr<DistributedStepper<T>> make_general_distributed(const HeatProblem& p, Decomposition d, MPI_Comm comm,
                                                                Backend backend, const SolverOptions& options) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  d.set_periodic({{p.periodic(0), p.periodic(1), p.periodic(2)}});
  // Collective: a rank whose box has a bad material value (or whose reads
  // fail, or which has no usable GPU) makes all of them throw.
  std::unique_ptr<GeneralLocal<T>> local;
  std::exception_ptr failure;
  try {
    if (backend == Backend::Cuda)
      local = make_general_cuda_local<T>(p, d, rank, rank_device(options), options);
    else
      local = make_general_cpu_local<T>(p, d, rank);
  } catch (...) {
    failure = std::current_exception();
  }
  int first_failed = failure ? rank : size;
  ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first_failed, 1, MPI_INT, MPI_MIN, comm));
  if (failure) std::rethrow_exception(failure);
  if (first_failed < size)
    ADI_THROW(PeerError, "rank " + std::to_string(first_failed) + " could not set up its box (see its message)");
  // Batches of lines per split-axis solve (SolverOptions::mpi_batches,
  // ADI_MPI_BATCHES; mpi_overlap off: one): by default 4 on GPU ranks,
  // whose exchange then overlaps device work, 1 on CPU ranks, which
  // compute either way. Every rank must take the same (the collectives
  // must match): the smallest wins.
  int batches = !options.mpi_overlap         ? 1
                : options.mpi_batches > 0    ? options.mpi_batches
                : backend == Backend::Cuda ? 4
                                             : 1;
  batches = std::clamp(batches, 1, kMaxBatches);
  ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &batches, 1, MPI_INT, MPI_MIN, comm));
  return std::make_unique<GeneralMpiStepper<T>>(p, d, std::move(local), comm, backend, batches);
}

template std::unique_ptr<DistributedStepper<float>> make_general_distributed<float>(const HeatProblem&, Decomposition,
                                                                                    MPI_Comm, Backend,
                                                                                    const SolverOptions&);
template std::unique_ptr<DistributedStepper<double>> make_general_distributed<double>(const HeatProblem&,
                                                                                      Decomposition, MPI_Comm, Backend,
                                                                                      const SolverOptions&);

}  // namespace adi::mpi::detail
