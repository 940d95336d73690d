#include <adi/options.hpp>

#include <algorithm>
#include <sstream>

namespace adi {

// 128 bytes, one cache line: a y or z tile row of 16 fp64 / 32 fp32 lines
// is one line. Measured on an H100 (#18, docs/PERFORMANCE.md): 32- and
// 64-byte rows cost 257^3 fp64 9-10 % of its step (y and z tiles straddle
// two lines), 256-byte rows (the fp64 pitch before) gained 0-1.5 % for twice
// the padding.
index_t SolverOptions::device_row_pitch(index_t nx, std::size_t elem_bytes) const {
  const index_t bytes = row_align > 0 ? row_align : 128;
  const index_t a = std::max<index_t>(1, bytes / static_cast<index_t>(elem_bytes));
  return (nx + a - 1) / a * a;
}

std::string SolverOptions::describe() const {
  const SolverOptions d{};
  std::ostringstream s;
  auto line = [&](const char* env, const char* name, auto v, auto dv) {
    s << "  " << name << " = " << v << (v == dv ? "" : "   (set by " + std::string(env) + ")") << "\n";
  };
  line("ADI_CUDA_DEVICE", "cuda_device", cuda_device, d.cuda_device);
  line("ADI_CUDA_SYNC", "cuda_sync", cuda_sync, d.cuda_sync);
  line("ADI_X_SEG", "x_seg", x_seg, d.x_seg);
  line("ADI_YZ_SEG", "yz_seg", yz_seg, d.yz_seg);
  line("ADI_LANES_CONST", "lanes_const", lanes_const, d.lanes_const);
  line("ADI_LANES_PAIRS", "lanes_pairs", lanes_pairs, d.lanes_pairs);
  line("ADI_LONG_LINES", "long_lines", long_lines, d.long_lines);
  line("ADI_LINE_BLOCKS", "line_blocks", line_blocks, d.line_blocks);
  line("ADI_FUSED_TILES", "fused_tiles", fused_tiles, d.fused_tiles);
  line("ADI_RHS_VEC", "rhs_vec", rhs_vec, d.rhs_vec);
  line("ADI_RHS_AHEAD", "rhs_ahead", rhs_ahead, d.rhs_ahead);
  line("ADI_FUSE_RHS", "fuse_rhs", fuse_rhs, d.fuse_rhs);
  line("ADI_FUSED_PLANES", "fused_planes", fused_planes, d.fused_planes);
  line("ADI_CUDA_GRAPH", "cuda_graph", cuda_graph, d.cuda_graph);
  line("ADI_SKIP_FIXED", "skip_fixed", skip_fixed, d.skip_fixed);
  line("ADI_SKIP_FACE_LANE", "skip_face_lane", skip_face_lane, d.skip_face_lane);
  line("ADI_SHORT_LINES", "short_lines", short_lines, d.short_lines);
  line("ADI_LANES_HALF_TILES", "lanes_half_tiles", lanes_half_tiles, d.lanes_half_tiles);
  line("ADI_ROW_ALIGN", "row_align", row_align, d.row_align);
  line("ADI_GENERAL_SEGMENTED", "general_segmented", general_segmented, d.general_segmented);
  line("ADI_GENERAL_X_IN_PLACE", "general_x_in_place", general_x_in_place, d.general_x_in_place);
  line("ADI_GENERAL_X_TRANSPOSE", "general_x_transpose", general_x_transpose, d.general_x_transpose);
  line("ADI_CLASSIC_RINGS", "classic_rings", classic_rings, d.classic_rings);
  line("ADI_MPI_OVERLAP", "mpi_overlap", mpi_overlap, d.mpi_overlap);
  line("ADI_MPI_BATCHES", "mpi_batches", mpi_batches, d.mpi_batches);
  return s.str();
}

}  // namespace adi
