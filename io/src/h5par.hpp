#pragma once
// Internal to the io module: what a collective (parallel HDF5) write needs
// from MPI, on MPI_COMM_WORLD. The only io source that includes mpi.h is
// h5par.cpp; in a build without parallel HDF5 built() is false and the
// rest throws (GridFile and write_checkpoint check built() first).
//
// The rule every collective write follows (hdf5_output.cpp, checkpoint.cpp):
// every rank makes the same HDF5 calls in the same order, and a failure is
// agreed before the next collective step (agree()), so an error on one rank
// becomes the same IoError on all of them instead of a hang.

#include "h5util.hpp"

#include <functional>
#include <string>

namespace adi::io::detail::par {

bool built();
int rank();
int size();
/// File access: the MPI-IO driver on MPI_COMM_WORLD, collective metadata
/// reads and writes (every rank sees the same metadata; one write of it).
H5Id fapl(const std::string& context);
/// Data transfer: collective (needed for filtered datasets: gzip, Fletcher-32).
H5Id dxpl(const std::string& context);
/// Rank 0's string on every rank.
void bcast(std::string& s);
void barrier();
/// The memory and file dataspaces of a rank's part of a field dataset of
/// `n` nodes (dataset order z, y, x; `values` packed x fastest).
struct PartSpaces {
  H5Id mem, file;
};
/// components > 0: a vector field of that many values a node, dataset
/// (nz, ny, nx, components), the values of a node together.
PartSpaces part_spaces(const std::array<index_t, 3>& n, const FieldPart& p, const std::string& context,
                       hsize_t components = 0);
/// Runs f on every rank. If it threw on any rank, every rank throws an
/// IoError: the message of the lowest rank that failed (broadcast), so all
/// ranks report the same thing and go on together.
void agree(const std::function<void()>& f);
/// agree(f) for a collective file, plain f() for a file one process writes
/// (which must not make collective calls: the other ranks are not there).
inline void together(bool collective, const std::function<void()>& f) {
  if (collective)
    agree(f);
  else
    f();
}

}  // namespace adi::io::detail::par
