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
// Hardware model (bank_model.hpp implements it; docs/TRANSPOSE.md derives
// every map; ncu on the GPU arbitrates): 32 banks of 4 bytes, 128 bytes per
// wavefront. A 4-byte access is served for the whole warp at once, an 8-byte
// access half-warp by half-warp, a 16-byte access quarter-warp by
// quarter-warp; in every case one phase covers 128 bytes. So each phase is
// conflict-free when its lanes' elements fall in distinct slots modulo
//   W = 128 / (element bytes)   (32 floats, 16 doubles, 8 16-byte vectors),
// and the maps below are derived for W elements per wavefront. The two access
// patterns then look the same for every element size: the row-wise phase
// covers W consecutive elements e = W r .. W r + W - 1, the column-wise phase
// W consecutive lanes j = W r .. W r + W - 1 reading the same i.

#include <adi/common.hpp>

namespace adi::transpose {

constexpr int kWarpSize = 32;
constexpr int kBankCount = 32;
constexpr int kBankBytes = 4;
constexpr int kWavefrontBytes = kBankCount * kBankBytes;  // 128
constexpr int kVectorBytes = 16;                          // float4 / double2

/// Elements of `elem_bytes` served by one conflict-free wavefront (W).
ADI_HD constexpr int wavefront_elems(int elem_bytes) { return kWavefrontBytes / elem_bytes; }
/// Elements in one 16-byte vector (v): 4 floats or 2 doubles.
ADI_HD constexpr int vector_elems(int elem_bytes) { return kVectorBytes / elem_bytes; }

/// I = P * F with P a power of two and F odd.
ADI_HD constexpr int odd_part(int I) {
  while (I > 0 && I % 2 == 0) I /= 2;
  return I;
}
ADI_HD constexpr int pow2_part(int I) { return I / odd_part(I); }

/// Giles: the padded map; Pitch: row pitch I + 1; None: unpadded baseline;
/// Xor: no padding, bank bits permuted by row bits.
enum class MapKind { Giles, Pitch, None, Xor };

/// Giles' map generalised to W elements per wavefront:
///   P == 1: k = e                      (odd I: nothing to fix)
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
/// Odd I: j I mod W takes W distinct values over W consecutive lanes (I is a
///   unit modulo the power of two W), so k = e is conflict-free as it is. For
///   W = 32 the P <= W formula gives the same (the tile ends before the first
///   pad at 32 F); for W = 16 or 8 it would spend 1 or 3 slots for nothing.
/// Cost: none (P == 1), floor((32 I - 1) / (W F)) pad elements (1 < P <= W),
///   or 31 (P > W).
ADI_HD constexpr int giles_index(int i, int j, int I, int W) {
  const int F = odd_part(I), P = I / F;
  const int e = i + j * I;
  return P == 1 ? e : P <= W ? e + e / (W * F) : e + j;
}

/// Row pitch I + 1: k = i + j (I + 1). Conflict-free in the column phase when
/// I + 1 is odd (I even); it conflicts in the row phase whenever a run of W
/// consecutive elements crosses a row end (I < W, or I not a multiple of W),
/// and in the column phase for odd I: the published alternative that fails in
/// one of the two phases. Kept to show exactly that.
/// Cost: 31 pad elements (one after every row but the last).
ADI_HD constexpr int pitch_index(int i, int j, int I) { return i + j * (I + 1); }

/// The unpadded baseline k = e: the column phase is gcd(I, W)-way conflicted
/// (e.g. I = 32 floats: all 32 lanes in one bank). Cost: none.
ADI_HD constexpr int plain_index(int i, int j, int I) { return i + j * I; }

/// XOR swizzle, no padding: k = e XOR key, where the key is taken from the
/// "row" bits of e and only flips the low log2(min(P, W)) bits of e:
///   span = max(P, W) F elements share one key,  key = floor(e / span) mod min(P, W).
/// For I = 32 floats (P = W = 32, F = 1) this is the classic swizzle
///   k = 32 j + (i XOR j):   k bits [4:0] = i[4:0] ^ j[4:0],  bits [9:5] = j.
/// Why conflict-free:
///   P >= W: span = I, key = j mod W. A row holds a whole number of aligned
///     W-blocks, so the XOR stays inside the row's block; column phase:
///     k mod W = (i mod W) XOR (j mod W), distinct over W consecutive j; row
///     phase: a run of W elements is one aligned block XOR a constant.
///   P < W: key = floor(j P / W) mod P (the same lane shift as Giles' pad,
///     see giles_index), but XORed into the low log2 P bits instead of added:
///     k mod W = P ((i / P + (j F mod W/P)) mod W/P) + ((i mod P) XOR key);
///     the first part takes W/P values over the lanes j of equal key, the
///     second P values over the keys, so W distinct banks. Row phase: the run
///     never straddles a multiple of span, so one key, and XOR with a constant
///     below P permutes an aligned block of W (P divides W).
/// Bijective on 0..32 I - 1 because XOR with a key < min(P, W) permutes each
/// aligned block of min(P, W) elements, and 32 I is a multiple of that block.
/// Cost: none (odd I: key = 0, k = e).
ADI_HD constexpr int xor_index(int i, int j, int I, int W) {
  const int F = odd_part(I), P = I / F;
  const int e = i + j * I;
  const int span = (P > W ? P : W) * F;
  const int mask = (P < W ? P : W) - 1;
  return e ^ ((e / span) & mask);
}

ADI_HD constexpr int map_index(MapKind m, int i, int j, int I, int W) {
  switch (m) {
    case MapKind::Giles: return giles_index(i, j, I, W);
    case MapKind::Pitch: return pitch_index(i, j, I);
    case MapKind::Xor: return xor_index(i, j, I, W);
    case MapKind::None: break;
  }
  return plain_index(i, j, I);
}

/// Shared-memory slots (elements) a 32 x I tile needs under map m. The
/// monotone maps end at their last element; the XOR map permutes 0..32 I - 1
/// (its last element is not necessarily in the last slot).
ADI_HD constexpr int map_size(MapKind m, int I, int W) {
  return m == MapKind::Xor ? kWarpSize * I : map_index(m, I - 1, kWarpSize - 1, I, W) + 1;
}

/// The 16-byte variant of a map (for I a multiple of v = 16 / elem_bytes):
/// the map applied to 16-byte vectors, (i, j) -> v * map(i / v, j, I / v, 8)
/// + i mod v. Every vector stays contiguous and 16-byte aligned, and padding
/// comes in whole vectors. With 16-byte accesses a phase is 8 lanes and one
/// wavefront serves W = 8 vectors, so the scalar derivations above carry over
/// with elements -> vectors: conflict-free when both phases use 16-byte
/// accesses (row phase: lane t moves vector 32 q + t; column phase: lane j
/// reads its row's vectors). Scalar column reads on such a map cannot be
/// conflict-free: element (i, j) always sits at offset i mod v of its vector,
/// so a fixed i reaches only 8 of the W 4- or 8-byte bank slots per phase.
ADI_HD constexpr int map_index16(MapKind m, int i, int j, int I, int elem_bytes) {
  const int v = vector_elems(elem_bytes);
  return v * map_index(m, i / v, j, I / v, kWavefrontBytes / kVectorBytes) + i % v;
}
ADI_HD constexpr int map_size16(MapKind m, int I, int elem_bytes) {
  return vector_elems(elem_bytes) * map_size(m, I / vector_elems(elem_bytes), kWavefrontBytes / kVectorBytes);
}

constexpr const char* map_name(MapKind m) {
  return m == MapKind::Giles ? "giles" : m == MapKind::Pitch ? "pitch" : m == MapKind::Xor ? "xor" : "none";
}

}  // namespace adi::transpose
