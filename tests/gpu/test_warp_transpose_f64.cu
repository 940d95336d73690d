// WarpTranspose on the GPU, double: the conflict-free maps at every I the issue
// lists, the baselines (pitch, none) at a few, scalar and 16-byte paths.
// (Each case is a kernel instantiation; the subset keeps the build short.)
#include "warp_transpose_test.cuh"

namespace adi::test::wt {

[[maybe_unused]] static const bool registered =
    register_cases<ADI_WT_CASES(double, MapKind::Giles), ADI_WT_CASES(double, MapKind::Xor),
                   ADI_WT_BASELINE_CASES(double, MapKind::Pitch), ADI_WT_BASELINE_CASES(double, MapKind::None)>("f64");

}  // namespace adi::test::wt
