#pragma once
// Reading untrusted HDF5 files without letting the HDF5 library crash adi3d.
//
// HDF5 1.10 (Debian 12 ships 1.10.8) trusts the metadata it reads: a damaged
// or crafted file can make it read out of bounds and die with SIGSEGV
// (tests/fuzz found such files in minutes, e.g. a chunk shape far larger
// than the dataset; h5py crashes on them too). No check adi3d could do
// before calling HDF5 covers every such case, so adi3d first does each read
// of an input file in a child process (fork) that keeps nothing: if the
// child's read succeeds, the parent does the same read, which then behaves
// the same; if it fails with an error, the parent reports that error without
// reading; if the child dies, the run stops with an IoError naming the file
// (exit 3). In every case before anything was written.
// Costs: a fork and a second read of the file (docs/BAD_INPUT.md).

#include <adi/io/hdf5.hpp>

#include <functional>
#include <string>

namespace adi::io {

/// False when ADI_ISOLATE_READS=0 (e.g. where fork() is not allowed): the
/// probes then do nothing and a damaged file may crash the process.
bool isolated_reads_enabled();

/// Runs `probe` (which reads `file`) in a child process and waits at most
/// `timeout_s` seconds; the child may allocate at most `memory_bytes` beyond
/// what the process had (RLIMIT_AS: a damaged size field can make HDF5
/// allocate and fill gigabytes; the child's allocation then fails cleanly).
/// Returns when `probe` returned in the child. Throws an IoError with the
/// message of the exception `probe` threw in the child; "<file>: <what>: the
/// HDF5 library crashed reading it (...)" when the child died; and a timeout
/// error when it did not finish in time.
void probe_in_child(const std::string& file, const std::string& what, const std::function<void()>& probe,
                    double timeout_s, double memory_bytes);

}  // namespace adi::io
