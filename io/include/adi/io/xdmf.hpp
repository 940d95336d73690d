#pragma once
// The XDMF (version 2) sidecar that makes an output file open in ParaView /
// VisIt: a temporal collection of 3DCoRectMesh grids whose node attribute
// `u` points into the HDF5 file.
//
// XDMF lists dimensions, origin and spacing slowest index first, i.e.
// z y x: Dimensions="nz ny nx", Origin "z0 y0 x0", Spacing "hz hy hx". The
// HDF5 datasets are (nz, ny, nx) too, so the data needs no reordering.

#include <adi/common.hpp>
#include <adi/io/hdf5.hpp>

#include <string>
#include <vector>

namespace adi::io {

/// The XDMF text for `steps` of the HDF5 file `h5_name` (as referenced from
/// the sidecar: normally the base name, the two files sit side by side).
/// `fields`: datasets written once (the material: "/material/conductivity",
/// ...; float64), listed as further node attributes of every step, so
/// ParaView shows them beside u.
std::string xdmf_text(const std::string& h5_name, const GridGeometry& g, Precision p,
                      const std::vector<OutputStep>& steps, const std::vector<std::string>& fields = {});

/// Writes xdmf_text to `path` atomically (temporary + rename): a reader, or
/// a job killed mid-write, sees the previous version or the new one.
void write_xdmf(const std::string& path, const std::string& h5_name, const GridGeometry& g, Precision p,
                const std::vector<OutputStep>& steps, const std::vector<std::string>& fields = {});

}  // namespace adi::io
