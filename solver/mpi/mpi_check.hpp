#pragma once
// Internal to adi::mpi: the one error-check macro for MPI calls (the world
// communicator returns errors instead of aborting, see session.cpp); throws
// BackendUnavailable with the file, line, the call and MPI's error text.
#include <adi/error.hpp>

#include <mpi.h>

#include <string>

namespace adi::mpi::detail {

[[noreturn]] inline void throw_mpi_error(int code, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw BackendUnavailable(std::string("MPI error in ") + call + ": " + std::string(text, len), file, line);
}

template <class T> MPI_Datatype datatype();
template <> inline MPI_Datatype datatype<float>() { return MPI_FLOAT; }
template <> inline MPI_Datatype datatype<double>() { return MPI_DOUBLE; }

}  // namespace adi::mpi::detail

#define ADI_MPI_CHECK(call)                                                                        \
  do {                                                                                             \
    const int adi_mpi_rc_ = (call);                                                                \
    if (adi_mpi_rc_ != MPI_SUCCESS) ::adi::mpi::detail::throw_mpi_error(adi_mpi_rc_, #call, __FILE__, __LINE__); \
  } while (0)
