#pragma once
// Internal to adi::mpi: point-to-point messages of any length (MPI counts are
// ints: a large message goes in pieces whose counts fit one), shared by the
// distributed steppers' scatter and gather.
#include "mpi_check.hpp"

#include <adi/common.hpp>

#include <algorithm>

namespace adi::mpi::detail {

constexpr index_t kChunk = index_t(1) << 28;

template <class T>
void send_all(const T* p, index_t n, int dest, int tag, MPI_Comm comm) {
  for (index_t o = 0; o < n; o += kChunk)
    ADI_MPI_CHECK(MPI_Send(p + o, static_cast<int>(std::min(kChunk, n - o)), datatype<T>(), dest, tag, comm));
}
template <class T>
void recv_all(T* p, index_t n, int src, int tag, MPI_Comm comm) {
  for (index_t o = 0; o < n; o += kChunk)
    ADI_MPI_CHECK(MPI_Recv(p + o, static_cast<int>(std::min(kChunk, n - o)), datatype<T>(), src, tag, comm,
                           MPI_STATUS_IGNORE));
}

}  // namespace adi::mpi::detail
