// HeatFlowMeter (heat_flows.hpp): the balance of heat, node by node, with
// the row functions of discrete.hpp in double.

#include <adi/discrete.hpp>
#include <adi/error.hpp>
#include <adi/heat_flows.hpp>
#include <adi/radiation.hpp>
#include <adi/temperature.hpp>
#include <adi/stepper.hpp>

#include <algorithm>
#include <cmath>

namespace adi {

double HeatFlows::faces() const {
  double s = 0.0;
  for (int a = 0; a < 3; ++a) s += face[a][0] + face[a][1];
  return s;
}

double HeatFlows::scale() const {
  double m = std::max(std::fabs(source), std::fabs(dEdt));
  for (int a = 0; a < 3; ++a) m = std::max({m, std::fabs(face[a][0]), std::fabs(face[a][1])});
  return m;
}

double HeatFlows::relative_residual() const {
  const double s = scale();
  return s > 0.0 ? std::fabs(residual()) / s : 0.0;
}

HeatFlows& HeatFlows::operator+=(const HeatFlows& o) {
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < 2; ++s) face[a][s] += o.face[a][s];
  source += o.source;
  dEdt += o.dEdt;
  return *this;
}

std::array<double, 9> HeatFlows::values() const {
  return {{face[0][0], face[0][1], face[1][0], face[1][1], face[2][0], face[2][1], source, dEdt, residual()}};
}

const char* heat_flow_face_name(int axis, int side) {
  static const char* names[3][2] = {{"x-", "x+"}, {"y-", "y+"}, {"z-", "z+"}};
  return names[axis][side];
}

std::vector<std::string> heat_flow_columns() {
  return {"x-", "x+", "y-", "y+", "z-", "z+", "source", "dE/dt", "residual"};
}

std::string heat_flow_face_kind(const HeatProblem& p, int axis, int side) {
  if (p.flat(axis)) return "none";
  const Boundary b = side ? p.hi[axis] : p.lo[axis];
  const FaceData& d = side ? p.hi_data[axis] : p.lo_data[axis];
  const bool radiates = d.emissivity > 0.0;
  switch (b) {
    case Boundary::Dirichlet: return "dirichlet";
    case Boundary::Neumann:
      return d.flux == 0.0 ? (radiates ? "radiation" : "insulated") : (radiates ? "flux+radiation" : "flux");
    case Boundary::Robin: return radiates ? "convective+radiation" : "convective";
    case Boundary::Periodic: return "periodic";
  }
  return "none";
}

namespace {

/// Global index of the local index l (-1 .. size) along axis a of a box
/// starting at `begin`: wrapped on a periodic axis, clamped at a domain face
/// (that ghost is never read).
index_t global_index(const HeatProblem& p, int a, index_t begin, index_t l) {
  const index_t n = p.n[a];
  index_t x = begin + l;
  if (x < 0 || x >= n) x = p.periodic(a) ? (x + n) % n : std::clamp<index_t>(x, 0, n - 1);
  return x;
}

/// The ghosted box of a field source, read in one call (read_indices wants
/// ascending indices without repeats: a wrapped or clamped ghost repeats one).
std::vector<double> read_ghosted(const HeatProblem& p, const FieldSource& f, const std::array<index_t, 3>& begin,
                                 const std::array<index_t, 3>& size, const std::array<index_t, 3>& g) {
  std::array<std::vector<index_t>, 3> idx, pos;
  for (int a = 0; a < 3; ++a) {
    std::vector<index_t> glob;
    for (index_t l = -g[a]; l < size[a] + g[a]; ++l) glob.push_back(global_index(p, a, begin[a], l));
    idx[a] = glob;
    std::sort(idx[a].begin(), idx[a].end());
    idx[a].erase(std::unique(idx[a].begin(), idx[a].end()), idx[a].end());
    for (const index_t x : glob)
      pos[a].push_back(static_cast<index_t>(std::lower_bound(idx[a].begin(), idx[a].end(), x) - idx[a].begin()));
  }
  const std::size_t n0 = idx[0].size(), n1 = idx[1].size();
  std::vector<double> buf(n0 * n1 * idx[2].size());
  f.read_indices(idx, buf.data(), false);
  std::vector<double> out(pos[0].size() * pos[1].size() * pos[2].size());
  std::size_t o = 0;
  for (const index_t k : pos[2])
    for (const index_t j : pos[1])
      for (const index_t i : pos[0])
        out[o++] = buf[static_cast<std::size_t>(i) +
                       n0 * (static_cast<std::size_t>(j) + n1 * static_cast<std::size_t>(k))];
  return out;
}

}  // namespace

HeatFlowMeter::HeatFlowMeter(const HeatProblem& p, const std::array<index_t, 3>& begin,
                             const std::array<index_t, 3>& size)
    : p_(p), begin_(begin), size_(size) {
  for (int a = 0; a < 3; ++a) {
    g_[a] = p_.flat(a) ? 0 : 1;
    ext_[a] = size_[a] + 2 * g_[a];
  }
  const Material& m = p_.material;
  if (m.temperature) {
    // K follows the field: each node's material position, its tables in
    // measure (the state's fields hold the last step's midpoint values).
    const std::shared_ptr<const FieldSource>& index = m.temperature->index_source();
    mat_ = index ? read_ghosted(p_, *index, begin_, size_, g_)
                 : std::vector<double>(static_cast<std::size_t>(ghosted_points()), 0.0);
  }
  for (int a = 0; a < 3; ++a) {
    if (!m.conductivity[a] || p_.flat(a) || m.temperature) continue;
    for (int b = 0; b < a; ++b)
      if (m.conductivity[b] == m.conductivity[a] && !k_[b].empty()) k_of_[a] = b;  // isotropic: one array
    if (k_of_[a] == a) k_[a] = read_ghosted(p_, *m.conductivity[a], begin_, size_, g_);
  }
  if (m.source) q_ = read_ghosted(p_, *m.source, begin_, size_, g_);
}

template <class T>
std::vector<double> HeatFlowMeter::ghosted(const T* box) const {
  std::vector<double> out(static_cast<std::size_t>(ghosted_points()), 0.0);
  const index_t sx = size_[0], sy = size_[1], sz = size_[2];
  for (index_t k = 0; k < sz; ++k)
    for (index_t j = 0; j < sy; ++j)
      for (index_t i = 0; i < sx; ++i)
        out[static_cast<std::size_t>(offset(i, j, k))] = static_cast<double>(box[i + sx * (j + sy * k)]);
  // Ghosts where the box spans the axis: the wrapped node; and at a domain
  // face (not periodic) the end node, never read as a neighbour but a
  // temperature to evaluate K at (temperature-dependent materials).
  for (int a = 0; a < 3; ++a) {
    if (!g_[a]) continue;
    const bool wrap = p_.periodic(a);
    for (int side = 0; side < 2; ++side) {
      const bool at_face = side ? begin_[a] + size_[a] == p_.n[a] : begin_[a] == 0;
      if (wrap ? size_[a] != p_.n[a] : !at_face) continue;  // across a cut: the caller's exchange
      const index_t ghost = side ? size_[a] : -1;
      const index_t from = wrap ? (side ? 0 : size_[a] - 1) : (side ? size_[a] - 1 : 0);
      std::array<index_t, 3> lo{{-g_[0], -g_[1], -g_[2]}}, hi{{size_[0] + g_[0], size_[1] + g_[1], size_[2] + g_[2]}};
      lo[a] = ghost;
      hi[a] = ghost + 1;
      for (index_t k = lo[2]; k < hi[2]; ++k)
        for (index_t j = lo[1]; j < hi[1]; ++j)
          for (index_t i = lo[0]; i < hi[0]; ++i) {
            std::array<index_t, 3> src{{i, j, k}};
            src[a] = from;
            out[static_cast<std::size_t>(offset(i, j, k))] =
                out[static_cast<std::size_t>(offset(src[0], src[1], src[2]))];
          }
    }
  }
  return out;
}

HeatFlows HeatFlowMeter::measure(const double* u, double t) const {
  const HeatProblem& p = p_;
  AxisEnds<double> ends[3];
  AxisScales<double> scales[3];
  for (int a = 0; a < 3; ++a) ends[a] = domain_ends<double>(p, a, scales[a]);
  const index_t st[3] = {1, ext_[0], ext_[0] * ext_[1]};
  double beta[3][2];
  face_betas(p, t, beta);
  const double qf = p.source_table.at(t);
  HeatFlows f;
  // A global node (g) is a Dirichlet node if it lies on a Dirichlet face of
  // any live axis (Dirichlet wins at edges and corners).
  auto fixed_at = [&](const index_t (&g)[3]) {
    for (int a = 0; a < 3; ++a)
      if (!p.flat(a) && fixed_row(g[a], ends[a])) return true;
    return false;
  };
  // Temperature-dependent: K of each node at its own temperature, evaluated
  // where a row reads it (a ghost outside the domain holds no temperature).
  const TemperatureState* state = p.material.temperature.get();
  auto conductivity = [&](int a, index_t o) {
    if (state) {
      const std::size_t q = static_cast<std::size_t>(o);
      const TemperatureMaterial& mt = state->materials()[static_cast<std::size_t>(mat_[q])];
      double k = 0.0;
      if (!mt.conductivity[a].at(u[q], k))
        ADI_THROW(NumericalError, "heat flows: temperature " + std::to_string(u[q]) + " is outside the " +
                                      "conductivity table of material '" + mt.name + "'");
      return k;
    }
    const std::vector<double>& K = k_[k_of_[a]];
    return K.empty() || !p.material.conductivity[a] ? p.alpha[a] : K[static_cast<std::size_t>(o)];
  };
  // Radiating faces: -eps sigma (u^4 - T_inf^4) into the half cell, as the
  // step's source 2 F / h (radiation.hpp).
  auto radiation = [&](int a, int side, double uc) {
    const FaceData& d = side ? p.hi_data[a] : p.lo_data[a];
    if (!(d.emissivity > 0.0)) return 0.0;
    const double amb = d.radiation_ambient;
    return -2.0 / p.end_gap(a, side) * d.emissivity * kStefanBoltzmann * (uc * uc * uc * uc - amb * amb * amb * amb);
  };
  for (index_t k = 0; k < size_[2]; ++k)
    for (index_t j = 0; j < size_[1]; ++j)
      for (index_t i = 0; i < size_[0]; ++i) {
        const index_t g[3] = {begin_[0] + i, begin_[1] + j, begin_[2] + k};
        const index_t o = offset(i, j, k);
        double vol[3];
        for (int a = 0; a < 3; ++a) vol[a] = p.cell(a, g[a]);
        if (fixed_at(g)) {
          // The links from this Dirichlet node into the body along each axis
          // whose Dirichlet face it lies on (its neighbour along that axis
          // is a body node unless another axis fixes it as well).
          for (int a = 0; a < 3; ++a) {
            if (p.flat(a)) continue;
            for (int side = 0; side < 2; ++side) {
              const bool on_face = side ? (g[a] == p.n[a] - 1 && ends[a].hi == LineEnd::Fixed)
                                        : (g[a] == 0 && ends[a].lo == LineEnd::Fixed);
              if (!on_face) continue;
              index_t gb[3] = {g[0], g[1], g[2]};
              gb[a] += side ? -1 : 1;
              if (fixed_at(gb)) continue;
              const index_t ob = o + (side ? -st[a] : st[a]);
              const double kdb = harmonic_mean(conductivity(a, o), conductivity(a, ob));
              const double area = (a == 0 ? 1.0 : vol[0]) * (a == 1 ? 1.0 : vol[1]) * (a == 2 ? 1.0 : vol[2]);
              f.face[a][side] += kdb * (u[o] - u[ob]) / p.end_gap(a, side) * area;
            }
          }
          continue;
        }
        const double w = vol[0] * vol[1] * vol[2];
        const double uc = u[o];
        // c (A u): the rows of discrete.hpp with rho = 1 / c replaced by 1
        // (c does not enter the rate of stored energy, only the rate of u).
        double acc = 0.0, bsum = 0.0;
        for (int a = 0; a < 3; ++a) {
          if (p.flat(a)) continue;
          const AxisEnds<double>& e = ends[a];
          const index_t ia = g[a];
          const double kc = conductivity(a, o), km = conductivity(a, o - st[a]), kp = conductivity(a, o + st[a]);
          acc += row_apply(row_coupling<double>(ia, e, km, kc, kp, 1.0), u[o - st[a]], uc, u[o + st[a]]);
          for (int side = 0; side < 2; ++side) {
            const bool mirror =
                side ? (ia == e.n - 1 && e.hi == LineEnd::Mirror) : (ia == 0 && e.lo == LineEnd::Mirror);
            if (!mirror) continue;
            const double rad = radiation(a, side, uc);
            bsum += beta[a][side] + rad;
            const double robin = side ? e.hi_robin : e.lo_robin;
            f.face[a][side] += w * (beta[a][side] + rad - robin * uc);
          }
        }
        const double q = (q_.empty() ? p.source : q_[static_cast<std::size_t>(o)]) * qf;
        f.dEdt += w * (acc + bsum + q);
        f.source += w * q;
      }
  return f;
}

template std::vector<double> HeatFlowMeter::ghosted<float>(const float*) const;
template std::vector<double> HeatFlowMeter::ghosted<double>(const double*) const;

}  // namespace adi
