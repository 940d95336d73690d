// adi3d layout: draws a shared-memory index map (transpose module) and its
// bank-model wavefront counts. Only flag handling lives here; the text is
// adi::transpose::layout_report, unit-tested on its own.

#include "commands.hpp"
#include "exit_codes.hpp"

#include <adi/transpose/layout_report.hpp>

#include <cstdio>

namespace adi::app {

int cmd_layout(const LayoutOptions& o) {
  transpose::LayoutRequest r;
  r.width = transpose::parse_width(o.width);
  r.elem_bytes = transpose::parse_dtype(o.dtype);
  r.map = transpose::parse_map_kind(o.map);
  r.vector16 = o.vector16;
  std::fputs(transpose::layout_report(r).c_str(), stdout);
  return kOk;
}

}  // namespace adi::app
