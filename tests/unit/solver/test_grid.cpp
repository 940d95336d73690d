#include "test_util.hpp"

#include "cpu/line_sweep.hpp"

#include <adi/options.hpp>

#include <array>

#include <sys/mman.h>

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

// ---- 64-bit index arithmetic on huge grids, without allocating them ----------------

TEST(Layout3, LineGeometryOf2048Cubed) {
  // What the CPU sweeps and the CUDA stepper compute from a 2048^3 layout
  // (2^33 points; a 32-bit product of extents would wrap to 0).
  const Layout3 L = Layout3::padded(2047, 2048, 2048, 2048, 2048);  // fp32 rows padded to 128 bytes as on the GPU
  EXPECT_EQ(L.points(), index_t(2047) * 2048 * 2048);
  EXPECT_EQ(L.span(), (index_t(1) << 33) - 1);  // last element: 2046 + 2047*2048 + 2047*2048^2
  EXPECT_EQ(L.offset(2046, 2047, 2047), (index_t(1) << 33) - 2);
  EXPECT_EQ(L.lines(Axis::X), index_t(2048) * 2048);
  EXPECT_EQ(L.lines(Axis::Z), index_t(2047) * 2048);
  const cpu::detail::LineSweep z(Axis::Z, L);
  EXPECT_EQ(z.n, 2048);
  EXPECT_EQ(z.s, index_t(1) << 22);
  EXPECT_EQ(z.su, 1);
  EXPECT_EQ(z.sv, 2048);
  EXPECT_EQ(z.batches_u * z.batch, 2048);  // 8 batches of 256 x-columns
  const cpu::detail::LineSweep x(Axis::X, L);
  EXPECT_EQ(x.s, 1);
  EXPECT_EQ(x.su, 2048);
  EXPECT_EQ(x.sv, index_t(1) << 22);
  // The largest offset a sweep forms: the last line's start plus (n-1) strides.
  EXPECT_EQ((z.nu - 1) * z.su + (z.nv - 1) * z.sv + (z.n - 1) * z.s, L.offset(2046, 2047, 2047));
}

namespace {
/// Address space for `n` elements that costs only the pages touched
/// (MAP_NORESERVE): the sparse layouts below span ~2^33.5 elements.
template <class T>
struct SparseArray {
  T* p = nullptr;
  std::size_t bytes = 0;
  explicit SparseArray(index_t n) : bytes(static_cast<std::size_t>(n) * sizeof(T)) {
    void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m != MAP_FAILED) p = static_cast<T*>(m);
  }
  ~SparseArray() {
    if (p) ::munmap(p, bytes);
  }
};
}  // namespace

// The CPU solvers and the RHS on a layout whose offsets pass 2^31 and 2^32
// (strides 2^30 + 1 and 2^32 + 5): only the 60 points are touched, and the
// result must equal the same computation on a packed array.
TEST(Layout3, CpuKernelsWithOffsetsBeyond2To32) {
  const Layout3 sparse{{5, 4, 3}, {1, (index_t(1) << 30) + 1, (index_t(1) << 32) + 5}};
  ASSERT_NO_THROW(sparse.validate());
  ASSERT_GT(sparse.span(), index_t(1) << 33);
  const Layout3 packed = Layout3::packed(5, 4, 3);
  SparseArray<double> d(sparse.span()), w(sparse.span());
  if (!d.p || !w.p) GTEST_SKIP() << "cannot reserve " << 2 * d.bytes / (1 << 30) << " GiB of address space";
  test::SeededRng rng;
  std::vector<double> ref(60), wref(60);
  for (index_t k = 0; k < 3; ++k)
    for (index_t j = 0; j < 4; ++j)
      for (index_t i = 0; i < 5; ++i) ref[packed.offset(i, j, k)] = rng.uniform(-1, 1);
  auto load = [&] {
    for (index_t k = 0; k < 3; ++k)
      for (index_t j = 0; j < 4; ++j)
        for (index_t i = 0; i < 5; ++i) d.p[sparse.offset(i, j, k)] = ref[packed.offset(i, j, k)];
  };
  auto expect_same = [&](const std::vector<double>& want, const double* got, const char* what) {
    for (index_t k = 0; k < 3; ++k)
      for (index_t j = 0; j < 4; ++j)
        for (index_t i = 0; i < 5; ++i)
          ASSERT_EQ(got[sparse.offset(i, j, k)], want[packed.offset(i, j, k)]) << what << " at " << i << "," << j
                                                                                  << "," << k;
  };
  for (Axis axis : {Axis::X, Axis::Y, Axis::Z}) {
    const auto f = ThomasFactor<double>::factor(test::random_dominant(rng, sparse.length(axis)));
    std::vector<double> want = ref;
    cpu::solve_constant(axis, f, want.data(), packed);
    load();
    cpu::solve_constant(axis, f, d.p, sparse);
    expect_same(want, d.p, axis_name(axis));
  }
  HeatProblem p;
  p.n = {5, 4, 3};
  p.lo = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
  p.dt = 0.01;
  load();
  cpu::douglas_rhs(ref.data(), wref.data(), packed, p);
  cpu::douglas_rhs(d.p, w.p, sparse, p);
  expect_same(wref, w.p, "douglas_rhs");
}

// The device row pitch (SolverOptions::row_align, ADI_ROW_ALIGN): rows start
// on 128 bytes by default in both precisions, or on the bytes asked for.
TEST(DeviceRowPitch, RoundsRowsUpToTheAlignment) {
  const SolverOptions d{};
  EXPECT_EQ(d.device_row_pitch(257, 4), 288);  // 32 floats
  EXPECT_EQ(d.device_row_pitch(257, 8), 272);  // 16 doubles
  EXPECT_EQ(d.device_row_pitch(512, 4), 512);
  EXPECT_EQ(d.device_row_pitch(3, 4), 32);
  EXPECT_EQ(d.device_row_pitch(1, 8), 16);
  SolverOptions o;
  for (const auto& c : {std::array<index_t, 4>{16, 257, 260, 258}, std::array<index_t, 4>{32, 257, 264, 260},
                        std::array<index_t, 4>{64, 257, 272, 264}, std::array<index_t, 4>{256, 257, 320, 288},
                        std::array<index_t, 4>{16, 3, 4, 4}, std::array<index_t, 4>{16, 2048, 2048, 2048}}) {
    o.row_align = static_cast<int>(c[0]);
    EXPECT_EQ(o.device_row_pitch(c[1], 4), c[2]) << c[0] << " bytes, " << c[1] << " floats";
    EXPECT_EQ(o.device_row_pitch(c[1], 8), c[3]) << c[0] << " bytes, " << c[1] << " doubles";
  }
}
