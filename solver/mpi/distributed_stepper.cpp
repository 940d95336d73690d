// The distributed Douglas step (adi/mpi.hpp): one rank per sub-box, a local
// backend (CPU or CUDA, local_backend.hpp) for the arithmetic, MPI for the
// ghost planes and the reduced systems. docs/MPI.md has the design.

#include <adi/mpi.hpp>

#include <adi/cuda.hpp>

#include <adi/detail/local_backend.hpp>
#include <adi/step_plan.hpp>

#include "general_distributed.hpp"
#include "mpi_check.hpp"
#include "ranked_stepper.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

namespace adi::mpi {

namespace {

using detail::datatype;
using detail::LocalBackend;
using detail::LocalProblem;
using detail::since;
using Clock = detail::Clock;

// Host buffer slots of the rank box beyond RankedStepper's (0 - 15).
enum Slot : int {
  kEnds = 16,      // + 8 * axis + batch
  kGathered = 48,  // + 8 * axis + batch
};
constexpr int kMaxBatches = 8;

// The constant tables' distributed step (step_plan.hpp): the rank's block
// of each split axis' line matrix is planned once (DistributedLinePlan), so
// only two values per line cross the ranks.
template <class T>
class MpiStepper final : public detail::RankedStepper<T, LocalBackend<T>> {
  using Base = detail::RankedStepper<T, LocalBackend<T>>;
  using Base::comm_;
  using Base::dec_;
  using Base::line_comm_;
  using Base::local_;
  using Base::times_;

 public:
  MpiStepper(const HeatProblem& p, const Decomposition& d, std::unique_ptr<LocalBackend<T>> local, MPI_Comm comm,
             const LocalProblem& lp, bool overlap, int batches)
      : Base(p, d, std::move(local), comm), lp_(lp), overlap_(overlap), batches_(batches) {
    static_assert(kEnds >= Base::kFirstFreeSlot, "slots overlap RankedStepper's");
  }

  Backend backend() const override { return local_->kind(); }
  std::string device_name() const override {
    std::string how = ", reduced-system line solves";
    if (dec_.is_split(1) || dec_.is_split(2))
      how += overlap_ ? ", communication overlapped (" + std::to_string(batches_) + " batches of lines)"
                      : ", no overlap";
    return local_->device_name() + "; " + dec_.describe() + how;
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

  void solve_lines(Axis axis, T* box) override {
    const int a = axis_index(axis);
    local_->set_work(box);
    if (dec_.is_split(a)) solve_split(a, false);
    else local_->solve_local(a, 0, n_o2(a));
    local_->synchronize();
    local_->get_work(box);
  }

 private:
  index_t n_o2(int axis) const { return lp_.part.box.size[detail::other_axes(axis)[1]]; }

  // One ghost plane from each neighbour along every split axis, then the
  // right-hand side. With overlap the RHS of the interior (every node whose
  // neighbours are all in the box) is queued while the planes travel, and
  // the shell next to the cut faces follows once the ghosts are in.
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
    // Without overlap the ghosts are waited for within the exchange's time.
    this->exchange_halo(
        {{false, true, true}}, [&] {
          if (overlap) local_->rhs(ilo, ihi);
        },
        !overlap);
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

  LocalProblem lp_;
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
  const bool general = !plan_step(p).constant_tables();
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
