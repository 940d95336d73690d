// plan_line_kernel (solver/core/line_kernel_plan.cpp) against the choice the
// CUDA backend made before the planner was split out of
// solver/cuda/line_kernels.cu: the expected family / I / S below were worked
// out by hand from that code, for the sizes in docs/PERFORMANCE.md and the
// edges of each rule (not by running the planner).

#include <adi/line_kernel_plan.hpp>

#include <gtest/gtest.h>

#include <cstddef>

namespace {

using adi::Axis;
using adi::index_t;
using adi::LineKernelFamily;
using adi::LineKernelPlan;
using adi::SolverOptions;
using F = LineKernelFamily;

constexpr std::size_t kF32 = 4, kF64 = 8;

void expect_plan(index_t n, Axis axis, bool unit, std::size_t elem, const SolverOptions& o, F family, int I, int S,
                 int G = -1) {
  const LineKernelPlan p = adi::plan_line_kernel(n, axis, unit, elem, o);
  SCOPED_TRACE(testing::Message() << "n = " << n << ", axis " << adi::axis_name(axis) << (unit ? " unit" : " strided")
                                  << ", " << elem << "-byte elements, x_seg " << o.x_seg << ", yz_seg " << o.yz_seg
                                  << ": got " << adi::describe(p));
  EXPECT_EQ(p.family, family);
  EXPECT_EQ(p.I, I);
  EXPECT_EQ(p.S, S);
  // lines a tile: 32 for the lanes kernel unless said, 0 for the others
  EXPECT_EQ(p.G, G >= 0 ? G : family == F::Lanes ? 32 : 0);
}

void expect_plan(index_t n, Axis axis, bool unit, std::size_t elem, F family, int I, int S, int G = -1) {
  expect_plan(n, axis, unit, elem, SolverOptions{}, family, I, S, G);
}

// x lines of unit stride up to 32 * 64 = 2048 rows: the warp kernel with the
// smallest I in {2, 4, 5, 8, 9, 16, 17, 32, 33, 64} such that 32 I >= n, S =
// next_pow2(ceil(n / I)). Precision does not enter.
TEST(LineKernelPlan, WarpForUnitStrideX) {
  for (std::size_t e : {kF32, kF64}) {
    expect_plan(512, Axis::X, true, e, F::Warp, 16, 32);
    expect_plan(128, Axis::X, true, e, F::Warp, 4, 32);
    expect_plan(129, Axis::X, true, e, F::Warp, 5, 32);    // 32 * 4 = 128 < 129 <= 32 * 5
    expect_plan(160, Axis::X, true, e, F::Warp, 5, 32);
    expect_plan(161, Axis::X, true, e, F::Warp, 8, 32);
    expect_plan(257, Axis::X, true, e, F::Warp, 9, 32);    // 32 * 8 = 256 < 257 <= 32 * 9
    expect_plan(288, Axis::X, true, e, F::Warp, 9, 32);
    expect_plan(289, Axis::X, true, e, F::Warp, 16, 32);
    expect_plan(513, Axis::X, true, e, F::Warp, 17, 32);
    expect_plan(545, Axis::X, true, e, F::Warp, 32, 32);
    expect_plan(500, Axis::X, true, e, F::Warp, 16, 32);   // 500 x 384 x 260
    expect_plan(1024, Axis::X, true, e, F::Warp, 32, 32);
    expect_plan(1025, Axis::X, true, e, F::Warp, 33, 32);  // 32 * 32 = 1024 < 1025 <= 32 * 33
    expect_plan(1056, Axis::X, true, e, F::Warp, 33, 32);
    expect_plan(1057, Axis::X, true, e, F::Warp, 64, 32);  // ceil(1057 / 64) = 17 -> 32
    expect_plan(2048, Axis::X, true, e, F::Warp, 64, 32);
    expect_plan(3, Axis::X, true, e, F::Warp, 2, 2);
    expect_plan(33, Axis::X, true, e, F::Warp, 2, 32);  // ceil(33 / 2) = 17 -> 32
  }
}

// Past 2048 rows x lines go to the lanes rules, which cannot hold them
// either: segments of kLongI = 32 rows, S = ceil(n / 32) (no power of two
// needed); up to kBlockMaxRows = 8192 rows the block kernel (a line a
// block), past it the long-line kernel; with line_blocks off the long-line
// kernel throughout, with long_lines off the generic kernel. Strided x
// lines never take the block kernel.
TEST(LineKernelPlan, LongXLinesTakeTheBlockOrLongLineKernel) {
  SolverOptions off;
  off.long_lines = false;
  SolverOptions passes;
  passes.line_blocks = false;
  EXPECT_EQ(adi::kBlockMaxRows, 8192);
  for (std::size_t e : {kF32, kF64}) {
    expect_plan(2049, Axis::X, true, e, F::Block, 32, 65);
    expect_plan(4097, Axis::X, true, e, F::Block, 32, 129);
    expect_plan(8192, Axis::X, true, e, F::Block, 32, 256);
    expect_plan(8193, Axis::X, true, e, F::Long, 32, 257);
    expect_plan(16384, Axis::X, true, e, F::Long, 32, 512);
    expect_plan(4097, Axis::X, true, e, passes, F::Long, 32, 129);
    expect_plan(4097, Axis::X, false, e, F::Long, 32, 129);
    expect_plan(4097, Axis::X, true, e, off, F::Generic, 4097, 1);
  }
}

// y and z lines: at most 16 segments preferred, the smallest I in
// {4, 8, 9 (fp64 only), 16, 17, 32, 64 (fp32 only)} with 16 I >= n.
TEST(LineKernelPlan, LanesForYZFloat) {
  for (Axis a : {Axis::Y, Axis::Z}) {
    expect_plan(512, a, false, kF32, F::Lanes, 32, 16);
    expect_plan(257, a, false, kF32, F::Lanes, 17, 16);  // 16 * 16 = 256 < 257 <= 16 * 17
    expect_plan(272, a, false, kF32, F::Lanes, 17, 16);
    expect_plan(273, a, false, kF32, F::Lanes, 32, 16);  // ceil(273 / 32) = 9 -> 16
    expect_plan(384, a, false, kF32, F::Lanes, 32, 16);  // 500 x 384 x 260
    expect_plan(260, a, false, kF32, F::Lanes, 17, 16);
    expect_plan(500, a, false, kF32, F::Lanes, 32, 16);
    expect_plan(129, a, false, kF32, F::Lanes, 16, 16);  // 9 is for fp64 only
    expect_plan(513, a, false, kF32, F::Lanes, 64, 16);
    expect_plan(1024, a, false, kF32, F::Lanes, 64, 16);
    expect_plan(3, a, false, kF32, F::Short, 3, 1);  // kShortMaxRows
    expect_plan(33, a, false, kF32, F::Lanes, 8, 8);  // at most 8 segments up to 128 rows
    expect_plan(64, a, false, kF32, F::Lanes, 8, 8);
    expect_plan(65, a, false, kF32, F::Lanes, 16, 8);
    expect_plan(127, a, false, kF32, F::Lanes, 16, 8);  // 129^3 between Dirichlet faces
    expect_plan(128, a, false, kF32, F::Lanes, 16, 8);
    expect_plan(32, a, false, kF32, F::Lanes, 4, 8);
  }
}

TEST(LineKernelPlan, LanesForYZDouble) {
  for (Axis a : {Axis::Y, Axis::Z}) {
    expect_plan(512, a, false, kF64, F::Lanes, 32, 16);
    expect_plan(257, a, false, kF64, F::Lanes, 17, 16);
    expect_plan(384, a, false, kF64, F::Lanes, 32, 16);
    expect_plan(260, a, false, kF64, F::Lanes, 17, 16);
    expect_plan(129, a, false, kF64, F::Lanes, 9, 16);  // 16 * 8 = 128 < 129 <= 16 * 9
    expect_plan(144, a, false, kF64, F::Lanes, 9, 16);
    expect_plan(145, a, false, kF64, F::Lanes, 16, 16);
    expect_plan(3, a, false, kF64, F::Short, 3, 1);
    expect_plan(33, a, false, kF64, F::Lanes, 8, 8);
    expect_plan(65, a, false, kF64, F::Lanes, 9, 8);  // 8 * 9 = 72 >= 65
    expect_plan(73, a, false, kF64, F::Lanes, 16, 8);
    expect_plan(127, a, false, kF64, F::Lanes, 16, 8);
  }
}

// fp64 z lines of 16-row segments take 16-line tiles where the last 32-line
// tile over their lanes would be at most half full (adi::lanes_fp64_half_tile):
// 257, 193 and 129 lanes (257^3, 193^3, 129^3), and where 7-12 whole 32-line
// tiles make a row of lanes (224-384 lanes: 225^3 and 257^3 without the face
// lane); not 128, 160, 192 or 416 and more whole tiles' lanes, not 500
// (nearly full 32-line tiles), not y lines, not 17-row segments, not fp32,
// not when the lanes are not known.
TEST(LineKernelPlan, HalfTilesForRaggedDoubleZLines) {
  const SolverOptions def;
  auto G = [](index_t n, Axis a, std::size_t elem, index_t lanes, const SolverOptions& o) {
    const adi::LineKernelPlan p = adi::plan_line_kernel(n, a, false, elem, o, lanes);
    EXPECT_EQ(p.family, F::Lanes) << n;
    return p.G;
  };
  for (index_t n : {index_t(255), index_t(191), index_t(127), index_t(145), index_t(73)}) {
    for (index_t lanes : {257, 193, 129, 1, 16, 48, 4112, 224, 256, 288, 320, 352, 384})
      EXPECT_EQ(G(n, Axis::Z, kF64, lanes, def), 16) << n << " " << lanes;
    for (index_t lanes : {160, 500, 17, 31, 32, 0, 128, 192, 416, 448, 512, 4096})
      EXPECT_EQ(G(n, Axis::Z, kF64, lanes, def), 32) << n << " " << lanes;
    EXPECT_EQ(G(n, Axis::Y, kF64, 256, def), 32) << n;
    EXPECT_EQ(G(n, Axis::Y, kF64, 257, def), 32) << n;
    EXPECT_EQ(G(n, Axis::Z, kF32, 257, def), 32) << n;
    EXPECT_EQ(adi::plan_line_kernel(n, Axis::Z, false, kF64, def, 257).I, 16) << n;
  }
  EXPECT_EQ(G(257, Axis::Z, kF64, 257, def), 32);  // I = 17
  EXPECT_EQ(G(512, Axis::Z, kF64, 257, def), 32);  // I = 32
  EXPECT_EQ(G(129, Axis::Z, kF64, 257, def), 32);  // I = 9
  SolverOptions seg;
  seg.yz_seg = 16;  // an override of 16 rows: the same rule
  EXPECT_EQ(G(512, Axis::Z, kF64, 257, seg), 16);
  EXPECT_EQ(G(512, Axis::Z, kF64, 256, seg), 16);
  EXPECT_EQ(G(512, Axis::Z, kF64, 160, seg), 32);
  // Every lanes count: ragged (last tile at most half full) or 7-12 whole tiles.
  for (index_t lanes = 1; lanes <= 5000; ++lanes) {
    const bool half = (lanes % 32 >= 1 && lanes % 32 <= 16) || (lanes % 32 == 0 && lanes >= 224 && lanes <= 384);
    EXPECT_EQ(adi::lanes_fp64_half_tile(16, 16, kF64, Axis::Z, lanes), half) << lanes;
  }
}

// Lines longer than 32-line tiles hold (16 x 64 = 1024 rows in fp32, 16 x 32
// = 512 in fp64; 32 segments of 32 lines exist only for I <= 16) take
// 16-line tiles of up to 32 segments of lanes_max_I rows: 2048 (fp32) and
// 1024 (fp64) rows. Past those, the long-line kernel.
TEST(LineKernelPlan, HalfTilesPastThirtyTwoLines) {
  for (Axis a : {Axis::Y, Axis::Z}) {
    expect_plan(513, a, false, kF64, F::Lanes, 32, 32, 16);  // ceil(513 / 32) = 17 -> 32
    expect_plan(1000, a, false, kF64, F::Lanes, 32, 32, 16);
    expect_plan(1024, a, false, kF64, F::Lanes, 32, 32, 16);
    // 1025-1056: 32 segments of 33 rows (kOddLongI), both precisions
    expect_plan(1025, a, false, kF32, F::Lanes, 33, 32, 16);
    expect_plan(1025, a, false, kF64, F::Lanes, 33, 32, 16);
    expect_plan(1056, a, false, kF64, F::Lanes, 33, 32, 16);
    expect_plan(1057, a, false, kF32, F::Lanes, 64, 32, 16);
    expect_plan(2048, a, false, kF32, F::Lanes, 64, 32, 16);
    // the last lengths 32-line tiles take stay there
    expect_plan(512, a, false, kF64, F::Lanes, 32, 16, 32);
    expect_plan(1024, a, false, kF32, F::Lanes, 64, 16, 32);
  }
}

TEST(LineKernelPlan, LongLinesPastTheLanesLimit) {
  SolverOptions off;
  off.long_lines = false;
  for (Axis a : {Axis::Y, Axis::Z}) {
    expect_plan(1057, a, false, kF64, F::Long, 32, 34);
    expect_plan(2049, a, false, kF32, F::Long, 32, 65);
    expect_plan(4097, a, false, kF32, F::Long, 32, 129);
    expect_plan(16384, a, false, kF64, F::Long, 32, 512);
    expect_plan(1057, a, false, kF64, off, F::Generic, 1057, 1);
    expect_plan(16384, a, false, kF32, off, F::Generic, 16384, 1);
    // the lengths the lanes kernel holds do not move
    expect_plan(1056, a, false, kF64, F::Lanes, 33, 32, 16);
    expect_plan(2048, a, false, kF32, F::Lanes, 64, 32, 16);
  }
}

// x lines whose elements are not adjacent take the lanes rules.
TEST(LineKernelPlan, StridedXUsesLanes) {
  expect_plan(512, Axis::X, false, kF32, F::Lanes, 32, 16);
  expect_plan(1024, Axis::X, false, kF32, F::Lanes, 64, 16);
  expect_plan(1024, Axis::X, false, kF64, F::Lanes, 32, 32, 16);
  // y and z never take the warp kernel, even with unit stride
  expect_plan(512, Axis::Y, true, kF32, F::Lanes, 32, 16);
  expect_plan(33, Axis::Z, true, kF64, F::Lanes, 8, 8);
}

// The list the planner picks from is the list LineSolver dispatches through:
// every length on it reaches f as its own compile-time constant, any other
// length is refused with f not called, and the planner's own choice for
// every x line of up to kWarpMaxI * 32 rows is on it.
TEST(LineKernelPlan, WarpSegmentLengthsDispatchAsPlanned) {
  for (int I : adi::kWarpSegmentLengths) {
    int got = 0;
    EXPECT_TRUE(adi::with_warp_segment_length(I, [&](auto c) { got = decltype(c)::value; })) << I;
    EXPECT_EQ(got, I);
  }
  for (int I : {0, 1, 3, 6, 7, 10, 31, 63, 65}) {
    bool called = false;
    EXPECT_FALSE(adi::with_warp_segment_length(I, [&](auto) { called = true; })) << I;
    EXPECT_FALSE(called) << I;
  }
  for (index_t n = 1; n <= 32 * adi::kWarpMaxI; ++n)
    for (std::size_t e : {kF32, kF64}) {
      const LineKernelPlan p = plan_line_kernel(n, Axis::X, true, e);
      ASSERT_EQ(p.family, F::Warp) << n;
      EXPECT_TRUE(adi::with_warp_segment_length(p.I, [](auto) {})) << n;
    }
}

TEST(LineKernelPlan, XSegOverride) {
  SolverOptions o;
  o.x_seg = 32;
  expect_plan(512, Axis::X, true, kF32, o, F::Warp, 32, 16);
  o.x_seg = 64;
  expect_plan(512, Axis::X, true, kF64, o, F::Warp, 64, 8);
  o.x_seg = 16;
  expect_plan(257, Axis::X, true, kF32, o, F::Warp, 16, 32);
  o.x_seg = 9;
  expect_plan(257, Axis::X, true, kF32, o, F::Warp, 9, 32);
  // too many segments (S = 256, next_pow2(33) = 64 > 32): generic fall-back
  o.x_seg = 2;
  expect_plan(512, Axis::X, true, kF32, o, F::Generic, 512, 1);
  o.x_seg = 8;
  expect_plan(257, Axis::X, true, kF32, o, F::Generic, 257, 1);
  o.x_seg = 1;  // I < 2
  expect_plan(33, Axis::X, true, kF32, o, F::Generic, 33, 1);
  // an I the warp kernel has no instantiation for is passed through (the
  // launch reports it)
  o.x_seg = 3;
  expect_plan(33, Axis::X, true, kF32, o, F::Warp, 3, 16);
  // x_seg does not reach y/z lines, strided x lines, or x lines past 2048
  o.x_seg = 2;
  expect_plan(512, Axis::Y, false, kF32, o, F::Lanes, 32, 16);
  expect_plan(512, Axis::X, false, kF32, o, F::Lanes, 32, 16);
  expect_plan(4097, Axis::X, true, kF32, o, F::Block, 32, 129);
}

TEST(LineKernelPlan, YzSegOverride) {
  SolverOptions o;
  o.yz_seg = 16;
  expect_plan(512, Axis::Y, false, kF32, o, F::Lanes, 16, 32);
  expect_plan(512, Axis::Z, false, kF64, o, F::Lanes, 16, 32);
  o.yz_seg = 64;
  expect_plan(1024, Axis::Z, false, kF32, o, F::Lanes, 64, 16);
  expect_plan(1025, Axis::Z, false, kF32, o, F::Lanes, 64, 32, 16);  // S = 32 > 16: 16-line tiles
  o.yz_seg = 33;  // built for 16-line tiles only, whatever the length
  expect_plan(100, Axis::Z, false, kF32, o, F::Lanes, 33, 4, 16);
  expect_plan(1056, Axis::Z, false, kF64, o, F::Lanes, 33, 32, 16);
  expect_plan(1057, Axis::Z, false, kF64, o, F::Generic, 1057, 1);  // S = 64
  expect_plan(33, Axis::Z, false, kF64, o, F::Generic, 33, 1);      // S = 1: 16 S is not a multiple of 32
  o.yz_seg = 64;
  expect_plan(2049, Axis::Z, false, kF32, o, F::Generic, 2049, 1);   // S = 64 > 32
  o.yz_seg = 32;
  expect_plan(1024, Axis::Z, false, kF32, o, F::Lanes, 32, 32, 16);
  expect_plan(512, Axis::Z, false, kF32, o, F::Lanes, 32, 16, 32);
  o.yz_seg = 64;
  expect_plan(512, Axis::Y, false, kF64, o, F::Generic, 512, 1);    // 64 > lanes_max_I (fp64)
  o.yz_seg = 8;
  expect_plan(512, Axis::Y, false, kF32, o, F::Generic, 512, 1);    // S = 64 > 32
  expect_plan(257, Axis::Y, false, kF32, o, F::Generic, 257, 1);    // S = next_pow2(33) = 64
  expect_plan(256, Axis::Y, false, kF32, o, F::Lanes, 8, 32);
  o.yz_seg = 3;  // passed through (no instantiation: the launch reports it)
  expect_plan(33, Axis::Y, false, kF32, o, F::Lanes, 3, 16);
  o.yz_seg = 1;
  expect_plan(33, Axis::Y, false, kF32, o, F::Generic, 33, 1);
  // yz_seg also governs x lines that are not warp-kernel lines; not warp ones
  o.yz_seg = 16;
  expect_plan(512, Axis::X, false, kF32, o, F::Lanes, 16, 32);
  expect_plan(512, Axis::X, true, kF32, o, F::Warp, 16, 32);
  o.yz_seg = 64;
  expect_plan(2049, Axis::X, true, kF32, o, F::Generic, 2049, 1);  // S = 64 > 16
}

TEST(LineKernelPlan, SolveWords) {
  EXPECT_EQ(adi::solve_words(adi::plan_line_kernel(512, Axis::X, true, kF32)), 2.0);
  EXPECT_EQ(adi::solve_words(adi::plan_line_kernel(512, Axis::Y, false, kF64)), 2.0);
  EXPECT_EQ(adi::solve_words(adi::plan_line_kernel(4097, Axis::X, true, kF32)), 2.0);
  EXPECT_EQ(adi::solve_words(adi::plan_line_kernel(16384, Axis::X, true, kF32)), 3.25);
  EXPECT_EQ(adi::solve_words(adi::plan_line_kernel(1057, Axis::Z, false, kF64)), 3.25);
  SolverOptions off;
  off.long_lines = false;
  EXPECT_EQ(adi::solve_words(adi::plan_line_kernel(1057, Axis::Z, false, kF64, off)), 4.0);
}

TEST(LineKernelPlan, HelpersAndDescription) {
  EXPECT_EQ(adi::next_pow2(1), 1);
  EXPECT_EQ(adi::next_pow2(17), 32);
  EXPECT_EQ(adi::next_pow2(32), 32);
  EXPECT_EQ(adi::lanes_max_segments(16), 32);
  EXPECT_EQ(adi::lanes_max_segments(32), 16);
  EXPECT_EQ(adi::lanes_max_I(4), 64);
  EXPECT_EQ(adi::lanes_max_I(8), 32);
  EXPECT_EQ(adi::lanes_half_max_I(4), 64);
  EXPECT_EQ(adi::lanes_half_max_I(8), 33);
  EXPECT_EQ(adi::describe(adi::plan_line_kernel(512, Axis::X, true, 4)), "warp kernel, I = 16, S = 32");
  EXPECT_EQ(adi::describe(adi::plan_line_kernel(4097, Axis::Y, false, 8)), "long-line kernel, I = 32, S = 129");
  EXPECT_EQ(adi::describe(adi::plan_line_kernel(4097, Axis::X, true, 4)), "block kernel, I = 32, S = 129");
  SolverOptions off;
  off.long_lines = false;
  EXPECT_EQ(adi::describe(adi::plan_line_kernel(4097, Axis::Y, false, 8, off)),
            "generic kernel (thread-per-line Thomas)");
  EXPECT_EQ(adi::describe(adi::plan_line_kernel(1024, Axis::Y, false, 8)), "lanes kernel, I = 32, S = 32, 16 lines a tile");
  EXPECT_EQ(adi::describe(adi::plan_line_kernel(512, Axis::Y, false, 8)), "lanes kernel, I = 32, S = 16");
  EXPECT_EQ(adi::describe(adi::plan_line_kernel(3, Axis::Z, false, 4)), "short kernel (a line a thread in registers), n = 3");
}

// Lines of at most kShortMaxRows rows across the unit stride take the short
// kernel (a line a thread): y and z lines, x lines of a strided layout; not
// x lines of unit stride (the warp kernel), not with a segment length asked
// for (ADI_YZ_SEG) nor with ADI_SHORT_LINES=0 (the lanes kernel, as before).
TEST(LineKernelPlan, ShortLinesTakeAThreadALine) {
  for (std::size_t e : {kF32, kF64}) {
    for (index_t n : {1, 2, 3, 5, 8}) {
      expect_plan(n, Axis::Y, false, e, F::Short, static_cast<int>(n), 1);
      expect_plan(n, Axis::Z, false, e, F::Short, static_cast<int>(n), 1);
      expect_plan(n, Axis::X, false, e, F::Short, static_cast<int>(n), 1);
      EXPECT_EQ(adi::plan_line_kernel(n, Axis::X, true, e).family, F::Warp);
    }
    expect_plan(9, Axis::Z, false, e, F::Lanes, 4, 4);
    SolverOptions off;
    off.short_lines = false;
    expect_plan(3, Axis::Z, false, e, off, F::Lanes, 4, 1);
    SolverOptions seg;
    seg.yz_seg = 4;
    expect_plan(3, Axis::Y, false, e, seg, F::Lanes, 4, 1);
  }
  EXPECT_EQ(adi::solve_words(adi::plan_line_kernel(3, Axis::Z, false, kF32)), 2.0);
}

// fp32 y / z line pairs in 32-line tiles only from 8 64-line tiles on (more
// than 448 lanes): the sizes measured to gain (500, 512, 513, 4096 lanes) and
// those measured to lose (128, 129, 192, 193, 256, 257), and the edge.
TEST(LineKernelPlan, LinePairsFromEightTiles) {
  for (index_t lanes : {449, 500, 512, 513, 4096, 4097}) EXPECT_TRUE(adi::lanes_pairs_pay(lanes)) << lanes;
  // Few tiles, full or ragged: 257^3, 193^3, 129^3 with and without the
  // face lane (adi::lanes_without_face), 313 (five tiles), 448 (seven).
  for (index_t lanes : {0, 1, 7, 41, 64, 65, 120, 128, 129, 130, 192, 193, 256, 257, 313, 448})
    EXPECT_FALSE(adi::lanes_pairs_pay(lanes)) << lanes;
  // From 8 tiles on a ragged last tile idles at most 63 of 512 lanes.
  for (index_t lanes = 449; lanes <= 5000; ++lanes) EXPECT_TRUE(adi::lanes_pairs_pay(lanes)) << lanes;
}

// The y / z solves leave out a high Dirichlet x face's lane only where it
// would be the only lane of the last 32-line tile (adi::lanes_without_face):
// a tile fewer, the rest whole tiles; never where it would not save a tile or
// would make a whole last tile ragged (nx = 32 m), never for another face.
TEST(LineKernelPlan, FaceLaneLeftOutWhereItIsATileOfItsOwn) {
  auto tiles = [](index_t lanes) { return (lanes + 31) / 32; };
  for (index_t nx : {33, 65, 97, 129, 193, 257, 513, 1025, 4097}) {
    EXPECT_EQ(adi::lanes_without_face(nx, true), nx - 1) << nx;
    EXPECT_EQ(adi::lanes_without_face(nx, false), nx) << nx;
  }
  for (index_t nx : {1, 2, 3, 31, 32, 34, 63, 64, 100, 256, 258, 500, 512, 1024})
    EXPECT_EQ(adi::lanes_without_face(nx, true), nx) << nx;
  for (index_t nx = 1; nx <= 5000; ++nx) {
    const index_t l = adi::lanes_without_face(nx, true);
    if (l != nx) {
      EXPECT_EQ(l, nx - 1) << nx;
      EXPECT_EQ(tiles(l) + 1, tiles(nx)) << nx;
      EXPECT_EQ(l % 32, 0) << nx;
    } else if (nx > 1) {
      EXPECT_EQ(tiles(nx - 1), tiles(nx)) << nx;  // dropping it would save no tile
    }
  }
  // What the whole tiles then take: fp32 pairs from 8 pair tiles on (513),
  // and fp64 z lines of 16-row segments 16-line tiles at 225 and 257 (7-12
  // whole tiles), 32-line tiles at 129 and 193.
  for (index_t nx : {129, 193, 225, 257, 513}) {
    const index_t l = adi::lanes_without_face(nx, true);
    EXPECT_EQ(adi::lanes_pairs_pay(l), nx == 513) << nx;
    EXPECT_EQ(adi::lanes_fp64_half_tile(16, 16, kF64, Axis::Z, l), nx == 225 || nx == 257) << nx;
  }
}

// The shapes of CudaStepper.GraphStepIsBitIdenticalToLaunches
// (tests/gpu/test_cuda_stepper.cpp) reach the families its comment names, in
// both precisions: x lines of 129 the warp kernel (fused with the RHS), y / z
// lines of 67 / 70 the lanes kernel, of 6 / 5 the short kernel, x lines of
// 5000 the block kernel, z lines of 3000 the long-line kernel.
TEST(LineKernelPlan, GraphTestShapesReachEveryFamily) {
  for (std::size_t e : {kF32, kF64}) {
    const auto family = [e](index_t n, Axis a, bool unit) { return adi::plan_line_kernel(n, a, unit, e).family; };
    EXPECT_EQ(family(129, Axis::X, true), F::Warp) << e;
    EXPECT_EQ(family(67, Axis::Y, false), F::Lanes) << e;
    EXPECT_EQ(family(70, Axis::Z, false), F::Lanes) << e;
    EXPECT_EQ(family(6, Axis::Y, false), F::Short) << e;
    EXPECT_EQ(family(5, Axis::Z, false), F::Short) << e;
    EXPECT_EQ(family(5000, Axis::X, true), F::Block) << e;
    EXPECT_EQ(family(3000, Axis::Z, false), F::Long) << e;
  }
}

}  // namespace
