#pragma once
// Shared-memory index maps for handing a warp's row-wise (coalesced) data to
// its threads column-wise, after Giles' note on padded transposition.
//
// The tile has 32 rows (row j is owned by lane j afterwards) and I columns
// (elements per thread). Element (i, j), 0 <= i < I, 0 <= j < 32, has the
// flattened row-major index e = i + j*I; the row-wise phase has lane t write
// e = 32q + t for q = 0..I-1 (consecutive lanes, consecutive elements), the
// column-wise phase has lane j read (i, j) for i = 0..I-1 (lanes I apart).
// A map k(i, j) gives the shared-memory slot (in elements) of (i, j).
//
// Bank model (checked on the GPU by ncu, see docs/PERFORMANCE.md): 32 banks of
// 4 bytes, 128 bytes served per wavefront. A warp's 4-byte access is one
// wavefront when its 32 words fall in 32 distinct banks; an 8-byte access is
// served half-warp by half-warp, each conflict-free when its 16 dwords-pairs
// fall in 16 distinct bank pairs. So the maps are derived for W elements per
// wavefront: W = 32 for 4-byte and W = 16 for 8-byte elements.

#include <adi/common.hpp>

namespace adi::transpose {

constexpr int kWarpSize = 32;
constexpr int kBankCount = 32;
constexpr int kBankBytes = 4;
constexpr int kWavefrontBytes = kBankCount * kBankBytes;  // 128

/// Elements of `elem_bytes` served by one conflict-free wavefront.
constexpr int wavefront_elems(int elem_bytes) { return kWavefrontBytes / elem_bytes; }

/// I = P * F with P a power of two and F odd.
ADI_HD constexpr int odd_part(int I) {
  while (I > 0 && I % 2 == 0) I /= 2;
  return I;
}
ADI_HD constexpr int pow2_part(int I) { return I / odd_part(I); }

enum class MapKind { Giles, Pitch, None };

/// Giles' map generalised to W elements per wavefront:
///   P <= W: k = e + floor(e / (W F))   (one pad element every W*F elements)
///   P >  W: k = e + j                  (row pitch I + 1)
/// Why conflict-free (column phase, lanes j = 0..W-1 of one wavefront):
///   e = i + j P F. If P <= W: i < P F gives i / (W F) < P / W, and j P / W is
///   a multiple of P / W, so floor(e / (W F)) = floor(j P / W), which steps by
///   one every W/P lanes, exactly where j P F mod W starts repeating; the W
///   lanes land on W distinct banks. If P > W, I is a multiple of W and
///   k mod W = (i + j) mod W.
/// Row phase: W consecutive e never straddle a multiple of W*F except at their
///   start (W divides W*F and the run starts at a multiple of W), so they map to
///   W consecutive slots; for P > W a row holds a multiple of W elements, so
///   the run stays in one row and k = e + j is again consecutive.
/// Cost: floor((32 I - 1) / (W F)) pad elements (P <= W) or 31 (P > W).
ADI_HD constexpr int giles_index(int i, int j, int I, int W) {
  const int F = odd_part(I), P = I / F;
  const int e = i + j * I;
  return P <= W ? e + e / (W * F) : e + j;
}

/// Row pitch I + 1: k = i + j (I + 1). Conflict-free in the column phase when
/// I + 1 is odd (I even); it conflicts in the row phase whenever a run of W
/// consecutive elements crosses a row end (I < W, or I not a multiple of W),
/// and in the column phase for odd I: the published alternative that fails in
/// one of the two phases. Kept to show exactly that.
ADI_HD constexpr int pitch_index(int i, int j, int I) { return i + j * (I + 1); }

/// The unpadded baseline k = e: the column phase is gcd(I, W)-way conflicted
/// (e.g. I = 32 floats: all 32 lanes in one bank).
ADI_HD constexpr int plain_index(int i, int j, int I) { return i + j * I; }

ADI_HD constexpr int map_index(MapKind m, int i, int j, int I, int W) {
  return m == MapKind::Giles ? giles_index(i, j, I, W) : m == MapKind::Pitch ? pitch_index(i, j, I)
                                                                               : plain_index(i, j, I);
}

/// Shared-memory slots (elements) a 32 x I tile needs under map m.
ADI_HD constexpr int map_size(MapKind m, int I, int W) { return map_index(m, I - 1, kWarpSize - 1, I, W) + 1; }

}  // namespace adi::transpose
