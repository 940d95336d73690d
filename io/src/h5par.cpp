// MPI for the collective writes of outputs and checkpoints (see h5par.hpp).

#include "h5par.hpp"

#include <limits>

#ifdef ADI_HAVE_PARALLEL_HDF5
#include <mpi.h>
#endif

namespace adi::io::detail::par {

PartSpaces part_spaces(const std::array<index_t, 3>& n, const FieldPart& p, const std::string& context,
                       hsize_t components) {
  // A vector field has a fourth, fastest axis of `components` values a node
  // (0: a scalar field, 3-D).
  const int rank = components > 0 ? 4 : 3;
  const hsize_t dims[4] = {static_cast<hsize_t>(n[2]), static_cast<hsize_t>(n[1]), static_cast<hsize_t>(n[0]),
                           components};
  const hsize_t start[4] = {static_cast<hsize_t>(p.offset[2]), static_cast<hsize_t>(p.offset[1]),
                            static_cast<hsize_t>(p.offset[0]), 0};
  const hsize_t count[4] = {static_cast<hsize_t>(p.count[2]), static_cast<hsize_t>(p.count[1]),
                            static_cast<hsize_t>(p.count[0]), components};
  for (int a = 0; a < 3; ++a)
    if (p.offset[a] < 0 || p.count[a] < 0 || p.offset[a] + p.count[a] > n[a])
      throw IoError(context + ": this rank's part lies outside the grid", __FILE__, __LINE__);
  PartSpaces s;
  s.file = H5Id(ADI_H5_CHECK(H5Screate_simple(rank, dims, nullptr), context, "cannot create a dataspace"), H5Sclose);
  const bool empty = count[0] * count[1] * count[2] == 0;
  const hsize_t one[4] = {1, 1, 1, 1};
  s.mem = H5Id(ADI_H5_CHECK(H5Screate_simple(rank, empty ? one : count, nullptr), context, "cannot create a dataspace"),
               H5Sclose);
  if (empty) {  // a rank without nodes still takes part in the collective write
    ADI_H5_CHECK(H5Sselect_none(s.file.get()), context, "cannot select");
    ADI_H5_CHECK(H5Sselect_none(s.mem.get()), context, "cannot select");
  } else {
    ADI_H5_CHECK(H5Sselect_hyperslab(s.file.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), context,
                 "cannot select this rank's part");
  }
  return s;
}

#ifdef ADI_HAVE_PARALLEL_HDF5

namespace {
bool mpi_up() {
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  return up && !down;
}
}  // namespace

bool built() { return true; }

int rank() {
  int r = 0;
  if (mpi_up()) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() {
  int n = 1;
  if (mpi_up()) MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

H5Id fapl(const std::string& context) {
  init_hdf5();
  if (!mpi_up()) throw IoError(context + ": a collective write needs MPI, which is not running", __FILE__, __LINE__);
  H5Id p(ADI_H5_CHECK(H5Pcreate(H5P_FILE_ACCESS), context, "cannot create a property list"), H5Pclose);
  ADI_H5_CHECK(H5Pset_fapl_mpio(p.get(), MPI_COMM_WORLD, MPI_INFO_NULL), context, "cannot select the MPI-IO driver");
  // Metadata: read once and broadcast, written collectively (HDF5 >= 1.10.1);
  // every rank modifies it identically anyway (same calls, same values).
  ADI_H5_CHECK(H5Pset_all_coll_metadata_ops(p.get(), true), context, "cannot set collective metadata reads");
  ADI_H5_CHECK(H5Pset_coll_metadata_write(p.get(), true), context, "cannot set collective metadata writes");
  H5Pset_fclose_degree(p.get(), H5F_CLOSE_STRONG);
  return p;
}

H5Id dxpl(const std::string& context) {
  H5Id p(ADI_H5_CHECK(H5Pcreate(H5P_DATASET_XFER), context, "cannot create a property list"), H5Pclose);
  ADI_H5_CHECK(H5Pset_dxpl_mpio(p.get(), H5FD_MPIO_COLLECTIVE), context, "cannot select collective transfers");
  return p;
}

void bcast(std::string& s) {
  if (!mpi_up()) return;
  unsigned long long n = s.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  s.resize(static_cast<std::size_t>(n));
  // In pieces below INT_MAX (a resolved config is small; a step list may not be).
  for (std::size_t off = 0; off < s.size(); off += std::size_t(1) << 30) {
    const int len = static_cast<int>(std::min<std::size_t>(s.size() - off, std::size_t(1) << 30));
    MPI_Bcast(&s[off], len, MPI_CHAR, 0, MPI_COMM_WORLD);
  }
}

void barrier() {
  if (mpi_up()) MPI_Barrier(MPI_COMM_WORLD);
}

void agree(const std::function<void()>& f) {
  std::string message;
  bool failed = false;
  try {
    f();
  } catch (const std::exception& e) {
    failed = true;
    message = e.what();
  }
  if (!mpi_up()) {
    if (failed) throw IoError(message, __FILE__, __LINE__);
    return;
  }
  int me = failed ? rank() : std::numeric_limits<int>::max(), first = 0;
  MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == std::numeric_limits<int>::max()) return;
  unsigned long long n = message.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, first, MPI_COMM_WORLD);
  message.resize(static_cast<std::size_t>(n));
  MPI_Bcast(message.data(), static_cast<int>(n), MPI_CHAR, first, MPI_COMM_WORLD);
  throw IoError(message, __FILE__, __LINE__);
}

#else  // serial HDF5: one process writes every file

namespace {
[[noreturn]] void unavailable(const std::string& context) {
  throw IoError(context + ": this adi3d was built without parallel HDF5 (collective writes)", __FILE__, __LINE__);
}
}  // namespace

bool built() { return false; }
int rank() { return 0; }
int size() { return 1; }
H5Id fapl(const std::string& context) { unavailable(context); }
H5Id dxpl(const std::string& context) { unavailable(context); }
void bcast(std::string&) {}
void barrier() {}
void agree(const std::function<void()>& f) { f(); }

#endif

}  // namespace adi::io::detail::par
