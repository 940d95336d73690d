#pragma once
// One test body for WarpTranspose, instantiated per (element type, I, map)
// in test_warp_transpose_f32.cu / _f64.cu. Every kernel result is compared
// element by element with a plain host reference; outputs are poisoned (NaN)
// first, so an element the kernel did not write cannot pass.

#include "gpu_support.hpp"
#include "test_util.hpp"

#include <adi/transpose/warp_transpose.cuh>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace adi::test::wt {

using transpose::MapKind;
using transpose::WarpTranspose;

template <class T, int I, MapKind M>
struct Case {
  using type = T;
  static constexpr int kI = I;
  static constexpr MapKind kMap = M;
};

// Storage: the 16-byte path may need more (its padding comes in whole
// vectors); Vector16 = false gives exactly the scalar map's slots.
static_assert(sizeof(WarpTranspose<float, 8, MapKind::Giles, false>::TempStorage) == 4 * (256 + 7),
              "scalar-only storage: 32 x 8 floats + 7 pads");
static_assert(sizeof(WarpTranspose<float, 8>::TempStorage) == 16 * (64 + 7),
              "16-byte path: 64 vectors + 7 vector pads");
static_assert(alignof(WarpTranspose<double, 6>::TempStorage) == 16, "16-byte path: aligned storage");
static_assert(!WarpTranspose<float, 6>::kHasVector16 && WarpTranspose<double, 6>::kHasVector16, "v = 4 / 2");

/// Warps per block: up to 4, within 40 KB of static shared memory. Several
/// warps per block so that a map that overruns its storage corrupts a
/// neighbour and fails.
template <class WT>
constexpr int warps_per_block() {
  int w = 4;
  while (w > 1 && w * static_cast<int>(sizeof(typename WT::TempStorage)) > 40 * 1024) --w;
  return w;
}

/// Blocks are launched as 16 x (2 warps) threads, so a warp spans two values
/// of threadIdx.y and its lane is not threadIdx.x % 32.
__device__ inline int linear_tid() { return static_cast<int>(threadIdx.x + blockDim.x * threadIdx.y); }
inline dim3 block_shape(int warps) { return dim3(16, 2 * static_cast<unsigned>(warps)); }

template <class T>
__device__ inline T nan_value() {
  return std::numeric_limits<T>::quiet_NaN();
}

/// Rows with their own lengths: row j = base + j * pitch, lens[j] elements.
template <class T>
struct RaggedRows {
  T* base;
  index_t pitch;
  const int* lens;
  __device__ T* ptr(int j) const { return base + j * pitch; }
  __device__ int len(int j) const { return lens[j]; }
};

/// The register switch: a contiguous tile of 32 I elements per warp goes
/// rows -> columns -> rows, scalar and (when I allows) 16-byte.
template <class T, int I, MapKind M>
__global__ void switch_kernel(const T* in, T* cols, T* rows, T* cols16, T* rows16, int tiles) {
  using WT = WarpTranspose<T, I, M>;
  constexpr int kWarps = warps_per_block<WT>();
  __shared__ typename WT::TempStorage storage[kWarps];
  const int tid = linear_tid(), w = tid / 32, lane = tid % 32;
  const int tile = static_cast<int>(blockIdx.x) * kWarps + w;
  if (tile >= tiles) return;  // whole warps only
  WT wt(storage[w]);
  const index_t base = static_cast<index_t>(tile) * 32 * I;
  T row[I], col[I];

#pragma unroll
  for (int q = 0; q < I; ++q) row[q] = in[base + 32 * q + lane];
#pragma unroll
  for (int i = 0; i < I; ++i) col[i] = nan_value<T>();
  wt.rows_to_columns(row, col);
#pragma unroll
  for (int i = 0; i < I; ++i) cols[base + lane * I + i] = col[i];
#pragma unroll
  for (int q = 0; q < I; ++q) row[q] = nan_value<T>();
  wt.columns_to_rows(col, row);
#pragma unroll
  for (int q = 0; q < I; ++q) rows[base + 32 * q + lane] = row[q];

  if constexpr (WT::kHasVector16) {
    constexpr int v = WT::kVec;
#pragma unroll
    for (int q = 0; q < I / v; ++q)
#pragma unroll
      for (int r = 0; r < v; ++r) row[q * v + r] = in[base + v * (32 * q + lane) + r];
#pragma unroll
    for (int i = 0; i < I; ++i) col[i] = nan_value<T>();
    wt.rows16_to_columns(row, col);
#pragma unroll
    for (int i = 0; i < I; ++i) cols16[base + lane * I + i] = col[i];
#pragma unroll
    for (int q = 0; q < I; ++q) row[q] = nan_value<T>();
    wt.columns_to_rows16(col, row);
#pragma unroll
    for (int q = 0; q < I / v; ++q)
#pragma unroll
      for (int r = 0; r < v; ++r) rows16[base + v * (32 * q + lane) + r] = row[q * v + r];
  }
}

/// load -> columns (written out) -> store, through the public load/store, so
/// the path is the one WarpTranspose picks: 16-byte for aligned rows when I
/// allows, scalar otherwise. (The tests steer it with the row alignment; one
/// kernel per case, rather than one per path, keeps the build short.)
template <class T, int I, MapKind M>
__global__ void load_store_kernel(const T* in, T* out, T* cols, const int* lens, index_t pitch, index_t tile_stride,
                                  int tiles, T fill, int* took_vector16) {
  using WT = WarpTranspose<T, I, M>;
  constexpr int kWarps = warps_per_block<WT>();
  __shared__ typename WT::TempStorage storage[kWarps];
  const int tid = linear_tid(), w = tid / 32, lane = tid % 32;
  const int tile = static_cast<int>(blockIdx.x) * kWarps + w;
  if (tile >= tiles) return;
  WT wt(storage[w]);
  const RaggedRows<const T> src{in + tile * tile_stride, pitch, lens + 32 * tile};
  const RaggedRows<T> dst{out + tile * tile_stride, pitch, lens + 32 * tile};

  const bool vec = WT::vector16_ok(src);
  if (lane == 0) took_vector16[tile] = vec ? 1 : 0;
  T col[I];
#pragma unroll
  for (int i = 0; i < I; ++i) col[i] = nan_value<T>();
  wt.load(src, col, fill);
#pragma unroll
  for (int i = 0; i < I; ++i) cols[(static_cast<index_t>(tile) * 32 + lane) * I + i] = col[i];
  wt.store(dst, col);
}

/// What the host side of a test needs to know about one case. The checking
/// code is templated on T only (not on I and the map), so the host compiler
/// sees two instantiations per test rather than one per case.
template <class T>
struct CaseInfo {
  int I, vec, warps;
  bool has_vector16;
  void (*launch_switch)(const CaseInfo&, const T* in, T* cols, T* rows, T* cols16, T* rows16, int tiles);
  void (*launch_load_store)(const CaseInfo&, const T* in, T* out, T* cols, const int* lens, index_t pitch,
                            index_t tile_stride, int tiles, T fill, int* took_vector16);
  int blocks(int tiles) const { return (tiles + warps - 1) / warps; }
};

template <class T, int I, MapKind M>
CaseInfo<T> case_info() {
  using WT = WarpTranspose<T, I, M>;
  CaseInfo<T> c;
  c.I = I;
  c.vec = WT::kVec;
  c.warps = warps_per_block<WT>();
  c.has_vector16 = WT::kHasVector16;
  c.launch_switch = [](const CaseInfo<T>& ci, const T* in, T* cols, T* rows, T* cols16, T* rows16, int tiles) {
    switch_kernel<T, I, M><<<ci.blocks(tiles), block_shape(ci.warps)>>>(in, cols, rows, cols16, rows16, tiles);
  };
  c.launch_load_store = [](const CaseInfo<T>& ci, const T* in, T* out, T* cols, const int* lens, index_t pitch,
                           index_t tile_stride, int tiles, T fill, int* took) {
    load_store_kernel<T, I, M>
        <<<ci.blocks(tiles), block_shape(ci.warps)>>>(in, out, cols, lens, pitch, tile_stride, tiles, fill, took);
  };
  return c;
}

inline ::testing::AssertionResult equal_at(double got, double want, const char* what, std::size_t at) {
  if (got == want) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << "[" << at << "] = " << got << ", expected " << want;
}

/// rows -> columns -> rows (scalar and 16-byte) on contiguous tiles.
template <class T>
void check_register_switch(const CaseInfo<T>& c) {
  const int I = c.I;
  const int tiles = 3 * c.warps + 1;  // the last block is partly empty
  const std::size_t n = static_cast<std::size_t>(tiles) * 32 * static_cast<std::size_t>(I);

  SeededRng rng;
  std::vector<T> h_in(n);
  for (auto& x : h_in) x = static_cast<T>(rng.uniform(-1.0, 1.0));
  DeviceBuffer<T> in(n), cols(n), rows(n), cols16(n), rows16(n);
  in.upload(h_in);
  cols.poison(), rows.poison(), cols16.poison(), rows16.poison();
  c.launch_switch(c, in.get(), cols.get(), rows.get(), cols16.get(), rows16.get(), tiles);
  ADI_TEST_CUDA_LAUNCH();

  // A contiguous tile: lane j's column i is element i + j I, the same flat
  // index as the input, so every output equals the input.
  const auto h_cols = cols.download(), h_rows = rows.download();
  for (std::size_t e = 0; e < n; ++e) {
    ASSERT_TRUE(equal_at(h_cols[e], h_in[e], "rows_to_columns", e));
    ASSERT_TRUE(equal_at(h_rows[e], h_in[e], "columns_to_rows", e));
  }
  if (c.has_vector16) {
    const auto c16 = cols16.download(), r16 = rows16.download();
    for (std::size_t e = 0; e < n; ++e) {
      ASSERT_TRUE(equal_at(c16[e], h_in[e], "rows16_to_columns", e));
      ASSERT_TRUE(equal_at(r16[e], h_in[e], "columns_to_rows16", e));
    }
  }
}

/// load -> columns -> store on ragged tiles of strided rows.
template <class T>
void check_load_store(const CaseInfo<T>& c) {
  const int I = c.I, v = c.vec;
  const int tiles = 3 * c.warps + 1;
  const T fill = static_cast<T>(42);

  SeededRng rng;
  // Row lengths: tile 0 full, the last tile only 5 rows (a ragged tile of
  // fewer than 32 lines), the rest random with many full and some empty rows.
  std::vector<int> h_lens(static_cast<std::size_t>(tiles) * 32);
  for (int t = 0; t < tiles; ++t)
    for (int j = 0; j < 32; ++j) {
      int len = I;
      if (t == tiles - 1) {
        len = j < 5 ? I : 0;
      } else if (t > 0) {
        const double u = rng.uniform(0.0, 1.0);
        len = u < 0.5 ? I : u < 0.6 ? 0 : static_cast<int>(rng.uniform(0.0, I + 0.999));
      }
      h_lens[static_cast<std::size_t>(t) * 32 + static_cast<std::size_t>(j)] = len;
    }
  DeviceBuffer<int> lens(h_lens.size()), took(static_cast<std::size_t>(tiles));
  lens.upload(h_lens);

  struct Setup {
    const char* name;
    index_t offset, pitch;  // elements: base offset and row pitch
  };
  // Aligned rows take the 16-byte path (when I is a multiple of v), rows
  // that start off a 16-byte boundary the scalar one.
  const index_t aligned_pitch = (I + 3 + v - 1) / v * v;  // padded, whole 16-byte vectors
  const std::vector<Setup> setups = {{"aligned rows", 0, aligned_pitch},
                                     {"misaligned rows", 1, I + 3},
                                     {"misaligned pitch", 0, aligned_pitch + 1}};

  for (const Setup& s : setups) {
    SCOPED_TRACE(s.name);
    const index_t tile_stride = 32 * s.pitch;
    const std::size_t n = static_cast<std::size_t>(s.offset + tiles * tile_stride);
    std::vector<T> h_in(n);  // the gaps hold data too: an over-read shows up
    for (auto& x : h_in) x = static_cast<T>(rng.uniform(-1.0, 1.0));
    DeviceBuffer<T> in(n), out(n), cols(static_cast<std::size_t>(tiles) * 32 * static_cast<std::size_t>(I));
    in.upload(h_in);
    out.poison(), cols.poison(), took.poison();
    c.launch_load_store(c, in.get() + s.offset, out.get() + s.offset, cols.get(), lens.get(), s.pitch, tile_stride,
                        tiles, fill, took.get());
    ADI_TEST_CUDA_LAUNCH();
    const auto h_out = out.download(), h_cols = cols.download();
    const auto h_took = took.download();

    for (int t = 0; t < tiles; ++t) {
      // The 16-byte path exactly when I allows it and every non-empty row is aligned.
      bool aligned = c.has_vector16;
      for (int j = 0; j < 32; ++j) {
        const index_t row = s.offset + t * tile_stride + j * s.pitch;
        if (h_lens[static_cast<std::size_t>(t * 32 + j)] > 0 &&
            (reinterpret_cast<std::uintptr_t>(in.get() + row) % 16) != 0)
          aligned = false;
      }
      ASSERT_EQ(h_took[static_cast<std::size_t>(t)], aligned ? 1 : 0) << "vector16_ok, tile " << t;
      for (int j = 0; j < 32; ++j) {
        const int len = h_lens[static_cast<std::size_t>(t * 32 + j)];
        const index_t row = s.offset + t * tile_stride + j * s.pitch;
        for (int i = 0; i < I; ++i) {
          const T want = i < len ? h_in[static_cast<std::size_t>(row + i)] : fill;
          const std::size_t at = (static_cast<std::size_t>(t) * 32 + static_cast<std::size_t>(j)) * I + i;
          ASSERT_TRUE(equal_at(h_cols[at], want, "column", at)) << " tile " << t << " row " << j << " i " << i;
        }
      }
    }
    // out: the rows' valid parts equal the input, everything else untouched.
    std::vector<char> valid(n, 0);
    for (int t = 0; t < tiles; ++t)
      for (int j = 0; j < 32; ++j)
        for (int i = 0; i < h_lens[static_cast<std::size_t>(t * 32 + j)]; ++i)
          valid[static_cast<std::size_t>(s.offset + t * tile_stride + j * s.pitch + i)] = 1;
    for (std::size_t e = 0; e < n; ++e) {
      if (valid[e])
        ASSERT_TRUE(equal_at(h_out[e], h_in[e], "out", e));
      else
        ASSERT_TRUE(std::isnan(h_out[e])) << "store wrote outside the rows' lengths at out[" << e << "]";
    }
  }
}

/// One fixture type for every case (gtest wants one per suite); the case is
/// data, and the two checks are the test bodies.
class WarpTransposeGpu : public ::testing::Test {};

template <class T, int I, MapKind M, bool kLoadStore>
class WarpTransposeCase : public WarpTransposeGpu {
 public:
  void TestBody() override {
    ADI_GPU_TEST_PRELUDE();
    if (kLoadStore)
      check_load_store(case_info<T, I, M>());
    else
      check_register_switch(case_info<T, I, M>());
  }
};

/// Registers WarpTransposeGpu.<dtype>_<map>_I<I>_{RegisterSwitch,LoadStore}IsEquivalentToRef
/// for each case: plain names for ctest, without typed-test decorations.
template <class... Cases>
bool register_cases(const char* dtype) {
  auto one = [&](auto tag) {
    using C = decltype(tag);
    using T = typename C::type;
    const std::string base = std::string(dtype) + "_" + transpose::map_name(C::kMap) + "_I" + std::to_string(C::kI);
    ::testing::RegisterTest("WarpTransposeGpu", (base + "_RegisterSwitchIsEquivalentToRef").c_str(), nullptr, nullptr,
                            __FILE__, __LINE__, []() -> WarpTransposeGpu* {
                              return new WarpTransposeCase<T, C::kI, C::kMap, false>;
                            });
    ::testing::RegisterTest("WarpTransposeGpu", (base + "_LoadStoreIsEquivalentToRef").c_str(), nullptr, nullptr,
                            __FILE__, __LINE__, []() -> WarpTransposeGpu* {
                              return new WarpTransposeCase<T, C::kI, C::kMap, true>;
                            });
  };
  (one(Cases{}), ...);
  return true;
}

/// The I values the issue asks for, for one element type and map.
#define ADI_WT_CASES(T, M)                                                                                   \
  Case<T, 1, M>, Case<T, 3, M>, Case<T, 4, M>, Case<T, 5, M>, Case<T, 6, M>, Case<T, 7, M>, Case<T, 8, M>,  \
      Case<T, 12, M>, Case<T, 16, M>, Case<T, 31, M>, Case<T, 32, M>, Case<T, 33, M>, Case<T, 64, M>
/// The baselines at odd, 16-byte-divisible, one-wavefront and just-over widths.
#define ADI_WT_BASELINE_CASES(T, M) Case<T, 3, M>, Case<T, 4, M>, Case<T, 32, M>, Case<T, 33, M>

}  // namespace adi::test::wt
