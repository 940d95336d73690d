#pragma once
// The rank-box seam (adi::box): one rank's arithmetic for the GENERAL problem
// (problem.hpp: K, c, q fields, sources, flux / convective / periodic faces,
// moving Dirichlet values, flat axes) on the CPU. No MPI here: the
// distributed stepper (solver/mpi/distributed_stepper.cpp) moves the numbers.
// The constant tables keep their own box (local_backend.hpp), bit for bit.
//
// The rank holds its box with one ghost layer on both sides of every split
// axis (LocalStorage), for u and for K, 1/c and q. K, c and q are read once,
// through FieldSource::read, on the box plus those ghost layers only (on a
// periodic axis the ghost beyond the last node is node 0: wrapped reads).
// Every row is built from discrete.hpp with the node's GLOBAL index along
// the axis and the domain's AxisEnds, so each rank computes exactly the rows
// of the whole-grid oracle (cpu::CpuStepper).
//
// Lines along a split axis (the line matrices now differ from line to line,
// so nothing can be planned once as for the classic path): rank q owns rows
// r0 .. r0 + m - 1 of a line; F = x[r0] and L = x[r0 + m - 1] are its
// first and last unknowns. Its interior rows 1 .. m - 2 are eliminated
// locally with F and L as known boundary values (one Thomas factorisation,
// three right-hand sides: the "3-sweep" / partition method):
//
//     x_i = r_i + alpha_i F + beta_i L,   i = 1 .. m - 2.
//
// Substituted into the rank's first and last rows this gives two rows in
// the unknowns ... L_{q-1}, F_q, L_q, F_{q+1} ... (ordered rank by rank):
//
//     first: a_0 L_{q-1} + (b_0 + c_0 alpha_1) F_q + c_0 beta_1 L_q        = d_0 - c_0 r_1
//     last:  a_{m-1} alpha_{m-2} F_q + (b_{m-1} + a_{m-1} beta_{m-2}) L_q
//                                    + c_{m-1} F_{q+1}                     = d_{m-1} - a_{m-1} r_{m-2}
//
// (m = 2: no interior, x_1 = L and x_0 = F; m = 1: F = L and the rank's one
// row a_0 L_{q-1} + b_0 F + c_0 F_{q+1} = d_0 is its only reduced row). In
// that order the reduced rows of all ranks form ONE tridiagonal system of
// N = sum_q min(m_q, 2) unknowns per line; on a periodic axis the first
// rank's a_0 couples to the last rank's L and the last rank's c to the first
// rank's F: the system closes into a ring (a cyclic tridiagonal solve). It
// is the Schur complement of the line matrix on the segment end points; the
// Douglas matrices are strictly diagonally dominant, and so are their Schur
// complements, so neither the interior eliminations nor the reduced solves
// need pivoting and the result agrees with the one-rank solve to round-off.
// Per line a rank sends 8 numbers (its two reduced rows), all lines of the
// rank in one all-gather per split axis (per batch of lines); every rank
// then solves the reduced system of each of its lines (2P unknowns at most)
// and finishes locally. The rows' coefficients depend on the line matrix
// only, which no step changes: after an axis' first solve only the two
// right-hand sides of a line travel (distributed_stepper.cpp).

#include <adi/decomposition.hpp>
#include <adi/detail/line_thomas.hpp>
#include <adi/box/rank_box.hpp>
#include <adi/options.hpp>
#include <adi/split.hpp>
#include <adi/stepper.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace adi::box {

/// Values per line in a rank's contribution to the reduced systems: two rows
/// (a, b, c, d) — the first and last row; a one-row rank fills only the first.
constexpr int kReducedValues = 8;

/// The rank box of the axis tables and field rows (step_plan.hpp):
/// RankBox's arrays and planes, rows formed per line, reduced systems.
template <class T>
class GeneralLocal : public RankBox<T> {
 public:
  /// Elements of a plane perpendicular to `axis` (= lines along it), ordered
  /// (c_o1, c_o2), o1 < o2 the other axes, o1 fastest.
  virtual index_t lines(int axis) const = 0;

  /// u <- V f(t) at the Dirichlet nodes of the box.
  virtual void impose_boundary_values(double t) = 0;
  /// Re-reads K and 1/c of the box and its ghost layers from the problem's
  /// fields (load_box_material; `collective`: every rank together), into
  /// the arrays the rows read (Stepper::reload_material).
  virtual void reload_material(bool collective) = 0;

  // The Strang step (split.hpp; HeatProblem::scheme_in_use() == Strang): the
  // rank's Dirichlet terms from u at the step from t0 to t1 (ghost planes of u
  // filled), then per factor along `axis` its right-hand side into w (ghost
  // planes of u along a split `axis` filled; a flat axis adds its share of
  // the source to u instead), solved as every other (solve_whole or reduce /
  // finish, add_to_u), and at the end the Dirichlet nodes set to their data.
  /// Its solves' matrices are (I - theta fraction dt A_a).
  virtual void split_terms(double t0, double t1) = 0;
  virtual void factor_rhs(int axis, double t) = 0;
  virtual void split_reset() = 0;
  /// w = the Douglas right-hand side of the step from t (ghost planes of u filled).
  virtual void rhs(double t) = 0;
  /// w <- (I - theta dt A_axis)^{-1} w along an axis the rank holds whole;
  /// with add_to_u, u += the solution instead (the last solve's update).
  virtual void solve_whole(int axis, bool add_to_u) = 0;
  /// Split axis, first half, for the batch of lines whose index along the
  /// second other axis o2 is in [c2b, c2e) (whole rows of lines, L = (c2e -
  /// c2b) n_o1 of them, the line c_o1 + n_o1 (c2b + r) the batch's line
  /// c_o1 + n_o1 r): eliminates their interior and writes their reduced
  /// rows, value v of the batch's line l at rows[v * L + l] (v <
  /// kReducedValues). It may return before `rows` is written (a GPU rank
  /// queues the work): rows_ready(batch) waits for it.
  virtual void reduce(int axis, index_t c2b, index_t c2e, int batch, T* rows) = 0;
  /// Blocks until reduce(..., batch, rows) has written rows; reports a zero
  /// or non-finite pivot its eliminations met (before the rows reach a peer).
  virtual void rows_ready(int batch) { (void)batch; }
  /// Second half for the same batch: `gathered` is the all-gather of every
  /// rank's `rows` along the axis (rank q's block at q * kReducedValues * L);
  /// solves each line's reduced system and completes the line, into w or
  /// (add_to_u) added into u. It may return before it is done: end_lines.
  /// rhs_only: since this batch's previous finish only values 3 and 7 (the
  /// two rows' right-hand sides) are new, the coefficients are the same bit
  /// for bit (a GPU rank keeps them on the device and uploads the rest).
  virtual void finish(int axis, index_t c2b, index_t c2e, const T* gathered, bool add_to_u, bool rhs_only) = 0;
  /// Blocks until every batch of the axis is finished; reports a zero or
  /// non-finite pivot met in any of them.
  virtual void end_lines(int axis) { (void)axis; }
};

/// The CPU (OpenMP) implementation for rank `rank` of `d` (whose periodic
/// axes are set). Reads K, c, q of its box; throws InvalidArgument on a bad
/// material value (naming the field and the global node).
template <class T>
std::unique_ptr<GeneralLocal<T>> make_general_cpu_local(const HeatProblem& p, const Decomposition& d, int rank);

/// The CUDA implementation (solver/cuda/general/general_local_cuda.cu) on
/// device `device`: the same rows and the same reduced systems, the box on
/// the GPU. Throws as the CPU one on bad material values, BackendUnavailable
/// when the device cannot hold the box (or CUDA was not built).
template <class T>
std::unique_ptr<GeneralLocal<T>> make_general_cuda_local(const HeatProblem& p, const Decomposition& d, int rank,
                                                         int device, const SolverOptions& options);

/// A material field (K, c or q) on rank `part`'s box and its ghost layers
/// (`ghosts[a]`: one layer on both sides of axis a) in storage `st`: global
/// indices wrapped on a periodic axis, clamped at a domain face (where the
/// value is never used); one FieldSource::read_indices call (by default one
/// read per block of consecutive global indices: one for an interior rank,
/// at most 27 at a periodic corner). Throws InvalidArgument naming the field and the global node on
/// a non-finite value, or (signed_ok false) one <= 0. collective: every rank
/// of the run loads this field now (FieldSource::read_indices may read
/// collectively); the caller then loads its other fields before it throws,
/// so that every rank makes the same reads. solver/core/general_local.cpp.
template <class T>
std::vector<T> load_box_field(const HeatProblem& p, const LocalPart& part, const std::array<bool, 3>& ghosts,
                              const LocalStorage& st, const FieldSource& f, const char* what, bool signed_ok,
                              bool collective = false);

/// K, 1/c and q of a rank's box and its ghost layers (load_box_field): k[a]
/// empty where axis a shares axis k_shared[a]'s array (shared_conductivity)
/// or K is constant; rho (1/c) and q empty when constant.
template <class T>
struct BoxMaterial {
  std::array<std::vector<T>, 3> k;
  std::array<int, 3> k_shared{{-1, -1, -1}};
  std::vector<T> rho, q;
};
/// Reads every material field of p for rank `part`'s box; every one is read
/// before a bad one throws (the first error), since with several ranks
/// (collective) the reads may be collective and every rank must make the
/// same ones. solver/core/general_local.cpp.
template <class T>
BoxMaterial<T> load_box_material(const HeatProblem& p, const LocalPart& part, const std::array<bool, 3>& ghosts,
                                 const LocalStorage& st, bool collective);

/// The axis whose conductivity array axis a shares (the first non-flat axis
/// with the same field: an isotropic field is one array), -1: its own (or a
/// constant, or a flat axis).
inline int shared_conductivity(const HeatProblem& p, int a) {
  const auto& src = p.material.conductivity[a];
  if (!src || p.flat(a)) return -1;
  for (int b = 0; b < a; ++b)
    if (!p.flat(b) && p.material.conductivity[b] == src) return b;
  return -1;
}

/// The reduced system of one line along a split axis, from the all-gather
/// of every rank's reduced rows (rank q's block at q * kReducedValues * nl,
/// its value v of line `line` at v * nl + line): rank q holds cnt[q] =
/// min(m_q, 2) unknowns, the first at off[q]; N = off[P]. Solves it (a ring
/// on a periodic axis) and gives rank `me`'s first and last unknowns F and
/// L. The scratch vectors hold N values each. False: a zero or non-finite
/// pivot. The CPU rank's; the GPU rank's box_reduced_kernel does the same
/// operations on the device.
template <class T>
struct ReducedScratch {
  std::vector<T> za, zb, zc, zd, cp, zz, bb;
  explicit ReducedScratch(index_t N) : za(N), zb(N), zc(N), zd(N), cp(N), zz(N), bb(N) {}
};
template <class T>
bool solve_reduced_line(const T* gathered, index_t nl, index_t line, const std::vector<index_t>& cnt,
                        const std::vector<index_t>& off, bool ring, int me, ReducedScratch<T>& s, T& F, T& L) {
  const int P = static_cast<int>(cnt.size());
  const index_t N = off[static_cast<std::size_t>(P)];
  for (int q = 0; q < P; ++q) {
    const T* blk = gathered + static_cast<index_t>(q) * kReducedValues * nl;
    for (index_t r = 0; r < cnt[q]; ++r) {
      const index_t z = off[q] + r;
      s.za[z] = blk[(4 * r + 0) * nl + line];
      s.zb[z] = blk[(4 * r + 1) * nl + line];
      s.zc[z] = blk[(4 * r + 2) * nl + line];
      s.zd[z] = blk[(4 * r + 3) * nl + line];
    }
  }
  bool good;
  if (!ring) {
    good = adi::detail::thomas(N, s.za.data(), s.zb.data(), s.zc.data(), s.zd.data(), s.cp.data());
  } else if (N >= 3) {  // the first rank's a couples to the last unknown, the last rank's c to the first
    good = adi::detail::cyclic(N, s.za.data(), s.zb.data(), s.zc.data(), s.zd.data(), s.cp.data(), s.zz.data(),
                               s.bb.data());
  } else {  // a ring of two unknowns: both couplings of a row reach the other unknown
    const T a01 = s.za[0] + s.zc[0], a10 = s.za[1] + s.zc[1];
    const T det = s.zb[0] * s.zb[1] - a01 * a10;
    good = std::isfinite(static_cast<double>(det)) && det != T(0);
    const T x0 = (s.zd[0] * s.zb[1] - a01 * s.zd[1]) / det;
    const T x1 = (s.zb[0] * s.zd[1] - a10 * s.zd[0]) / det;
    s.zd[0] = x0;
    s.zd[1] = x1;
  }
  F = s.zd[off[me]];
  L = s.zd[off[me] + cnt[me] - 1];
  return good;
}

/// The reduced systems' unknowns per rank along split axis a (cnt) and the
/// first of each (off, P + 1 values).
inline void reduced_layout(const Split1D& sp, std::vector<index_t>& cnt, std::vector<index_t>& off) {
  const int P = sp.parts;
  cnt.assign(static_cast<std::size_t>(P), 0);
  off.assign(static_cast<std::size_t>(P) + 1, 0);
  for (int q = 0; q < P; ++q) {
    cnt[q] = std::min<index_t>(sp.size(q), 2);
    off[q + 1] = off[q] + cnt[q];
  }
}

}  // namespace adi::box
