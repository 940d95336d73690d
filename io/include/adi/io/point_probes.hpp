#pragma once
// Probes: the field at named points in physical coordinates (`probes:` in a
// config, io/config.hpp), by trilinear interpolation of the nodal field.
// Not to be confused with io/probe.hpp (input files read in a child first).
//
// Along each axis a point at x lies between node i and node i + 1:
//
//     t = (x - x0) / h,  i = floor(t),  w = t - i in [0, 1)
//
// and the value is sum over the corners of prod_a (w_a or 1 - w_a) u_corner.
// Exact at nodes: a point within 1e-9 h of a node (x typed as 0.015 may be
// 20.000000000000004 spacings from the origin) is that node, and a weight
// of 0 drops the axis' second node, so a probe at a node returns its value
// bit for bit (1 * u). A flat axis (n = 1) has one node: the coordinate must
// lie in the box [x0, x0 + L] but is otherwise not used. A periodic axis
// wraps: a point between node n - 1 and x0 + L interpolates between node
// n - 1 and node 0. A point outside the box is a ConfigError naming the
// probe, its coordinates and the box (exit 2).
//
// The corners are visited in one fixed order (x fastest) from values read
// by whichever rank owns each node, so the value does not depend on how a
// distributed run cuts the grid (app/probes.cpp).

#include <adi/common.hpp>
#include <adi/io/config.hpp>

#include <array>
#include <string>
#include <vector>

namespace adi::io {

/// Where one probe sits in the grid.
struct ProbeStencil {
  std::string name;
  std::array<double, 3> x{{0.0, 0.0, 0.0}};  ///< as configured [m]
  std::array<index_t, 3> lo{{0, 0, 0}};      ///< the node below the point per axis
  std::array<index_t, 3> hi{{0, 0, 0}};      ///< the node above (the wrapped node 0 on a periodic axis)
  std::array<double, 3> w{{0.0, 0.0, 0.0}};  ///< weight of hi per axis; 0: the point is at lo's coordinate

  /// Corners with a weight: 1 (at a node) to 8. Corner c takes hi along axis
  /// a when bit q of c is set, q counting only the axes with w > 0 (x first).
  int corners() const;
  std::array<index_t, 3> corner(int c) const;
  double weight(int c) const;
};

/// Locates the config's probes in its grid (c.problem.n, lengths, origin:
/// call it once the grid is final, after an initial file gave it). Throws
/// ConfigError (at the probe's key) for a point outside the box.
std::vector<ProbeStencil> locate_probes(const RunConfig& c);
/// One point (its name, coordinates and `where`), the error naming `key`.
ProbeStencil locate_probe(const RunConfig& c, const ProbePoint& p, const std::string& key);

/// The value at a probe from its corners' values (corner order).
double interpolate(const ProbeStencil& s, const double* corner_values);

/// The value at a probe from a whole field, packed x fastest, extents n.
template <class T>
double probe_value(const ProbeStencil& s, const T* u, const std::array<index_t, 3>& n) {
  double v[8];
  const int m = s.corners();
  for (int c = 0; c < m; ++c) {
    const auto k = s.corner(c);
    v[c] = static_cast<double>(u[k[0] + n[0] * (k[1] + n[1] * k[2])]);
  }
  return interpolate(s, v);
}

/// Rows of probe values: row r holds steps[r], times[r] and one value per
/// probe, values[r * probes + p], in the config's order.
struct ProbeRows {
  std::size_t probes = 0;
  std::vector<index_t> steps;
  std::vector<double> times;
  std::vector<double> values;
  std::size_t size() const { return steps.size(); }
  bool empty() const { return steps.empty(); }
  void clear() {
    steps.clear();
    times.clear();
    values.clear();
  }
};

/// A probe series as the output file holds it (/probes/<name>).
struct ProbeSeries {
  std::string name;
  std::array<double, 3> x{{0.0, 0.0, 0.0}};
};
std::vector<ProbeSeries> probe_series(const RunConfig& c);

/// The CSV the probes go to ("" for none): probes.csv's name, or with
/// `csv: true` the output's name, run.h5 -> run.probes.csv (relative to the
/// working directory, like output.file).
std::string probes_csv_path(const RunConfig& c);

/// The CSV of a run: "step,time,<name>,..." then one line a recorded step
/// (times and values with 17 significant digits: they read back exactly).
class ProbeCsv {
 public:
  /// A fresh run: creates `path` (replacing a file there: the caller has
  /// checked that this is wanted) with its header. A restart from
  /// `restart_step` (>= 0): keeps the existing file's lines up to that step
  /// (a line a killed run left half-written, and the lines after the step,
  /// are dropped; the file is rewritten through a temporary and a rename),
  /// or starts a new one when there is none. A file whose header names other
  /// probes is an IoError.
  ProbeCsv(std::string path, const std::vector<std::string>& names, index_t restart_step = -1);
  /// Appends rows and flushes them to the file.
  void append(const ProbeRows& rows);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::size_t columns_ = 0;
};

}  // namespace adi::io
