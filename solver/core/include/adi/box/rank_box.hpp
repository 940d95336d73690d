#pragma once
// The rank-box seam (namespace adi::box; solver/mpi uses it, solver/cpu and
// solver/cuda implement it): what every rank's box does whatever its plan — the
// field and work arrays in and out, their statistics, host buffers for what
// crosses ranks, its face planes out and its ghost planes in. The plans' own
// line solves extend it: LocalBackend (the constant tables' planned
// distributed lines, local_backend.hpp) and GeneralLocal (rows and reduced
// systems per line, general_local.hpp). No MPI here.
//
// Planes are exchanged packed: the plane perpendicular to axis a is indexed
// by the other two axes o1 < o2 with o1 fastest, element (c_o1, c_o2) at
// c_o1 + n_o1 c_o2 (a y plane: (i, k) at i + nx k; a z plane: (i, j) at
// i + nx j).

#include <adi/stepper.hpp>

#include <cstddef>
#include <string>

namespace adi::box {

template <class T>
class RankBox {
 public:
  virtual ~RankBox() = default;
  virtual std::string device_name() const = 0;
  virtual std::size_t bytes_allocated() const = 0;

  /// u and w (the right-hand side, then the increment) <-> the box (packed,
  /// x fastest).
  virtual void set_field(const T* packed) = 0;
  virtual void get_field(T* packed) = 0;
  virtual void set_work(const T* packed) = 0;
  virtual void get_work(T* packed) = 0;
  virtual FieldStats field_stats() = 0;

  /// A host buffer of at least n values owned by the box (page-locked on a
  /// GPU rank, so that its copies run at full speed and asynchronously),
  /// valid until the box is destroyed; `slot` names it (the same slot
  /// returns the same buffer, grown if needed).
  virtual T* host_buffer(int slot, std::size_t n) = 0;

  /// u's plane at index `side ? n_a - 1 : 0` along `axis` -> host (packed;
  /// done when this returns); host -> u's ghost plane at index
  /// `side ? n_a : -1` (queued).
  virtual void pack_face(int axis, int side, T* host) = 0;
  virtual void unpack_ghost(int axis, int side, const T* host) = 0;

  /// Waits for the work queued so far (a no-op where nothing is queued).
  virtual void synchronize() {}
};

}  // namespace adi::box
