#pragma once
// The segmented ("partition") method for one constant-coefficient line
// matrix, as the device backends run it.
//
// A line of n rows is padded with identity rows to S*I rows (S segments of I
// rows; I >= 2, S a power of two <= 32). Each thread holds one segment in
// registers and runs a modified Thomas sweep on it (Laszlo, Giles, Appleyard
// 2016), after which every row j of the segment reads
//     A_j x_first + x_j + C_j x_last = d_j          (1 <= j <= I-2)
// and its first and last rows couple only to the neighbouring segments'
// last and first unknowns. Those 2S rows form a tridiagonal "reduced" system
// with unit diagonal, solved across the S threads of a line by two affine
// scans (forward elimination y_r = B_r + A_r y_{r-1}, back substitution
// z_r = y_r + C_r z_{r+1}), then each thread back-substitutes its interior.
//
// Because the coefficients are the same for every line, everything that does
// not depend on the right-hand side (the modified coefficients, the reduced
// system's factorisation) is computed here once, in double, and stored in T:
// the device reads no coefficient arrays, only small broadcast tables.
// Stability: for a diagonally dominant matrix the modified rows and the
// reduced system stay diagonally dominant, and every multiplier is < 1 in
// magnitude, so neither the sweeps nor the scans amplify rounding errors.

#include <adi/common.hpp>
#include <adi/tridiag.hpp>

#include <vector>

namespace adi {

template <class T>
struct SegmentedPlan {
  index_t n = 0;  ///< rows of the real line
  int seg_len = 0;   ///< I: rows per segment (>= 2)
  int segments = 0;  ///< S: segments per line (power of two, <= 32; any for build_long)

  // Per padded row r = s*I + j (S*I entries each).
  std::vector<T> fw_mul;  ///< forward: d_j <- fw_mul_j d_j - fw_ms_j d_{j-1}
  std::vector<T> fw_ms;   ///< (fw_ms = 0 for j < 2)
  std::vector<T> bw_c;    ///< backward: d_j <- d_j - bw_c_j d_{j+1}  (1 <= j <= I-3),
                          ///<           d_0 <- bw0_mul (d_0 - bw_c_0 d_1)  (I >= 3)
  std::vector<T> fin_a;   ///< final: x_j = d_j - fin_a_j x_first - fin_c_j x_last
  std::vector<T> fin_c;
  std::vector<T> bw0_mul;  ///< per segment

  // Reduced system, 2S rows (2s = first of segment s, 2s+1 = last).
  std::vector<T> red_inv;  ///< y_r = red_inv_r d_r + red_a_r y_{r-1}
  std::vector<T> red_a;
  std::vector<T> red_c;    ///< z_r = y_r + red_c_r z_{r+1}
  /// The reduced system itself, in double: row r's coefficients on
  /// unknowns r-1 and r+1 (its diagonal is 1). The long-line kernel solves
  /// it as a line matrix of its own (reduced_matrix) instead of by scans.
  std::vector<double> red_sub, red_sup;

  index_t padded() const { return static_cast<index_t>(seg_len) * segments; }

  /// Plans the solve of `m` (n rows) with segments of `seg_len` rows; S is the
  /// smallest power of two with S * seg_len >= n. Throws InvalidArgument if
  /// that needs more than 32 segments or seg_len < 2, NumericalError on a
  /// zero pivot.
  static SegmentedPlan build(const LineMatrix& m, int seg_len);
  /// The same with a given segment count (a power of two, S * seg_len >= n).
  static SegmentedPlan build(const LineMatrix& m, int seg_len, int segments);
  /// Any number of segments: S = ceil(n / seg_len), for the long-line kernel
  /// (LineKernelFamily::Long), whose segments are independent warps and
  /// whose reduced system is solved by another line solve, not by scans
  /// across a warp. The tables have the same meaning; S is not bounded.
  static SegmentedPlan build_long(const LineMatrix& m, int seg_len);
  /// The 2S-row reduced system as a line matrix (unit diagonal).
  LineMatrix reduced_matrix() const;

 private:
  static SegmentedPlan build_any(const LineMatrix& m, int seg_len, int segments);

 public:
};

/// Host reference of exactly the device algorithm (sequential scans), in T,
/// on one contiguous line of n values: the CPU oracle for the plan itself.
template <class T>
void segmented_solve_reference(const SegmentedPlan<T>& plan, T* line);

/// A periodic (cyclic) line matrix split for the segmented kernels by
/// Sherman-Morrison: A = A' + u v^T, where A' is m without its corners
/// lo = m.a[0] (row 0's coupling to node n-1) and hi = m.c[n-1], with
/// b'[0] = b[0] - g and b'[n-1] = b[n-1] - hi lo / g (g = -b[0], which keeps
/// A' diagonally dominant when A is: the choice of the CPU's cyclic solve);
/// u = (g, 0, ..., 0, hi), v = (1, 0, ..., 0, phi) with phi = lo / g. Then
///     x = y - lambda z,  y = A'^{-1} d,  z = A'^{-1} u,
///     lambda = (y_0 + phi y_{n-1}) psi,  psi = 1 / (1 + z_0 + phi z_{n-1}).
/// With constant coefficients z, phi and psi are the same for every line:
/// the kernels run their usual solve of A' and correct each row with one
/// FMA, reading z from a table (computed here once, in double).
struct CyclicSplit {
  LineMatrix tridiag;  ///< A' (its a[0] = c[n-1] = 0)
  std::vector<double> z;
  double phi = 0.0;
  double psi = 0.0;
};
/// Throws InvalidArgument for n < 3, NumericalError when A' or 1 + v.z is
/// singular (not for a diagonally dominant A).
CyclicSplit cyclic_split(const LineMatrix& m);

/// Host reference of the device's periodic solve: the segmented solve of A'
/// (plan built from split.tridiag), then the correction, in T.
template <class T>
void segmented_cyclic_reference(const SegmentedPlan<T>& plan, const CyclicSplit& split, T* line);

}  // namespace adi
