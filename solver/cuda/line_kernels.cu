// Constant-coefficient batched line solves on the GPU (see line_solver.hpp).
//
// Memory traffic is what matters: every kernel reads each value once and
// writes it once (the fused variant reads the line and the accumulator and
// writes the accumulator). The forward-sweep state never leaves the chip: a
// segment lives in registers, the reduced system in shared memory/shuffles.

#include "line_solver.hpp"

#include <adi/transpose/warp_transpose.cuh>

#include <cstddef>

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace adi::cuda {

namespace {

using transpose::MapKind;
using transpose::WarpTranspose;

constexpr int kLanesMaxSegments = 16;  // Lanes kernel: at most 16 warps (512 threads) per block
// Warp kernel: warps per block, as many (up to 4) as 48 KB of static shared
// memory allow for the transposition storage of one warp each.
template <class T, int I>
constexpr int warp_kernel_warps() {
  constexpr std::size_t per_warp = sizeof(typename transpose::WarpTranspose<T, I>::TempStorage);
  return per_warp * 4 <= 48 * 1024 ? 4 : per_warp * 2 <= 48 * 1024 ? 2 : 1;
}

struct LinesGeom {
  index_t s_line;  // stride along the line
  index_t nu, su;  // lanes axis (32 consecutive lines per block)
  index_t nv, sv;  // outer axis
};

// Slot of (segment s, line l) in the reduced-system exchange of the Lanes
// kernel: a 32-row (line) by S-column (segment) tile. Phase 1 has lane l of
// warp s write column s (lanes S apart: the "column" phase); phase 2 has
// thread t = 32 s + lane read element t (consecutive: the "row" phase). Giles'
// map for a power-of-two width S is conflict-free in both (maps.hpp).
template <class T>
__device__ __forceinline__ int exchange_slot(int s, int l, int S) {
  return transpose::giles_index(s, l, S, transpose::wavefront_elems(sizeof(T)));
}
template <class T>
constexpr int exchange_slots() {
  return transpose::map_size(MapKind::Giles, 32, transpose::wavefront_elems(sizeof(T)));
}

// ---------------------------------------------------------------------------
// Lanes kernel: block = 32 lines x S segments (blockDim = (32, S)).
// ---------------------------------------------------------------------------
template <class T, int I, bool Acc>
__global__ void __launch_bounds__(32 * kLanesMaxSegments)
    lanes_kernel(T* __restrict__ d, T* __restrict__ acc, PlanView<T> p, LinesGeom g) {
  __shared__ T red_first[exchange_slots<T>()];
  __shared__ T red_last[exchange_slots<T>()];
  const int lane = threadIdx.x, s = threadIdx.y, S = p.S;
  const index_t u = static_cast<index_t>(blockIdx.x) * 32 + lane;
  const bool active = u < g.nu;
  const index_t v = static_cast<index_t>(blockIdx.z) * gridDim.y + blockIdx.y;
  if (v >= g.nv) return;  // uniform per block: no barrier is skipped by part of it
  {
    const index_t base = (active ? u : 0) * g.su + v * g.sv;
    T x[I];
#pragma unroll
    for (int j = 0; j < I; ++j) {
      const int r = s * I + j;
      x[j] = (active && r < p.n) ? d[base + r * g.s_line] : T(0);
    }
    local_sweeps(x, p, s);
    const int mine = exchange_slot<T>(s, lane, S);
    red_first[mine] = x[0];
    red_last[mine] = x[I - 1];
    __syncthreads();
    {
      const int t = s * 32 + lane;  // row phase: line t / S, segment t % S
      const int seg = t % S;
      const int slot = exchange_slot<T>(seg, t / S, S);
      T f = red_first[slot], l = red_last[slot];
      reduced_solve(f, l, p, seg);
      red_first[slot] = f;
      red_last[slot] = l;
    }
    __syncthreads();
    finish_segment(x, p, s, red_first[mine], red_last[mine]);
#pragma unroll
    for (int j = 0; j < I; ++j) {
      const int r = s * I + j;
      if (active && r < p.n) {
        const index_t o = base + r * g.s_line;
        if (Acc)
          acc[o] += x[j];
        else
          d[o] = x[j];
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Warp kernel: x lines with unit stride. A warp owns a tile of 32/S lines
// (consecutive j at one k); row r of the 32 x I tile is segment r % S of line
// r / S, i.e. I consecutive elements starting at line_base + (r % S) I.
// ---------------------------------------------------------------------------
struct WarpGeom {
  index_t nj, sj;  // lines along y
  index_t nk, sk;  // and along z
  index_t tiles_j;  // tiles per k
  index_t tiles;    // total
  int lines_per_tile;
};

template <class T, int I>
struct TileRows {
  T* base;       // start of the tile's first line
  index_t sj;    // line stride
  int n;         // line length
  int S;         // segments per line (power of two)
  int log2S;
  int valid_lines;
  __device__ __forceinline__ T* ptr(int r) const { return base + (r >> log2S) * sj + (r & (S - 1)) * I; }
  __device__ __forceinline__ int len(int r) const {
    if ((r >> log2S) >= valid_lines) return 0;
    const int rem = n - (r & (S - 1)) * I;
    return rem < 0 ? 0 : (rem > I ? I : rem);
  }
};

template <class T, int I, bool Acc, int kWarpKernelWarps = warp_kernel_warps<T, I>()>
__global__ void __launch_bounds__(32 * kWarpKernelWarps)
    warp_kernel(T* __restrict__ d, T* __restrict__ acc, PlanView<T> p, WarpGeom g) {
  using Exchange = WarpTranspose<T, I, MapKind::Giles>;
  __shared__ typename Exchange::TempStorage storage[kWarpKernelWarps];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  Exchange ex(storage[warp]);
  const int S = p.S;
  const int log2S = __ffs(S) - 1;
  const int s = lane & (S - 1);
  const index_t tile = static_cast<index_t>(blockIdx.x) * kWarpKernelWarps + warp;
  if (tile < g.tiles) {  // uniform per warp; the kernel has no block barrier
    const index_t k = tile / g.tiles_j;
    const index_t j0 = (tile - k * g.tiles_j) * g.lines_per_tile;
    const int valid = static_cast<int>(min(static_cast<index_t>(g.lines_per_tile), g.nj - j0));
    TileRows<T, I> rows{d + k * g.sk + j0 * g.sj, g.sj, p.n, S, log2S, valid};
    T x[I];
    ex.load(rows, x, T(0));
    local_sweeps(x, p, s);
    reduced_solve(x[0], x[I - 1], p, s);
    finish_segment(x, p, s, x[0], x[I - 1]);
    if (!Acc) {
      ex.store(rows, x);
    } else {
      TileRows<T, I> arows = rows;
      arows.base = acc + (rows.base - d);
      T row[I];
      ex.columns_to_rows(x, row);
#pragma unroll
      for (int q = 0; q < I; ++q) {
        const int e = q * 32 + lane;
        const int r = e / I, i = e % I;
        if (i < arows.len(r)) arows.ptr(r)[i] += row[q];
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Generic: one thread per line, Thomas through global memory (two passes).
// ---------------------------------------------------------------------------
template <class T, bool Acc>
__global__ void generic_kernel(T* __restrict__ d, T* __restrict__ acc, const T* __restrict__ a,
                               const T* __restrict__ cp, const T* __restrict__ inv, int n, LinesGeom g) {
  const index_t lines = g.nu * g.nv;
  for (index_t line = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; line < lines;
       line += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t v = line / g.nu, u = line - v * g.nu;
    T* x = d + u * g.su + v * g.sv;
    T prev = x[0] * __ldg(inv);
    x[0] = prev;
    for (int i = 1; i < n; ++i) {
      prev = (x[i * g.s_line] - __ldg(a + i) * prev) * __ldg(inv + i);
      x[i * g.s_line] = prev;
    }
    T next = prev;
    if (Acc) acc[u * g.su + v * g.sv + (n - 1) * g.s_line] += next;
    for (int i = n - 2; i >= 0; --i) {
      next = x[i * g.s_line] - __ldg(cp + i) * next;
      if (Acc)
        acc[u * g.su + v * g.sv + i * g.s_line] += next;
      else
        x[i * g.s_line] = next;
    }
  }
}

// ---------------------------------------------------------------------------

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

int next_pow2(index_t v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

template <class T, int I>
void launch_lanes(T* d, T* acc, const PlanView<T>& p, const LinesGeom& g, cudaStream_t st) {
  const dim3 block(32, p.S);
  const index_t gy = std::min<index_t>(g.nv, 65535);
  const dim3 grid(static_cast<unsigned>((g.nu + 31) / 32), static_cast<unsigned>(gy),
                  static_cast<unsigned>((g.nv + gy - 1) / gy));
  if (acc)
    lanes_kernel<T, I, true><<<grid, block, 0, st>>>(d, acc, p, g);
  else
    lanes_kernel<T, I, false><<<grid, block, 0, st>>>(d, acc, p, g);
  ADI_CUDA_CHECK_LAUNCH("lanes_kernel");
}

template <class T, int I>
void launch_warp(T* d, T* acc, const PlanView<T>& p, const WarpGeom& g, cudaStream_t st) {
  constexpr int kWarpKernelWarps = warp_kernel_warps<T, I>();
  const index_t blocks_needed = (g.tiles + kWarpKernelWarps - 1) / kWarpKernelWarps;
  ADI_REQUIRE(blocks_needed < (index_t(1) << 31), "too many x lines for one launch");
  const unsigned blocks = static_cast<unsigned>(blocks_needed);
  if (acc)
    warp_kernel<T, I, true><<<blocks, 32 * kWarpKernelWarps, 0, st>>>(d, acc, p, g);
  else
    warp_kernel<T, I, false><<<blocks, 32 * kWarpKernelWarps, 0, st>>>(d, acc, p, g);
  ADI_CUDA_CHECK_LAUNCH("warp_kernel");
}

template <class T>
constexpr int lanes_max_I() {
  return sizeof(T) == 4 ? 64 : 32;  // registers: I values of T per thread at 512 threads
}
constexpr int kWarpMaxI = 64;

}  // namespace

template <class T>
LineSolver<T>::LineSolver(const LineMatrix& m, Axis axis, const Layout3& L) : axis_(axis), layout_(L) {
  L.validate("device line solve");
  const int a = axis_index(axis);
  const index_t n = L.n[a];
  ADI_REQUIRE(m.size() == n, "line matrix length differs from the line length");
  ADI_REQUIRE(n < (index_t(1) << 31), "lines longer than 2^31 rows are not supported");

  std::vector<T> host;  // all tables in one allocation
  auto append = [&](const std::vector<T>& v) {
    const std::size_t off = host.size();
    host.insert(host.end(), v.begin(), v.end());
    return off;
  };

  // Pick the kernel and the segment length I (segments S follow from n).
  const bool unit_x = axis == Axis::X && L.stride[0] == 1;
  int I = 0;
  if (unit_x && n <= 32 * kWarpMaxI) {
    kind_ = Kind::Warp;
    I = env_int("ADI_X_SEG", 0);
    if (I == 0)
      for (int c : {2, 4, 8, 16, 32, 64})
        if (32 * c >= n) {
          I = c;
          break;
        }
  } else if (n <= kLanesMaxSegments * lanes_max_I<T>()) {
    kind_ = Kind::Lanes;
    I = env_int("ADI_YZ_SEG", 0);
    if (I == 0)
      for (int c : {4, 8, 16, 32, 64})
        if (c <= lanes_max_I<T>() && kLanesMaxSegments * c >= n) {
          I = c;
          break;
        }
  }
  if (kind_ != Kind::Generic) {
    const int S = next_pow2((n + I - 1) / I);
    const int maxS = kind_ == Kind::Warp ? 32 : kLanesMaxSegments;
    if (S > maxS || I < 2) {
      kind_ = Kind::Generic;  // an override that does not fit: fall back
    } else {
      const SegmentedPlan<T> plan = SegmentedPlan<T>::build(m, I, S);
      I_ = I;
      S_ = S;
      // Segment-minor copies of the per-row tables: [j * S + s].
      auto minor = [&](const std::vector<T>& v) {
        std::vector<T> o(v.size());
        for (int s = 0; s < S; ++s)
          for (int j = 0; j < I; ++j) o[static_cast<std::size_t>(j) * S + s] = v[static_cast<std::size_t>(s) * I + j];
        return o;
      };
      const std::size_t o_fm = append(minor(plan.fw_mul)), o_fs = append(minor(plan.fw_ms)),
                        o_bc = append(minor(plan.bw_c)), o_fa = append(minor(plan.fin_a)),
                        o_fc = append(minor(plan.fin_c)), o_b0 = append(plan.bw0_mul),
                        o_ri = append(plan.red_inv), o_ra = append(plan.red_a), o_rc = append(plan.red_c);
      tables_.upload(host);
      const T* b = tables_.get();
      view_ = PlanView<T>{b + o_fm, b + o_fs, b + o_bc, b + o_fa, b + o_fc, b + o_b0, b + o_ri, b + o_ra, b + o_rc,
                          static_cast<int>(n), I, S};
      return;
    }
  }
  // Generic fallback: the plain Thomas factorisation.
  const ThomasFactor<T> f = ThomasFactor<T>::factor(m);
  const std::vector<T> fa(f.lower(), f.lower() + n), fcp(f.upper_over_pivot(), f.upper_over_pivot() + n),
      finv(f.inv_pivot(), f.inv_pivot() + n);
  const std::size_t oa = append(fa), oc = append(fcp), oi = append(finv);
  tables_.upload(host);
  gen_a_ = tables_.get() + oa;
  gen_cp_ = tables_.get() + oc;
  gen_inv_ = tables_.get() + oi;
  I_ = static_cast<int>(n);
  S_ = 1;
  view_.n = static_cast<int>(n);
}

template <class T>
void LineSolver<T>::solve(T* d, T* acc, cudaStream_t st) const {
  const Layout3& L = layout_;
  const int a = axis_index(axis_);
  const index_t n = L.n[a];
  if (L.points() == 0) return;
  if (kind_ == Kind::Warp) {
    WarpGeom g{};
    g.nj = L.n[1];
    g.sj = L.stride[1];
    g.nk = L.n[2];
    g.sk = L.stride[2];
    g.lines_per_tile = 32 / S_;
    g.tiles_j = (g.nj + g.lines_per_tile - 1) / g.lines_per_tile;
    g.tiles = g.tiles_j * g.nk;
    switch (I_) {
      case 2: launch_warp<T, 2>(d, acc, view_, g, st); break;
      case 4: launch_warp<T, 4>(d, acc, view_, g, st); break;
      case 8: launch_warp<T, 8>(d, acc, view_, g, st); break;
      case 16: launch_warp<T, 16>(d, acc, view_, g, st); break;
      case 32: launch_warp<T, 32>(d, acc, view_, g, st); break;
      case 64: launch_warp<T, 64>(d, acc, view_, g, st); break;
      default: ADI_THROW(InvalidArgument, "warp kernel: unsupported segment length " + std::to_string(I_));
    }
    return;
  }
  // Lines enumerated by the other two axes; the one with the smaller stride is
  // the lanes axis so that neighbouring threads touch neighbouring elements.
  const int o1 = (a + 1) % 3, o2 = (a + 2) % 3;
  const int u = L.stride[o1] <= L.stride[o2] ? o1 : o2, v = u == o1 ? o2 : o1;
  const LinesGeom g{L.stride[a], L.n[u], L.stride[u], L.n[v], L.stride[v]};
  if (kind_ == Kind::Lanes) {
    switch (I_) {
      case 4: launch_lanes<T, 4>(d, acc, view_, g, st); break;
      case 8: launch_lanes<T, 8>(d, acc, view_, g, st); break;
      case 16: launch_lanes<T, 16>(d, acc, view_, g, st); break;
      case 32: launch_lanes<T, 32>(d, acc, view_, g, st); break;
      case 64:
        if constexpr (lanes_max_I<T>() >= 64) {
          launch_lanes<T, 64>(d, acc, view_, g, st);
          break;
        }
        [[fallthrough]];
      default: ADI_THROW(InvalidArgument, "lanes kernel: unsupported segment length " + std::to_string(I_));
    }
    return;
  }
  const index_t lines = g.nu * g.nv;
  const int threads = 128;
  const unsigned blocks = static_cast<unsigned>(std::min<index_t>((lines + threads - 1) / threads, 1 << 20));
  if (acc)
    generic_kernel<T, true><<<blocks, threads, 0, st>>>(d, acc, gen_a_, gen_cp_, gen_inv_, static_cast<int>(n), g);
  else
    generic_kernel<T, false><<<blocks, threads, 0, st>>>(d, acc, gen_a_, gen_cp_, gen_inv_, static_cast<int>(n), g);
  ADI_CUDA_CHECK_LAUNCH("generic_kernel");
}

template <class T>
std::string LineSolver<T>::describe() const {
  std::ostringstream s;
  s << axis_name(axis_) << ": ";
  switch (kind_) {
    case Kind::Warp: s << "warp kernel (transposed tiles), I = " << I_ << ", S = " << S_; break;
    case Kind::Lanes: s << "lanes kernel, I = " << I_ << ", S = " << S_; break;
    case Kind::Generic: s << "generic thread-per-line Thomas"; break;
  }
  return s.str();
}

template class LineSolver<float>;
template class LineSolver<double>;

}  // namespace adi::cuda
