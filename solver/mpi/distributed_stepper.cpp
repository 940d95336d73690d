// The distributed step (adi/mpi.hpp): one rank per sub-box, a rank box
// (CPU or CUDA, detail/rank_box.hpp) for the arithmetic, MPI for the ghost
// planes and the lines that cross ranks. docs/MPI.md has the design. One
// stepper for every plan (step_plan.hpp); the plan picks the rank box and
// how a split axis' lines are solved:
//   constant tables — LocalBackend: the rank's block of each split axis'
//     line matrix planned once (DistributedLinePlan), two values per line
//     all-gathered, then a pointwise correction; the interior's RHS runs
//     while the halo travels, and the lines go in batches so that a GPU
//     solves one batch while another's values are on the wire;
//   axis tables and field rows — GeneralLocal: the rows of every line formed
//     on the rank (global indices, the oracle's rows), the partition method
//     of general_local.hpp (interior elimination, each rank's two reduced
//     rows all-gathered per batch of lines — 8 numbers a line at an axis'
//     first solve, 2 after it, since the coefficients do not change — the
//     reduced system per line, a ring on a periodic axis, the local
//     completion); the Strang step (split.hpp) as well as Douglas. Along a
//     split periodic axis the ranks form a ring (Decomposition::set_periodic).

#include <adi/mpi.hpp>

#include <adi/cuda.hpp>

#include <adi/box/general_local.hpp>
#include <adi/box/local_backend.hpp>
#include <adi/detail/entry_points.hpp>
#include <adi/split.hpp>
#include <adi/step_plan.hpp>

#include "mpi_check.hpp"
#include "ranked_stepper.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

namespace adi::mpi {

namespace detail {
/// This rank's GPU: SolverOptions::cuda_device, else the local rank modulo
/// the visible devices. Throws BackendUnavailable (no usable device, or the
/// option names one that is not visible).
int rank_device(const SolverOptions& options);
}  // namespace detail

namespace {

using detail::Clock;
using detail::datatype;
using box::GeneralLocal;
using box::kReducedValues;
using box::LocalBackend;
using box::LocalProblem;
using box::RankBox;
using detail::since;

constexpr int kMaxBatches = 8;  // batches of lines per split-axis solve, at most

// Host buffer slots of the rank box beyond RankedStepper's (0 - 15). The
// constant tables: the end planes and their all-gather per axis and batch;
// the rows: the reduced rows of each batch, their all-gather per axis and
// batch (kept: its coefficients serve every later step) and the all-gather
// of the right-hand sides alone.
enum Slot : int {
  kEnds = 16,      // + 8 * axis + batch
  kGathered = 48,  // + 8 * axis + batch
};
constexpr int rows_slot(int b) { return 16 + b; }
constexpr int rhs_slot(int b) { return 16 + kMaxBatches + b; }
constexpr int gathered_slot(int a, int b) { return 16 + 2 * kMaxBatches + (a - 1) * kMaxBatches + b; }

template <class T>
class MpiStepper final : public detail::RankedStepper<T, RankBox<T>> {
  using Base = detail::RankedStepper<T, RankBox<T>>;
  using Base::dec_;
  using Base::line_comm_;
  using Base::local_;
  using Base::p_;
  using Base::part_;
  using Base::times_;

 public:
  /// The constant tables' step on `box`.
  MpiStepper(const HeatProblem& p, const Decomposition& d, std::unique_ptr<LocalBackend<T>> box, MPI_Comm comm,
             const LocalProblem& lp, bool overlap, int batches)
      : Base(p, d, nullptr, comm), plan_(plan_step(p)), lp_(lp), overlap_(overlap), batches_(batches) {
    static_assert(kEnds >= Base::kFirstFreeSlot && rows_slot(0) >= Base::kFirstFreeSlot,
                  "slots overlap RankedStepper's");
    tables_ = box.get();
    local_ = std::move(box);
  }
  /// The rows' step on `box` (Cpu or Cuda ranks: `backend`).
  MpiStepper(const HeatProblem& p, const Decomposition& d, std::unique_ptr<GeneralLocal<T>> box, MPI_Comm comm,
             Backend backend, int batches)
      : Base(p, d, nullptr, comm), plan_(plan_step(p)), backend_(backend), batches_(batches) {
    rows_ = box.get();
    local_ = std::move(box);
  }

  Backend backend() const override { return tables_ ? tables_->kind() : backend_; }
  std::string device_name() const override {
    std::string how = ", reduced-system line solves";
    if (!tables_) how += " per line";
    else if (dec_.is_split(1) || dec_.is_split(2))
      how += overlap_ ? ", communication overlapped (" + std::to_string(batches_) + " batches of lines)"
                      : ", no overlap";
    return local_->device_name() + "; " + dec_.describe() + how;
  }
  void impose_boundary_values() override {
    if (rows_) rows_->impose_boundary_values(this->time());  // constant tables: the initial field's values
  }
  // Temperature-dependent properties: every rank its box's new K and 1/c
  // (collective: the ranks make the same reads together).
  void reload_material() override {
    ADI_REQUIRE(rows_ != nullptr, "MPI stepper: a problem of constant coefficients has no material fields to re-read");
    rows_->reload_material(dec_.ranks() > 1);
    // The reduced systems' coefficients change with the material: the next
    // solve of each axis gathers them again.
    for (bool& g : gathered_once_) g = false;
  }

  std::vector<Phase> phases() const override { return scheme_phases(p_, plan_); }

  void step() override {
    failure_agreed_ = false;
    const auto t0 = Clock::now();
    if (plan_.scheme == SchemeType::Strang) {
      do_phase(Phase::Rhs);
      for (const SplitFactor& f : strang_sequence(p_)) factor(f.axis);
      on_box([&] { rows_->split_reset(); });
    } else {
      do_phase(Phase::Rhs);
      do_phase(Phase::SolveX);
      do_phase(Phase::SolveY);
      do_phase(Phase::SolveZ);
      on_box([&] { local_->synchronize(); });
    }
    agree();
    times_.step += since(t0);
    ++times_.steps;
    ++this->step_index_;
  }

  bool failure_agreed() const override { return failure_agreed_; }

  void run_phase(Phase ph) override {
    failure_agreed_ = false;
    if (ph == Phase::Step) {
      step();
      return;
    }
    do_phase(ph);
    agree();
  }

  void solve_lines(Axis axis, T* box) override {
    local_->set_work(box);
    solve(axis_index(axis), false);
    on_box([&] { local_->synchronize(); });
    agree();
    local_->get_work(box);
  }

 private:
  // Douglas: Rhs, then the solves along x, y and z (z adds into u). Strang:
  // Rhs is the Dirichlet terms, SolveX..Z one factor each.
  void do_phase(Phase ph) {
    const bool strang = plan_.scheme == SchemeType::Strang;
    switch (ph) {
      case Phase::Rhs:
        if (tables_) {
          rhs_tables();
        } else {
          this->exchange_halo({{true, true, true}}, [] {}, false);
          if (strang) on_box([&] { rows_->split_terms(this->time(), this->time_at(this->step_index() + 1)); });
          else on_box([&] { rows_->rhs(this->time()); });
        }
        break;
      case Phase::SolveX:
      case Phase::SolveY:
      case Phase::SolveZ: {
        const int a = ph == Phase::SolveX ? 0 : ph == Phase::SolveY ? 1 : 2;
        if (strang) factor(a);
        else solve(a, a == 2);
        break;
      }
      case Phase::Step:  // run_phase runs it as step(), which calls back here for its phases
        ADI_THROW(InvalidArgument, "MpiStepper: a whole step is not one of its phases");
      case Phase::RhsSolveX:
        // Not among phases(): the fused single-GPU kernel reads x neighbours
        // across the whole line, which a split x would not have.
        ADI_THROW(InvalidArgument, "the fused rhs+x phase is not available in a distributed run");
    }
  }

  // A rank box of the rows reports what it finds in its own part (a zero or
  // non-finite pivot from its material values, a NaN in its part of u that
  // a CUDA line kernel flags) by throwing, and only that rank throws. Were
  // it to leave the step there, its peers would wait for it in the next
  // collective for ever. So the rows' box operations run through on_box:
  // a rank keeps its first error and skips its later box operations while
  // its collectives still run (on stale numbers, which only its peers see,
  // after its own error), and at the end of the step, phase or line solve
  // agree() makes every rank throw: the rank whose error came first in the
  // step's order (the lowest such rank on a tie) its own, the others
  // PeerError naming it. A peer that failed on the stale numbers failed
  // later in that order, so it is never the one named. The constant
  // tables' boxes find nothing rank-local during a step (their pivots are
  // planned, and agreed, at construction): their step adds no collective.
  template <class F>
  void on_box(F&& f) {
    if (tables_) {
      f();
      return;
    }
    const int at = box_ops_++;
    if (failure_) return;
    try {
      f();
    } catch (...) {
      failure_ = std::current_exception();
      failed_at_ = at;
    }
  }
  void agree() {
    if (tables_) return;
    std::exception_ptr own = std::exchange(failure_, nullptr);
    struct {
      int at, rank;
    } first{own ? failed_at_ : std::numeric_limits<int>::max(), this->rank_};
    box_ops_ = 0;
    ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_2INT, MPI_MINLOC, this->comm_));
    if (first.at == std::numeric_limits<int>::max()) return;
    failure_agreed_ = true;  // every rank throws from here
    if (own && first.rank == this->rank_) std::rethrow_exception(own);
    ADI_THROW(PeerError, "rank " + std::to_string(first.rank) + " failed in step " +
                             std::to_string(this->step_index() + 1) + " (see its message)");
  }

  // The lines along axis a: (I - theta dt A_a)^{-1} w, into w or (add_to_u)
  // added into u.
  void solve(int a, bool add_to_u) {
    if (rows_) {
      solve_rows(a, add_to_u);
    } else if (dec_.is_split(a)) {
      solve_split_tables(a, add_to_u);
    } else if (add_to_u) {
      ADI_REQUIRE(a == 2, "the constant tables add into u along z only");
      tables_->solve_local_fused_z();
    } else {
      tables_->solve_local(a, 0, n_o2(a));
    }
  }

  index_t n_o2(int axis) const { return part_.box.size[box::other_axes(axis)[1]]; }

  // The constant tables' right-hand side.
  // One ghost plane from each neighbour along every split axis, then the
  // right-hand side. With overlap the RHS of the interior (every node whose
  // neighbours are all in the box) is queued while the planes travel, and
  // the shell next to the cut faces follows once the ghosts are in.
  void rhs_tables() {
    const std::array<index_t, 3> n = lp_.part.box.size;
    const std::array<index_t, 3> zero{{0, 0, 0}};
    if (!dec_.is_split(1) && !dec_.is_split(2)) {
      tables_->rhs(zero, n);
      return;
    }
    std::array<index_t, 3> ilo = zero, ihi = n;  // the interior
    for (int a = 1; a < 3; ++a) {
      ilo[a] = lp_.part.lo_cut[a] ? 1 : 0;
      ihi[a] = n[a] - (lp_.part.hi_cut[a] ? 1 : 0);
    }
    const bool overlap = overlap_ && ihi[1] > ilo[1] && ihi[2] > ilo[2];

    tables_->synchronize();  // u is final: what follows is communication
    // Without overlap the ghosts are waited for within the exchange's time.
    this->exchange_halo(
        {{false, true, true}}, [&] {
          if (overlap) tables_->rhs(ilo, ihi);
        },
        !overlap);
    if (!overlap) {
      tables_->rhs(zero, n);
      return;
    }
    // The shell: the cut z planes whole, then the cut y rows between them.
    if (lp_.part.lo_cut[2]) tables_->rhs(zero, {n[0], n[1], 1});
    if (lp_.part.hi_cut[2]) tables_->rhs({0, 0, n[2] - 1}, n);
    if (lp_.part.lo_cut[1]) tables_->rhs({0, 0, ilo[2]}, {n[0], 1, ihi[2]});
    if (lp_.part.hi_cut[1]) tables_->rhs({0, n[1] - 1, ilo[2]}, {n[0], n[1], ihi[2]});
  }

  // The lines along a split axis: local solve, the reduced systems (two
  // values per line from every rank of the axis, all-gathered), the
  // correction (into w, or added into u: the split z solve with the Douglas
  // update). With overlap the lines go in batches (by their outer index):
  // the GPU solves batch b + 1 while batch b's values are on the wire, and
  // the corrections of early batches run while later ones are exchanged;
  // one non-blocking all-gather per batch, so the message count depends on
  // the batch count, never on the number of lines.
  void solve_split_tables(int axis, bool add_to_u) {
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
      ends[b] = tables_->host_buffer(kEnds + 8 * axis + b, static_cast<std::size_t>(2 * L));
      all[b] = tables_->host_buffer(kGathered + 8 * axis + b, static_cast<std::size_t>(2 * L * P));
    }
    for (int b = 0; b < B; ++b) {
      tables_->solve_local(axis, edge[b], edge[b + 1]);
      tables_->pack_ends(axis, edge[b], edge[b + 1], ends[b]);
      tables_->record(b);
    }
    std::vector<MPI_Request> req(B, MPI_REQUEST_NULL);
    Clock::time_point t0{};
    bool started = false;
    for (int b = 0; b < B; ++b) {
      // Wait for batch b's end planes, driving the earlier all-gathers meanwhile.
      while (!tables_->done(b)) {
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
      tables_->upload_gathered(axis, edge[b], edge[b + 1], all[b]);
      if (!overlap_) {  // the values are back on the device: the exchange is over
        tables_->synchronize();
        times_.reduced += since(t0);
      }
      tables_->correct(axis, edge[b], edge[b + 1], add_to_u);
    }
    if (overlap_) times_.reduced += since(t0);
  }

  // The rows' line solves and Strang factors.
  // One Strang factor along a: its right-hand side (the ghost planes of a
  // split axis first), then the line solve adding into u.
  void factor(int a) {
    if (p_.flat(a)) {
      on_box([&] { rows_->factor_rhs(a, this->time()); });
      return;
    }
    if (dec_.is_split(a)) {
      std::array<bool, 3> only{};
      only[a] = true;
      this->exchange_halo(only, [] {}, false);
    }
    on_box([&] { rows_->factor_rhs(a, this->time()); });
    solve_rows(a, true);
  }

  void solve_rows(int a, bool add_to_u) {
    if (!dec_.is_split(a)) {
      on_box([&] { rows_->solve_whole(a, add_to_u); });
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
      T* rows = rows_->host_buffer(rows_slot(b), static_cast<std::size_t>(kReducedValues * lb));
      on_box([&] { rows_->reduce(a, c2(b), c2(b + 1), b, rows); });
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
      T* rows = rows_->host_buffer(rows_slot(b), 0);
      T* gathered =
          rows_->host_buffer(gathered_slot(a, b), static_cast<std::size_t>(kReducedValues * lb * P));
      on_box([&] { rows_->rows_ready(b); });
      const auto t0 = Clock::now();
      if (!rhs_only) {
        const int count = static_cast<int>(kReducedValues * lb);
        ADI_MPI_CHECK(MPI_Allgather(rows, count, datatype<T>(), gathered, count, datatype<T>(), line_comm_[a]));
      } else {
        // rows: value v of line l at v * lb + l; send the d's packed to the front.
        const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(lb);
        std::memmove(rows, rows + 3 * lb, bytes);
        std::memmove(rows + lb, rows + 7 * lb, bytes);
        T* ds = rows_->host_buffer(rhs_slot(b), static_cast<std::size_t>(2 * lb * P));
        const int count = static_cast<int>(2 * lb);
        ADI_MPI_CHECK(MPI_Allgather(rows, count, datatype<T>(), ds, count, datatype<T>(), line_comm_[a]));
        for (int q = 0; q < P; ++q) {
          T* block = gathered + static_cast<index_t>(q) * kReducedValues * lb;
          std::memcpy(block + 3 * lb, ds + static_cast<index_t>(q) * 2 * lb, bytes);
          std::memcpy(block + 7 * lb, ds + static_cast<index_t>(q) * 2 * lb + lb, bytes);
        }
      }
      times_.reduced += since(t0);
      on_box([&] { rows_->finish(a, c2(b), c2(b + 1), gathered, add_to_u, rhs_only); });
    }
    on_box([&] { rows_->end_lines(a); });
    gathered_once_[a] = true;
  }

  StepPlan plan_;
  LocalBackend<T>* tables_ = nullptr;  // local_ as the constant tables' box
  GeneralLocal<T>* rows_ = nullptr;    // local_ as the rows' box
  LocalProblem lp_;                    // the constant tables' plan of the rank
  Backend backend_ = Backend::Cpu;     // the rows' ranks
  bool overlap_ = true;  // constant tables: interior RHS during the halo, batches of lines pipelined
  int batches_ = 4;      // of lines per split-axis solve (>= 1)
  bool gathered_once_[3] = {false, false, false};  // rows: the axis' reduced coefficients are in gathered_slot
  std::exception_ptr failure_;  // rows: this rank's first error since the last agree()
  bool failure_agreed_ = false; // the last step's exception came from agree(): every rank threw it
  int failed_at_ = 0;           // its box operation's index in that span
  int box_ops_ = 0;             // box operations since the last agree()
};

}  // namespace

namespace detail {
int rank_device(const SolverOptions& options) {
  const std::string why = cuda::unavailable_reason();
  if (!why.empty()) ADI_THROW(BackendUnavailable, "backend 'cuda' is not available: " + why);
  const auto devs = cuda::devices();
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
  const StepPlan plan = plan_step(p);
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
    Decomposition d = Decomposition::plan(p.n, size, grid);
    d.set_periodic({{p.periodic(0), p.periodic(1), p.periodic(2)}});
    // Auto: CUDA when every rank has a device.
    Backend resolved = b;
    if (p.any_stretched()) {  // CPU ranks only (stretched_on_cuda_ranks)
      if (b == Backend::Cuda) ADI_THROW(BackendUnavailable, stretched_on_cuda_ranks());
      resolved = Backend::Cpu;
    } else if (b == Backend::Auto) {
      int usable = cuda::unavailable_reason().empty() ? 1 : 0;
      ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &usable, 1, MPI_INT, MPI_MIN, comm));
      resolved = usable ? Backend::Cuda : Backend::Cpu;
    }
    // Collective: a rank that cannot set up its box (a bad material value,
    // failed reads, no usable GPU) makes all of them throw.
    std::unique_ptr<LocalBackend<T>> tables;
    std::unique_ptr<GeneralLocal<T>> rows;
    LocalProblem lp;
    std::exception_ptr failure;
    try {
      if (plan.constant_tables()) {
        lp = LocalProblem::make(p, d, rank);
        tables = resolved == Backend::Cuda
                     ? box::make_cuda_local<T>(lp, detail::rank_device(options), options)
                     : box::make_cpu_local<T>(lp);
      } else {
        rows = resolved == Backend::Cuda
                   ? box::make_general_cuda_local<T>(p, d, rank, detail::rank_device(options), options)
                   : box::make_general_cpu_local<T>(p, d, rank);
      }
    } catch (...) {
      failure = std::current_exception();
    }
    int first_failed = failure ? rank : size;
    ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first_failed, 1, MPI_INT, MPI_MIN, comm));
    if (failure) std::rethrow_exception(failure);
    if (first_failed < size)
      ADI_THROW(PeerError, "rank " + std::to_string(first_failed) + " could not set up its " +
                               (plan.constant_tables() ? std::string(backend_name(resolved)) + " backend" : "box") +
                               " (see its message)");
    if (plan.constant_tables()) {
      // Overlap (default on) and the batch count (SolverOptions::mpi_overlap,
      // mpi_batches; ADI_MPI_OVERLAP=0, ADI_MPI_BATCHES=N). Every rank must
      // take the same path (the collectives must match): the smallest values win.
      int knobs[2] = {options.mpi_overlap ? 1 : 0, options.mpi_batches > 0 ? options.mpi_batches : 4};
      knobs[1] = std::clamp(knobs[1], 1, kMaxBatches);
      ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, knobs, 2, MPI_INT, MPI_MIN, comm));
      return std::make_unique<MpiStepper<T>>(p, d, std::move(tables), comm, lp, knobs[0] != 0, knobs[1]);
    }
    // The rows' batches of lines per split-axis solve (mpi_overlap off: one):
    // by default 4 on GPU ranks, whose exchange then overlaps device work, 1
    // on CPU ranks, which compute either way; the smallest wins.
    int batches = !options.mpi_overlap         ? 1
                  : options.mpi_batches > 0    ? options.mpi_batches
                  : resolved == Backend::Cuda ? 4
                                              : 1;
    batches = std::clamp(batches, 1, kMaxBatches);
    ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &batches, 1, MPI_INT, MPI_MIN, comm));
    return std::make_unique<MpiStepper<T>>(p, d, std::move(rows), comm, resolved, batches);
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
