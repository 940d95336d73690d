#pragma once
// The decomposition plan of a distributed run (HeFFTe style: pure code with
// no MPI calls, so every rule here is unit-tested without mpirun).
//
// The nx x ny x nz nodes are cut into a process grid of Px x Py x Pz
// sub-boxes, one per rank. Each axis is split into contiguous ranges as
// evenly as possible: with n = q P + r, the first r ranks get q + 1 nodes and
// the others q (uneven splits are the normal case, any n >= P works, ranks
// with a single node included). Ranks are numbered x fastest:
// rank = cx + Px (cy + Py cz).
//
// adi3d never splits x (Px = 1): x lines are contiguous in memory and the
// CUDA x solve keeps a whole line in one warp, so they stay on one rank;
// the grid is a slab (Py = 1 or Pz = 1) or a pencil (both > 1) over (y, z).
// The automatic choice takes the factorisation Py x Pz = ranks with the
// smallest cut area (y cuts: (Py - 1) nx nz nodes on each side, z cuts:
// (Pz - 1) nx ny), which is what both the halo exchange and the reduced
// systems of the distributed line solves move; ties go to more z cuts
// (z planes are contiguous, the cheapest halos to pack).
//
// Worked example: 37 x 29 x 23 nodes on 4 ranks. Candidates 1 x 1 x 4
// (cut 3 * 37 * 29 = 3219), 1 x 2 x 2 (37 * 23 + 37 * 29 = 1924),
// 1 x 4 x 1 (3 * 37 * 23 = 2553): the pencil 1 x 2 x 2 wins; rank 3 has
// coordinates (0, 1, 1) and owns y 15..28, z 12..22 (14 x 11 nodes of the
// 29 x 23 cross-section; the first y range has 15 nodes, the second 14).

#include <adi/common.hpp>
#include <adi/error.hpp>
#include <adi/grid.hpp>

#include <algorithm>
#include <array>
#include <string>

namespace adi {

/// n nodes in `parts` contiguous ranges, the first n % parts one node longer.
struct Split1D {
  index_t n = 1;
  int parts = 1;
  index_t size(int p) const { return n / parts + (p < n % parts ? 1 : 0); }
  index_t begin(int p) const { return static_cast<index_t>(p) * (n / parts) + std::min<index_t>(p, n % parts); }
  index_t end(int p) const { return begin(p) + size(p); }
  /// The part holding node i (0 <= i < n).
  int owner(index_t i) const;
};

/// A sub-box of the global grid: nodes begin[a] .. begin[a] + size[a] - 1.
struct Box {
  std::array<index_t, 3> begin{{0, 0, 0}};
  std::array<index_t, 3> size{{0, 0, 0}};
  index_t points() const { return size[0] * size[1] * size[2]; }
  index_t end(int a) const { return begin[a] + size[a]; }
};

/// One rank's part: its box and which of its faces are cuts (shared with a
/// neighbouring rank) rather than faces of the domain.
struct LocalPart {
  int rank = 0;
  std::array<int, 3> coords{{0, 0, 0}};
  Box box;
  std::array<bool, 3> lo_cut{{false, false, false}};
  std::array<bool, 3> hi_cut{{false, false, false}};
};

class Decomposition {
 public:
  Decomposition() = default;
  /// Plans `ranks` sub-boxes of an n[0] x n[1] x n[2] grid. `grid` gives the
  /// ranks per axis; entries 0 are chosen (all 0: automatic, x never split).
  /// Throws InvalidArgument when the grid's product is not `ranks`, or an
  /// axis has more ranks than nodes, or no factorisation fits.
  static Decomposition plan(const std::array<index_t, 3>& n, int ranks, const std::array<int, 3>& grid = {{0, 0, 0}});

  const std::array<index_t, 3>& global() const { return n_; }
  const std::array<int, 3>& grid() const { return dims_; }
  int ranks() const { return dims_[0] * dims_[1] * dims_[2]; }
  Split1D split(int axis) const { return Split1D{n_[axis], dims_[axis]}; }
  bool is_split(int axis) const { return dims_[axis] > 1; }

  std::array<int, 3> coords(int rank) const;
  /// The rank at grid coordinates c, or -1 outside the grid.
  int rank_of(const std::array<int, 3>& c) const;
  /// The neighbouring rank along `axis` in direction dir (-1 or +1), -1 at a
  /// face of the domain. Along a periodic axis split among several ranks
  /// (set_periodic) the ranks form a ring: the last rank's upper neighbour is
  /// the first, so there is no face of the domain there (with two ranks both
  /// neighbours are the same rank).
  int neighbour(int rank, int axis, int dir) const;
  /// Marks periodic axes (default: none, as for every classic problem). Only
  /// neighbour() and part()'s cut flags change: a split periodic axis has
  /// cuts on both sides of every rank. The plan itself does not depend on it.
  void set_periodic(const std::array<bool, 3>& periodic) { periodic_ = periodic; }
  bool wraps(int axis) const { return periodic_[axis] && dims_[axis] > 1; }
  LocalPart part(int rank) const;
  /// Nodes on the cuts between sub-boxes, counted once per cut face.
  double cut_area() const;
  /// One line for logs: "4 ranks as 1 x 2 x 2 (pencils over y, z), sub-boxes 37 x 14..15 x 11..12".
  std::string describe() const;

 private:
  std::array<index_t, 3> n_{{1, 1, 1}};
  std::array<int, 3> dims_{{1, 1, 1}};
  std::array<bool, 3> periodic_{{false, false, false}};
};

/// How one rank stores its box: one ghost layer on both sides of every axis
/// listed in `ghosts` (all of a split axis' ranks have it, so the origin is
/// the same on every rank), rows padded to a multiple of `row_align`
/// elements. `layout` describes the box's own nodes with the allocation's
/// strides; node (0, 0, 0) sits `origin` elements into the allocation, so
/// ghost planes are at index -1 and n of the layout.
struct LocalStorage {
  Layout3 layout;
  index_t origin = 0;
  index_t elements = 0;
  static LocalStorage make(const std::array<index_t, 3>& size, const std::array<bool, 3>& ghosts,
                           index_t row_align = 1);
};

}  // namespace adi
