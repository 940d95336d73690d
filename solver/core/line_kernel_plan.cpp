#include <adi/line_kernel_plan.hpp>

#include <sstream>

namespace adi {

int next_pow2(index_t v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

LineKernelPlan plan_line_kernel(index_t n, Axis axis, bool unit_stride, std::size_t element_size,
                                const SolverOptions& options, index_t lanes) {
  LineKernelPlan plan;
  const int max_I = lanes_max_I(element_size);
  int I = 0, maxS = 0;
  // Short lines across the unit stride (y / z lines, strided x lines): a
  // thread a line (kShortMaxRows). x lines of unit stride keep the warp
  // kernel, whose row loads are the coalesced ones there.
  if (options.short_lines && options.yz_seg == 0 && !(axis == Axis::X && unit_stride) && n <= kShortMaxRows) {
    plan.family = LineKernelFamily::Short;
    plan.I = static_cast<int>(n);
    plan.S = 1;
    return plan;
  }
  if (axis == Axis::X && unit_stride && n <= 32 * kWarpMaxI) {
    plan.family = LineKernelFamily::Warp;
    maxS = 32;
    I = options.x_seg;
    // The smallest I with 32 I >= n. 5, 9, 17 and 33 serve the 2^k + 1
    // lengths users pick (129, 257, 513, 1025: a grid of h = 1/2^k with both
    // boundary nodes): with I = 8 / 16 / 32 / 64 a warp carried 256 / 512 /
    // 1024 / 2048 rows for 129 / 257 / 513 / 1025
    // (segments of odd I are conflict-free in the transposition as they are:
    // Giles' map is the identity there, transpose/maps.hpp).
    if (I == 0)
      for (int c : kWarpSegmentLengths)
        if (32 * c >= n) {
          I = c;
          break;
        }
  } else {
    plan.family = LineKernelFamily::Lanes;
    I = options.yz_seg;
    // Prefer at most 16 segments (512-thread blocks, 128 registers a thread):
    // fewer warps per line means a shorter reduced system and half the idle
    // warps where S I overshoots n. 32 segments only when 16 cannot hold the
    // line. (Only the ceil(n / I) segments with rows are warps.)
    // 17 serves 257-272 rows (2^8 + 1: a grid of h = 1/256 with both
    // boundary nodes): 16 warps of 17 rows built for two blocks an SM (64
    // registers) instead of 9 warps of 32 rows of which the last holds one
    // row. 9 serves 129-144 rows in fp64 only (fp32 measured slower).
    // Lines of 33 to 128 rows take at most 8 segments of up to 16 rows
    // (kLanesShortMaxSegments) instead of 16 of 4 or 8: a tile of 16 warps of
    // 4-8 rows each spent its time on the 32-row reduced system and the
    // block's barriers, not on its few loads. Each choice and its A/B
    // (ADI_YZ_SEG): docs/PERFORMANCE.md, "Segment lengths and tiles".
    const int fewest_max = n <= kLanesShortMaxSegments * 16 ? kLanesShortMaxSegments : 16;
    if (I == 0)
      for (int s_max : {kLanesShortMaxSegments, 16, 32}) {
        if (s_max < fewest_max) continue;
        for (int c : {4, 8, 9, 16, 17, 32, 64})
          if ((c != 9 || element_size == 8) && c <= max_I && s_max <= lanes_max_segments(c) && s_max * c >= n) {
            I = c;
            break;
          }
        if (I) break;
      }
    // Longer lines: 16-line tiles of up to 32 segments (LineKernelPlan::G),
    // the smallest I with 32 I >= n (16 I >= n failed above for every I up
    // to lanes_max_I, so this is I = lanes_max_I or 33).
    const int half_max_I = lanes_half_max_I(element_size);
    if (I == 0)
      for (int c : {4, 8, 16, 32, kOddLongI, 64})
        if (c <= half_max_I && kLanesHalfMaxSegments * c >= n) {
          I = c;
          break;
        }
    // The tile: 32 lines where this I is built for them and its segments
    // fit, else 16 (I = 33 is built for 16-line tiles only).
    const int S = I >= 2 ? next_pow2((n + I - 1) / I) : 0;
    if (lanes_fp64_half_tile(I, S, element_size, axis, lanes)) {
      plan.G = kLanesHalfTile;
      maxS = kLanesHalfMaxSegments;
    } else if (I >= 2 && I != kOddLongI && I <= max_I && S <= lanes_max_segments(I)) {
      plan.G = 32;
      maxS = lanes_max_segments(I);
    } else if (I >= 2 && I <= half_max_I && S >= 2) {  // 16 S a multiple of 32 (the row phase's rounds)
      plan.G = kLanesHalfTile;
      maxS = kLanesHalfMaxSegments;
    } else {
      plan.family = LineKernelFamily::Generic;
    }
  }
  if (plan.family != LineKernelFamily::Generic) {
    const int S = I >= 2 ? next_pow2((n + I - 1) / I) : 0;
    if (S <= maxS && I >= 2) {
      plan.I = I;
      plan.S = S;
      return plan;
    }
    // an override that does not fit: fall back
  }
  plan.G = 0;
  // Lines no block holds (fp64 past 1056 rows, fp32 past 2048, and x lines
  // past 2048): segments of kLongI rows, each an independent warp of 32
  // lines, their reduced system through global memory (three passes, 3
  // words a point plus 8 / kLongI for the reduced rows, against the
  // generic kernel's 4 words at one thread a line). Not for an override that did not fit: that
  // asked for a segment length, and the generic kernel is the fall-back
  // the overrides have always had (ADI_YZ_SEG=2 times it).
  const int override_I = plan.family == LineKernelFamily::Warp ? options.x_seg : options.yz_seg;
  if (options.long_lines && override_I == 0 && n >= kLongMinRows) {
    // x lines of unit stride that a block's registers hold (up to
    // kBlockMaxRows): the block kernel, one pass, 2 words a point instead of
    // 3 1/4 (solver/cuda/kernels/block_kernel.cu).
    plan.family = options.line_blocks && axis == Axis::X && unit_stride && n <= kBlockMaxRows
                      ? LineKernelFamily::Block
                      : LineKernelFamily::Long;
    plan.I = kLongI;
    plan.S = static_cast<int>((n + kLongI - 1) / kLongI);
    return plan;
  }
  plan.family = LineKernelFamily::Generic;
  plan.I = static_cast<int>(n);
  plan.S = 1;
  return plan;
}

const char* family_name(LineKernelFamily f) {
  switch (f) {
    case LineKernelFamily::Warp: return "warp";
    case LineKernelFamily::Lanes: return "lanes";
    case LineKernelFamily::Long: return "long-line";
    case LineKernelFamily::Block: return "block";
    case LineKernelFamily::Generic: return "generic";
    case LineKernelFamily::Short: return "short";
  }
  return "?";
}

double solve_words(const LineKernelPlan& p) {
  switch (p.family) {
    case LineKernelFamily::Warp:
    case LineKernelFamily::Lanes:
    case LineKernelFamily::Block:
    case LineKernelFamily::Short: return 2.0;
    case LineKernelFamily::Long: return 3.0 + 8.0 / kLongI;
    case LineKernelFamily::Generic: return 4.0;
  }
  return 2.0;
}

std::string describe(const LineKernelPlan& p) {
  std::ostringstream s;
  s << family_name(p.family) << " kernel";
  if (p.family == LineKernelFamily::Generic)
    s << " (thread-per-line Thomas)";
  else if (p.family == LineKernelFamily::Short)
    s << " (a line a thread in registers), n = " << p.I;
  else
    s << ", I = " << p.I << ", S = " << p.S;
  if (p.family == LineKernelFamily::Lanes && p.G != 32) s << ", " << p.G << " lines a tile";
  return s.str();
}

}  // namespace adi
