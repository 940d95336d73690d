#pragma once
// Shared by the line-kernel families (one file each in this folder: the warp,
// lanes and generic kernels with their launchers and explicit
// instantiations); solver/cuda/line_solver.cu plans (adi::plan_line_kernel),
// uploads the tables and calls the launchers declared here.
//
// Memory traffic is what matters: every kernel reads each value once and
// writes it once (the fused variant reads the line and the accumulator and
// writes the accumulator). The forward-sweep state never leaves the chip: a
// segment lives in registers, the reduced system in shared memory/shuffles.

#include "../async_copy.cuh"
#include "../cuda_check.hpp"
#include "../segmented.cuh"

#include <adi/common.hpp>
#include <adi/line_kernel_plan.hpp>
#include <adi/scheme.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>
#include <vector>

namespace adi::cuda::kernels {

// Lines enumerated by two axes: the lanes and generic kernels' geometry.
struct LinesGeom {
  index_t s_line;  // stride along the line
  index_t nu, su;  // lanes axis (32 consecutive lines per block)
  index_t nv, sv;  // outer axis
};


// tile / per for tile < tiles, in 32 bits when the tile count allows (a
// 64-bit division is a call of ~70 instructions, per tile; 32 bits ~20).
__device__ __forceinline__ index_t tile_quotient(index_t tile, index_t tiles, index_t per) {
  if (tiles <= 0xffffffffll) return static_cast<unsigned>(tile) / static_cast<unsigned>(per);
  return tile / per;
}

// x lines of unit stride, tiled for the warp kernel (warp_kernel.cu).
struct WarpGeom {
  index_t nj, sj;  // lines along y
  index_t nk, sk;  // and along z
  index_t tiles_j;  // tiles per k
  index_t tiles;    // total
  int lines_per_tile;
};

// The RHS fused into the x solve (fused_x_kernel.cu): x lines of unit
// stride, single-line tiles. A block of W warps takes groups of W L
// consecutive lines in y (L a warp: 4 for fp32 lines of up to 64 rows, 2
// for lines of up to 128, else 1) and marches them through planes in z,
// per_block (line group, plane) steps in all; per_block and jblocks are the
// launcher's (fused_x_shape).
constexpr int kFusedMaxWarps = 8;
/// The fused kernel's tile build: x lines of 33 to kFusedTileS x kFusedTileI
/// rows in kFusedTileS segments of kFusedTileI rows, 32 / kFusedTileS lines a
/// warp in one transposition buffer, with a plan of their own (the warp
/// kernel's is 32 segments of 2 rows).
constexpr int kFusedTileI = 8;
constexpr int kFusedTileS = 8;
/// Fewest lines a fused block takes: below it the halo rows (2 a block) and
/// the ring's re-priming outweigh the pass saved (2 lines a block measured
/// slower than the two passes: docs/PERFORMANCE.md, "Tried and rejected").
constexpr int kFusedMinWarps = 4;
struct FusedGeom {
  index_t nj, sj;  // lines along y
  index_t nk, sk;  // and along z
  int n;           // rows of a line
  int row;         // elements of a row in shared memory: n rounded up to 16 bytes
  bool vec;        // rows of u 16-byte aligned, readable up to n rounded up to 16 bytes (required)
  index_t per_block = 0, jblocks = 0;  // steps (a line group at a plane) a block takes; ceil(nj / W)
  // The first tail segment of the solver's compact tables (CompactTables,
  // segmented.cuh; at least 2), 0 when it has none.
  int s_tail = 0;
};
/// How fused_x_shape launches: warps (= lines) a block, its shared memory,
/// blocks an SM, steps a block takes (K), line groups, blocks.
struct FusedLaunch {
  int warps = 0;
  int lines_per_warp = 1;  // a block takes warps x lines_per_warp lines (fused_lines_per_warp)
  bool small = false;  // the small build: the compact tables and a ring of 3 slabs
  bool compact = false;  // the compact tables (one interior segment's: CompactTables)
  std::size_t smem = 0;
  int per_sm = 0;
  index_t K = 0, jblocks = 0, blocks = 0;
};

inline int sm_count() {
  int dev = 0, sms = 0;
  ADI_CUDA_CHECK(cudaGetDevice(&dev));
  ADI_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

/// Blocks of `kernel` that fit on a multiprocessor with `threads` threads and
/// `smem` bytes of dynamic shared memory, having opted the kernel in to at
/// least that much shared memory. Both are asked once and remembered (for
/// the process: the opt-in is the kernel's, whichever thread set it): the
/// attribute call and the occupancy query cost
/// microseconds of host time per launch, as much as a whole phase of a 129^3
/// grid, and the GPU waited for them (docs/PERFORMANCE.md, "The step"). The opt-in
/// is a property of the kernel on a device, shared by every shape launched
/// with it, so it only ever grows: lowering it for a small launch would make
/// a remembered larger one invalid.
template <class Kernel>
int resident_blocks(Kernel kernel, int threads, std::size_t smem) {
  struct Shape {
    const void* fn;
    int dev, threads;
    std::size_t smem;
    int per_sm;
  };
  struct OptIn {
    const void* fn;
    int dev;
    std::size_t smem;
  };
  static std::mutex mu;
  static std::vector<Shape> shapes;
  static std::vector<OptIn> opt_ins;
  int dev = 0;
  ADI_CUDA_CHECK(cudaGetDevice(&dev));
  const std::lock_guard<std::mutex> lock(mu);
  const void* fn = reinterpret_cast<const void*>(kernel);
  for (const Shape& e : shapes)
    if (e.fn == fn && e.dev == dev && e.threads == threads && e.smem == smem) return e.per_sm;
  OptIn* o = nullptr;
  for (OptIn& e : opt_ins)
    if (e.fn == fn && e.dev == dev) o = &e;
  if (!o || o->smem < smem) {
    ADI_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    if (o)
      o->smem = smem;
    else
      opt_ins.push_back(OptIn{fn, dev, smem});
  }
  int per_sm = 0;
  ADI_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  shapes.push_back(Shape{fn, dev, threads, smem, per_sm});
  return per_sm;
}

// Launchers, explicitly instantiated in the family's file for the segment
// lengths it is built for: warp I in {2, 4, 5, 8, 9, 16, 17, 32, 33, 64}; lanes
// I in {4, 8, 9, 16, 17, 32} and 64 for float only (adi::lanes_max_I), and 33
// (16-line tiles only, adi::kOddLongI).

/// Warp kernel: d <- A^{-1} d, or acc += A^{-1} d when acc != nullptr.
template <class T, int I>
void launch_warp(T* d, T* acc, const PlanView<T>& p, const WarpGeom& g, cudaStream_t st);
/// How the fused kernel launches for this geometry and plan; `planes`: the
/// steps a block takes (0: an equal share for each resident block).
template <class T, int I>
FusedLaunch fused_x_shape(const FusedGeom& g, const PlanView<T>& p, int planes);
/// The Douglas RHS of u fused into the x solve: w = A_x^{-1} rhs(u)
/// (fused_x_kernel.cu), launched as fused_x_shape said.
/// `compact_tables`: the plan's CompactTables on the device (used when
/// shape.small).
template <class T, int I>
void launch_fused_x(const T* u, T* w, const PlanView<T>& p, const FusedGeom& g, const RhsCoefficients<T>& kc,
                    const FusedLaunch& shape, const T* compact_tables, cudaStream_t st);
/// Lanes kernel with tiles of `lines` (32, or 16: LineKernelPlan::G) lines;
/// segments in `mask` take their row tables from the constant bank
/// (SegmentConsts made from host_tables).
template <class T, int I>
void launch_lanes(T* d, T* acc, const PlanView<T>& p, int lines, const LinesGeom& g,
                  const std::vector<T>& host_tables, unsigned mask, cudaStream_t st);
/// The lanes kernel's pair build for fp32 y / z lines: lane u solves lines
/// 2u and 2u + 1 as one 8-byte value (FloatPair, float_pair.cuh), so a
/// tile's row is twice the lines at fp64's bytes: 32-line tiles (`lines` =
/// 32; I = 16, 17, 32) hold 64 lines, 256-byte rows; 16-line tiles (I =
/// kOddLongI only) 32 lines, 128-byte rows; the segment length is p.I. `g`
/// and the pointers as for launch_lanes (in floats); needs lanes_pairs_fit(g),
/// lanes_pairs_built(p.I, lines) and 8-byte aligned d and acc. `p` and
/// `host_tables`: the plan with every coefficient doubled into a pair.
void launch_lanes_pairs(float* d, float* acc, const PlanView<FloatPair>& p, int lines, const LinesGeom& g,
                        const std::vector<FloatPair>& host_tables, unsigned mask, cudaStream_t st);
/// Segment lengths the pair build has (launch_lanes_pairs): with 32-line
/// tiles, and the one with 16-line tiles.
constexpr bool lanes_pairs_built(int I, int lines) {
  return lines == 32 ? (I == 16 || I == 17 || I == 32) : (lines == kLanesHalfTile && I == kOddLongI);
}
/// Unit-stride lanes, an even stride along the line and between planes.
bool lanes_pairs_fit(const LinesGeom& g);
inline bool lanes_pairs_aligned(const float* p) { return (reinterpret_cast<std::uintptr_t>(p) & 7u) == 0; }
/// Long-line kernel (I = kLongI, any S): pass 1 (finish = false) writes each
/// segment's two reduced right-hand sides to red ([2S rows][nu * nv lines]);
/// after the caller has solved those 2S-row systems in place, pass 3
/// (finish = true) writes d <- A^{-1} d, or acc += A^{-1} d. `uniform`:
/// segments 1 .. S-2 have segment 1's tables (taken from host_tables).
template <class T>
void launch_long(T* d, T* acc, T* red, const PlanView<T>& p, const LinesGeom& g, bool finish,
                 const std::vector<T>& host_tables, bool uniform, cudaStream_t st);
/// Block kernel (I = kLongI, S <= 32 kBlockMaxWarps, lines of unit stride):
/// a line a block, d <- A^{-1} d, or acc += A^{-1} d, in one pass; the plan
/// and `uniform` as for launch_long.
template <class T>
void launch_block(T* d, T* acc, const PlanView<T>& p, const LinesGeom& g, const std::vector<T>& host_tables,
                  bool uniform, cudaStream_t st);
/// Generic thread-per-line Thomas with the factor's tables a, c', 1/pivot.
template <class T>
void launch_generic(T* d, T* acc, const T* a, const T* cp, const T* inv, int n, const LinesGeom& g, cudaStream_t st);

/// The Thomas factor of a line of n <= kShortMaxRows rows, passed by value
/// (the kernel reads it from its parameter bank).
template <class T>
struct ShortTables {
  T a[kShortMaxRows], cp[kShortMaxRows], inv[kShortMaxRows];
};
/// Short kernel: a thread a line of n <= kShortMaxRows rows, in registers.
template <class T>
void launch_short(T* d, T* acc, const ShortTables<T>& tb, int n, const LinesGeom& g, cudaStream_t st);

}  // namespace adi::cuda::kernels
