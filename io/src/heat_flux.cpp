// The heat flux at the nodes from the scheme's face fluxes (heat_flux.hpp).

#include <adi/io/heat_flux.hpp>

#include <adi/error.hpp>
#include <adi/radiation.hpp>
#include <adi/temperature.hpp>

#include <string>

namespace adi::io {

namespace {

/// Index of node (i, j, k) of a box in the plane perpendicular to axis a
/// (the other two axes, x fastest).
inline index_t plane_index(const std::array<index_t, 3>& s, int a, index_t i, index_t j, index_t k) {
  return a == 0 ? j + s[1] * k : a == 1 ? i + s[0] * k : i + s[0] * j;
}

/// A box's ghost plane at global index g along a (size[a] = 1).
void read_plane(const FieldSource& src, const std::array<index_t, 3>& begin, const std::array<index_t, 3>& size,
                int a, index_t g, std::vector<double>& out) {
  std::array<index_t, 3> lo = begin, sz = size;
  lo[a] = g;
  sz[a] = 1;
  out.resize(static_cast<std::size_t>(sz[0] * sz[1] * sz[2]));
  src.read(lo, sz, out.data());
}

}  // namespace

FluxConductivity::FluxConductivity(const HeatProblem& p, const std::array<index_t, 3>& begin,
                                   const std::array<index_t, 3>& size) {
  const auto& K = p.material.conductivity;
  // A field on the box and every axis' ghost planes (the same field may
  // serve several axes).
  auto read_storage = [&](const FieldSource& f) {
    Storage st;
    st.box.resize(static_cast<std::size_t>(size[0] * size[1] * size[2]));
    f.read(begin, size, st.box.data());
    for (int g = 0; g < 3; ++g)
      for (int side = 0; side < 2; ++side) {
        if (!GhostedBox<double>::needs_ghost(p, begin, size, g, side)) continue;
        const index_t n = p.n[g];
        const index_t at = side == 0 ? (begin[g] - 1 + n) % n : (begin[g] + size[g]) % n;
        read_plane(f, begin, size, g, at, st.ghost[g][side]);
      }
    return st;
  };
  const TemperatureState* temp = p.material.temperature.get();
  if (temp) {
    // K follows the field (update): each node's material position.
    if (const auto& index = temp->index_source()) {
      mat_ = read_storage(*index);
    } else {
      mat_.box.assign(static_cast<std::size_t>(size[0] * size[1] * size[2]), 0.0);
      for (int g = 0; g < 3; ++g)
        for (int side = 0; side < 2; ++side)
          if (GhostedBox<double>::needs_ghost(p, begin, size, g, side))
            mat_.ghost[g][side].assign(static_cast<std::size_t>(size[0] * size[1] * size[2] / size[g]), 0.0);
    }
  }
  for (int a = 0; a < 3; ++a) {
    if (!K[a] || p.flat(a)) continue;
    int same = -1;  // an isotropic field is the same source thrice: read once
    for (int b = 0; b < a; ++b)
      if (K[b] == K[a] && slot_[b] >= 0) same = slot_[b];
    if (same >= 0) {
      slot_[a] = same;
      continue;
    }
    data_.push_back(temp ? mat_ : read_storage(*K[a]));  // (temperature: sized now, filled by update)
    slot_axis_.push_back(a);
    slot_[a] = static_cast<int>(data_.size()) - 1;
  }
  box_.resize(data_.size());
  for (std::size_t q = 0; q < data_.size(); ++q) {
    GhostedBox<double>& b = box_[q];
    b.begin = begin;
    b.size = size;
    b.box = data_[q].box.data();
    for (int g = 0; g < 3; ++g)
      for (int side = 0; side < 2; ++side)
        b.ghost[g][side] = data_[q].ghost[g][side].empty() ? nullptr : data_[q].ghost[g][side].data();
  }
}

template <class T>
void FluxConductivity::update(const HeatProblem& p, const GhostedBox<T>& u) {
  const TemperatureState* temp = p.material.temperature.get();
  if (!temp) return;
  const auto& mats = temp->materials();
  for (std::size_t q = 0; q < data_.size(); ++q) {
    const int a = slot_axis_[q];
    auto eval = [&](const std::vector<double>& pos, const T* uv, std::vector<double>& out) {
      for (std::size_t r = 0; r < out.size(); ++r) {
        const TemperatureMaterial& m = mats[static_cast<std::size_t>(pos[r])];
        const PropertyTable& tb = m.conductivity[a];
        double x = static_cast<double>(uv[r]);
        // The stepper checked the field it stepped to; its last iterate may
        // pass a table's end by the iteration's round-off.
        if (!tb.constant()) {
          const double slack = 1e-9 * (tb.t.back() - tb.t.front());
          if (x < tb.t.front() && x >= tb.t.front() - slack) x = tb.t.front();
          if (x > tb.t.back() && x <= tb.t.back() + slack) x = tb.t.back();
        }
        if (!tb.at(x, out[r]))
          ADI_THROW(NumericalError, "heat flux: temperature " + std::to_string(x) + " is outside the conductivity " +
                                        "table of material '" + m.name + "'");
      }
    };
    eval(mat_.box, u.box, data_[q].box);
    for (int g = 0; g < 3; ++g)
      for (int side = 0; side < 2; ++side)
        if (!data_[q].ghost[g][side].empty()) {
          if (!u.ghost[g][side])
            ADI_THROW(InvalidArgument, "heat flux: a ghost plane of the field is missing for the conductivity");
          eval(mat_.ghost[g][side], u.ghost[g][side], data_[q].ghost[g][side]);
        }
  }
}

template <class T>
void heat_flux(const HeatProblem& p, double t, const GhostedBox<T>& u, const FluxConductivity& K, T* out) {
  const auto& s = u.size;
  const index_t sx = s[0], sy = s[1], sz = s[2];
  const index_t stride[3] = {1, sx, sx * sy};
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a)) {
      for (index_t q = 0; q < sx * sy * sz; ++q) out[3 * q + a] = T(0);
      continue;
    }
    const index_t n = p.n[a];
    const double h = p.spacing(a);
    const bool periodic = p.periodic(a);
    const bool whole = s[a] == n;  // the box holds the whole axis
    const GhostedBox<double>* kf = K.axis(a);
    const double kc = p.alpha[a];
    for (int side = 0; side < 2; ++side)
      if (GhostedBox<T>::needs_ghost(p, u.begin, s, a, side) &&
          (!u.ghost[a][side] || (kf && !kf->ghost[a][side])))
        ADI_THROW(InvalidArgument, "heat_flux: a ghost plane along an axis the box does not hold whole is missing");
    // Face data at the field's time.
    const FaceData& dlo = p.lo_data[a];
    const FaceData& dhi = p.hi_data[a];
    const double flo = dlo.table.at(t), fhi = dhi.table.at(t);
    for (index_t k = 0; k < sz; ++k)
      for (index_t j = 0; j < sy; ++j)
        for (index_t i = 0; i < sx; ++i) {
          const index_t q = i + sx * (j + sy * k);
          const index_t l = a == 0 ? i : a == 1 ? j : k;  // index along a in the box
          const index_t g = u.begin[a] + l;               // ... in the grid
          const double uc = static_cast<double>(u.box[q]);
          const double Kc = kf ? kf->box[q] : kc;
          // The neighbour below (b = 0) and above (b = 1) along a: in the
          // box, wrapped inside it, in a ghost plane, or a face of the domain.
          bool has[2];
          double un[2] = {0.0, 0.0}, Kn[2] = {kc, kc};
          for (int b = 0; b < 2; ++b) {
            const bool inside = b == 0 ? l > 0 : l < s[a] - 1;
            const bool at_face = !periodic && (b == 0 ? g == 0 : g == n - 1);
            has[b] = !at_face;
            if (at_face) continue;
            if (inside) {
              const index_t r = b == 0 ? q - stride[a] : q + stride[a];
              un[b] = static_cast<double>(u.box[r]);
              if (kf) Kn[b] = kf->box[r];
            } else if (whole) {  // periodic, the wrapped node is in the box
              const index_t r = b == 0 ? q + (s[a] - 1) * stride[a] : q - (s[a] - 1) * stride[a];
              un[b] = static_cast<double>(u.box[r]);
              if (kf) Kn[b] = kf->box[r];
            } else {
              const index_t r = plane_index(s, a, i, j, k);
              un[b] = static_cast<double>(u.ghost[a][b][r]);
              if (kf) Kn[b] = kf->ghost[a][b][r];
            }
          }
          // Flux through the lower and the upper face of the node's cell (+a).
          // A stretched axis: each face over its own gap, and the node's
          // value the gradient's second-order mean (each face weighted by
          // the other's gap).
          // (At a face of a non-periodic axis the missing side is not used.)
          const bool st = p.stretched(a);
          const double hlo = !st ? h : g > 0 ? p.gap(a, g - 1) : periodic ? p.gap(a, n - 1) : h;
          const double hhi = !st ? h : g < n - 1 || periodic ? p.gap(a, g) : h;
          const double Flo = has[0] ? -harmonic_mean(Kn[0], Kc) * (uc - un[0]) / hlo : 0.0;
          const double Fhi = has[1] ? -harmonic_mean(Kc, Kn[1]) * (un[1] - uc) / hhi : 0.0;
          double v;
          if (has[0] && has[1]) {
            v = p.stretched(a) ? (hhi * Flo + hlo * Fhi) / (hlo + hhi) : 0.5 * (Flo + Fhi);
          } else {
            // A face of the domain: its kind says what crosses it.
            const bool lo_face = !has[0];
            const Boundary bk = lo_face ? p.lo[a] : p.hi[a];
            const FaceData& d = lo_face ? dlo : dhi;
            const double f = lo_face ? flo : fhi;
            const double inner = lo_face ? Fhi : Flo;
            double boundary = 0.0;  // the boundary's flux along +a
            if (bk == Boundary::Dirichlet) {
              v = inner;
              out[3 * q + a] = static_cast<T>(v);
              continue;
            }
            if (bk == Boundary::Neumann) boundary = lo_face ? d.flux * f : -d.flux * f;
            if (bk == Boundary::Robin) {
              const double out_flux = d.h * (uc - d.ambient * f);  // leaving the domain
              boundary = lo_face ? -out_flux : out_flux;
            }
            if (d.emissivity > 0.0) {
              const double amb = d.radiation_ambient;
              const double out_flux = d.emissivity * kStefanBoltzmann * (uc * uc * uc * uc - amb * amb * amb * amb);
              boundary += lo_face ? -out_flux : out_flux;
            }
            v = 0.5 * (boundary + inner);
          }
          out[3 * q + a] = static_cast<T>(v);
        }
  }
}

template <class T>
std::vector<T> heat_flux_whole(const HeatProblem& p, double t, const T* u, const FluxConductivity& K) {
  GhostedBox<T> b;
  b.size = p.n;
  b.box = u;
  std::vector<T> out(static_cast<std::size_t>(3 * p.points()));
  heat_flux(p, t, b, K, out.data());
  return out;
}

template void FluxConductivity::update<float>(const HeatProblem&, const GhostedBox<float>&);
template void FluxConductivity::update<double>(const HeatProblem&, const GhostedBox<double>&);
template void heat_flux<float>(const HeatProblem&, double, const GhostedBox<float>&, const FluxConductivity&, float*);
template void heat_flux<double>(const HeatProblem&, double, const GhostedBox<double>&, const FluxConductivity&,
                                double*);
template std::vector<float> heat_flux_whole<float>(const HeatProblem&, double, const float*, const FluxConductivity&);
template std::vector<double> heat_flux_whole<double>(const HeatProblem&, double, const double*,
                                                     const FluxConductivity&);

}  // namespace adi::io
