#pragma once
// Host-side model of shared-memory bank conflicts, to check the index maps
// (maps.hpp) exhaustively without a GPU. The model, stated once here and in
// docs/TRANSPOSE.md; the GPU (ncu's l1tex__data_bank_conflicts_* metrics)
// arbitrates where the hardware differs:
//
//   * shared memory has 32 banks of 4 bytes; word w (byte address / 4) lives
//     in bank w mod 32; one wavefront serves at most one word per bank;
//   * a warp instruction of access width 4, 8 or 16 bytes is split into
//     phases of 128 / width lanes: 1 phase of 32 lanes (4 B), 2 of 16 lanes
//     (8 B, half-warps), 4 of 8 lanes (16 B, quarter-warps); a phase with no
//     active lane costs nothing;
//   * a phase needs as many wavefronts as the most *distinct* words any one
//     bank holds among its lanes' accesses (the same word twice is a
//     broadcast, not a conflict), and at least one;
//   * the instruction needs the sum over its phases.
// So a full-warp access is conflict-free when it needs 1 (4 B), 2 (8 B) or
// 4 (16 B) wavefronts, and 32 wavefronts is a fully serialised 4-byte access.

#include <adi/transpose/maps.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace adi::transpose {

/// Byte address of an inactive (predicated-off) lane.
constexpr std::int64_t kInactiveLane = -1;

/// The byte addresses (relative to any 128-byte aligned base) that the 32
/// lanes of one warp instruction touch; kInactiveLane for an inactive lane.
using WarpAddresses = std::array<std::int64_t, kWarpSize>;

/// Lanes served together in one phase: 128 / width_bytes.
int lanes_per_phase(int width_bytes);

struct WarpCost {
  int wavefronts = 0;    ///< what the instruction needs (sum over phases)
  int ideal = 0;         ///< one per phase with an active lane: the minimum
  int worst_phase = 0;   ///< the most wavefronts one phase needs ("n-way")
  bool conflict_free() const { return wavefronts == ideal; }
};

/// The model above. Throws adi::InvalidArgument for a width other than 4, 8
/// or 16, or an active address that is negative or not a multiple of the
/// width (the hardware faults on misaligned shared accesses).
WarpCost warp_cost(const WarpAddresses& byte_addresses, int width_bytes);

/// Wavefronts one warp instruction needs: 1 = conflict-free 4-byte access,
/// 32 = fully serialised. The same as warp_cost(...).wavefronts.
int wavefronts(const WarpAddresses& byte_addresses, int width_bytes);

/// Convenience: element indices of `elem_bytes` each, accessed at their own
/// width (index < 0: inactive lane).
int wavefronts_of_elements(const std::array<int, kWarpSize>& element_index, int elem_bytes);

// ---------------------------------------------------------------------------
// The access patterns of a 32 x I transposition, instruction by instruction,
// exactly as WarpTranspose (warp_transpose.cuh) issues them.
// ---------------------------------------------------------------------------

/// Row-wise: the pass that meets global memory (lane t moves element 32 q + t,
/// or 16-byte vector 32 q + t). Column-wise: lane j moves its own row.
enum class Pass { RowWise, ColumnWise };

/// How shared memory is accessed:
///   Scalar:          element-wide accesses, scalar map (any I).
///   Vector16:        16-byte accesses in both passes on the 16-byte map
///                    (I a multiple of v = 16 / elem_bytes).
///   Vector16Columns: 16-byte row-wise accesses but element-wide column reads
///                    on the 16-byte map: the combination that cannot be
///                    conflict-free (see map_index16); modelled to prove it.
enum class Path { Scalar, Vector16, Vector16Columns };

constexpr const char* pass_name(Pass p) { return p == Pass::RowWise ? "row-wise" : "column-wise"; }

/// True when `path` exists for I and elem_bytes (16-byte paths need I % v == 0).
bool path_available(Path path, int I, int elem_bytes);

/// Access width in bytes of `pass` on `path`.
int access_width(Path path, Pass pass, int elem_bytes);

/// The warp instructions of one pass: for the row-wise pass instruction q
/// (q = 0 .. I / (elements per lane access) - 1), for the column-wise pass
/// instruction i (per element or per vector of the lane's row). Byte
/// addresses relative to the start of the tile's shared storage.
std::vector<WarpAddresses> pass_addresses(MapKind map, int I, int elem_bytes, Path path, Pass pass);

struct PassCost {
  int instructions = 0;
  std::int64_t wavefronts = 0;  ///< summed over the instructions
  std::int64_t ideal = 0;       ///< the minimum for the same instructions
  int worst_phase = 0;          ///< n of the worst n-way phase (1: conflict-free)
  bool conflict_free() const { return wavefronts == ideal; }
  std::int64_t conflicts() const { return wavefronts - ideal; }  ///< what ncu counts
};

PassCost pass_cost(MapKind map, int I, int elem_bytes, Path path, Pass pass);

/// Shared-memory bytes one warp's tile needs for `path` (scalar or 16-byte map).
std::int64_t storage_bytes(MapKind map, int I, int elem_bytes, Path path);

}  // namespace adi::transpose
