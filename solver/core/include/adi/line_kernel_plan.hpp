#pragma once
// Which line kernel solves the lines of one axis, with which segment length I
// and segment count S: pure host code (no CUDA), so the choice is printable
// and unit-tested without a GPU. The CUDA backend (solver/cuda/line_solver.cu)
// builds its tables and launches what this returns. The kernels themselves:
// solver/cuda/kernels/{warp,lanes,long,block,generic,short}_kernel.cu.

#include <adi/common.hpp>
#include <adi/options.hpp>

#include <cstddef>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>

namespace adi {

enum class LineKernelFamily {
  Warp,     ///< x lines of unit stride: a warp owns 32/S lines, lane = segment
  Lanes,    ///< y/z lines (and long or strided x lines): lane = line, warp = segment(s)
  Long,     ///< lines longer than a block holds: segments of kLongI rows in independent
            ///< warps (lane = line), the reduced system through global memory (three passes)
  Block,    ///< x lines of unit stride past the warp kernel, up to kBlockMaxRows: a line a
            ///< block, lane = segment of kLongI rows, the reduced system scanned across
            ///< the block's warps (one pass)
  Generic,  ///< thread-per-line Thomas through global memory (two passes)
  Short,    ///< y/z (or strided x) lines of at most kShortMaxRows rows: a thread a line,
            ///< every row loaded at once and solved in registers (one pass)
};

struct LineKernelPlan {
  LineKernelFamily family = LineKernelFamily::Generic;
  int I = 0;  ///< segment length (rows per thread); the line length n for Generic
  int S = 0;  ///< segments per line (a power of two; ceil(n / kLongI) for Long and Block); 1 for Generic
  /// Lanes: lines a tile holds. 32: a warp is one segment of 32 lines. 16
  /// (kLanesHalfTile): a warp is two segments of 16 lines, for lines longer
  /// than 16 segments of lanes_max_I rows hold (a 32-line tile of them would
  /// need 32 segments, i.e. 1024 threads with 64 registers each, which do
  /// not hold I values of lanes_max_I; 16 lines of 16-32 such segments keep
  /// the 512-thread block and its registers). 0 for the other families.
  int G = 0;
};

/// Lines a tile of the lanes kernel holds when a line is too long for 32.
/// 16 lines are still whole 32-byte sectors (fp32: 64 bytes, fp64: 128
/// bytes a row), so the loads stay coalesced.
constexpr int kLanesHalfTile = 16;
/// Most segments with 16-line tiles: two segments a warp, 16 warps.
constexpr int kLanesHalfMaxSegments = 32;
/// The odd segment length, built for 16-line tiles (lanes) and the warp
/// kernel: 32 segments of 33 rows hold lines of 1025 to 1056 rows (a grid of
/// h = 1/1024 with both boundary nodes), which 64-row segments carry at
/// twice their length.
constexpr int kOddLongI = 33;
/// Longest segment of a 16-line tile: lanes_max_I, and 33 for fp64.
constexpr int lanes_half_max_I(std::size_t element_size) { return element_size == 4 ? 64 : kOddLongI; }

/// Whether fp32 y / z lines in 32-line tiles take the lanes kernel's pair
/// build (two neighbouring lines a lane: 64-line tiles, 256-byte rows, at
/// fp64's bytes and registers) for `lanes` lines a plane: from 8 such tiles
/// on (more than 448 lanes; the last tile then leaves at most 63 of 512
/// lanes idle). Pairs measured faster from 500 lanes on and slower wherever
/// a row of lanes has few tiles, ragged or whole (docs/PERFORMANCE.md,
/// "Segment lengths and tiles"): a pair doubles each thread's serial chain
/// in a tile and halves the threads that hide it; with 2-4 tiles a row of
/// lanes there are too few tiles an SM to cover that. (The 16-line tiles' pairs,
/// I = kOddLongI, take no such rule: their 32-line rows are the one-line
/// build's 16 at twice the bytes.)
constexpr bool lanes_pairs_pay(index_t lanes) { return lanes > 7 * 64; }

/// Whether fp64 z lines of 16-row segments (I = 16: 73-128 rows in S = 8,
/// 145-256 in S = 16) take 16-line tiles (128-byte rows) although 32-line
/// tiles hold them, for `lanes` lines along the lanes axis (0: not known,
/// 32-line tiles): where the last 32-line tile would be at most half full
/// (lanes % 32 in 1..16), so that 16-line tiles leave fewer lanes idle; and
/// for whole 32-line tiles from 7 to 12 a row of lanes (224-384 lanes). A
/// 32-line fp64 tile of 16 segments is 16 warps and 64 KB a stage (one block
/// an SM with the two stages the accumulating z + update takes); a 16-line
/// one 8 warps and 32 KB (three an SM), so more of z + update's blocks
/// reside. The window is measured, not derived (docs/PERFORMANCE.md,
/// "Segment lengths and tiles"): z + update faster at ragged lanes and at
/// 224-384 whole ones, slower at 160 lanes, at 4096 and with I = 17; the y
/// solves gained nothing: hence z only, I = 16 only.
constexpr bool lanes_fp64_half_tile(int I, int S, std::size_t element_size, Axis axis, index_t lanes) {
  const bool ragged = lanes % 32 >= 1 && lanes % 32 <= 16;
  const bool few_whole = lanes % 32 == 0 && lanes >= 7 * 32 && lanes <= 12 * 32;
  return element_size == 8 && axis == Axis::Z && I == 16 && S >= 2 && lanes > 0 && (ragged || few_whole);
}

/// The lanes of the y and z solves of a step on a grid of nx x nodes (the
/// lanes axis of both: unit stride) whose high x face is Dirichlet
/// (hi_fixed): nx - 1 where that face's node would be the only lane of the
/// last 32-line tile (nx = 32 m + 1: 257, 513, 1025, the 2^k + 1 sizes users
/// pick), else nx. Leaving the node out is exact: its increment is 0 after
/// the x solve (an identity row with a zero right-hand side), a y or z line
/// through it solves to 0 and adds 0 to u, and lanes are independent lines.
/// What it saves is a tile a row of lanes that moves 1/32 of a tile's bytes
/// at nearly a tile's latency: 9 -> 8 tiles at 257, 17 -> 16 at 513, and
/// the whole tiles left take the unpredicated path (and at 512 lanes, in
/// fp32, the pair tiles, adi::lanes_pairs_pay); measured in
/// docs/PERFORMANCE.md, "The step". The low face's node stays: dropping it
/// would move every tile one element off the 128-byte rows. Other nx keep
/// the node (nx = 32 m would turn a whole last tile into a ragged one).
constexpr index_t lanes_without_face(index_t nx, bool hi_fixed) {
  return hi_fixed && nx > 1 && nx % 32 == 1 ? nx - 1 : nx;
}

/// Longest line the short kernel takes (LineKernelFamily::Short). The lanes
/// kernel gives such a line a whole 32-line tile a warp, and a warp keeps one
/// tile in flight: 8192 x 8192 x 3 fp32 z lines of 3 rows ran at 40 % of
/// copy, and the same lines of 1 row (the plane between two Dirichlet faces)
/// took as long. A thread a line issues all of its loads at once.
constexpr int kShortMaxRows = 8;

/// Longest line the warp kernel takes: 32 lanes of at most kWarpMaxI rows.
constexpr int kWarpMaxI = 64;

/// The warp kernel's segment lengths, ascending: the only ones its launcher
/// and the fused RHS + x kernel's are instantiated for
/// (solver/cuda/kernels/warp_kernel.cu, fused_x_kernel.cu). plan_line_kernel
/// picks from this list and LineSolver dispatches through it
/// (with_warp_segment_length), so the two cannot drift apart.
inline constexpr int kWarpSegmentLengths[] = {2, 4, 5, 8, 9, 16, 17, 32, kOddLongI, 64};
static_assert(kWarpSegmentLengths[std::size(kWarpSegmentLengths) - 1] == kWarpMaxI, "the list ends at kWarpMaxI");

namespace detail {
template <class F, std::size_t... K>
bool with_warp_segment_length(int I, F& f, std::index_sequence<K...>) {
  return ((I == kWarpSegmentLengths[K] ? (f(std::integral_constant<int, kWarpSegmentLengths[K]>{}), true) : false) ||
          ...);
}
}  // namespace detail

/// Calls f(std::integral_constant<int, I>{}) when I is one of
/// kWarpSegmentLengths and returns true; returns false (f not called) for any
/// other I.
template <class F>
bool with_warp_segment_length(int I, F&& f) {
  return detail::with_warp_segment_length(I, f, std::make_index_sequence<std::size(kWarpSegmentLengths)>{});
}

/// Most segments (warps per block) the lanes kernel runs with segment length
/// I: 1024 threads while a thread's I values fit in the 64 registers that
/// leaves, 512 threads (128 registers) for longer segments. Also the kernel's
/// __launch_bounds__, hence constexpr and usable from device code.
constexpr int lanes_max_segments(int I) { return I <= 16 ? 32 : 16; }
/// Segments the lanes kernel plans for lines of up to 8 x 16 = 128 rows:
/// fewer, longer segments than the 16 it prefers for longer lines.
constexpr int kLanesShortMaxSegments = 8;

/// Longest segment the lanes kernel is built for, per element size: I values
/// per thread must fit next to the rest in the registers a thread gets.
constexpr int lanes_max_I(std::size_t element_size) { return element_size == 4 ? 64 : 32; }

/// Rows per thread of the long-line kernel (LineKernelFamily::Long): 32
/// values a thread (64 registers in fp64), and a tile of 32 lines x 32 rows
/// is one WarpTranspose of the x lines' rows. Its reduced system has 2
/// rows a segment, i.e. 2 / kLongI of the line: 1/16 of a field of scratch.
constexpr int kLongI = 32;
/// Most warps of the block kernel (LineKernelFamily::Block), a line a block:
/// 256 threads, so that a thread may keep its kLongI values (fp64: 64
/// registers) and the transposition's row buffer next to them.
constexpr int kBlockMaxWarps = 8;
/// Longest line the block kernel takes: 32 segments of kLongI rows a warp.
constexpr int kBlockMaxRows = 32 * kLongI * kBlockMaxWarps;
/// Shortest line the long-line kernel takes (the other families hold every
/// line up to 1056 rows).
constexpr int kLongMinRows = 2 * kLongI + 1;

/// Smallest power of two >= v (1 for v <= 1).
int next_pow2(index_t v);

/// The kernel for lines of length n along `axis`; `unit_stride`: the lines'
/// elements are adjacent in memory (only x lines can use the warp kernel).
/// options.x_seg / options.yz_seg (when > 0) force the segment length of the
/// warp / lanes kernel; an override that does not fit (S above the family's
/// maximum, I < 2, or I above lanes_max_I) falls back to Generic. An override
/// the family has no instantiation for (e.g. I = 3) is returned as is: the
/// launch then reports the unsupported segment length. Lanes lines that 16
/// segments of 32 lines cannot hold take 16-line tiles (G = 16) of up to 32
/// segments: fp64 up to 1056 rows (I = 33), fp32 up to 2048. Longer lines
/// (and x lines past 2048) take the long-line kernel (Long, I = kLongI, S =
/// ceil(n / kLongI)) unless options.long_lines is off or an override
/// (x_seg / yz_seg) is set: then the generic kernel. x lines of unit stride
/// of up to kBlockMaxRows rows among them take the block kernel (Block, the
/// same I and S) unless options.line_blocks is off.
/// `lanes`: the lines' count along the lanes axis, where the caller knows it
/// (0: not known), for the choices that depend on it (lanes_fp64_half_tile).
LineKernelPlan plan_line_kernel(index_t n, Axis axis, bool unit_stride, std::size_t element_size,
                                const SolverOptions& options = {}, index_t lanes = 0);

const char* family_name(LineKernelFamily f);
/// Words a point the plan's solve must move in memory: 2 for the warp and
/// lanes kernels (the line read once and written once); 3 + 8 / kLongI for
/// the long-line kernel (read twice, written once, and its reduced rows
/// written, read and written by the nested solve, and read); 2 for the
/// block kernel (the line held in registers across the reduced solve); 4 for the
/// generic kernel (read, write the forward sweep, read it, write). The
/// fused update adds 1 (read the accumulator; its write replaces the line's).
double solve_words(const LineKernelPlan& p);
/// "warp kernel, I = 16, S = 32" and the like.
std::string describe(const LineKernelPlan& p);

}  // namespace adi
