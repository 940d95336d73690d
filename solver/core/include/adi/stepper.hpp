#pragma once
// The backend-neutral time stepper: one Douglas step, declared once and
// implemented per backend (CPU/OpenMP, CUDA). The CPU backend is the oracle.

#include <adi/backend.hpp>
#include <adi/common.hpp>
#include <adi/error.hpp>
#include <adi/grid.hpp>
#include <adi/options.hpp>
#include <adi/scheme.hpp>

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace adi {

/// The phases of one step. SolveZ also applies u += D (fused). RhsSolveX is
/// the RHS computed inside the x solve (one pass instead of two), which the
/// CUDA backend's classic stepper uses wherever its x lines take single-line
/// tiles and a block of 8 of them fits shared memory (ADI_FUSE_RHS=0 turns it
/// off; docs/PERFORMANCE.md); Step is the whole step.
enum class Phase { Rhs, SolveX, SolveY, SolveZ, Step, RhsSolveX };
const char* phase_name(Phase p);

struct FieldStats {
  double max_abs = 0.0;
  bool finite = true;  ///< false if any NaN or Inf was seen
  /// The discrete energy sum_i w_i c_i u_i^2 (w_i the node volumes:
  /// trapezoidal on a non-periodic axis, h on a flat one): the norm in which
  /// a stable step of a problem without data cannot grow (split.hpp), the
  /// run's energy guard. Computed in double whatever the precision.
  double energy = 0.0;
};

/// What FieldStats::energy weighs a box's nodes with: the grid (n, spacing,
/// periodic axes, a stretched axis' coordinates), where the box starts in
/// it, and the constant heat capacity (a capacity field is the backend's own
/// array).
struct EnergyWeights {
  index_t n[3] = {1, 1, 1};
  index_t begin[3] = {0, 0, 0};
  double h[3] = {1.0, 1.0, 1.0};
  bool periodic[3] = {false, false, false};
  /// A stretched axis: its HeatProblem::coordinates (host memory; the
  /// problem they point into must outlive the weights). Null: uniform.
  const double* x[3] = {nullptr, nullptr, nullptr};
  double capacity = 1.0;
  ADI_HD double axis_volume(int a, index_t i) const {
    return x[a] ? node_cell(begin[a] + i, n[a], x[a], periodic[a]) : node_volume(begin[a] + i, n[a], h[a], periodic[a]);
  }
  /// w_i of node (i, j, k) of the box (local indices).
  ADI_HD double volume(index_t i, index_t j, index_t k) const {
    return axis_volume(0, i) * axis_volume(1, j) * axis_volume(2, k);
  }
};
inline EnergyWeights energy_weights(const HeatProblem& p, const std::array<index_t, 3>& begin = {{0, 0, 0}}) {
  EnergyWeights w;
  for (int a = 0; a < 3; ++a) {
    w.n[a] = p.n[a];
    w.begin[a] = begin[a];
    w.h[a] = p.spacing(a);
    w.periodic[a] = p.periodic(a);
    if (p.stretched(a)) w.x[a] = p.coordinates[a].data();
  }
  w.capacity = p.capacity;
  return w;
}

/// Where a stepper keeps its field: host memory (CPU) or device memory
/// (CUDA, on device `device`), laid out as `layout` (x fastest, possibly
/// padded rows). For zero-copy views (the Python Problem's `u`).
template <class T>
struct FieldView {
  T* data = nullptr;
  Layout3 layout;
  bool on_device = false;
  int device = 0;
};

/// Where a stepper's field lives in device memory, the nonlinear step of a
/// temperature-dependent material or radiating faces
/// (temperature_stepper.hpp) keeps its iterates beside the field and
/// evaluates the material there, instead of copying each iterate to the
/// host and the coefficients back (Stepper::device_iterates). Slots 0 and 1
/// are two more fields of the stepper's size; kField is the field itself.
/// The nonlinear step's host path implements the same operations on host
/// vectors (temperature_stepper.cpp, HostIterates): one loop drives both.
template <class T>
class DeviceIterates {
 public:
  static constexpr int kField = -1;
  virtual ~DeviceIterates() = default;
  /// The field into slot s (0 or 1), and back.
  virtual void store_iterate(int s) = 0;
  virtual void load_iterate(int s) = 0;
  /// The coefficients of a step from iterate a to iterate b (slots or
  /// kField) at the step's time t*, where the rows read them: what
  /// TemperatureState::evaluate_step and RadiationState::evaluate followed by
  /// Stepper::reload_material give, bit for bit. A temperature they refuse
  /// throws their NumericalError (the same message).
  virtual void evaluate_material(int a, int b, double tstar) = 0;
  /// Over the field u: max |u - slot prev| (infinity where it is not
  /// finite), max |u - slot base| and max |u| (NaN ignored), in double.
  virtual std::array<double, 3> iterate_change(int prev, int base) = 0;
  /// Slot out = 2 u - slot prev over the field u, in T (the extrapolated
  /// step's end, NonlinearStep::Extrapolated): the host's operation.
  virtual void extrapolate_iterate(int prev, int out) = 0;
  /// TemperatureState::conserve_enthalpy of the field v, the linear step
  /// from slot a with the coefficients of [slot a, slot b]; `fixed`: the
  /// Dirichlet faces (lo x, hi x, ...), whose nodes keep v. Bit for bit the
  /// host's; a node the host refuses throws its NumericalError.
  virtual void conserve_enthalpy(int a, int b, const std::array<bool, 6>& fixed) = 0;
};

template <class T>
class Stepper {
 public:
  virtual ~Stepper() = default;
  virtual const HeatProblem& problem() const = 0;
  virtual Backend backend() const = 0;
  /// Human-readable description of where it runs ("CPU, 2 OpenMP threads", "NVIDIA H200").
  virtual std::string device_name() const = 0;

  /// Copy a packed x-fastest nx*ny*nz host array in / out. A distributed
  /// stepper (adi/mpi.hpp) copies the rank's own sub-box.
  virtual void set_field(const T* host) = 0;
  virtual void get_field(T* host) = 0;
  /// The whole field through rank 0: rank 0 passes the packed global array,
  /// the other ranks nullptr. Collective for distributed steppers; the same
  /// as set_field / get_field for the others.
  virtual void scatter_field(const T* root_host) { set_field(root_host); }
  virtual void gather_field(T* root_host) { get_field(root_host); }

  /// Advance one time step (and the step index).
  virtual void step() = 0;
  /// Advance `count` steps (backends may batch launches).
  virtual void advance(index_t count) {
    for (index_t s = 0; s < count; ++s) step();
  }
  /// Whether the exception the last step() / advance() threw was thrown on
  /// every process of the run together (a distributed stepper that agrees
  /// on a failure before it throws: its own error on one rank, PeerError on
  /// the others), so that the caller may still make collective calls, e.g.
  /// to mark its output failed. False for a failure one process met alone.
  virtual bool failure_agreed() const { return false; }
  /// Over the whole field (a distributed stepper reduces over its ranks).
  virtual FieldStats field_stats() = 0;

  /// Run one phase by itself (benchmarking; the field is left meaningless
  /// unless the phases run in order).
  virtual void run_phase(Phase p) = 0;
  /// The phases a step runs, in order (for benchmarks).
  virtual std::vector<Phase> phases() const { return {Phase::Rhs, Phase::SolveX, Phase::SolveY, Phase::SolveZ}; }
  /// Times `reps` runs of a phase after `warmup` untimed ones, in ms each,
  /// with the backend's clock (clock_begin / clock_end_ms: CUDA events on
  /// the GPU; a distributed run's slowest rank, combine_timings).
  std::vector<double> time_phase(Phase p, int warmup, int reps) {
    for (int r = 0; r < warmup; ++r) run_phase(p);
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
      clock_begin();
      run_phase(p);
      ms.push_back(clock_end_ms());
    }
    combine_timings(ms);
    return ms;
  }
  /// Bytes of memory the stepper holds (device memory for device backends).
  virtual std::size_t bytes_allocated() const = 0;
  /// The nodes a step reads and writes along y and z: the box between the
  /// Dirichlet y / z faces where a stepper skips them (their nodes never
  /// change), else the whole grid (a rank's sub-box for a distributed stepper
  /// is still the problem's extents here: benchmarks divide by the ranks).
  virtual std::array<index_t, 3> moved_extents() const { return problem().n; }
  /// The x nodes (lanes) the y and z solves move: moved_extents()[0], or one
  /// fewer where a stepper leaves a Dirichlet high x face's node out of them
  /// (adi::lanes_without_face: its increment is 0).
  virtual index_t moved_yz_lanes() const { return moved_extents()[0]; }

  /// Steps taken since the run's first step: the time is t0 + (step_index()
  /// - s0) * dt, where (t0, s0) is the time origin (0, 0 unless set: then the
  /// time is step_index() * dt exactly; a run that starts at time.start, or a
  /// restart that changed dt, sets it). A restart sets the step from the
  /// checkpoint. Time-dependent data (tables, sources) are evaluated from it,
  /// never from an accumulated time.
  index_t step_index() const { return step_index_; }
  void set_step_index(index_t s) { step_index_ = s; }
  void set_time_origin(double t0, index_t s0) {
    time_origin_ = t0;
    step_origin_ = s0;
  }
  double time() const { return time_at(step_index_); }
  /// The time of step s on this stepper's clock (time() of step s).
  double time_at(index_t s) const { return time_origin_ + static_cast<double>(s - step_origin_) * problem().dt; }

  /// The field in place, after waiting for the work the stepper queued: valid
  /// while the stepper lives; values written through it are the state the
  /// next step starts from. A distributed stepper has no whole field and
  /// throws InvalidArgument.
  virtual FieldView<T> field_view() {
    ADI_THROW(InvalidArgument, "this stepper has no single field in one memory (a distributed run)");
  }

  /// The values of a few nodes (probes, app/probes.cpp) into out, after
  /// waiting for the queued work: nodes are (i, j, k) indices of the field
  /// get_field packs. Without a copy of the whole field where the stepper
  /// can: in place for a field in host memory (this default), a copy a node
  /// from device memory (the CUDA steppers override it); the default copies
  /// the whole field for a field on a device. A distributed stepper has no
  /// field_view and throws InvalidArgument (its box: get_field).
  virtual void read_nodes(const std::array<index_t, 3>* nodes, std::size_t count, T* out) {
    if (count == 0) return;
    const FieldView<T> v = field_view();
    if (!v.on_device) {
      for (std::size_t q = 0; q < count; ++q) out[q] = v.data[v.layout.offset(nodes[q][0], nodes[q][1], nodes[q][2])];
      return;
    }
    std::vector<T> all(static_cast<std::size_t>(v.layout.points()));
    get_field(all.data());
    for (std::size_t q = 0; q < count; ++q)
      out[q] = all[static_cast<std::size_t>(nodes[q][0] + v.layout.n[0] * (nodes[q][1] + v.layout.n[1] * nodes[q][2]))];
  }

  /// Sets every Dirichlet node to its face value V f(t) at the current time:
  /// what a fresh run starts from (not a restart, whose field already holds
  /// them). A no-op for faces that keep their initial values without a table.
  virtual void impose_boundary_values() {}

  /// The work array (the right-hand side after Phase::Rhs, then D1, D2 after
  /// the x and y solves), packed like get_field: for tests of the stages.
  virtual void get_work(T* host) {
    (void)host;
    ADI_THROW(InvalidArgument, "this stepper does not expose its work array");
  }
  /// Sets the work array (packed like set_field): what the solve phases
  /// then read, so that SolveX, SolveY and SolveZ (which adds into the field)
  /// apply the step's line inverses to any vector (the steady solver's
  /// preconditioner, steady.hpp). The general-path steppers have it.
  virtual void set_work(const T* host) {
    (void)host;
    ADI_THROW(InvalidArgument, "this stepper does not take a work array");
  }

  /// Re-reads the conductivity, heat capacity and source fields from the
  /// problem's FieldSources (their values changed: a temperature-dependent
  /// material, adi/temperature.hpp; radiating faces, adi/radiation.hpp) for
  /// the steps after this call, and what is made of them (the moving
  /// Dirichlet faces' terms). The sizes and the plan stay those of
  /// construction. The general-path steppers (and MPI ranks) have it.
  virtual void reload_material() {
    ADI_THROW(InvalidArgument, "this stepper cannot re-read its material (temperature-dependent properties)");
  }
  /// What the steps so far did beyond the scheme's one linear step, for a
  /// run's summary (the nonlinear step's iterations); empty: nothing.
  virtual std::string step_notes() const { return {}; }

  /// The previous step's field u^(n-1), kept by a scheme that reads it
  /// (NonlinearStep::Extrapolated) and so part of a checkpoint:
  /// has_previous_field says whether one is held now (after a step; set_field
  /// and scatter_field drop it). exchange_previous_field swaps the field and
  /// the previous one (no communication: each rank its box); while they are
  /// exchanged, get/gather read and set/scatter write the previous field, and
  /// the second exchange makes the pair the stepper's history. A restart:
  /// set the field, exchange, set the previous field, exchange.
  virtual bool has_previous_field() const { return false; }
  virtual void exchange_previous_field() {
    ADI_THROW(InvalidArgument, "this stepper keeps no previous field");
  }

  /// The nonlinear step's iterates beside a device field (DeviceIterates),
  /// or nullptr: through the host (get_field, reload_material).
  virtual DeviceIterates<T>* device_iterates() { return nullptr; }

 protected:
  /// The start of a timed run, after the work queued before it.
  virtual void clock_begin() { clock_start_ = std::chrono::steady_clock::now(); }
  /// Waits for the timed run's work; the milliseconds since clock_begin.
  virtual double clock_end_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - clock_start_).count();
  }
  /// A distributed stepper's timings over its ranks (each run's slowest rank
  /// sets the pace); nothing to combine in one process.
  virtual void combine_timings(std::vector<double>& ms) { (void)ms; }
  /// A decorator's timings are those of the stepper it wraps (whose work may
  /// be queued on a device, or spread over ranks).
  static void clock_begin_of(Stepper& s) { s.clock_begin(); }
  static double clock_end_ms_of(Stepper& s) { return s.clock_end_ms(); }
  static void combine_timings_of(Stepper& s, std::vector<double>& ms) { s.combine_timings(ms); }

  index_t step_index_ = 0;
  double time_origin_ = 0.0;  ///< the time of step step_origin_ (set_time_origin)
  index_t step_origin_ = 0;

 private:
  std::chrono::steady_clock::time_point clock_start_{};
};

/// A CUDA device as the backends' entry points describe it.
struct DeviceInfo {
  int index = 0;
  std::string name;
  std::size_t global_memory = 0;
  int multiprocessors = 0;
  int cc_major = 0, cc_minor = 0;
};

}  // namespace adi
