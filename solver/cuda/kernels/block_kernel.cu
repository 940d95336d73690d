// Block kernel (LineKernelFamily::Block): x lines of unit stride that no warp
// holds (past 32 x kWarpMaxI = 2048 rows, up to kBlockMaxRows), a line a
// block, read once and written once.
//
// Why: the long-line kernel (long_kernel.cu) spreads a line's segments over
// independent warps and passes the reduced rows through global memory, so
// it reads the line twice: 3 1/4 words a point, and a long x solve ran at
// nearly the copy bandwidth on those words (measured: docs/PERFORMANCE.md,
// "Line-kernel families"). A line of n <= kBlockMaxRows rows is S = ceil(n /
// kLongI) segments, at most 32 kBlockMaxWarps: W = ceil(S / 32) warps of one
// block hold it in registers, lane = segment as in the warp kernel.
//   load: warp w takes rows [32 I w, 32 I (w + 1)): 32 coalesced rows of I
//     (16-byte vectors where the line starts 16-byte aligned) handed to the
//     lanes through the padded transposition (adi::transpose::ContiguousRows,
//     the per-warp column phase of the hybrid);
//   sweeps: each lane its segment; interior segments' row tables from the
//     constant bank (SegmentConsts, as in the long-line kernel), the first and
//     last segment's from global memory (two lanes of the block diverge);
//   reduced system (2 S rows): the warp kernel's two affine scans
//     (reduced_solve, segmented.cuh), carried across the warps: a warp scans
//     its 32 lanes, its total map goes to shared memory, and every warp
//     composes the totals of the warps before it (forward) or after it
//     (backward), at most 7 FMAs: two block barriers a line;
//   finish and store back through the same transposition.
// No scratch in global memory and no nested solve. Lanes past S (the last
// warp's, when S is not a multiple of 32) hold zeros and the identity
// z = 0 in the backward scan, so the real segments never see them.

#include "line_kernels.cuh"

#include <adi/transpose/rows.hpp>
#include <adi/transpose/warp_transpose.cuh>

#include <algorithm>
#include <string>

namespace adi::cuda::kernels {

namespace {

constexpr int I = kLongI;

template <class T>
using BlockTranspose = transpose::WarpTranspose<T, I>;

struct BlockGeom {
  index_t nu, su;  // the lines: u fastest
  index_t nv, sv;
  index_t lines;   // nu * nv
  int n;           // rows of a line
  int S;           // segments a line
  bool uniform;    // segments 1 .. S-2 have segment 1's tables (SegmentConsts)
};

template <class T, bool Acc>
__global__ void __launch_bounds__(32 * kBlockMaxWarps)
    block_kernel(T* __restrict__ d, T* __restrict__ acc, const T* __restrict__ tables, BlockGeom g,
                 const __grid_constant__ SegmentConsts<T, I> sc) {
  extern __shared__ __align__(16) unsigned char block_smem[];
  auto* tmp = reinterpret_cast<typename BlockTranspose<T>::TempStorage*>(block_smem);
  // Each warp's total affine map: forward y_last = A y_in + B, backward
  // z_first = G z_in + D.
  __shared__ T fwd[kBlockMaxWarps][2], bwd[kBlockMaxWarps][2];
  const unsigned full = 0xffffffffu;
  const int lane = threadIdx.x, warp = threadIdx.y, W = blockDim.y;
  const int s = warp * 32 + lane;
  const bool real = s < g.S;
  const bool consts = g.uniform && s >= 1 && s <= g.S - 2;
  const TableLayout L{g.S, I, false};
  // The reduced rows' coefficients (constant: loaded once a block).
  T R0 = T(0), R1 = T(0), A0 = T(0), A1 = T(0), C0 = T(0), C1 = T(0);
  if (real) {
    R0 = tables[L.red_inv() + 2 * s];
    R1 = tables[L.red_inv() + 2 * s + 1];
    A0 = tables[L.red_a() + 2 * s];
    A1 = tables[L.red_a() + 2 * s + 1];
    C0 = tables[L.red_c() + 2 * s];
    C1 = tables[L.red_c() + 2 * s + 1];
  }
  const index_t row0 = static_cast<index_t>(warp) * 32 * I;
  const index_t rows_here = min(static_cast<index_t>(32 * I), static_cast<index_t>(g.n) - row0);
  BlockTranspose<T> tr(tmp[warp]);
  for (index_t line = blockIdx.x; line < g.lines; line += gridDim.x) {
    const index_t v = tile_quotient(line, g.lines, g.nu), u = line - v * g.nu;
    const index_t off = u * g.su + v * g.sv + row0;
    T x[I];
    tr.load(transpose::ContiguousRows<T, I>{d + off, rows_here}, x, T(0));
    if (consts)
      local_sweeps<T, I>(x, sc);
    else if (real)
      local_sweeps<T, I>(x, segment_view(tables, L, s));

    // Forward scan: y_r = red_inv_r d_r + red_a_r y_{r-1} over the 2 S rows.
    const T B0 = R0 * x[0], B1 = R1 * x[I - 1];
    T alpha = A1 * A0, beta = A1 * B0 + B1;  // y of row 2s+1 = alpha y_(row 2s-1) + beta
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const T a_up = __shfl_up_sync(full, alpha, o), b_up = __shfl_up_sync(full, beta, o);
      if (lane >= o) {
        beta = beta + alpha * b_up;
        alpha = alpha * a_up;
      }
    }
    if (lane == 31) {
      fwd[warp][0] = alpha;
      fwd[warp][1] = beta;
    }
    __syncthreads();
    T y_in = T(0);  // y of the row before this warp's first
    for (int w = 0; w < warp; ++w) y_in = fwd[w][0] * y_in + fwd[w][1];
    const T y1 = alpha * y_in + beta;
    T y_prev = __shfl_up_sync(full, y1, 1);
    if (lane == 0) y_prev = y_in;
    const T y0 = A0 * y_prev + B0;

    // Backward scan: z_r = y_r + red_c_r z_{r+1}; lanes past S give (0, 0).
    T gamma = C0 * C1, delta = y0 + C0 * y1;  // z of row 2s = gamma z_(row 2s+2) + delta
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const T g_dn = __shfl_down_sync(full, gamma, o), d_dn = __shfl_down_sync(full, delta, o);
      if (lane + o < 32) {
        delta = delta + gamma * d_dn;
        gamma = gamma * g_dn;
      }
    }
    if (lane == 0) {
      bwd[warp][0] = gamma;
      bwd[warp][1] = delta;
    }
    __syncthreads();
    // (fwd and bwd are next written after the next line's sweeps, past a
    // barrier every warp reaches only once it has read these.)
    T z_in = T(0);  // z of the row after this warp's last
    for (int w = W - 1; w > warp; --w) z_in = bwd[w][0] * z_in + bwd[w][1];
    const T zf = gamma * z_in + delta;
    T z_next = __shfl_down_sync(full, zf, 1);
    if (lane == 31) z_next = z_in;
    const T zl = y1 + C1 * z_next;

    if (consts)
      finish_segment<T, I>(x, sc, zf, zl);
    else if (real)
      finish_segment<T, I>(x, segment_view(tables, L, s), zf, zl);
    if constexpr (Acc) {
      // Rows as they lie (row[q]: row row0 + 32 q + lane), then one coalesced
      // read-add-write of the accumulator a row.
      T row[I];
      tr.columns_to_rows(x, row);
      T* q0 = acc + off + lane;
#pragma unroll
      for (int q = 0; q < I; ++q)
        if (q * 32 + lane < rows_here) q0[q * 32] += row[q];
    } else {
      tr.store(transpose::ContiguousRows<T, I>{d + off, rows_here}, x);
    }
  }
}

template <class T, bool Acc>
void launch_block_impl(T* d, T* acc, const PlanView<T>& p, const BlockGeom& g, const SegmentConsts<T, I>& sc,
                       cudaStream_t st) {
  const int W = (g.S + 31) / 32;
  const std::size_t smem = W * sizeof(typename BlockTranspose<T>::TempStorage);
  if (resident_blocks(block_kernel<T, Acc>, 32 * W, smem) < 1)
    ADI_THROW(BackendUnavailable, "block kernel does not fit on a multiprocessor");
  const index_t blocks = std::min<index_t>(g.lines, index_t(1) << 30);
  block_kernel<T, Acc><<<static_cast<unsigned>(blocks), dim3(32, W), smem, st>>>(d, acc, p.tables, g, sc);
  ADI_CUDA_CHECK_LAUNCH("block_kernel");
}

}  // namespace

template <class T>
void launch_block(T* d, T* acc, const PlanView<T>& p, const LinesGeom& lg, const std::vector<T>& host_tables,
                  bool uniform, cudaStream_t st) {
  if (p.I != I) ADI_THROW(InvalidArgument, "block kernel: built for segments of " + std::to_string(I) + " rows");
  if (lg.s_line != 1) ADI_THROW(InvalidArgument, "block kernel: lines of unit stride only");
  if (p.S < 1 || p.S > 32 * kBlockMaxWarps)
    ADI_THROW(InvalidArgument, "block kernel: " + std::to_string(p.S) + " segments do not fit in a block");
  BlockGeom g{};
  g.nu = lg.nu;
  g.su = lg.su;
  g.nv = lg.nv;
  g.sv = lg.sv;
  g.lines = lg.nu * lg.nv;
  g.n = p.n;
  g.S = p.S;
  g.uniform = uniform && p.S >= 3;
  if (g.lines == 0) return;
  const SegmentConsts<T, I> sc = g.uniform ? segment_consts<T, I>(host_tables, p.S, ~0u) : SegmentConsts<T, I>{};
  if (acc)
    launch_block_impl<T, true>(d, acc, p, g, sc, st);
  else
    launch_block_impl<T, false>(d, acc, p, g, sc, st);
}

template void launch_block<float>(float*, float*, const PlanView<float>&, const LinesGeom&, const std::vector<float>&,
                                  bool, cudaStream_t);
template void launch_block<double>(double*, double*, const PlanView<double>&, const LinesGeom&,
                                   const std::vector<double>&, bool, cudaStream_t);

}  // namespace adi::cuda::kernels
