// The bank model on hand-made access patterns, then the exhaustive proof:
// for every I = 1..256, 4- and 8-byte elements, scalar and 16-byte paths,
// the conflict-free maps need the minimum number of wavefronts in both
// passes, and the baselines need exactly what the theory in
// docs/TRANSPOSE.md predicts (so a test fails if any map changes).

#include <adi/error.hpp>
#include <adi/transpose/bank_model.hpp>

#include <gtest/gtest.h>

#include <numeric>

using namespace adi::transpose;

namespace {

WarpAddresses strided(std::int64_t stride_bytes, std::int64_t offset = 0) {
  WarpAddresses a;
  for (int t = 0; t < kWarpSize; ++t) a[static_cast<std::size_t>(t)] = offset + t * stride_bytes;
  return a;
}

WarpAddresses inactive() {
  WarpAddresses a;
  a.fill(kInactiveLane);
  return a;
}

}  // namespace

// ---------------------------------------------------------------------------
// The model itself.
// ---------------------------------------------------------------------------

TEST(BankModel, FourByteAccesses) {
  EXPECT_EQ(wavefronts(strided(4), 4), 1);        // 32 consecutive words: 32 banks
  EXPECT_EQ(wavefronts(strided(0), 4), 1);        // one word: a broadcast
  EXPECT_EQ(wavefronts(strided(8), 4), 2);        // stride 2 words: 16 banks, 2 words each
  EXPECT_EQ(wavefronts(strided(12), 4), 1);       // stride 3 words: odd, all 32 banks
  EXPECT_EQ(wavefronts(strided(128), 4), 32);     // one bank, 32 words: fully serialised
  EXPECT_EQ(wavefronts(strided(4, 64), 4), 1);    // any offset
  WarpAddresses pairs = strided(4);
  for (int t = 0; t < 32; t += 2) pairs[static_cast<std::size_t>(t + 1)] = pairs[static_cast<std::size_t>(t)];
  EXPECT_EQ(wavefronts(pairs, 4), 1);              // lanes sharing a word: broadcast
}

TEST(BankModel, EightByteAccessesGoByHalfWarps) {
  EXPECT_EQ(wavefronts(strided(8), 8), 2);         // 256 consecutive bytes: the minimum, 2
  EXPECT_EQ(warp_cost(strided(8), 8).ideal, 2);
  EXPECT_EQ(wavefronts(strided(16), 8), 4);        // stride 2 doubles: 2-way in each half
  EXPECT_EQ(wavefronts(strided(128), 8), 32);      // one bank pair: 16-way in each half
  EXPECT_EQ(wavefronts(strided(0), 8), 2);         // broadcast, still two phases
  // Lane 0 and lane 16 in the same bank, different words: different phases, no conflict.
  WarpAddresses a = strided(8);
  a[16] = 1024;
  EXPECT_EQ(wavefronts(a, 8), 2);
  // The same two words within one half-warp do conflict.
  a = strided(8);
  a[1] = 1024;
  EXPECT_EQ(wavefronts(a, 8), 3);
}

TEST(BankModel, SixteenByteAccessesGoByQuarterWarps) {
  EXPECT_EQ(wavefronts(strided(16), 16), 4);       // 512 consecutive bytes: the minimum, 4
  EXPECT_EQ(wavefronts(strided(32), 16), 8);       // quads 0, 8, 16, 24, 0, ...: 2-way
  EXPECT_EQ(wavefronts(strided(128), 16), 32);     // one quad: 8-way in each quarter
  EXPECT_EQ(warp_cost(strided(128), 16).worst_phase, 8);
}

TEST(BankModel, InactiveLanes) {
  EXPECT_EQ(wavefronts(inactive(), 4), 0);
  WarpAddresses a = inactive();
  a[7] = 4 * 7;
  EXPECT_EQ(wavefronts(a, 4), 1);
  a[7] = 8 * 7;
  EXPECT_EQ(wavefronts(a, 8), 1);                  // only the first half-warp is active
  a = strided(128);
  for (int t = 4; t < 32; ++t) a[static_cast<std::size_t>(t)] = kInactiveLane;
  EXPECT_EQ(wavefronts(a, 4), 4);                  // 4 lanes left in one bank
  std::array<int, kWarpSize> e{};
  for (int t = 0; t < 32; ++t) e[static_cast<std::size_t>(t)] = t % 2 ? -1 : 32 * t;
  EXPECT_EQ(wavefronts_of_elements(e, 4), 16);     // 16 active lanes, all in bank 0
}

TEST(BankModel, RejectsWhatTheHardwareWouldNot) {
  EXPECT_THROW(wavefronts(strided(4), 12), adi::InvalidArgument);
  EXPECT_THROW(wavefronts(strided(4), 8), adi::InvalidArgument);    // misaligned 8-byte access
  EXPECT_THROW(wavefronts(strided(8, 8), 16), adi::InvalidArgument); // misaligned 16-byte access
  WarpAddresses a = strided(4);
  a[3] = -8;
  EXPECT_THROW(wavefronts(a, 4), adi::InvalidArgument);
  EXPECT_EQ(lanes_per_phase(4), 32);
  EXPECT_EQ(lanes_per_phase(8), 16);
  EXPECT_EQ(lanes_per_phase(16), 8);
}

// ---------------------------------------------------------------------------
// The exhaustive proof.
// ---------------------------------------------------------------------------

namespace {

constexpr int kMaxI = 256;

/// Phases per full-warp access of `width` bytes: the minimum wavefronts.
int phases(int width) { return 32 / lanes_per_phase(width); }

/// Lanes (or 16-byte vectors) per wavefront and instructions per pass.
struct Shape {
  int W;          // units per wavefront: 32 / 16 elements, or 8 vectors
  int units;      // units per row: I, or I / v
  int width;      // access width in bytes
};
Shape shape(int I, int elem, Path path) {
  if (path == Path::Scalar) return {wavefront_elems(elem), I, elem};
  return {8, I / vector_elems(elem), 16};
}

/// The row-wise pass of a map with row pitch `units + pad`: each phase moves
/// W consecutive units starting at a multiple of W; it needs 1 wavefront when
/// they lie in one row and 2 when they cross a row end (docs/TRANSPOSE.md).
std::int64_t pitch_rowwise_expected(int units, int W) {
  std::int64_t n = 0;
  for (int q = 0; q < units; ++q)
    for (int r = 0; r < 32 / W; ++r) {
      const int first = 32 * q + W * r, last = first + W - 1;
      n += first / units == last / units ? 1 : 2;
    }
  return n;
}

}  // namespace

class ConflictFreeMaps : public ::testing::TestWithParam<MapKind> {};

TEST_P(ConflictFreeMaps, MinimumWavefrontsInBothPassesForEveryWidthAndElementSize) {
  const MapKind m = GetParam();
  for (int elem : {4, 8})
    for (Path path : {Path::Scalar, Path::Vector16})
      for (int I = 1; I <= kMaxI; ++I) {
        if (!path_available(path, I, elem)) continue;
        const Shape s = shape(I, elem, path);
        for (Pass pass : {Pass::RowWise, Pass::ColumnWise}) {
          const PassCost c = pass_cost(m, I, elem, path, pass);
          ASSERT_EQ(c.instructions, s.units);
          ASSERT_EQ(c.wavefronts, std::int64_t{s.units} * phases(s.width))
              << map_name(m) << " I=" << I << " elem=" << elem << " path=" << (path == Path::Scalar ? "scalar" : "16B")
              << " " << pass_name(pass) << " worst phase " << c.worst_phase << "-way";
          ASSERT_TRUE(c.conflict_free());
          ASSERT_EQ(c.worst_phase, 1);
        }
      }
}

TEST_P(ConflictFreeMaps, ScalarColumnReadsOnASixteenByteMapCannotBeConflictFree) {
  // Element (i, j) sits at offset i mod v of its vector, so a fixed i reaches
  // only a v-th of the bank slots: exactly v times the minimum, for every I.
  const MapKind m = GetParam();
  for (int elem : {4, 8}) {
    const int v = vector_elems(elem);
    for (int I = v; I <= kMaxI; I += v) {
      const PassCost rows = pass_cost(m, I, elem, Path::Vector16Columns, Pass::RowWise);
      const PassCost cols = pass_cost(m, I, elem, Path::Vector16Columns, Pass::ColumnWise);
      ASSERT_TRUE(rows.conflict_free()) << I;
      ASSERT_EQ(cols.instructions, I);
      ASSERT_EQ(cols.wavefronts, std::int64_t{I} * phases(elem) * v) << map_name(m) << " I=" << I << " elem=" << elem;
      ASSERT_EQ(cols.worst_phase, v);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Maps, ConflictFreeMaps, ::testing::Values(MapKind::Giles, MapKind::Xor),
                         [](const auto& p) { return std::string(map_name(p.param)); });

TEST(BaselineMaps, UnpaddedConflictsGcdWaysInTheColumnPass) {
  // k = e: lanes j = 0..W-1 reading (i, j) hit slot i + j I, whose bank
  // repeats every W / gcd(I, W) lanes: gcd(I, W)-way in every phase.
  for (int elem : {4, 8})
    for (Path path : {Path::Scalar, Path::Vector16})
      for (int I = 1; I <= kMaxI; ++I) {
        if (!path_available(path, I, elem)) continue;
        const Shape s = shape(I, elem, path);
        const PassCost rows = pass_cost(MapKind::None, I, elem, path, Pass::RowWise);
        const PassCost cols = pass_cost(MapKind::None, I, elem, path, Pass::ColumnWise);
        const int g = std::gcd(s.units, s.W);
        ASSERT_TRUE(rows.conflict_free()) << I;  // consecutive elements: never a conflict
        ASSERT_EQ(cols.wavefronts, std::int64_t{s.units} * phases(s.width) * g) << "I=" << I << " elem=" << elem;
        ASSERT_EQ(cols.worst_phase, g);
      }
  // The textbook case: 32 floats per thread, every lane in the same bank.
  const PassCost c = pass_cost(MapKind::None, 32, 4, Path::Scalar, Pass::ColumnWise);
  EXPECT_EQ(c.worst_phase, 32);
  EXPECT_EQ(c.wavefronts, 32 * 32);
  // 16 doubles: each half-warp in one bank pair, 16-way.
  EXPECT_EQ(pass_cost(MapKind::None, 16, 8, Path::Scalar, Pass::ColumnWise).worst_phase, 16);
  // Odd I is conflict-free even unpadded.
  EXPECT_TRUE(pass_cost(MapKind::None, 33, 4, Path::Scalar, Pass::ColumnWise).conflict_free());
}

TEST(BaselineMaps, PitchFailsInOnePassOrTheOther) {
  // k = i + j (I + 1): the column pass is gcd(I + 1, W)-way (odd I conflicts),
  // the row pass costs 2 wavefronts in every phase whose run crosses a row
  // end (I not a multiple of W).
  for (int elem : {4, 8})
    for (Path path : {Path::Scalar, Path::Vector16})
      for (int I = 1; I <= kMaxI; ++I) {
        if (!path_available(path, I, elem)) continue;
        const Shape s = shape(I, elem, path);
        const PassCost rows = pass_cost(MapKind::Pitch, I, elem, path, Pass::RowWise);
        const PassCost cols = pass_cost(MapKind::Pitch, I, elem, path, Pass::ColumnWise);
        const int g = std::gcd(s.units + 1, s.W);
        ASSERT_EQ(cols.wavefronts, std::int64_t{s.units} * phases(s.width) * g) << "I=" << I << " elem=" << elem;
        ASSERT_EQ(rows.wavefronts, pitch_rowwise_expected(s.units, s.W)) << "I=" << I << " elem=" << elem;
        ASSERT_EQ(rows.conflict_free(), s.units % s.W == 0) << "I=" << I << " elem=" << elem;
        // Conflict-free in both passes exactly when I is a multiple of W
        // (then I + 1 is odd too).
        ASSERT_EQ(rows.conflict_free() && cols.conflict_free(), s.units % s.W == 0) << "I=" << I;
      }
  // Examples from the docs: 31 floats (row pass crosses row ends, 2x; I + 1 = 32: 32-way columns).
  EXPECT_EQ(pass_cost(MapKind::Pitch, 31, 4, Path::Scalar, Pass::ColumnWise).worst_phase, 32);
  EXPECT_EQ(pass_cost(MapKind::Pitch, 31, 4, Path::Scalar, Pass::RowWise).worst_phase, 2);
  EXPECT_TRUE(pass_cost(MapKind::Pitch, 32, 4, Path::Scalar, Pass::RowWise).conflict_free());
  EXPECT_TRUE(pass_cost(MapKind::Pitch, 32, 4, Path::Scalar, Pass::ColumnWise).conflict_free());
}

TEST(BankModelPatterns, AddressesAreTheWarpTransposeOnes) {
  // Spot checks of pass_addresses against the definitions in bank_model.hpp.
  const auto rows = pass_addresses(MapKind::Giles, 5, 4, Path::Scalar, Pass::RowWise);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[1][3], 4 * giles_index((32 + 3) % 5, (32 + 3) / 5, 5, 32));
  const auto cols = pass_addresses(MapKind::Giles, 6, 8, Path::Scalar, Pass::ColumnWise);
  EXPECT_EQ(cols[4][17], 8 * giles_index(4, 17, 6, 16));
  const auto v = pass_addresses(MapKind::Xor, 8, 4, Path::Vector16, Pass::RowWise);
  ASSERT_EQ(v.size(), 2u);  // 8 floats = 2 vectors per row
  EXPECT_EQ(v[1][5], 4 * map_index16(MapKind::Xor, ((32 + 5) % 2) * 4, (32 + 5) / 2, 8, 4));
  EXPECT_EQ(access_width(Path::Vector16Columns, Pass::ColumnWise, 8), 8);
  EXPECT_EQ(access_width(Path::Vector16Columns, Pass::RowWise, 8), 16);
  EXPECT_FALSE(path_available(Path::Vector16, 6, 4));
  EXPECT_TRUE(path_available(Path::Vector16, 6, 8));
  EXPECT_THROW(pass_addresses(MapKind::Giles, 6, 4, Path::Vector16, Pass::RowWise), adi::InvalidArgument);
  EXPECT_THROW(pass_addresses(MapKind::Giles, 0, 4, Path::Scalar, Pass::RowWise), adi::InvalidArgument);
  EXPECT_EQ(storage_bytes(MapKind::Giles, 4, 4, Path::Scalar), 4 * (128 + 3));
  EXPECT_EQ(storage_bytes(MapKind::Giles, 4, 4, Path::Vector16), 16 * 32);  // one vector per row: odd, no pad
}
