#pragma once
// The text `adi3d layout` prints: a map drawn as a grid (rows j = lanes,
// columns i, the slot k and its bank), its shared-memory cost, and the
// wavefronts of the row-wise and column-wise passes from the bank model.
// Plain host code, so it is unit-tested without the CLI.

#include <adi/transpose/maps.hpp>

#include <string>

namespace adi::transpose {

struct LayoutRequest {
  int width = 0;                    ///< I, elements per thread, 1..256
  int elem_bytes = 4;               ///< 4 (f32) or 8 (f64)
  MapKind map = MapKind::Giles;
  bool vector16 = false;            ///< draw the 16-byte variant of the map (I % v == 0)
};

// Parsers for the `adi3d layout` flags. Each throws adi::InvalidArgument with
// one line naming the flag, e.g. "--width: expected an integer in 1..256
// (elements per thread), got '300'".
int parse_width(const std::string& s);
int parse_dtype(const std::string& s);  ///< "f32"/"float32"/"float" -> 4, "f64"/"float64"/"double" -> 8
MapKind parse_map_kind(const std::string& s);

/// Checks a request (the same messages as the parsers, plus --vector16 with
/// an I that is not a multiple of the vector length).
void check_request(const LayoutRequest& r);

/// The map as a formula with I's numbers filled in, e.g. "k = e + floor(e / 96)".
std::string map_formula(MapKind map, int I, int elem_bytes, bool vector16 = false);

/// The whole report. Throws adi::InvalidArgument for a bad request.
std::string layout_report(const LayoutRequest& r);

}  // namespace adi::transpose
