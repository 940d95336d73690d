#pragma once
// Knobs of the backends for experiments and debugging. Library code never
// reads the environment: the app reads the ADI_* variables once
// (app/env_options.cpp) into this struct and passes it down; `adi3d info -v`
// prints it. The defaults are what the planners choose by themselves.

#include <adi/common.hpp>

#include <cstddef>
#include <string>

namespace adi {

struct SolverOptions {
  // --- CUDA ---
  int cuda_device = -1;      ///< ADI_CUDA_DEVICE: device index (-1: 0, or local rank modulo devices under MPI)
  bool cuda_sync = false;    ///< ADI_CUDA_SYNC=1: synchronise and check after every launch (debugging)
  int x_seg = 0;             ///< ADI_X_SEG: rows per thread of the x line kernel (0: the planner's choice)
  int yz_seg = 0;            ///< ADI_YZ_SEG: rows per thread of the y/z line kernel (0: the planner's choice)
  bool lanes_const = true;   ///< ADI_LANES_CONST=0: y/z row tables from shared memory, not the constant bank
  /// ADI_LANES_PAIRS=0: fp32 y/z lines one line a thread, instead of two
  /// neighbouring lines a thread: lines of 1025-1056 rows (16-line tiles,
  /// 128-byte rows) and of 65-512 rows where there are more than 448 lines
  /// a plane (8 64-line tiles and more, 256-byte rows; adi::lanes_pairs_pay)
  bool lanes_pairs = true;
  /// ADI_LONG_LINES=0: lines no block holds (fp64 past 1056 rows, fp32 past
  /// 2048, x past 2048) take the generic thread-per-line Thomas instead of
  /// the long-line kernel (segments in independent warps, three passes)
  bool long_lines = true;
  /// ADI_LINE_BLOCKS=0: x lines of unit stride of 2049 to kBlockMaxRows (8192)
  /// rows take the long-line kernel's three passes (3 1/4 words a point)
  /// instead of the block kernel (a line a block, 2 words)
  bool line_blocks = true;
  int rhs_vec = -1;          ///< ADI_RHS_VEC=0|2|4: points per thread of the RHS kernel (-1: by precision and nx)
  int rhs_ahead = 0;         ///< ADI_RHS_AHEAD=2|4|8: planes the RHS kernels load ahead (0: 4)
  /// ADI_FUSE_RHS=0: the RHS in a pass of its own before the x solve, instead
  /// of computed inside it (single-line x tiles: 7 words a point a step, not 9)
  bool fuse_rhs = true;
  /// ADI_FUSED_PLANES: (line group, plane) steps a block of the fused RHS + x
  /// kernel takes (0: an equal share for each resident block)
  int fused_planes = 0;
  /// ADI_FUSED_TILES=0: x lines of 33-64 rows in the fused RHS + x kernel as
  /// 32 segments of 2 rows (the warp kernel's plan) instead of 8 segments of 8
  /// rows, four lines a transposition tile
  bool fused_tiles = true;
  /// ADI_CUDA_GRAPH=0: launch a step's kernels one by one instead of replaying
  /// them as one captured CUDA graph (the launch gaps dominate small grids)
  bool cuda_graph = true;
  /// ADI_SKIP_FIXED=0: the CUDA stepper moves every node, as before
  /// 2026-11-27, instead of only the unknowns. With a Dirichlet y or z face
  /// the face's nodes never change (their increment is 0), so the classic
  /// single-GPU stepper runs every phase on the rows and planes between such
  /// faces and reads the face rows as ghosts (x lines stay whole: an offset
  /// of one element would break the row alignment).
  bool skip_fixed = true;
  /// ADI_SKIP_FACE_LANE=0: the y and z solves of that box keep the x node of
  /// a high Dirichlet x face as a lane, as before 2026-12-02, where it would
  /// be alone in the last 32-line tile (adi::lanes_without_face: nx = 32 m +
  /// 1, e.g. 257, 513); with skip_fixed only
  bool skip_face_lane = true;
  /// ADI_SHORT_LINES=0: y / z lines of at most 8 rows on the lanes kernel,
  /// as before 2026-11-27, instead of the short kernel (a line a thread in
  /// registers: adi::kShortMaxRows)
  bool short_lines = true;
  /// ADI_LANES_HALF_TILES=0: fp64 z lines of 16-row segments (73-256 rows)
  /// in 32-line tiles (256-byte rows) also where the last one would be at
  /// most half full or a row of lanes is 7-12 whole tiles, as before
  /// 2026-12-01, instead of 16-line tiles (128-byte rows;
  /// adi::lanes_fp64_half_tile)
  bool lanes_half_tiles = true;
  /// ADI_ROW_ALIGN: bytes every row of the field starts on (16, 32, 64, 128
  /// or 256; 0: the planner's choice, 128 on the GPU, packed rows on the
  /// CPU, whose MPI ranks and general path stay packed whatever is set). The row pitch is the row length rounded up to it, so the padding
  /// costs memory: at 257^3 a grid grows 12.1 % (fp32) / 5.8 % (fp64) at 128
  /// bytes, 2.7 % / 1.2 % at 32, and the y and z solves slow down below 128
  /// (docs/PERFORMANCE.md, the row alignment).
  int row_align = 0;
  /// ADI_GENERAL_SEGMENTED=0: the general path (materials, flux / Robin /
  /// periodic faces) solves one line per thread, bit for bit the CPU oracle,
  /// instead of the segmented kernel (agrees to round-off, several times faster)
  bool general_segmented = true;
  /// ADI_GENERAL_X_IN_PLACE=0: x lines of uniform segments (open lines of
  /// up to 1024 rows) also go through the x <-> y transposed grid (two
  /// transpositions, 7 words a point) instead of being solved in place, their
  /// tiles copied line by line (3 words a point): the path before, kept for
  /// comparison
  bool general_x_in_place = true;
  /// ADI_GENERAL_X_TRANSPOSE=0: the x lines the in-place copies do not take
  /// (rings of balanced segments) are solved in place anyway, each thread
  /// reading its segment's contiguous rows, instead of on the transposed grid
  bool general_x_transpose = true;
  /// ADI_CLASSIC_RINGS=0: a periodic axis with constant K and c takes the
  /// general segmented kernel (reduced system closed into a ring) instead of
  /// the classic kernels with the Sherman-Morrison correction
  bool classic_rings = true;
  // --- MPI ---
  bool mpi_overlap = true;   ///< ADI_MPI_OVERLAP=0: no halo/compute overlap, one exchange per axis
  int mpi_batches = 0;       ///< ADI_MPI_BATCHES: batches of lines per reduced-system exchange (0: auto)

  /// Elements a device row of nx values of elem_bytes each takes: nx rounded
  /// up so that every row starts on row_align bytes (0: 128). The CUDA
  /// steppers and ranks pad their rows to it; the memory estimate counts it;
  /// the CPU stepper too where row_align is set (device_row_pitch(1, ..) is
  /// then its alignment in elements).
  index_t device_row_pitch(index_t nx, std::size_t elem_bytes) const;

  /// One line per knob, "name = value (default|set)", for `adi3d info -v`.
  std::string describe() const;
};

}  // namespace adi
