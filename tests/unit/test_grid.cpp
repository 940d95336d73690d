#include "test_util.hpp"

using namespace adi;

TEST(Layout3, PackedAndPaddedOffsets) {
  const Layout3 p = Layout3::packed(5, 4, 3);
  EXPECT_EQ(p.offset(1, 2, 1), 1 + 10 + 20);
  EXPECT_EQ(p.span(), 60);
  const Layout3 q = Layout3::padded(5, 4, 3, 8, 6);
  EXPECT_EQ(q.offset(4, 3, 2), 4 + 3 * 8 + 2 * 48);
  EXPECT_EQ(q.span(), 4 + 24 + 96 + 1);
  EXPECT_EQ(q.lines(Axis::Y), 15);
  EXPECT_NO_THROW(q.validate());
}

TEST(Layout3, RejectsOverlappingStrides) {
  Layout3 bad = Layout3::packed(5, 4, 3);
  bad.stride[1] = 4;  // rows of 5 elements 4 apart overlap
  EXPECT_THROW(bad.validate(), InvalidArgument);
  Layout3 neg = Layout3::packed(5, 4, 3);
  neg.n[2] = 0;
  EXPECT_THROW(neg.validate(), InvalidArgument);
}

TEST(Layout3, SixtyFourBitOffsets) {
  // 2048^3 points: offsets beyond 2^31 must not wrap.
  const Layout3 big = Layout3::packed(2048, 2048, 2048);
  EXPECT_EQ(big.offset(2047, 2047, 2047), (index_t(1) << 33) - 1);
  EXPECT_EQ(big.points(), index_t(1) << 33);
}
