// Moving Dirichlet faces (dirichlet.hpp): which face owns each boundary
// node, the face values V, and the W arrays that make the three solves
// reproduce the increments exactly.

#include <adi/dirichlet.hpp>
#include <adi/discrete.hpp>

#include <algorithm>
#include <limits>
#include <sstream>

namespace adi {

namespace {

bool is_dirichlet(const HeatProblem& p, int axis, int side) {
  if (p.flat(axis) || p.periodic(axis)) return false;
  return (side ? p.hi[axis] : p.lo[axis]) == Boundary::Dirichlet;
}

const FaceData& face_data(const HeatProblem& p, int axis, int side) { return side ? p.hi_data[axis] : p.lo_data[axis]; }

/// Whether global node x lies on face (axis, side).
bool on_face(const HeatProblem& p, const std::array<index_t, 3>& x, int axis, int side) {
  return x[axis] == (side ? p.n[axis] - 1 : 0);
}

/// The owning Dirichlet face id of a global node, or -1.
int owner(const HeatProblem& p, const std::array<index_t, 3>& x) {
  for (int id = 0; id < 6; ++id) {
    const int a = id / 2, s = id % 2;
    if (is_dirichlet(p, a, s) && on_face(p, x, a, s)) return id;
  }
  return -1;
}

/// Whether the row of global node x in the solve along `axis` is the identity.
bool fixed_along(const HeatProblem& p, const std::array<index_t, 3>& x, int axis) {
  return (is_dirichlet(p, axis, 0) && x[axis] == 0) || (is_dirichlet(p, axis, 1) && x[axis] == p.n[axis] - 1);
}

// One in-plane axis of a face region: region index r = 0 .. m + 1 covers the
// box range [b, b + m) with one node of halo on each side; glob[r] is the
// global index (wrapped on a periodic axis) or -1 outside the domain.
struct RegionAxis {
  int axis = 0;
  index_t b = 0, m = 0;
  std::vector<index_t> glob;
  index_t size() const { return m + 2; }
};

RegionAxis region_axis(const HeatProblem& p, int axis, index_t b, index_t m) {
  RegionAxis r;
  r.axis = axis;
  r.b = b;
  r.m = m;
  r.glob.resize(static_cast<std::size_t>(m + 2));
  const index_t n = p.n[axis];
  for (index_t k = 0; k < m + 2; ++k) {
    index_t g = b - 1 + k;
    if (g < 0 || g >= n) g = p.periodic(axis) ? (g + n) % n : -1;
    r.glob[k] = g;
  }
  return r;
}

// Reads a field on the region (plane `gplane` of axis g), NaN where outside
// the domain: contiguous runs of global indices are read in one call each.
std::vector<double> read_region(const FieldSource& f, int g, index_t gplane, const RegionAxis& r1,
                                const RegionAxis& r2) {
  auto runs = [](const RegionAxis& r) {
    std::vector<std::array<index_t, 3>> out;  // region start, global start, length
    for (index_t k = 0; k < r.size();) {
      if (r.glob[k] < 0) {
        ++k;
        continue;
      }
      index_t len = 1;
      while (k + len < r.size() && r.glob[k + len] == r.glob[k] + len) ++len;
      out.push_back({k, r.glob[k], len});
      k += len;
    }
    return out;
  };
  const auto u1 = runs(r1), u2 = runs(r2);
  std::vector<double> v(static_cast<std::size_t>(r1.size() * r2.size()), std::numeric_limits<double>::quiet_NaN());
  std::vector<double> buf;
  for (const auto& s1 : u1)
    for (const auto& s2 : u2) {
      std::array<index_t, 3> lo{}, size{};
      lo[g] = gplane;
      size[g] = 1;
      lo[r1.axis] = s1[1];
      size[r1.axis] = s1[2];
      lo[r2.axis] = s2[1];
      size[r2.axis] = s2[2];
      buf.resize(static_cast<std::size_t>(s1[2] * s2[2]));
      f.read(lo, size, buf.data());
      // The box is packed x fastest; r1.axis < r2.axis, so c1 is fastest.
      for (index_t c2 = 0; c2 < s2[2]; ++c2)
        for (index_t c1 = 0; c1 < s1[2]; ++c1)
          v[(s1[0] + c1) + r1.size() * (s2[0] + c2)] = buf[c1 + s1[2] * c2];
    }
  return v;
}

// The W arrays of face f's terms from their region values: the in-plane
// solves' operators with the material the problem's fields hold now (K along
// the two in-plane axes, 1 / c, read on the region).
void term_weights(const HeatProblem& p, DirichletFace& f, const RegionAxis& r1, const RegionAxis& r2) {
  if (f.terms.empty()) return;
  const int g = f.axis;
  const index_t gplane = f.side == 0 ? 0 : p.n[g] - 1;
  const index_t m1 = r1.size(), m2 = r2.size();
  std::array<std::vector<double>, 3> K;
  for (int a : {f.o1, f.o2}) {
    if (p.material.conductivity[a])
      K[a] = read_region(*p.material.conductivity[a], g, gplane, r1, r2);
    else
      K[a].assign(static_cast<std::size_t>(m1 * m2), p.alpha[a]);
  }
  std::vector<double> rho(static_cast<std::size_t>(m1 * m2), 1.0 / p.capacity);
  if (p.material.capacity) {
    rho = read_region(*p.material.capacity, g, gplane, r1, r2);
    for (double& v : rho) v = 1.0 / v;
  }
  std::array<AxisScales<double>, 3> scales;
  std::array<AxisEnds<double>, 3> ends{domain_ends<double>(p, 0, scales[0]), domain_ends<double>(p, 1, scales[1]),
                                       domain_ends<double>(p, 2, scales[2])};
  const std::size_t np = static_cast<std::size_t>(f.n1 * f.n2);
  for (DirichletFace::Term& term : f.terms) {
    std::vector<double> v = term.region_value;
    std::vector<std::uint8_t> valid = term.region_valid;
    // The in-plane solves in reverse solve order: o2 (solved later) first.
    for (int a : {f.o2, f.o1}) {
      // A flat in-plane axis has no solve (its factor is the identity): its
      // region is one node wide, with no neighbours to build a row from.
      if (p.flat(a)) continue;
      const bool along1 = a == f.o1;
      std::vector<double> out(v.size(), 0.0);
      std::vector<std::uint8_t> ok(v.size(), 0);
      for (index_t k2 = 0; k2 < m2; ++k2)
        for (index_t k1 = 0; k1 < m1; ++k1) {
          const index_t q = k1 + m1 * k2;
          if (!valid[q]) continue;
          std::array<index_t, 3> x{};
          x[g] = gplane;
          x[f.o1] = r1.glob[k1];
          x[f.o2] = r2.glob[k2];
          if (fixed_along(p, x, a)) {
            out[q] = v[q];
            ok[q] = 1;
            continue;
          }
          const index_t ia = x[a];
          const AxisEnds<double>& e = ends[a];
          const bool mlo = ia == 0 && e.lo == LineEnd::Mirror, mhi = ia == e.n - 1 && e.hi == LineEnd::Mirror;
          const index_t step = along1 ? 1 : m1;
          const index_t kk = along1 ? k1 : k2, km = along1 ? m1 : m2;
          // Neighbours in the region (mirror ends use the inner one for both).
          const bool has_m = kk > 0 && valid[q - step], has_p = kk + 1 < km && valid[q + step];
          const index_t qm = mlo ? q + step : q - step, qp = mhi ? q - step : q + step;
          if ((!mlo && !has_m) || (!mhi && !has_p) || (mlo && !has_p) || (mhi && !has_m)) continue;
          const RowCoupling<double> rc = row_coupling<double>(ia, e, K[a][qm], K[a][q], K[a][qp], rho[q]);
          out[q] = v[q] - p.theta * p.dt * row_apply(rc, v[qm], v[q], v[qp]);
          ok[q] = 1;
        }
      v.swap(out);
      valid.swap(ok);
    }
    term.w.assign(np, 0.0);
    for (index_t c2 = 0; c2 < f.n2; ++c2)
      for (index_t c1 = 0; c1 < f.n1; ++c1) {
        if (!f.owned[f.index(c1, c2)]) continue;
        const index_t q = (c1 + 1) + m1 * (c2 + 1);
        if (!valid[q]) ADI_THROW(NumericalError, "Dirichlet increments: a face node's operator reached outside its halo");
        term.w[f.index(c1, c2)] = v[q];
      }
  }
}

}  // namespace

std::array<double, 6> DirichletData::increments(const HeatProblem& p, double t0, double t1) const {
  std::array<double, 6> df{};
  for (int id = 0; id < 6; ++id) {
    const int a = id / 2, s = id % 2;
    if (!is_dirichlet(p, a, s)) continue;
    const TimeTable& t = face_data(p, a, s).table;
    if (!t.empty()) df[id] = t.at(t1) - t.at(t0);
  }
  return df;
}

DirichletData build_dirichlet(const HeatProblem& p, const std::array<index_t, 3>& lo,
                              const std::array<index_t, 3>& size) {
  DirichletData d;
  bool any_moving = false;
  for (int id = 0; id < 6; ++id)
    if (is_dirichlet(p, id / 2, id % 2) && !face_data(p, id / 2, id % 2).table.empty()) any_moving = true;
  for (int id = 0; id < 6; ++id) {
    const int g = id / 2, s = id % 2;
    if (!is_dirichlet(p, g, s)) continue;
    if (s == 0 ? lo[g] != 0 : lo[g] + size[g] != p.n[g]) continue;  // the box does not touch this face
    const FaceData& fd = face_data(p, g, s);
    if (fd.value_from_initial && !p.initial_field && (!fd.table.empty() || any_moving)) {
      std::ostringstream m;
      m << "Dirichlet face " << axis_name(static_cast<Axis>(g)) << (s ? "_hi" : "_lo")
        << " keeps the initial field's values, which move in time here: the problem needs its initial field "
           "(HeatProblem::initial_field)";
      ADI_THROW(InvalidArgument, m.str());
    }
    DirichletFace f;
    f.axis = g;
    f.side = s;
    f.id = id;
    f.plane = s == 0 ? 0 : size[g] - 1;
    f.o1 = g == 0 ? 1 : 0;
    f.o2 = g == 2 ? 1 : 2;
    f.n1 = size[f.o1];
    f.n2 = size[f.o2];
    f.table = fd.table;
    f.keep = fd.value_from_initial && !p.initial_field;
    const std::size_t np = static_cast<std::size_t>(f.n1 * f.n2);
    f.owned.assign(np, 0);
    f.value.assign(np, 0.0);
    const index_t gplane = s == 0 ? 0 : p.n[g] - 1;
    const RegionAxis r1 = region_axis(p, f.o1, lo[f.o1], f.n1), r2 = region_axis(p, f.o2, lo[f.o2], f.n2);
    // The initial field on the region, when some face takes its values from it.
    std::vector<double> init;
    bool need_init = false;
    for (int fid = 0; fid < 6; ++fid)
      if (is_dirichlet(p, fid / 2, fid % 2) && face_data(p, fid / 2, fid % 2).value_from_initial) need_init = true;
    if (need_init && p.initial_field) init = read_region(*p.initial_field, g, gplane, r1, r2);
    auto global_of = [&](index_t k1, index_t k2, std::array<index_t, 3>& x) {
      x[g] = gplane;
      x[f.o1] = r1.glob[k1];
      x[f.o2] = r2.glob[k2];
      return x[f.o1] >= 0 && x[f.o2] >= 0;
    };
    auto value_of = [&](int fid, index_t k1, index_t k2) {
      const FaceData& od = face_data(p, fid / 2, fid % 2);
      if (!od.value_from_initial) return od.value;
      return init.empty() ? 0.0 : init[k1 + r1.size() * k2];
    };
    for (index_t c2 = 0; c2 < f.n2; ++c2)
      for (index_t c1 = 0; c1 < f.n1; ++c1) {
        std::array<index_t, 3> x{};
        global_of(c1 + 1, c2 + 1, x);
        if (owner(p, x) != id) continue;
        f.owned[f.index(c1, c2)] = 1;
        f.value[f.index(c1, c2)] = value_of(id, c1 + 1, c2 + 1);
      }
    if (any_moving) {
      // Every moving face that owns a node of the region contributes a term:
      // its values there are kept (the data of the in-plane solves, which
      // refresh_dirichlet_terms redoes when the material changes).
      const std::size_t mr = static_cast<std::size_t>(r1.size() * r2.size());
      for (int fid = 0; fid < 6; ++fid) {
        if (!is_dirichlet(p, fid / 2, fid % 2) || face_data(p, fid / 2, fid % 2).table.empty()) continue;
        DirichletFace::Term term;
        term.face = fid;
        term.region_value.assign(mr, 0.0);
        term.region_valid.assign(mr, 0);
        bool touches = false;
        for (index_t k2 = 0; k2 < r2.size(); ++k2)
          for (index_t k1 = 0; k1 < r1.size(); ++k1) {
            std::array<index_t, 3> x{};
            if (!global_of(k1, k2, x)) continue;
            term.region_valid[k1 + r1.size() * k2] = 1;
            if (owner(p, x) == fid) {
              term.region_value[k1 + r1.size() * k2] = value_of(fid, k1, k2);
              touches = true;
            }
          }
        if (!touches) continue;
        f.terms.push_back(std::move(term));
        d.moving = true;
      }
      term_weights(p, f, r1, r2);
    }
    d.faces.push_back(std::move(f));
  }
  return d;
}

void refresh_dirichlet_terms(DirichletData& d, const HeatProblem& p, const std::array<index_t, 3>& lo) {
  for (DirichletFace& f : d.faces)
    term_weights(p, f, region_axis(p, f.o1, lo[f.o1], f.n1), region_axis(p, f.o2, lo[f.o2], f.n2));
}

namespace {
template <class T, class F>
void for_face_nodes(const DirichletFace& f, T* field, const std::array<index_t, 3>& stride, F&& fn) {
  T* base = field + f.plane * stride[f.axis];
  for (index_t c2 = 0; c2 < f.n2; ++c2)
    for (index_t c1 = 0; c1 < f.n1; ++c1) {
      const index_t q = f.index(c1, c2);
      if (f.owned[q]) fn(base[c1 * stride[f.o1] + c2 * stride[f.o2]], q);
    }
}
}  // namespace

template <class T>
void impose_dirichlet(const DirichletData& d, double t, T* field, const std::array<index_t, 3>& stride) {
  for (const DirichletFace& f : d.faces) {
    // Its values V are the field's own (value_from_initial) but unknown here:
    // writing V = 0 would wipe the initial face values, so leave them.
    if (f.keep) continue;
    const double ft = f.table.at(t);
    for_face_nodes(f, field, stride, [&](T& x, index_t q) { x = static_cast<T>(f.value[q] * ft); });
  }
}

template <class T>
void dirichlet_rhs(const DirichletData& d, const std::array<double, 6>& df, T* w,
                   const std::array<index_t, 3>& stride) {
  for (auto it = d.faces.rbegin(); it != d.faces.rend(); ++it) {
    const DirichletFace& f = *it;
    for_face_nodes(f, w, stride, [&](T& x, index_t q) {
      double s = 0.0;
      for (const auto& term : f.terms) s += df[term.face] * term.w[q];
      x = static_cast<T>(s);
    });
  }
}

template void impose_dirichlet<float>(const DirichletData&, double, float*, const std::array<index_t, 3>&);
template void impose_dirichlet<double>(const DirichletData&, double, double*, const std::array<index_t, 3>&);
template void dirichlet_rhs<float>(const DirichletData&, const std::array<double, 6>&, float*,
                                   const std::array<index_t, 3>&);
template void dirichlet_rhs<double>(const DirichletData&, const std::array<double, 6>&, double*,
                                    const std::array<index_t, 3>&);

}  // namespace adi
