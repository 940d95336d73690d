#pragma once
// Run configuration: YAML (yaml-cpp) mapped into plain structs. Parameters are
// read here, in one place, and nowhere near the numerics (AMReX style).
// Every error names the file, line and column (1-based) and the key path.

#include <adi/common.hpp>
#include <adi/error.hpp>
#include <adi/scheme.hpp>
#include <adi/backend.hpp>
#include <adi/temperature.hpp>

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace adi::io {

/// A configuration error: where (file:line:column or the --set override) and what.
/// The message is one line: control characters quoted from the input are escaped.
class ConfigError : public Error {
 public:
  ConfigError(const std::string& where, const std::string& key, const std::string& what, const char* file = "",
              int line = 0)
      : Error(printable(where + ": " + (key.empty() ? "" : key + ": ") + what), file, line), where_(where), key_(key) {}
  const std::string& where() const { return where_; }
  const std::string& key() const { return key_; }

 private:
  std::string where_, key_;
};

struct InitialConfig {
  /// Analytic: the eigenmode of the constant-coefficient problem (errors
  /// against it are reported). File: an HDF5 field. Uniform: `value` everywhere.
  enum class Kind { Analytic, File, Uniform } kind = Kind::Analytic;
  double value = 0.0;           ///< Kind::Uniform: the start temperature
  std::string file;             ///< HDF5 file (Kind::File), relative to the config's folder (base_dir)
  std::string dataset = "/u";   ///< dataset path inside it
  bool boundary_from_file = true;  ///< Dirichlet faces keep the file's boundary values (false: zero)
};

/// A property by region (`material.regions` and `material.materials`): the
/// value of each material, by the id its nodes hold in the region field.
struct RegionValues {
  std::string what;                                ///< "conductivity x", "heat capacity"
  std::vector<std::pair<long long, double>> value;  ///< (id, value), ids ascending, each once
};

/// A field read from HDF5 (`{file: k.h5, dataset: /K}`) instead of a constant:
/// the layout, checks and messages of `initial:` (io/hdf5.hpp).
struct FieldRef {
  std::string file;     ///< HDF5 file, relative to RunConfig::base_dir ("" = not a field)
  std::string dataset;  ///< dataset path inside it
  std::string key;      ///< the config key, e.g. "material.conductivity.x"
  std::string where;    ///< file:line:column of the key, for messages
  /// Set: the dataset is the integer region field and the field's value at
  /// a node is the value of the material whose id the node holds.
  std::shared_ptr<const RegionValues> by_region;
  bool given() const { return !file.empty(); }
};

/// One named material of `material.materials` (with `material.regions`, or
/// alone: every node).
struct RegionMaterial {
  std::string name;
  long long id = 0;                             ///< the value its nodes hold in the region field
  /// Per axis [W/(m K)]: a constant or a table of temperature (a flat axis
  /// not given: the constant 0, never read).
  std::array<PropertyTable, 3> conductivity{
      {PropertyTable::constant_value(0.0), PropertyTable::constant_value(0.0), PropertyTable::constant_value(0.0)}};
  bool isotropic = true;                        ///< given as one number or table
  PropertyTable capacity = PropertyTable::constant_value(0.0);  ///< [J/(m^3 K)]
  bool depends_on_temperature() const {
    return !conductivity[0].constant() || !conductivity[1].constant() || !conductivity[2].constant() ||
           !capacity.constant();
  }
};

/// `material:` and `source:` beyond the constants held in RunConfig::problem
/// (alpha = conductivity per axis, capacity, source, source_table).
struct MaterialConfig {
  bool given = false;                   ///< a `material:` section was given (not `diffusivity:`)
  std::array<FieldRef, 3> conductivity; ///< per axis; a field given once for all axes is the same ref thrice
  bool isotropic_field = false;         ///< one conductivity field for all three axes
  FieldRef capacity;                    ///< heat capacity field ("" = constant problem.capacity)
  FieldRef source;                      ///< power density field ("" = constant problem.source)
  /// Materials by region: the integer field and its materials. conductivity
  /// and capacity are then refs to it with by_region set.
  FieldRef regions;
  std::vector<RegionMaterial> materials;
  /// Some material's property is a table of temperature: K and c are a
  /// TemperatureState's fields (attach_fields), over the region field's ids
  /// (regions given) or one material everywhere.
  bool temperature = false;
  std::string where;  ///< file:line:column of material.materials (messages)
  bool any_field() const {
    return conductivity[0].given() || conductivity[1].given() || conductivity[2].given() || capacity.given() ||
           source.given() || temperature;
  }
};

struct OutputConfig {
  std::string file;              ///< HDF5 output ("" = no output), relative to the working directory
  index_t every_steps = 0;       ///< write every N steps (0 = off)
  double every_time = 0.0;       ///< or every T simulated seconds (0 = off)
  bool write_initial = true;     ///< write step 0
  bool write_final = true;       ///< write the last step
  int compression = 0;           ///< gzip level 0..9 (0 = off), with shuffle
  bool xdmf = true;              ///< write the .xmf sidecar
  /// output.fields: [u, heat_flux]: also the heat flux -K grad u at every
  /// output step (/steps/NNNNNN/heat_flux, io/heat_flux.hpp).
  bool heat_flux = false;
};

/// One named point of `probes.points` (io/point_probes.hpp).
struct ProbePoint {
  std::string name;
  std::array<double, 3> x{{0.0, 0.0, 0.0}};  ///< physical coordinates [m], x, y, z
  std::string where;                         ///< file:line:column of its key, for messages
};

/// `probes: {points: {name: [x, y, z], ...}, every: N, csv: true | FILE}`:
/// the field interpolated at named points, recorded at step 0, every N steps
/// and at the last step, into the output file (/probes/<name>) and/or a CSV.
struct ProbesConfig {
  std::vector<ProbePoint> points;  ///< in the config's order
  index_t every = 1;               ///< record every N steps (>= 1)
  bool csv = false;                ///< write a CSV
  std::string csv_file;            ///< its name ("" with csv: the output's, run.h5 -> run.probes.csv)
  bool any() const { return !points.empty(); }
};

/// `solve:` what a run computes: the transient (the default: marching in
/// time, `time:`) or the steady state L u + s = 0 (`solve: steady`, or
/// `solve: {steady: {tolerance: 1e-10, max_iterations: 2000}}`; steady.hpp).
struct SolveConfig {
  bool steady = false;
  double tolerance = 1e-10;       ///< the relative residual to reach (steady.hpp defines it)
  index_t max_iterations = 2000;  ///< sweeps (each one preconditioner application and one residual)
  std::string where;              ///< file:line:column of `solve`, for messages
  /// time.stop_rate [K/s] (transient runs; 0 = off): stop once max|u^{n+1} - u^n| / dt falls below it.
  double stop_rate = 0.0;
};

struct CheckpointConfig {
  std::string file;              ///< checkpoint file ("" = derived from output or config name), relative to the working directory
  index_t every_steps = 0;       ///< 0 = off
  double every_seconds = 0.0;    ///< wall-clock seconds, 0 = off
};

/// `diagnostics: {heat_flows: true, csv: true | FILE}`: the heat flows
/// (adi/heat_flows.hpp) at every output step, into the output file's
/// /diagnostics/heat_flows and, on request, a CSV file.
struct DiagnosticsConfig {
  bool heat_flows = false;
  bool csv = false;      ///< write the CSV too
  std::string csv_file;  ///< its name ("" with csv: beside the output, <output stem>.heat_flows.csv)
};

/// `parallel: {grid: [1, Py, Pz]}`: the process grid of a distributed run
/// (ranks along x, y, z; x is never split). Absent or `auto`: chosen from the
/// rank count and the grid size (docs/MPI.md). Checked against the rank
/// count when the run starts.
struct ParallelConfig {
  std::array<int, 3> grid{{0, 0, 0}};  ///< {0, 0, 0} = automatic
  std::string where;                   ///< file:line:column of the key (for run-time errors)
  bool automatic() const { return grid[0] == 0; }
};

/// Which geometry values the config set explicitly (the rest are defaults
/// that an initial HDF5 file may fill in; explicit values must agree with it).
struct GivenGeometry {
  bool grid = false;                    ///< grid.nx/ny/nz (or grid.x/y/z) were given
  std::array<bool, 3> length{};         ///< domain.lx/ly/lz were given
  bool origin = false;                  ///< domain.origin was given
};

/// With an initial field file: where the box (lengths, origin) came from.
struct GeometrySource {
  std::string source;      ///< e.g. "spacing from grid.h5:/u, origin from the config" ("" without a file)
  bool defaulted = false;  ///< no lengths in the config nor spacing in the file: the default 1 m box
};

/// The time axis of a run: step s is at t = t0 + (s - s0) dt, never a running
/// sum. A fresh run: t0 = time.start, s0 = 0 (so t = step * dt exactly when
/// time.start is 0). A restart that keeps dt keeps the checkpoint's axis, and
/// so the uninterrupted run's times bit for bit; one that changes dt starts a
/// new segment at the checkpoint: t0 = its time, s0 = its step (docs/IO.md).
struct TimeAxis {
  double t0 = 0.0;         ///< the time of step s0 [s]
  index_t s0 = 0;          ///< the first step of this segment
  double dt_before = 0.0;  ///< the previous segment's dt (0: none): step s0 - 1 is at t0 - dt_before
  /// The segments so far, for the provenance: "step 0: t = 0 s, dt = 0.01 s;
  /// step 40: t = 0.4 s, dt = 0.02 s" ("" while there is one segment).
  std::string segments;
  double time_of(index_t s, double dt) const {
    if (dt_before > 0 && s == s0 - 1) return t0 - dt_before;
    return t0 + static_cast<double>(s - s0) * dt;
  }
};

/// `time:` as given: RunConfig::steps, problem.dt and t_end are resolved from
/// it on the run's TimeAxis (resolve_time).
struct TimeRequest {
  double dt = 0.0;        ///< time.dt
  bool by_t_end = false;  ///< time.t_end was given (else time.steps)
  index_t steps = 0;      ///< time.steps: the number of the run's last step
  double t_end = 0.0;     ///< time.t_end [s]: the time of the run's last step
  std::string where;      ///< file:line:column (or --set) of time.t_end / time.steps, for messages
};

/// Where a face of the boundary was set (for the checks that need the
/// grid, which an initial file may give only later): x_lo, x_hi, ..., z_hi.
struct FaceOrigin {
  std::string key;      ///< "boundary.x_lo", "boundary.x.lo", "boundary", "boundary.default" ("" = not set)
  std::string where;    ///< file:line:column or the --set
  bool named = false;   ///< the face's axis or the face itself was named (not a scalar boundary, not default)
  bool missing = false; ///< not set, and no default: an error unless the axis turns out flat
};

struct RunConfig;
/// Where the first radiating face (FaceData::emissivity > 0, x_lo first) was
/// set; requires c.problem.radiates().
const FaceOrigin& first_radiating_face(const RunConfig& c);

/// A per-axis map (diffusivity, material.conductivity) that left axes out
/// while the grid was still to come from the initial file: an axis left out
/// must turn out flat.
struct PendingAxes {
  std::string key, where;
  std::array<bool, 3> missing{};
};

/// Most nodes along one axis a case may have (grid.nx/ny/nz; also `adi3d
/// bench --size`): 2^24, far past any grid that fits in memory, well inside
/// the 2^31-row limit of the line kernels.
constexpr index_t kMaxGridExtent = index_t(1) << 24;

/// grid.x (.y, .z) given as a map instead of grid.nx: node coordinates, from
/// the config or an HDF5 dataset, or a stretching rule (read_grid); they
/// become HeatProblem::coordinates once domain and boundary are read
/// (settle_coordinates).
struct AxisGridInput {
  enum class Kind { Count, Coordinates, Stretch } kind = Kind::Count;
  std::vector<double> values;  ///< Coordinates: the node positions [m] as given
  std::string values_from;     ///< Coordinates: "the config" or "g.h5:/z"
  bool has_period = false;     ///< a periodic axis' period [m] (node 0's image at x0 + period)
  double period = 0.0;
  std::string from;            ///< Stretch: lo, hi or both (where the nodes cluster)
  double ratio = 1.0;          ///< Stretch: each gap over the one before it, away from the clustering face
};

/// The largest ratio of neighbouring gaps of a stretched axis without a
/// warning: beyond it the local truncation error of the three-point rows
/// (first order at a spacing jump) is no longer small.
constexpr double kGapRatioWarning = 1.5;

struct RunConfig {
  std::string source = "<defaults>";  ///< file the config came from
  std::string base_dir = ".";         ///< folder input paths (initial.file) are resolved against
  HeatProblem problem;
  std::array<double, 3> origin{{0.0, 0.0, 0.0}};  ///< coordinates of node (0, 0, 0) [m]
  GivenGeometry given;
  GeometrySource geometry;  ///< set by apply_field_geometry
  index_t steps = 0;       ///< the last step (resolved from time.steps or time.t_end)
  double t_end = 0.0;      ///< the time of the last step: axis.time_of(steps, dt)
  /// time.dt as given, when time.t_end shortened it to end the run exactly
  /// at t_end (0: dt is as given).
  double dt_given = 0.0;
  double t_start = 0.0;    ///< time.start [s]: the time of step 0 of a fresh run (tables continue from it)
  TimeRequest time_request;
  TimeAxis axis;           ///< t = axis.time_of(step, problem.dt)
  /// The grid comes from the initial file (initial: {file}, no grid:): which
  /// axes are flat is known only then (settle_grid).
  bool grid_pending = false;
  std::array<FaceOrigin, 6> faces;  ///< x_lo, x_hi, y_lo, y_hi, z_lo, z_hi
  std::vector<PendingAxes> pending_axes;
  std::array<AxisGridInput, 3> grid_axes;  ///< grid.x / .y / .z as given
  /// Warnings about the config that do not stop it (neighbouring gaps of a
  /// stretched axis beyond kGapRatioWarning): the run logs them.
  std::vector<std::string> warnings;
  /// Where some keys were given ("boundary.x_lo.h" -> "case.yaml:5:28", or
  /// the --set), for the checks made after the reading (check_face_data).
  std::vector<std::pair<std::string, std::string>> positions;
  Precision precision = Precision::F64;
  Backend backend = Backend::Auto;
  InitialConfig initial;
  MaterialConfig material;
  OutputConfig output;
  CheckpointConfig checkpoint;
  ParallelConfig parallel;
  SolveConfig solve;
  ProbesConfig probes;
  DiagnosticsConfig diagnostics;
  index_t log_every = 0;   ///< log a line every N steps (0 = about every 2 s of wall time)
  std::string resolved_yaml;  ///< the config with defaults filled in, as YAML (see to_yaml)
};

/// A number as people write it, in the fewest digits that read back to the
/// same double: 40, 0.0125, 3600000, with an exponent only for the very
/// small and the very large (1e-07, 1e+20). For messages and the problem's
/// identity (identity.hpp), whose texts are stored: keep it stable.
std::string number_words(double v);

/// Resolves c.steps, c.problem.dt, c.t_end and c.dt_given from
/// c.time_request on c.axis: time.steps is the last step; time.t_end is
/// reached in whole steps of dt from the axis' origin, rounded up, dt
/// shortened to end exactly there (unless t_end is a whole number of steps
/// up to round-off: then dt is kept bit for bit). Throws ConfigError (a
/// t_end before the axis' origin, too many steps, a time that overflows).
void resolve_time(RunConfig& c);

/// Once the grid is known (an initial file gave it, or a restart's stored
/// config): the checks that depend on which axes are flat, as they are made
/// for a grid the config gives: a face named on a flat axis, a face or a
/// per-axis value missing on an axis that is not flat (ConfigError naming
/// the key); faces of flat axes back to their defaults; the face data's
/// derived values (check_face_data). Nothing to do without grid_pending.
void settle_grid(RunConfig& c, const std::string& grid_from);

/// Face and source data whose derived values the scheme computes (V f(t),
/// 2 h / dx, 2 h u_inf f / dx, their products with dt / c) must be finite
/// numbers of the run's precision: a face `value: 1e308` with a table that
/// reaches 10 overflowed at the first step (exit 5). ConfigError naming the
/// face's key and the values.
void check_face_data(const RunConfig& c);

/// The config with every default filled in, as YAML that parse_config reads
/// back to the same RunConfig (numbers in their shortest round-trip form).
std::string to_yaml(const RunConfig& c);

/// Loads and validates a config file; `overrides` are "key.path=value" pairs
/// (value parsed as YAML) merged before validation, so they get the same checks.
RunConfig load_config(const std::string& path, const std::vector<std::string>& overrides = {});
/// The same from text (`name` is used in messages).
RunConfig parse_config(const std::string& text, const std::string& name,
                       const std::vector<std::string>& overrides = {});
/// The built-in default case (configs/heat.yaml, embedded at build time).
const std::string& default_config_text();

}  // namespace adi::io
