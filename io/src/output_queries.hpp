#pragma once
// Internal to io: the header check an output's writer (hdf5_output.cpp) and
// its queries (output_queries.cpp) share.

#include <adi/io/hdf5.hpp>

#include <hdf5.h>

#include <string>

namespace adi::io::detail {

/// An adi3d output of this grid and precision, or IoError naming what
/// differs (`advice` ends the message).
void check_output_header(hid_t f, const GridGeometry& geometry, Precision precision, const std::string& ctx,
                         const std::string& advice);

}  // namespace adi::io::detail
