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
#include "ranked_stepper.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <vector>

namespace adi::mpi::detail {

namespace {

constexpr int kMaxBatches = 8;  // batches of lines per split-axis solve, at most

// The rows' distributed step (step_plan.hpp: axis tables and field rows):
// each rank forms its lines' rows and the split axes' lines are solved by
// per-line reduced systems (general_local.hpp).
template <class T>
class GeneralMpiStepper final : public RankedStepper<T, GeneralLocal<T>> {
  using Base = RankedStepper<T, GeneralLocal<T>>;
  using Base::comm_;
  using Base::dec_;
  using Base::line_comm_;
  using Base::local_;
  using Base::p_;
  using Base::part_;
  using Base::times_;

 public:
  GeneralMpiStepper(const HeatProblem& p, const Decomposition& d, std::unique_ptr<GeneralLocal<T>> local,
                    MPI_Comm comm, Backend backend, int batches)
      : Base(p, d, std::move(local), comm), backend_(backend), strang_(p.scheme_in_use() == SchemeType::Strang),
        batches_(batches) {
    static_assert(rows_slot(0) >= Base::kFirstFreeSlot, "slots overlap RankedStepper's");
  }

  Backend backend() const override { return backend_; }
  std::string device_name() const override {
    return local_->device_name() + "; " + dec_.describe() + ", reduced-system line solves per line";
  }
  void impose_boundary_values() override { local_->impose_boundary_values(this->time()); }

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

  void solve_lines(Axis axis, T* box) override {
    local_->set_work(box);
    solve(axis_index(axis), false);
    local_->get_work(box);
  }

 private:
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

  // The ghost planes of u along the split axes of `axes` (nothing to
  // overlap: the rows need the ghosts).
  void halo(const std::array<bool, 3>& axes) {
    this->exchange_halo(axes, [] {}, false);
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

  // The rank's host buffers beyond RankedStepper's: the reduced rows of each
  // batch, their all-gather per axis and batch (kept: its coefficients serve
  // every later step) and the all-gather of the right-hand sides alone.
  static constexpr int rows_slot(int b) { return 16 + b; }
  static constexpr int rhs_slot(int b) { return 16 + kMaxBatches + b; }
  static constexpr int gathered_slot(int a, int b) { return 16 + 2 * kMaxBatches + (a - 1) * kMaxBatches + b; }

  Backend backend_;
  bool strang_ = false;  // the Strang step (split.hpp), else Douglas
  int batches_ = 1;  // of lines per split-axis solve (>= 1)
  bool gathered_once_[3] = {false, false, false};  // the axis' reduced coefficients are in gathered_slot
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
