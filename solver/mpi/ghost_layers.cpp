// exchange_ghost_layers (adi/mpi.hpp): one plane each way across every cut,
// for code outside a stepper that reads a neighbour's nodes (the heat
// flows). Outputs happen rarely, so plain blocking exchanges suffice.

#include <adi/mpi.hpp>

#include "mpi_check.hpp"

#include <vector>

namespace adi::mpi {

void exchange_ghost_layers(const Decomposition& d, int rank, const std::array<index_t, 3>& ext, double* box) {
  if (world_size() == 1) return;
  const LocalPart part = d.part(rank);
  std::array<index_t, 3> g{};
  for (int a = 0; a < 3; ++a) g[a] = (ext[a] - part.box.size[a]) / 2;
  auto at = [&](index_t i, index_t j, index_t k) {
    return static_cast<std::size_t>((i + g[0]) + ext[0] * ((j + g[1]) + ext[1] * (k + g[2])));
  };
  for (int a = 0; a < 3; ++a) {
    if (!d.is_split(a) || g[a] == 0) continue;
    const index_t m = part.box.size[a];
    // The plane along a at local index `l`, whole (ghosts of the other axes
    // included: they are never read, and a plain copy is simpler).
    auto plane = [&](index_t l, std::vector<double>& buf, bool pack) {
      std::array<index_t, 3> lo{{-g[0], -g[1], -g[2]}}, hi{{ext[0] - g[0], ext[1] - g[1], ext[2] - g[2]}};
      lo[a] = l;
      hi[a] = l + 1;
      std::size_t q = 0;
      for (index_t k = lo[2]; k < hi[2]; ++k)
        for (index_t j = lo[1]; j < hi[1]; ++j)
          for (index_t i = lo[0]; i < hi[0]; ++i, ++q) {
            if (pack)
              buf[q] = box[at(i, j, k)];
            else
              box[at(i, j, k)] = buf[q];
          }
    };
    std::size_t count = 1;
    for (int b = 0; b < 3; ++b)
      if (b != a) count *= static_cast<std::size_t>(ext[b]);
    std::vector<double> send(count), recv(count);
    for (const int dir : {-1, 1}) {
      // Send my end plane toward dir, receive the opposite neighbour's into
      // my ghost on the other side.
      const int to = d.neighbour(rank, a, dir), from = d.neighbour(rank, a, -dir);
      plane(dir < 0 ? 0 : m - 1, send, true);
      const int tag = 7300 + 2 * a + (dir > 0 ? 1 : 0);
      ADI_MPI_CHECK(MPI_Sendrecv(send.data(), static_cast<int>(count), MPI_DOUBLE, to < 0 ? MPI_PROC_NULL : to, tag,
                                 recv.data(), static_cast<int>(count), MPI_DOUBLE, from < 0 ? MPI_PROC_NULL : from,
                                 tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      if (from >= 0) plane(dir < 0 ? m : -1, recv, false);
    }
  }
}

}  // namespace adi::mpi
