#pragma once
// HDF5 grids in and out (plain HDF5 C API behind RAII handles, in io/src).
//
// Layout of every field adi3d reads or writes: a 3-D dataset of shape
// (nz, ny, nx) in C order, so x is the fastest index: element (k, j, i) is
// node (i, j, k) at x = origin_x + i h_x, y = origin_y + j h_y,
// z = origin_z + k h_z. Geometry attributes are listed in x, y, z order
// (origin = [x0, y0, z0], spacing = [hx, hy, hz]); shapes in dataset order
// (nz, ny, nx). docs/IO.md has the whole output layout.
//
// Every failure is an IoError whose one-line message names the file, the
// dataset or attribute, and what was expected.

#include <adi/common.hpp>
#include <adi/error.hpp>
#include <adi/io/config.hpp>
#include <adi/io/point_probes.hpp>
#include <adi/io/provenance.hpp>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace adi::io {

/// A file that cannot be read or written, or that holds something other than
/// what adi3d expects (adi3d exits with code 3).
class IoError : public Error {
  using Error::Error;
};

/// Node grid geometry, everything in x, y, z order.
struct GridGeometry {
  std::array<index_t, 3> n{{0, 0, 0}};      ///< nodes per axis, boundary nodes included
  std::array<double, 3> origin{{0, 0, 0}};  ///< coordinates of node (0, 0, 0) [m]
  std::array<double, 3> spacing{{1, 1, 1}}; ///< node spacing h [m] (a stretched axis: its mean gap)
  /// A stretched axis' node coordinates [m] (n values; empty: uniform). The
  /// files' /grid/x, /grid/y, /grid/z hold every axis' coordinates either way.
  std::array<std::vector<double>, 3> coordinates{};
  bool stretched() const { return !coordinates[0].empty() || !coordinates[1].empty() || !coordinates[2].empty(); }
};
/// The geometry a config describes (spacing = length / (n - 1)).
GridGeometry geometry_of(const RunConfig& c);

// ---- input -------------------------------------------------------------------

/// What an input dataset holds, found without reading its data.
struct FieldInfo {
  std::string file, dataset;
  std::array<index_t, 3> n{{0, 0, 0}};      ///< nx, ny, nz (the dataset shape reversed)
  Precision dtype = Precision::F64;          ///< float32 or float64 in the file
  std::optional<std::array<double, 3>> origin, spacing;  ///< from attributes, when present
  std::string geometry_source;               ///< where origin/spacing came from, for messages
  /// A stretched axis' node coordinates from the file's /grid (adi3d's
  /// outputs of a stretched grid: /grid/x, ... with the attribute
  /// `stretched`); empty elsewhere.
  std::array<std::vector<double>, 3> coordinates{};
};

/// Throws ConfigError (at `where`, naming `key`) unless the file's grid of
/// `f` has the config's node coordinates: a stretched axis in either that
/// the other does not have, or coordinates apart by more than 1e-9 of the
/// axis' length.
void check_field_coordinates(const HeatProblem& p, const FieldInfo& f, const std::string& where,
                             const std::string& key);

/// The values of a 1-D float32 or float64 dataset (grid coordinates:
/// `grid: {z: {coordinates: {file, dataset}}}`, or /grid/z of an adi3d
/// output), as float64. Throws IoError naming the file and dataset (absent,
/// not 1-D, not floats, empty).
std::vector<double> read_vector(const std::string& file, const std::string& dataset);

/// Opens `file` and checks that `dataset` exists and is a 3-D float32 or
/// float64 dataset. Geometry attributes `origin` and `spacing` (3 numbers each,
/// x, y, z) are taken from the dataset itself, else from the file's /grid
/// group (so an adi3d output or checkpoint works as an input), else absent.
/// integers: the dataset must hold integers instead (the region field of
/// `material.regions`; any standard integer type), read as float64.
FieldInfo inspect_field(const std::string& file, const std::string& dataset,
                        const std::string& what = "the initial field", bool integers = false);

template <class T>
struct FieldData {
  std::vector<T> values;       ///< packed, x fastest (nx * ny * nz)
  index_t rounded = 0;         ///< values that changed when converted to T
  double max_rel_rounding = 0; ///< largest |T(v) - v| / |v| among them
};

/// Reads the dataset `info` describes (plane by plane, as double, converted
/// to T). Throws IoError naming the first node holding NaN or Inf.
template <class T>
FieldData<T> read_field(const FieldInfo& info);

/// Takes the grid from an initial field: the dataset shape gives nx, ny, nz
/// and its attributes the origin and spacing, unless the config set them; a
/// value the config set explicitly must agree with the file (relative
/// tolerance 1e-9), else ConfigError. Re-validates and refreshes c.resolved_yaml.
void apply_field_geometry(RunConfig& c, const FieldInfo& f);

// ---- material and source fields ---------------------------------------------

/// A material or source field in an HDF5 file (`material.conductivity:
/// {file, dataset}` ...), read by boxes: each read() is one hyperslab of the
/// dataset, so a rank of a distributed run reads only its own box. The layout,
/// dtypes and geometry rules are those of the initial field (inspect_field);
/// the values are checked as they are read (K and c finite and > 0, q
/// finite), and an error names the file, the dataset and the first bad node
/// (IoError, exit 3).
class Hdf5Field final : public FieldSource {
 public:
  enum class Values { Positive, Finite };
  /// collective_reads false: read_indices never reads collectively (the
  /// run asked for no MPI-IO, ADI_PARALLEL_IO=0).
  Hdf5Field(FieldInfo info, std::string what, Values check, bool collective_reads = true);
  std::string name() const override { return info_.file + ":" + info_.dataset; }
  void read(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& size, double* out) const override;
  /// A distributed run's box (FieldSource::read_indices): with parallel HDF5
  /// and collective set, one collective MPI-IO read on every rank (the box
  /// and its ghost layers one union of hyperslabs); else one read() a block.
  void read_indices(const std::array<std::vector<index_t>, 3>& idx, double* out, bool collective) const override;
  /// "fnv1a64:<16 hex digits>" over the values as float64, x fastest (the
  /// same for a float32 and a float64 file holding the same numbers).
  /// Reads the whole field once, plane by plane; cached.
  std::string checksum() const override;
  /// Takes the checksum a probe of the same file computed (probe.hpp: the
  /// same read, in a child process), so that it is not read twice.
  void adopt_checksum(const std::string& sum) const { checksum_ = sum; }
  const FieldInfo& info() const { return info_; }
  const std::string& what() const { return what_; }

 private:
  /// Throws the IoError naming the first bad value of out (node(q): its
  /// global (i, j, k)).
  template <class Node>
  void check_values(const double* out, index_t points, const Node& node) const;

  FieldInfo info_;
  std::string what_;  ///< "conductivity", "heat capacity", "heat source"
  Values check_;
  bool collective_reads_ = true;
  mutable std::string checksum_;
};

/// A material property by region (`material.regions`): the value at a node is
/// that of the material whose id the node holds in the integer region field
/// (an Hdf5Field read as float64; ids are at most 2^31 in magnitude, so
/// exact). A node whose id no material has throws an IoError naming the
/// node, the id and the ids there are (exit 3), as a bad value of a field.
class RegionField final : public FieldSource {
 public:
  RegionField(std::shared_ptr<const Hdf5Field> ids, std::shared_ptr<const RegionValues> values);
  /// "f.h5:/region (conductivity by region)".
  std::string name() const override;
  void read(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& size, double* out) const override;
  void read_indices(const std::array<std::vector<index_t>, 3>& idx, double* out, bool collective) const override;
  /// Hdf5Field's checksum of the property's values (not of the ids): the
  /// same as that of a field file holding the same numbers. Cached.
  std::string checksum() const override;
  void adopt_checksum(const std::string& sum) const { checksum_ = sum; }
  const Hdf5Field& ids() const { return *ids_; }
  std::shared_ptr<const Hdf5Field> ids_source() const { return ids_; }

 private:
  template <class Node>
  void map_values(double* out, index_t points, const Node& node) const;
  std::shared_ptr<const Hdf5Field> ids_;
  std::shared_ptr<const RegionValues> values_;
  mutable std::string checksum_;
};

/// FNV-1a (64 bit) of a field's values as float64, x fastest, plane by plane
/// ("fnv1a64:<16 hex digits>"): Hdf5Field's and RegionField's checksum.
std::string field_checksum(const FieldSource& f, const std::array<index_t, 3>& n);

/// Opens the material and source fields a config names (c.material): checks
/// each file's header, its shape against the grid and its geometry
/// attributes against the config's (ConfigError naming the key, exit 2), and
/// points c.problem.material at them. Paths are relative to c.base_dir. A
/// field named for several axes is opened once. collective_reads false: the
/// fields of a distributed run are read without MPI-IO (Hdf5Field).
void attach_fields(RunConfig& c, bool collective_reads = true);

/// The fields of c.problem (material, source) as (config key, source) pairs,
/// for outputs and provenance: "conductivity" (isotropic) or
/// "conductivity_x" ..., "heat_capacity", "source". Constants are left out.
/// Properties that vary with temperature are left out too (no one field of
/// them holds for the run); their region ids are "region".
std::vector<std::pair<std::string, std::shared_ptr<const FieldSource>>> named_fields(const RunConfig& c);

// ---- output ------------------------------------------------------------------

/// One MPI rank's part of a field that all ranks write together into one
/// file (parallel HDF5: collective hyperslab writes; docs/MPI.md): nodes
/// offset[a] .. offset[a] + count[a] - 1, x, y, z order. The parts of the
/// ranks tile the grid.
struct FieldPart {
  std::array<index_t, 3> offset{{0, 0, 0}};
  std::array<index_t, 3> count{{0, 0, 0}};
};

/// Whether this build's HDF5 is parallel (MPI-IO) and adi3d was built with
/// MPI: GridFile and write_checkpoint can then write one file from all the
/// ranks of MPI_COMM_WORLD. Otherwise a distributed run gathers each field
/// to rank 0, which writes it.
bool parallel_hdf5_built();

/// If a run was killed while writing the output file `path` (its journal
/// "<path>.journal" exists), restores the file to its last complete step and
/// removes the journal; returns whether there was anything to undo. A
/// restart does this itself; `adi3d recover` calls it.
/// `removed` (if set) gets the temporaries of dead adi3d runs it removed
/// beside the file, its .xmf and journal (remove_dead_temporaries; it holds
/// the file's lock meanwhile).
bool recover_output(const std::string& path, std::vector<std::string>* removed = nullptr);

/// The steps an existing adi3d output file holds, sorted (read only, after
/// undoing a killed run's unfinished write as a restart would). A restart
/// uses it to refuse, before anything is written, to delete steps it would
/// not write again. Throws IoError if the file cannot be read as an output.
std::vector<index_t> output_file_steps(const std::string& path);

/// The first HDF5 error this process met since clear_io_error_note() (""
/// if none). A collective write that fails inside the HDF5 library on one rank
/// can leave that rank waiting in the clean-up while another waits inside the
/// library: the app's watch of collective writes ends such a rank after a few
/// seconds with this message, instead of after ADI_COLLECTIVE_TIMEOUT with
/// none.
std::string io_error_note();
void clear_io_error_note();
/// Whether this process has an HDF5 file open. After a failed close HDF5
/// 1.10 keeps one, and the library's termination (at exit, or in
/// MPI_Finalize for parallel HDF5) then crashes closing it again: a process
/// in that state must end without MPI_Finalize.
bool hdf5_files_open();
/// "; No space left on device: the file system of 'dir' has N free (this
/// write needs about M)" when the folder of `path` has less than `need`
/// bytes free and `message` does not say so already; else "".
std::string disk_space_note(const std::string& path, double need, const std::string& message = "");

/// Host memory a collective output file takes beyond the field: each rank
/// writes its part of every material field once, from one part-sized
/// float64 buffer (`part_points` nodes); 0 without material fields.
double material_parts_buffer_bytes(double part_points, int material_fields);

/// An input file that is not a regular file (a FIFO, a device, a folder)
/// is refused before a byte is read: IoError "<path>: cannot read <what>: it
/// is a FIFO (named pipe), not a file ..." (a FIFO blocked the read until
/// its time-out). A missing file passes (the open says so).
void require_regular_input(const std::string& path, const std::string& what);

/// Whether an existing output file can be continued by a run of this grid
/// and precision (what a restart's reopen checks first): IoError otherwise,
/// naming what differs. Read only (after undoing a killed run's unfinished
/// write, as output_file_steps).
void check_output_continuable(const std::string& path, const GridGeometry& g, Precision p);

/// The problem an existing adi3d output file was written for, as
/// identity.hpp's items text: its root attribute `problem`, or for a file
/// written before that attribute what its /provenance/config and
/// input_fields say (those items are returned as text too). Read only; throws
/// IoError if it cannot be read as an output.
std::string output_file_problem(const std::string& path);

struct OutputStep {
  index_t step = 0;
  double time = 0.0;
  std::string dataset;  ///< "/steps/000010/u"
  std::string heat_flux;  ///< "/steps/000010/heat_flux" when the step holds it, else ""
};

/// Name of the dataset of step s: "/steps/" + six or more digits + "/u".
std::string step_dataset(index_t step);
/// Its heat flux: "/steps/NNNNNN/heat_flux", shape (nz, ny, nx, 3), (qx, qy, qz) fastest.
std::string heat_flux_dataset(index_t step);

/// The probe series of an existing adi3d output file: each /probes/<name>
/// with its steps (read only, after undoing a killed run's unfinished write
/// as a restart would). A restart uses it to refuse to delete rows it would
/// not write again.
std::vector<std::pair<std::string, std::vector<index_t>>> output_file_probes(const std::string& path);
/// The XDMF sidecar of an output file: "run.h5" -> "run.xmf".
std::string xdmf_path_for(const std::string& h5_path);
/// The undo journal of an output file, which lives while a write is under
/// way (docs/IO.md): "run.h5" -> "run.h5.journal".
std::string journal_path_for(const std::string& h5_path);

/// One run's output file. Design (docs/IO.md): the file is created as
/// "<name>.tmp" and renamed to its final name once its first step is
/// written and flushed, so the final name never holds a file without data;
/// every later step is written and then flushed (H5Fflush), and the XDMF
/// sidecar, rewritten atomically after each step, lists only flushed steps.
/// The root attribute `status` says running / complete / interrupted /
/// failed. A write that fails (disk full, file too large) moves the file to
/// "<name>.failed" and removes the sidecar, so nothing under the final name
/// is half-written; the error is an IoError.
///
/// Crash consistency: HDF5 updates metadata in place, so a process killed
/// inside a step's write can leave a file that does not open. Every
/// overwrite of the last flushed state is therefore first saved to
/// "<name>.journal" (deleted again after each flush); reopen() (a restart),
/// recover_output() and `adi3d recover` undo an interrupted write from it,
/// back to the last step the sidecar lists (docs/IO.md).
class GridFile {
 public:
  struct Options {
    std::string path;              ///< final name, e.g. "run.h5"
    bool xdmf = true;              ///< maintain "run.xmf"
    GridGeometry geometry;
    Precision precision = Precision::F64;
    int compression = 0;           ///< gzip level 0..9 with shuffle (0 = off)
    Provenance provenance;         ///< (collective: the same on every rank)
    /// Set: the file is written by all ranks of MPI_COMM_WORLD together
    /// (needs parallel_hdf5_built()). Every member function is then
    /// collective (every rank calls it, in the same order, with the same
    /// arguments), write_step takes this rank's part, and rank 0 alone
    /// renames, journals and writes the sidecar. The file, its layout and
    /// its sidecar are those of a serial run.
    std::optional<FieldPart> part;
    /// Fields written once by create() as /material/<name> (float64), and
    /// listed in the sidecar beside u: the material and source (named_fields).
    /// One process writes them plane by plane; a collective file (part set)
    /// has each rank read and write its own part. reopen() lists what the
    /// file holds (an output of an older collective run has none).
    std::vector<std::pair<std::string, std::shared_ptr<const FieldSource>>> fields;
    /// Probe series (/probes/<name>, append_probes): created empty by
    /// create(); reopen() keeps each series' rows up to the restart step,
    /// refuses (ConfigError) a series of the same name at another position,
    /// and creates the ones the file lacks.
    std::vector<ProbeSeries> probes;
    /// The problem the file is for (identity.hpp: items text and hash),
    /// written by create() as root attributes `problem` and `problem_hash`
    /// ("": not written).
    std::string problem, problem_hash;
  };
  /// Starts a new file (as "<path>.tmp"; the caller has checked that
  /// replacing an existing "<path>" is wanted).
  static GridFile create(const Options& o);
  /// Continues an existing output after a restart from `restart_step`: checks
  /// that its grid and precision match, deletes the steps after
  /// `restart_step` (the restarted run writes them again, bit for bit) and
  /// records the restart's provenance under /provenance/restart_NNN.
  static GridFile reopen(const Options& o, index_t restart_step);

  GridFile(GridFile&&) noexcept;
  GridFile& operator=(GridFile&&) noexcept;
  ~GridFile();  ///< closes; a file that never got a step is removed

  /// Writes /steps/NNNNNN/u with attributes time and step, flushes, then
  /// rewrites the sidecar. `values` is packed x fastest in the run's
  /// precision: the whole field, or this rank's part (Options::part).
  /// `heat_flux` (optional): the flux at the same nodes, 3 values a node
  /// ((qx, qy, qz) fastest), written as /steps/NNNNNN/heat_flux in the
  /// run's precision and listed in the sidecar as a Vector attribute.
  template <class T>
  void write_step(index_t step, double time, const T* values, const T* heat_flux = nullptr);
  /// Appends rows to the probe series (Options::probes, in that order) and
  /// flushes. Collective files: every rank passes the same rows.
  void append_probes(const ProbeRows& rows);
  bool has_step(index_t step) const;
  const std::vector<OutputStep>& steps() const;
  /// Appends one row to the time series table `path` (e.g.
  /// "/diagnostics/heat_flows": float64, rows x row.size(), extendible,
  /// created on first use with the string attribute `columns`, the names
  /// joined by ',', and `attributes`), flushed like a step. row[0] is the
  /// step: rows of this step or later are dropped first, and reopen() drops
  /// the rows after its restart step from every table under /diagnostics,
  /// so a step is never in a table twice. Parallel file: collective, rank
  /// 0's row is written.
  void append_row(const std::string& path, const std::vector<std::string>& columns,
                  const std::vector<std::pair<std::string, std::string>>& attributes, const std::vector<double>& row);
  /// reopen() found the file as a killed run left it inside a write, and
  /// restored it to its last complete step.
  bool rolled_back() const;
  const std::string& path() const;

  /// A steady solve's record (adi3d run with solve: steady): /steady with
  /// attributes converged, iterations, relative_residual, tolerance,
  /// imbalance_W and the dataset /steady/residual, rows (sweeps, relative
  /// residual) at the start, every restart and the end. Every rank passes
  /// the same record (a collective file).
  struct SteadyRecord {
    bool converged = false;
    long long iterations = 0;
    double residual = 0.0, tolerance = 0.0, imbalance_W = 0.0;
    std::vector<std::pair<long long, double>> history;
  };
  void write_steady(const SteadyRecord& r);

  /// Sets the root `status` attribute and /provenance end_time, flushes.
  void set_status(const std::string& status);
  /// set_status(status), closes, and puts the file under its final name if it
  /// was still a temporary.
  void finish(const std::string& status);

 private:
  struct Impl;
  explicit GridFile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace adi::io
