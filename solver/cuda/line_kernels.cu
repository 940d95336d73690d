// Constant-coefficient batched line solves on the GPU (see line_solver.hpp).
//
// Memory traffic is what matters: every kernel reads each value once and
// writes it once (the fused variant reads the line and the accumulator and
// writes the accumulator). The forward-sweep state never leaves the chip: a
// segment lives in registers, the reduced system in shared memory/shuffles.

#include "line_solver.hpp"

#include "async_copy.cuh"

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
  // two tiles per warp: one being solved, one in flight
  constexpr std::size_t per_warp = 2 * sizeof(typename transpose::WarpTranspose<T, I>::TempStorage);
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
// Lanes kernel: block = 32 lines x S segments (blockDim = (32, S)), persistent
// over tiles of 32 lines. Thread (lane, s) owns rows s*I .. s*I+I-1 of line
// lane. Tiles are staged through shared memory with cp.async: while one tile
// is solved from registers, the next is already on its way, so the SM keeps
// a whole tile (64-128 KB) of loads in flight instead of stalling on them.
// Each thread copies and later reads exactly its own slots [r][lane]
// (consecutive lanes, consecutive words: conflict-free), so the staging
// needs no cross-thread barrier; the reduced-system exchange does.
//
// Buffers (`stages` tiles of dynamic shared memory):
//   plain solve, 2 stages: tile t+1 lands while t is solved (double buffer)
//   plain solve, 1 stage : tile t+1 is issued as soon as t is in registers
//   fused update, 2 stages: buffer 0 holds D, buffer 1 the accumulator u
//   fused update, 1 stage : the buffer takes u of tile t while t is solved,
//                           then D of tile t+1 while u is written back
// ---------------------------------------------------------------------------
struct LanesGeom {
  index_t s_line;   // stride along the line
  index_t nu, su;   // lanes axis (32 consecutive lines per tile)
  index_t nv, sv;   // outer axis
  index_t tiles_u;  // tiles along u
  index_t tiles;    // total tiles
};

template <class T>
constexpr int lanes_exchange_slots() {
  return transpose::map_size(MapKind::Giles, kLanesMaxSegments, transpose::wavefront_elems(sizeof(T)));
}

template <class T, int I>
struct LanesTile {
  const LanesGeom& g;
  int n, s, lane;
  index_t base = 0;
  bool active = false;
  __device__ LanesTile(const LanesGeom& geom, int rows, int seg, int ln) : g(geom), n(rows), s(seg), lane(ln) {}
  __device__ __forceinline__ void select(index_t tile) {
    s = opaque(s);
    lane = opaque(lane);
    const index_t v = tile / g.tiles_u;
    const index_t u = (tile - v * g.tiles_u) * 32 + lane;
    active = u < g.nu;
    base = (active ? u : 0) * g.su + v * g.sv;
  }
  // Stage this thread's rows of `src` (laid out like d) into buf[r][lane].
  __device__ __forceinline__ void issue(const T* src, T* buf) const {
#pragma unroll
    for (int j = 0; j < I; ++j) {
      const int r = s * I + j;
      const bool valid = active && r < n;
      cp_async(buf + r * 32 + lane, valid ? src + base + r * g.s_line : src, valid);
    }
  }
  __device__ __forceinline__ void read(const T* buf, T (&x)[I]) const {
#pragma unroll
    for (int j = 0; j < I; ++j) x[j] = buf[(s * I + j) * 32 + lane];
  }
  __device__ __forceinline__ void store(T* dst, const T (&x)[I]) const {
#pragma unroll
    for (int j = 0; j < I; ++j) {
      const int r = s * I + j;
      if (active && r < n) dst[base + r * g.s_line] = x[j];
    }
  }
  // acc = staged acc + x
  __device__ __forceinline__ void store_sum(T* dst, const T* buf, const T (&x)[I]) const {
#pragma unroll
    for (int j = 0; j < I; ++j) {
      const int r = s * I + j;
      if (active && r < n) dst[base + r * g.s_line] = buf[r * 32 + lane] + x[j];
    }
  }
};

// The per-tile solve once the tile is in registers: sweeps, reduced system
// through the padded exchange (column phase -> row phase), back substitution.
template <class T, int I>
__device__ __forceinline__ void lanes_solve(T (&x)[I], const PlanView<T>& p, int s, int lane, T* red_first,
                                            T* red_last) {
  const int S = p.S;
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
  __syncthreads();  // the exchange is reused by the next tile
}

template <class T, int I, bool Acc>
__global__ void __launch_bounds__(32 * kLanesMaxSegments, 1)
    lanes_kernel(T* __restrict__ d, T* __restrict__ acc, PlanView<T> p, LanesGeom g, int stages) {
  extern __shared__ __align__(16) unsigned char lanes_smem[];
  T* red_first = reinterpret_cast<T*>(lanes_smem);
  T* red_last = red_first + lanes_exchange_slots<T>();
  T* buf0 = red_last + lanes_exchange_slots<T>();
  T* buf1 = buf0 + p.S * I * 32;
  const int lane = threadIdx.x, s = threadIdx.y;
  const index_t stride = gridDim.x;
  index_t t = blockIdx.x;
  if (t >= g.tiles) return;  // uniform per block
  LanesTile<T, I> cur(g, p.n, s, lane), nxt(g, p.n, s, lane);
  T x[I];

  if (!Acc && stages == 2) {
    cur.select(t);
    cur.issue(d, buf0);
    cp_async_commit();
    if (t + stride < g.tiles) {
      nxt.select(t + stride);
      nxt.issue(d, buf1);
    }
    cp_async_commit();
    for (int it = 0; t < g.tiles; ++it, t += stride) {
      T* b = (it & 1) ? buf1 : buf0;
      cur.select(t);
      cp_async_wait<1>();
      cur.read(b, x);
      lanes_solve(x, p, cur.s, cur.lane, red_first, red_last);  // ends with a barrier: b is free
      cur.store(d, x);
      if (t + 2 * stride < g.tiles) {
        nxt.select(t + 2 * stride);
        nxt.issue(d, b);
      }
      cp_async_commit();
    }
  } else if (!Acc) {
    cur.select(t);
    cur.issue(d, buf0);
    cp_async_commit();
    for (; t < g.tiles; t += stride) {
      cur.select(t);
      cp_async_wait<0>();
      cur.read(buf0, x);
      __syncthreads();  // reads done before the slots are refilled
      if (t + stride < g.tiles) {
        nxt.select(t + stride);
        nxt.issue(d, buf0);
      }
      cp_async_commit();
      lanes_solve(x, p, cur.s, cur.lane, red_first, red_last);
      cur.store(d, x);
    }
  } else if (stages == 2) {
    cur.select(t);
    cur.issue(d, buf0);
    cp_async_commit();
    cur.issue(acc, buf1);
    cp_async_commit();
    for (; t < g.tiles; t += stride) {
      cur.select(t);
      cp_async_wait<1>();  // D of tile t (its u may still be coming)
      cur.read(buf0, x);
      __syncthreads();
      const bool more = t + stride < g.tiles;
      if (more) {
        nxt.select(t + stride);
        nxt.issue(d, buf0);
      }
      cp_async_commit();
      lanes_solve(x, p, cur.s, cur.lane, red_first, red_last);
      cp_async_wait<1>();  // u of tile t
      cur.store_sum(acc, buf1, x);
      __syncthreads();
      if (more) nxt.issue(acc, buf1);
      cp_async_commit();
    }
  } else {
    cur.select(t);
    cur.issue(d, buf0);
    cp_async_commit();
    for (; t < g.tiles; t += stride) {
      cur.select(t);
      cp_async_wait<0>();
      cur.read(buf0, x);
      __syncthreads();
      cur.issue(acc, buf0);  // u of this tile arrives while it is solved
      cp_async_commit();
      lanes_solve(x, p, cur.s, cur.lane, red_first, red_last);
      cp_async_wait<0>();
      cur.store_sum(acc, buf0, x);
      __syncthreads();
      if (t + stride < g.tiles) {
        nxt.select(t + stride);
        nxt.issue(d, buf0);
      }
      cp_async_commit();
    }
  }
  cp_async_wait<0>();
}

// ---------------------------------------------------------------------------
// Warp kernel: x lines with unit stride. A warp owns a tile of 32/S lines
// (consecutive j at one k); row r of the 32 x I tile is segment r % S of line
// r / S, i.e. I consecutive elements starting at line_base + (r % S) I.
// Tiles are copied with cp.async straight into the padded transposition
// layout (the copy engine does the row-wise phase, coalesced), two per warp
// in flight; the column read hands each lane its segment.
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

template <class T, int I>
__device__ __forceinline__ TileRows<T, I> tile_rows(T* d, const WarpGeom& g, const PlanView<T>& p, index_t tile) {
  const index_t k = tile / g.tiles_j;
  const index_t j0 = (tile - k * g.tiles_j) * g.lines_per_tile;
  const int valid = static_cast<int>(min(static_cast<index_t>(g.lines_per_tile), g.nj - j0));
  return TileRows<T, I>{d + k * g.sk + j0 * g.sj, g.sj, p.n, p.S, __ffs(p.S) - 1, valid};
}

template <class T, int I, class Storage>
__device__ __forceinline__ void issue_tile(const TileRows<T, I>& rows, Storage& st, const T* fallback) {
  const int lane = opaque(static_cast<int>(threadIdx.x & 31));
#pragma unroll
  for (int q = 0; q < I; ++q) {
    const int e = q * 32 + lane;
    const int r = e / I, i = e % I;
    const bool valid = i < rows.len(r);
    cp_async(&st.slot[WarpTranspose<T, I>::index(i, r)], valid ? rows.ptr(r) + i : fallback, valid);
  }
}

template <class T, int I, bool Acc, int kWarps = warp_kernel_warps<T, I>()>
__global__ void __launch_bounds__(32 * kWarps)
    warp_kernel(T* __restrict__ d, T* __restrict__ acc, PlanView<T> p, WarpGeom g) {
  // The transposition's index map and storage type (adi::transpose); the
  // row phase is done by cp.async (issue_tile), the column phase here.
  using Exchange = WarpTranspose<T, I, MapKind::Giles>;
  __shared__ typename Exchange::TempStorage storage[kWarps][2];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int s = lane & (p.S - 1);
  const index_t stride = static_cast<index_t>(gridDim.x) * kWarps;
  index_t t = static_cast<index_t>(blockIdx.x) * kWarps + warp;
  if (t >= g.tiles) return;  // uniform per warp; no block barrier below
  issue_tile(tile_rows<T, I>(d, g, p, t), storage[warp][0], d);
  cp_async_commit();
  if (t + stride < g.tiles) issue_tile(tile_rows<T, I>(d, g, p, t + stride), storage[warp][1], d);
  cp_async_commit();
  for (int it = 0; t < g.tiles; ++it, t += stride) {
    auto& buf = storage[warp][it & 1];
    const int ln = opaque(lane), seg = opaque(s);
    const TileRows<T, I> rows = tile_rows<T, I>(d, g, p, t);
    cp_async_wait<1>();
    __syncwarp();  // every lane's copies of this tile have landed
    T x[I];
#pragma unroll
    for (int i = 0; i < I; ++i) x[i] = buf.slot[Exchange::index(i, ln)];  // column phase
    __syncwarp();
    local_sweeps(x, p, seg);
    reduced_solve(x[0], x[I - 1], p, seg);
    finish_segment(x, p, seg, x[0], x[I - 1]);
    // Back to rows through the same buffer (column write, row read), then
    // coalesced stores (or the fused accumulate).
#pragma unroll
    for (int i = 0; i < I; ++i) buf.slot[Exchange::index(i, ln)] = x[i];
    __syncwarp();
    T* out = Acc ? acc : d;
    TileRows<T, I> orows = rows;
    orows.base = out + (rows.base - d);
#pragma unroll
    for (int q = 0; q < I; ++q) {
      const int e = q * 32 + ln;
      const int r = e / I, i = e % I;
      if (i < orows.len(r)) {
        const T v = buf.slot[Exchange::index(i, r)];
        if (Acc)
          orows.ptr(r)[i] += v;
        else
          orows.ptr(r)[i] = v;
      }
    }
    __syncwarp();  // the buffer is free
    if (t + 2 * stride < g.tiles) issue_tile(tile_rows<T, I>(d, g, p, t + 2 * stride), buf, d);
    cp_async_commit();
  }
  cp_async_wait<0>();
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

int sm_count() {
  int dev = 0, sms = 0;
  ADI_CUDA_CHECK(cudaGetDevice(&dev));
  ADI_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

// Dynamic shared memory of the lanes kernel: the exchange plus `stages`
// tiles of S*I rows x 32 lines. Two stages when they fit in 200 KB.
template <class T>
std::size_t lanes_smem(int rows, int stages) {
  return sizeof(T) * (2 * static_cast<std::size_t>(lanes_exchange_slots<T>()) +
                      static_cast<std::size_t>(stages) * rows * 32);
}
template <class T>
int lanes_stages(int rows) {
  return lanes_smem<T>(rows, 2) <= 200 * 1024 ? 2 : 1;
}

template <class T, int I, bool Acc>
void launch_lanes_impl(T* d, T* acc, const PlanView<T>& p, const LinesGeom& lg, cudaStream_t st) {
  const int rows = p.S * I;
  const int stages = lanes_stages<T>(rows);
  const std::size_t smem = lanes_smem<T>(rows, stages);
  // Above 48 KB a kernel must opt in to its dynamic shared memory.
  ADI_CUDA_CHECK(cudaFuncSetAttribute(lanes_kernel<T, I, Acc>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(smem)));
  const int threads = 32 * p.S;
  int per_sm = 0;
  ADI_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, lanes_kernel<T, I, Acc>, threads, smem));
  if (per_sm < 1) ADI_THROW(BackendUnavailable, "lanes kernel does not fit on a multiprocessor");
  LanesGeom g{lg.s_line, lg.nu, lg.su, lg.nv, lg.sv, (lg.nu + 31) / 32, 0};
  g.tiles = g.tiles_u * g.nv;
  const index_t blocks = std::min<index_t>(g.tiles, static_cast<index_t>(per_sm) * sm_count());
  lanes_kernel<T, I, Acc><<<static_cast<unsigned>(blocks), dim3(32, p.S), smem, st>>>(d, acc, p, g, stages);
  ADI_CUDA_CHECK_LAUNCH("lanes_kernel");
}

template <class T, int I>
void launch_lanes(T* d, T* acc, const PlanView<T>& p, const LinesGeom& g, cudaStream_t st) {
  if (acc)
    launch_lanes_impl<T, I, true>(d, acc, p, g, st);
  else
    launch_lanes_impl<T, I, false>(d, acc, p, g, st);
}

template <class T, int I, bool Acc>
void launch_warp_impl(T* d, T* acc, const PlanView<T>& p, const WarpGeom& g, cudaStream_t st) {
  constexpr int kWarps = warp_kernel_warps<T, I>();
  int per_sm = 0;
  ADI_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, warp_kernel<T, I, Acc>, 32 * kWarps, 0));
  if (per_sm < 1) ADI_THROW(BackendUnavailable, "warp kernel does not fit on a multiprocessor");
  const index_t blocks =
      std::min<index_t>((g.tiles + kWarps - 1) / kWarps, static_cast<index_t>(per_sm) * sm_count());
  warp_kernel<T, I, Acc><<<static_cast<unsigned>(blocks), 32 * kWarps, 0, st>>>(d, acc, p, g);
  ADI_CUDA_CHECK_LAUNCH("warp_kernel");
}

template <class T, int I>
void launch_warp(T* d, T* acc, const PlanView<T>& p, const WarpGeom& g, cudaStream_t st) {
  if (acc)
    launch_warp_impl<T, I, true>(d, acc, p, g, st);
  else
    launch_warp_impl<T, I, false>(d, acc, p, g, st);
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
