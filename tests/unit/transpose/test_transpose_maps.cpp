// The index maps themselves: every map is a bijection of the tile onto its
// slots, its storage is exactly what the cost formula in maps.hpp /
// docs/TRANSPOSE.md says, and the 16-byte variants keep vectors whole.
// (Conflict-freeness is proved in test_bank_model.cpp.)

#include <adi/transpose/maps.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace adi::transpose;

namespace {

constexpr MapKind kMaps[] = {MapKind::Giles, MapKind::Xor, MapKind::Pitch, MapKind::None};

/// The shared-memory cost formulas, written independently of map_size.
int expected_slots(MapKind m, int I, int W) {
  const int F = odd_part(I), P = pow2_part(I);
  switch (m) {
    case MapKind::Giles: return 32 * I + (P == 1 ? 0 : P <= W ? (32 * I - 1) / (W * F) : 31);
    case MapKind::Pitch: return 32 * I + 31;
    case MapKind::Xor:
    case MapKind::None: return 32 * I;
  }
  return -1;
}

}  // namespace

// The maps are constexpr: the layout algebra is usable at compile time.
static_assert(giles_index(2, 0, 3, 32) == 2 && giles_index(0, 1, 3, 32) == 3, "odd I: k = e");
static_assert(giles_index(0, 8, 4, 32) == 33, "I = 4 floats: one pad after 32 elements");
static_assert(giles_index(0, 1, 64, 32) == 65, "P > W: row pitch I + 1");
static_assert(xor_index(5, 3, 32, 32) == 32 * 3 + (5 ^ 3), "I = 32 floats: the classic swizzle");
static_assert(map_size(MapKind::Pitch, 32, 32) == 32 * 33 - 1, "pitch: the last row's pad is not allocated");
static_assert(map_size(MapKind::Xor, 12, 32) == 32 * 12, "xor: no padding");
static_assert(map_index16(MapKind::Giles, 5, 2, 8, 4) == 4 * giles_index(1, 2, 2, 8) + 1, "16-byte: vector 1, lane 1");

TEST(TransposeMaps, OddEvenSplit) {
  for (int I = 1; I <= 256; ++I) {
    const int F = odd_part(I), P = pow2_part(I);
    EXPECT_EQ(F % 2, 1) << I;
    EXPECT_EQ(P & (P - 1), 0) << I;
    EXPECT_EQ(P * F, I) << I;
  }
}

TEST(TransposeMaps, EveryMapIsABijectionOntoItsSlots) {
  for (int W : {32, 16, 8})
    for (MapKind m : kMaps)
      for (int I = 1; I <= 256; ++I) {
        const int size = map_size(m, I, W);
        std::vector<char> used(static_cast<std::size_t>(size), 0);
        int top = -1;
        for (int j = 0; j < 32; ++j)
          for (int i = 0; i < I; ++i) {
            const int k = map_index(m, i, j, I, W);
            ASSERT_GE(k, 0);
            ASSERT_LT(k, size) << map_name(m) << " I=" << I << " W=" << W << " (" << i << "," << j << ")";
            ASSERT_FALSE(used[static_cast<std::size_t>(k)])
                << map_name(m) << " I=" << I << " W=" << W << ": two elements in slot " << k;
            used[static_cast<std::size_t>(k)] = 1;
            top = std::max(top, k);
          }
        // The storage is tight (the last slot is used) and matches the cost formula.
        EXPECT_EQ(top + 1, size) << map_name(m) << " I=" << I << " W=" << W;
        EXPECT_EQ(size, expected_slots(m, I, W)) << map_name(m) << " I=" << I << " W=" << W;
      }
}

TEST(TransposeMaps, GilesIsUnpaddedForOddI) {
  for (int W : {32, 16, 8})
    for (int I = 1; I <= 255; I += 2)
      for (int j = 0; j < 32; ++j)
        for (int i = 0; i < I; ++i) ASSERT_EQ(giles_index(i, j, I, W), i + j * I) << I;
}

TEST(TransposeMaps, XorIsUnpaddedForOddIAndTheClassicSwizzleAtOneWavefront) {
  for (int I = 1; I <= 255; I += 2)
    for (int j = 0; j < 32; ++j)
      for (int i = 0; i < I; ++i) ASSERT_EQ(xor_index(i, j, I, 32), i + j * I) << I;
  for (int j = 0; j < 32; ++j) {
    for (int i = 0; i < 32; ++i) EXPECT_EQ(xor_index(i, j, 32, 32), 32 * j + (i ^ j));
    for (int i = 0; i < 16; ++i) EXPECT_EQ(xor_index(i, j, 16, 16), 16 * j + (i ^ (j % 16)));  // 16 doubles
  }
}

TEST(TransposeMaps, SixteenByteVariantsKeepVectorsWholeAndAligned) {
  for (int elem : {4, 8}) {
    const int v = vector_elems(elem);
    for (MapKind m : kMaps)
      for (int I = v; I <= 256; I += v) {
        const int size = map_size16(m, I, elem);
        std::vector<char> used(static_cast<std::size_t>(size), 0);
        for (int j = 0; j < 32; ++j)
          for (int i = 0; i < I; ++i) {
            const int k = map_index16(m, i, j, I, elem);
            ASSERT_GE(k, 0);
            ASSERT_LT(k, size);
            ASSERT_FALSE(used[static_cast<std::size_t>(k)]) << map_name(m) << " I=" << I;
            used[static_cast<std::size_t>(k)] = 1;
            // Vector starts are 16-byte aligned, and a vector's elements are consecutive.
            ASSERT_EQ(k % v, i % v);
            ASSERT_EQ(k - i % v, map_index16(m, i - i % v, j, I, elem));
          }
        // Padding comes in whole 16-byte vectors.
        EXPECT_EQ(size % v, 0);
        EXPECT_EQ(size, v * expected_slots(m, I / v, 8)) << map_name(m) << " I=" << I << " elem=" << elem;
      }
  }
}

TEST(TransposeMaps, Names) {
  EXPECT_STREQ(map_name(MapKind::Giles), "giles");
  EXPECT_STREQ(map_name(MapKind::Pitch), "pitch");
  EXPECT_STREQ(map_name(MapKind::Xor), "xor");
  EXPECT_STREQ(map_name(MapKind::None), "none");
  EXPECT_EQ(wavefront_elems(4), 32);
  EXPECT_EQ(wavefront_elems(8), 16);
  EXPECT_EQ(vector_elems(4), 4);
  EXPECT_EQ(vector_elems(8), 2);
}
