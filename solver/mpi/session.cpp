// MPI set-up and the small world-communicator helpers of adi/mpi.hpp.

#include <adi/mpi.hpp>

#include "mpi_check.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

namespace adi::mpi {

namespace {
bool g_active = false;  // this process called MPI_Init through a Session
int g_local_rank = 0;
}  // namespace

bool built() { return true; }

Session::Session(int* argc, char*** argv, bool init) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized || !init) return;
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  // Errors are checked and turned into exceptions (and MPI_Abort in the app).
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &g_local_rank);
  MPI_Comm_free(&node);
  active_ = g_active = true;
}

Session::~Session() {
  if (!active_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
  g_active = false;
}

namespace {
bool running() {
  if (g_active) return true;
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;  // e.g. a test program that initialised MPI itself
}
}  // namespace

int world_rank() {
  if (!running()) return 0;
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size() {
  if (!running()) return 1;
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

int local_rank() {
  if (g_active) return g_local_rank;
  if (!running()) return 0;
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int r = 0;
  MPI_Comm_rank(node, &r);
  MPI_Comm_free(&node);
  return r;
}

void allreduce_max(double* values, int n) {
  if (world_size() > 1) ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
}

void allreduce_sum(double* values, int n) {
  if (world_size() > 1) ADI_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
}

void broadcast(std::string& s, int root) {
  if (world_size() == 1) return;
  unsigned long long n = s.size();
  ADI_MPI_CHECK(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD));
  ADI_REQUIRE(n < static_cast<unsigned long long>(std::numeric_limits<int>::max()), "broadcast: string too long");
  s.resize(static_cast<std::size_t>(n));
  if (n > 0) ADI_MPI_CHECK(MPI_Bcast(&s[0], static_cast<int>(n), MPI_CHAR, root, MPI_COMM_WORLD));
}

void barrier() {
  if (world_size() > 1) ADI_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

void abort(int code) {
  if (running() && world_size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace adi::mpi
