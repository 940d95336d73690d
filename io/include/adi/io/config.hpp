#pragma once
// Run configuration: YAML (yaml-cpp) mapped into plain structs. Parameters are
// read here, in one place, and nowhere near the numerics (AMReX style).
// Every error names the file, line and column (1-based) and the key path.

#include <adi/common.hpp>
#include <adi/error.hpp>
#include <adi/scheme.hpp>
#include <adi/backend.hpp>

#include <array>
#include <string>
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

/// A field read from HDF5 (`{file: k.h5, dataset: /K}`) instead of a constant:
/// the layout, checks and messages of `initial:` (io/hdf5.hpp).
struct FieldRef {
  std::string file;     ///< HDF5 file, relative to RunConfig::base_dir ("" = not a field)
  std::string dataset;  ///< dataset path inside it
  std::string key;      ///< the config key, e.g. "material.conductivity.x"
  std::string where;    ///< file:line:column of the key, for messages
  bool given() const { return !file.empty(); }
};

/// `material:` and `source:` beyond the constants held in RunConfig::problem
/// (alpha = conductivity per axis, capacity, source, source_table).
struct MaterialConfig {
  bool given = false;                   ///< a `material:` section was given (not `diffusivity:`)
  std::array<FieldRef, 3> conductivity; ///< per axis; a field given once for all axes is the same ref thrice
  bool isotropic_field = false;         ///< one conductivity field for all three axes
  FieldRef capacity;                    ///< heat capacity field ("" = constant problem.capacity)
  FieldRef source;                      ///< power density field ("" = constant problem.source)
  bool any_field() const {
    return conductivity[0].given() || conductivity[1].given() || conductivity[2].given() || capacity.given() ||
           source.given();
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

struct CheckpointConfig {
  std::string file;              ///< checkpoint file ("" = derived from output or config name), relative to the working directory
  index_t every_steps = 0;       ///< 0 = off
  double every_seconds = 0.0;    ///< wall-clock seconds, 0 = off
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
  bool grid = false;                    ///< grid.nx/ny/nz were given
  std::array<bool, 3> length{};         ///< domain.lx/ly/lz were given
  bool origin = false;                  ///< domain.origin was given
};

/// With an initial field file: where the box (lengths, origin) came from.
struct GeometrySource {
  std::string source;      ///< e.g. "spacing from grid.h5:/u, origin from the config" ("" without a file)
  bool defaulted = false;  ///< no lengths in the config nor spacing in the file: the default 1 m box
};

/// Most nodes along one axis a case may have (grid.nx/ny/nz; also `adi3d
/// bench --size`): 2^24, far past any grid that fits in memory, well inside
/// the 2^31-row limit of the line kernels.
constexpr index_t kMaxGridExtent = index_t(1) << 24;

struct RunConfig {
  std::string source = "<defaults>";  ///< file the config came from
  std::string base_dir = ".";         ///< folder input paths (initial.file) are resolved against
  HeatProblem problem;
  std::array<double, 3> origin{{0.0, 0.0, 0.0}};  ///< coordinates of node (0, 0, 0) [m]
  GivenGeometry given;
  GeometrySource geometry;  ///< set by apply_field_geometry
  index_t steps = 0;       ///< number of steps (resolved from time.steps or time.t_end)
  double t_end = 0.0;      ///< steps * dt
  /// time.dt as given, when time.t_end shortened it to end the run exactly
  /// at t_end (0: dt is as given).
  double dt_given = 0.0;
  Precision precision = Precision::F64;
  Backend backend = Backend::Auto;
  InitialConfig initial;
  MaterialConfig material;
  OutputConfig output;
  CheckpointConfig checkpoint;
  ParallelConfig parallel;
  ProbesConfig probes;
  index_t log_every = 0;   ///< log a line every N steps (0 = about every 2 s of wall time)
  std::string resolved_yaml;  ///< the config with defaults filled in, as YAML (see to_yaml)
};

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
