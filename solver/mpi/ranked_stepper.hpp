#pragma once
// Internal to adi::mpi: what a distributed stepper does whatever its plan —
// its communicators, the whole field scattered from and gathered to rank 0,
// field statistics over the ranks, the phase clock, and the exchange of
// ghost planes with the neighbours along the split axes. MpiStepper
// (distributed_stepper.cpp) adds the step of every plan. Local is the rank
// box type (detail/rank_box.hpp).
#include "messages.hpp"
#include "mpi_check.hpp"

#include <adi/box/rank_box.hpp>
#include <adi/mpi.hpp>

#include <array>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

namespace adi::mpi::detail {

using Clock = std::chrono::steady_clock;
inline double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

template <class T, class Local>
class RankedStepper : public DistributedStepper<T> {
 public:
  /// Takes comm (a duplicate the stepper frees) and the rank's box.
  RankedStepper(const HeatProblem& p, const Decomposition& d, std::unique_ptr<Local> local, MPI_Comm comm)
      : p_(p), dec_(d), local_(std::move(local)), comm_(comm) {
    ADI_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    part_ = dec_.part(rank_);
    for (int a = 0; a < 3; ++a) {
      line_comm_[a] = MPI_COMM_NULL;
      if (!dec_.is_split(a)) continue;
      // The ranks sharing this rank's lines along a: same coordinates on the
      // other axes; ordered by the coordinate along a.
      std::array<int, 3> c = part_.coords;
      c[a] = 0;
      ADI_MPI_CHECK(MPI_Comm_split(comm_, dec_.rank_of(c), part_.coords[a], &line_comm_[a]));
    }
  }
  ~RankedStepper() override {
    for (MPI_Comm& c : line_comm_)
      if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    MPI_Comm_free(&comm_);
  }

  const HeatProblem& problem() const override { return p_; }
  const Decomposition& decomposition() const override { return dec_; }
  const LocalPart& part() const override { return part_; }

  void set_field(const T* host) override { local_->set_field(host); }
  void get_field(T* host) override {
    local_->synchronize();
    local_->get_field(host);
  }
  void set_work(const T* host) override { local_->set_work(host); }
  void get_work(T* host) override {
    local_->synchronize();
    local_->get_work(host);
  }

  void scatter_field(const T* root_host) override {
    // Rank 0's box is the largest (the first ranks of a split get the extra
    // nodes), so its buffer holds any rank's box.
    const index_t n = part_.box.points();
    T* mine = local_->host_buffer(kBoxSlot, static_cast<std::size_t>(n));
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
    const index_t n = part_.box.points();
    T* mine = local_->host_buffer(kBoxSlot, static_cast<std::size_t>(n));
    local_->get_field(mine);
    if (rank_ == 0) {
      ADI_REQUIRE(root_host != nullptr, "gather_field: rank 0 must pass room for the global field");
      copy_box(root_host, mine, part_.box, false);
      std::vector<T> theirs;
      for (int r = 1; r < dec_.ranks(); ++r) {
        const Box b = dec_.part(r).box;
        theirs.resize(static_cast<std::size_t>(b.points()));
        recv_all(theirs.data(), b.points(), r, 101, comm_);
        copy_box(root_host, theirs.data(), b, false);
      }
    } else {
      send_all(mine, n, 0, 101, comm_);
    }
  }

  FieldStats field_stats() override {
    local_->synchronize();
    const FieldStats mine = local_->field_stats();
    double v[2] = {mine.max_abs, mine.finite ? 0.0 : 1.0}, e = mine.energy;
    ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, comm_));
    ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_DOUBLE, MPI_SUM, comm_));
    return FieldStats{v[0], v[1] == 0.0, e};
  }

  std::size_t bytes_allocated() const override { return local_->bytes_allocated(); }
  CommTimes comm_times() const override { return times_; }
  void reset_comm_times() override { times_ = CommTimes{}; }

 protected:
  // The phase clock: every rank starts together after its queued work; the
  // slowest rank sets the pace of a step.
  void clock_begin() override {
    local_->synchronize();
    ADI_MPI_CHECK(MPI_Barrier(comm_));
    clock_t0_ = Clock::now();
  }
  double clock_end_ms() override {
    local_->synchronize();
    return since(clock_t0_) * 1e3;
  }
  void combine_timings(std::vector<double>& ms) override {
    if (!ms.empty())
      ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, ms.data(), static_cast<int>(ms.size()), MPI_DOUBLE, MPI_MAX, comm_));
  }

  /// Lines along `axis` in the box (= elements of a plane perpendicular to it).
  index_t lines(int axis) const {
    const index_t* s = part_.box.size.data();
    return axis == 0 ? s[1] * s[2] : axis == 1 ? s[0] * s[2] : s[0] * s[1];
  }

  /// One plane of u from each neighbour along every split axis of `axes`
  /// into the ghost layers. A plane sent down (to the lower neighbour, which
  /// keeps it as its upper ghost) travels with tag 2a, one sent up with tag
  /// 2a + 1, so a ring of two ranks (both neighbours the same rank) still
  /// tells its two planes apart. `in_flight()` runs while the planes travel
  /// (queued work that needs no ghost); the ghosts are unpacked (queued)
  /// after it, and with wait_ghosts waited for. Times the exchange into
  /// times_.halo.
  template <class F>
  void exchange_halo(const std::array<bool, 3>& axes, F&& in_flight, bool wait_ghosts) {
    const auto t0 = Clock::now();
    MPI_Request req[8];
    int nreq = 0;
    // Every receive is posted before any send.
    for (const bool send : {false, true})
      for (int a = 1; a < 3; ++a) {
        if (!dec_.is_split(a) || !axes[a]) continue;
        const index_t L = lines(a);
        for (int side = 0; side < 2; ++side) {
          const int nb = dec_.neighbour(rank_, a, side ? +1 : -1);
          if (nb < 0) continue;
          T* buf = local_->host_buffer(halo_slot(a, side, send), static_cast<std::size_t>(L));
          // From the lower neighbour comes a plane travelling up, and vice versa.
          const int up = 2 * a + 1, down = 2 * a;
          if (send) {
            local_->pack_face(a, side, buf);
            ADI_MPI_CHECK(MPI_Isend(buf, static_cast<int>(L), datatype<T>(), nb, side ? up : down, comm_,
                                    &req[nreq++]));
          } else {
            ADI_MPI_CHECK(MPI_Irecv(buf, static_cast<int>(L), datatype<T>(), nb, side ? down : up, comm_,
                                    &req[nreq++]));
          }
        }
      }
    in_flight();
    ADI_MPI_CHECK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    for (int a = 1; a < 3; ++a)
      for (int side = 0; side < 2; ++side)
        if (dec_.is_split(a) && axes[a] && dec_.neighbour(rank_, a, side ? +1 : -1) >= 0)
          local_->unpack_ghost(a, side, local_->host_buffer(halo_slot(a, side, false), 0));
    if (wait_ghosts) local_->synchronize();
    times_.halo += since(t0);
  }

  // Host buffer slots (RankBox::host_buffer) of this class: a plane sent /
  // received per side of a split axis (0-11) and the box (15). The derived
  // steppers number theirs from kFirstFreeSlot.
  static int halo_slot(int a, int side, bool send) { return 4 * a + 2 * side + (send ? 1 : 0); }
  static constexpr int kBoxSlot = 15;
  static constexpr int kFirstFreeSlot = 16;

  HeatProblem p_;
  Decomposition dec_;
  LocalPart part_;
  std::unique_ptr<Local> local_;
  MPI_Comm comm_;
  MPI_Comm line_comm_[3];
  int rank_ = 0;
  CommTimes times_;

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

  Clock::time_point clock_t0_{};  // clock_begin's
};

}  // namespace adi::mpi::detail
