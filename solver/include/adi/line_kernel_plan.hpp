#pragma once
// Which line kernel solves the lines of one axis, with which segment length I
// and segment count S: pure host code (no CUDA), so the choice is printable
// and unit-tested without a GPU. The CUDA backend (solver/cuda/line_solver.cu)
// builds its tables and launches what this returns. The kernels themselves:
// solver/cuda/kernels/{warp,lanes,generic}_kernel.cu.

#include <adi/common.hpp>
#include <adi/options.hpp>

#include <cstddef>
#include <string>

namespace adi {

enum class LineKernelFamily {
  Warp,     ///< x lines of unit stride: a warp owns 32/S lines, lane = segment
  Lanes,    ///< y/z lines (and long or strided x lines): lane = line, warp = segment
  Generic,  ///< thread-per-line Thomas through global memory (two passes)
};

struct LineKernelPlan {
  LineKernelFamily family = LineKernelFamily::Generic;
  int I = 0;  ///< segment length (rows per thread); the line length n for Generic
  int S = 0;  ///< segments per line (a power of two); 1 for Generic
};

/// Longest line the warp kernel takes: 32 lanes of at most kWarpMaxI rows.
constexpr int kWarpMaxI = 64;

/// Most segments (warps per block) the lanes kernel runs with segment length
/// I: 1024 threads while a thread's I values fit in the 64 registers that
/// leaves, 512 threads (128 registers) for longer segments. Also the kernel's
/// __launch_bounds__, hence constexpr and usable from device code.
constexpr int lanes_max_segments(int I) { return I <= 16 ? 32 : 16; }

/// Longest segment the lanes kernel is built for, per element size: I values
/// per thread must fit next to the rest in the registers a thread gets.
constexpr int lanes_max_I(std::size_t element_size) { return element_size == 4 ? 64 : 32; }

/// Smallest power of two >= v (1 for v <= 1).
int next_pow2(index_t v);

/// The kernel for lines of length n along `axis`; `unit_stride`: the lines'
/// elements are adjacent in memory (only x lines can use the warp kernel).
/// options.x_seg / options.yz_seg (when > 0) force the segment length of the
/// warp / lanes kernel; an override that does not fit (S above the family's
/// maximum, I < 2, or I above lanes_max_I) falls back to Generic. An override
/// the family has no instantiation for (e.g. I = 3) is returned as is: the
/// launch then reports the unsupported segment length.
LineKernelPlan plan_line_kernel(index_t n, Axis axis, bool unit_stride, std::size_t element_size,
                                const SolverOptions& options = {});

const char* family_name(LineKernelFamily f);
/// "warp kernel, I = 16, S = 32" and the like.
std::string describe(const LineKernelPlan& p);

}  // namespace adi
