#pragma once
// Internal to the io module: the probe series of an output file (/probes),
// written by GridFile (hdf5_output.cpp). Layout (docs/IO.md):
//
//   /probes                 group; attrs interpolation, columns
//   /probes/<name>          one row a recorded step, compound
//                           {step: int64, time: float64 [s], value: float64},
//                           extendible (chunks of kProbeChunkRows rows);
//                           attr position = [x, y, z] [m]
//
// Every function makes the same HDF5 calls on every rank of a collective
// file (par); only rank 0 (root) selects rows to write.

#include "h5util.hpp"

#include <adi/io/point_probes.hpp>

#include <string>
#include <vector>

namespace adi::io::detail {

/// Rows a chunk of a probe series holds (24 bytes a row).
constexpr hsize_t kProbeChunkRows = 1024;

/// What a probe series in an existing file holds, and how many of its rows
/// a restart from `restart_step` keeps (the rows up to that step).
struct ProbeScan {
  std::string name;
  std::array<double, 3> x{{0.0, 0.0, 0.0}};
  long long rows = 0, kept = 0;
};

/// The series of the file (none without /probes), read only.
std::vector<ProbeScan> scan_probes(hid_t file, long long restart_step, const std::string& context);

/// Every step of every series, for the check that a restart loses none
/// (name, steps in file order).
std::vector<std::pair<std::string, std::vector<long long>>> probe_steps(hid_t file, const std::string& context);

/// Creates /probes (if absent) and an empty series for each probe the file
/// does not hold yet.
void create_probe_series(hid_t file, const std::vector<ProbeSeries>& probes, const std::string& context);

/// Cuts a series to its first `rows` rows.
void truncate_probe_series(hid_t file, const std::string& name, long long rows, const std::string& context);

/// Appends rows to the series of `probes` (rows.values in their order).
void append_probe_rows(hid_t file, const std::vector<ProbeSeries>& probes, const ProbeRows& rows, bool par, bool root,
                       const std::string& context);

}  // namespace adi::io::detail
