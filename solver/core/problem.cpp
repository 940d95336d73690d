#include <adi/problem.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace adi {

double TimeTable::at(double time) const {
  if (t.empty()) return 1.0;
  if (time <= t.front()) return v.front();
  if (time >= t.back()) return v.back();
  // Binary search for the interval [t[k], t[k+1]) holding `time`.
  std::size_t lo = 0, hi = t.size() - 1;
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    (time < t[mid] ? hi : lo) = mid;
  }
  if (time == t[lo]) return v[lo];
  const double w = (time - t[lo]) / (t[hi] - t[lo]);
  return v[lo] + w * (v[hi] - v[lo]);
}

void TimeTable::validate(const std::string& what) const {
  if (t.size() != v.size()) ADI_THROW(InvalidArgument, what + ": the table has different numbers of times and values");
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (!std::isfinite(t[k]) || !std::isfinite(v[k])) {
      std::ostringstream s;
      s << what << ": entry " << k << " (" << t[k] << ", " << v[k] << ") is not finite";
      ADI_THROW(InvalidArgument, s.str());
    }
    if (k > 0 && !(t[k] > t[k - 1])) {
      std::ostringstream s;
      s << what << ": times must increase strictly, but entry " << k << " has t = " << t[k] << " after t = "
        << t[k - 1];
      ADI_THROW(InvalidArgument, s.str());
    }
  }
}

ArrayField::ArrayField(std::string name, const std::array<index_t, 3>& n, std::vector<double> values)
    : name_(std::move(name)), n_(n), v_(std::move(values)) {
  ADI_REQUIRE(static_cast<index_t>(v_.size()) == n[0] * n[1] * n[2], "ArrayField: the array does not match its extents");
}

void ArrayField::read(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& size, double* out) const {
  for (int a = 0; a < 3; ++a)
    ADI_REQUIRE(lo[a] >= 0 && size[a] >= 0 && lo[a] + size[a] <= n_[a], "ArrayField: box outside the grid");
  for (index_t k = 0; k < size[2]; ++k)
    for (index_t j = 0; j < size[1]; ++j)
      for (index_t i = 0; i < size[0]; ++i)
        out[(k * size[1] + j) * size[0] + i] = v_[((lo[2] + k) * n_[1] + lo[1] + j) * n_[0] + lo[0] + i];
}

void FieldSource::read_indices(const std::array<std::vector<index_t>, 3>& idx, double* out, bool /*collective*/) const {
  // Per axis the runs of consecutive indices: (position in idx, first index, length).
  std::array<std::vector<std::array<index_t, 3>>, 3> runs;
  for (int a = 0; a < 3; ++a)
    for (std::size_t p = 0; p < idx[a].size();) {
      std::size_t e = p + 1;
      while (e < idx[a].size() && idx[a][e] == idx[a][e - 1] + 1) ++e;
      runs[a].push_back({static_cast<index_t>(p), idx[a][p], static_cast<index_t>(e - p)});
      p = e;
    }
  const index_t n0 = static_cast<index_t>(idx[0].size()), n1 = static_cast<index_t>(idx[1].size());
  std::vector<double> buf;
  for (const auto& rz : runs[2])
    for (const auto& ry : runs[1])
      for (const auto& rx : runs[0]) {
        buf.resize(static_cast<std::size_t>(rx[2] * ry[2] * rz[2]));
        read({{rx[1], ry[1], rz[1]}}, {{rx[2], ry[2], rz[2]}}, buf.data());
        for (index_t k = 0; k < rz[2]; ++k)
          for (index_t j = 0; j < ry[2]; ++j)
            for (index_t i = 0; i < rx[2]; ++i)
              out[(rx[0] + i) + n0 * ((ry[0] + j) + n1 * (rz[0] + k))] = buf[static_cast<std::size_t>(i + rx[2] * (j + ry[2] * k))];
      }
}

double HeatProblem::min_gap(int axis) const {
  if (!stretched(axis)) return spacing(axis);
  double h = gap(axis, 0);
  const index_t gaps = static_cast<index_t>(coordinates[axis].size()) - 1;
  for (index_t i = 1; i < gaps; ++i) h = std::min(h, gap(axis, i));
  return h;
}

double HeatProblem::cell(int axis, index_t i) const {
  return stretched(axis) ? node_cell(i, n[axis], coordinates[axis].data(), periodic(axis))
                         : node_volume(i, n[axis], spacing(axis), periodic(axis));
}

bool HeatProblem::classic_problem() const {
  if (material.lines_vary() || material.source || source != 0.0 || capacity != 1.0) return false;
  if (any_stretched()) return false;  // the analytic modes and scheme.hpp's tables are those of a uniform grid
  for (int a = 0; a < 3; ++a) {
    if (n[a] < 3) return false;
    if (lo[a] == Boundary::Robin || hi[a] == Boundary::Robin || periodic(a)) return false;
    if (lo[a] == Boundary::Neumann && lo_data[a].flux != 0.0) return false;
    if (hi[a] == Boundary::Neumann && hi_data[a].flux != 0.0) return false;
    if (lo[a] == Boundary::Dirichlet && (!lo_data[a].value_from_initial || !lo_data[a].table.empty())) return false;
    if (hi[a] == Boundary::Dirichlet && (!hi_data[a].value_from_initial || !hi_data[a].table.empty())) return false;
  }
  return true;
}

bool HeatProblem::has_time_dependent_faces() const {
  for (int a = 0; a < 3; ++a)
    if (!flat(a) && !periodic(a))
      for (int side = 0; side < 2; ++side) {
        const Boundary b = side ? hi[a] : lo[a];
        const FaceData& d = side ? hi_data[a] : lo_data[a];
        if (!d.table.empty() && b != Boundary::Periodic) return true;
      }
  return false;
}

bool HeatProblem::has_moving_dirichlet() const {
  for (int a = 0; a < 3; ++a)
    if (!flat(a) && !periodic(a))
      for (int side = 0; side < 2; ++side)
        if ((side ? hi[a] : lo[a]) == Boundary::Dirichlet && !(side ? hi_data[a] : lo_data[a]).table.empty())
          return true;
  return false;
}

void HeatProblem::validate() const {
  const char* names[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    if (n[a] < 3 && n[a] != 1) {
      std::ostringstream s;
      s << "n" << names[a] << " = " << n[a]
        << ": a grid axis needs at least 3 nodes (two boundary nodes and one interior node), or exactly 1 "
           "(no derivative along it: a 2D or 1D problem)";
      ADI_THROW(InvalidArgument, s.str());
    }
    if (!(length[a] > 0.0) || !std::isfinite(length[a])) {
      std::ostringstream s;
      s << "domain length along " << names[a] << " = " << length[a] << ": expected a finite value > 0";
      ADI_THROW(InvalidArgument, s.str());
    }
    if (stretched(a)) {
      const std::vector<double>& x = coordinates[a];
      const std::size_t want = static_cast<std::size_t>(n[a]) + (periodic(a) ? 1 : 0);
      if (flat(a) || x.size() != want) {
        std::ostringstream s;
        s << "coordinates along " << names[a] << ": " << x.size() << " values for n" << names[a] << " = " << n[a]
          << "; expected " << want << (periodic(a) ? " (n nodes and node 0's periodic image)" : "")
          << (flat(a) ? " (a flat axis has no coordinates)" : "");
        ADI_THROW(InvalidArgument, s.str());
      }
      for (std::size_t i = 0; i < x.size(); ++i)
        if (!std::isfinite(x[i]) || (i > 0 && !(x[i] > x[i - 1]))) {
          std::ostringstream s;
          s << "coordinates along " << names[a] << ": value " << i << " = " << x[i]
            << "; expected a finite value above the one before";
          ADI_THROW(InvalidArgument, s.str());
        }
      if (x.back() - x.front() != length[a]) {
        std::ostringstream s;
        s << "coordinates along " << names[a] << ": they span " << x.back() - x.front() << " but the length is "
          << length[a];
        ADI_THROW(InvalidArgument, s.str());
      }
    }
    if (!material.conductivity[a] && (!(alpha[a] >= 0.0) || !std::isfinite(alpha[a]))) {
      std::ostringstream s;
      s << "diffusivity (conductivity) along " << names[a] << " = " << alpha[a] << ": expected a finite value >= 0";
      ADI_THROW(InvalidArgument, s.str());
    }
    if ((lo[a] == Boundary::Periodic) != (hi[a] == Boundary::Periodic)) {
      std::ostringstream s;
      s << "boundary along " << names[a] << ": periodic must be set on both faces of the axis (lo is "
        << boundary_name(lo[a]) << ", hi is " << boundary_name(hi[a]) << ")";
      ADI_THROW(InvalidArgument, s.str());
    }
    for (int side = 0; side < 2; ++side) {
      const FaceData& d = side ? hi_data[a] : lo_data[a];
      const std::string face = std::string(names[a]) + (side ? "_hi" : "_lo");
      d.table.validate("boundary " + face + " table");
      if ((side ? hi[a] : lo[a]) == Boundary::Robin && (!(d.h >= 0.0) || !std::isfinite(d.h))) {
        std::ostringstream s;
        s << "boundary " << face << ": heat transfer coefficient h = " << d.h << ": expected a finite value >= 0";
        ADI_THROW(InvalidArgument, s.str());
      }
      if (!std::isfinite(d.value) || !std::isfinite(d.flux) || !std::isfinite(d.ambient)) {
        std::ostringstream s;
        s << "boundary " << face << ": value, flux and ambient must be finite";
        ADI_THROW(InvalidArgument, s.str());
      }
    }
  }
  if (!(capacity > 0.0) || !std::isfinite(capacity)) {
    std::ostringstream s;
    s << "heat capacity = " << capacity << ": expected a finite value > 0";
    ADI_THROW(InvalidArgument, s.str());
  }
  if (!std::isfinite(source)) {
    std::ostringstream s;
    s << "heat source = " << source << ": expected a finite value";
    ADI_THROW(InvalidArgument, s.str());
  }
  source_table.validate("source table");
  if (!(dt > 0.0) || !std::isfinite(dt)) {
    std::ostringstream s;
    s << "dt = " << dt << ": expected a finite value > 0";
    ADI_THROW(InvalidArgument, s.str());
  }
  // Offsets, padded spans (up to ~12x the points for nx = 3 padded to 32) and
  // byte counts are 64-bit signed: 2^56 nodes keeps every one of them below
  // 2^63. (That is 512 PiB in fp64; the memory check stops far earlier.)
  const double points = static_cast<double>(n[0]) * static_cast<double>(n[1]) * static_cast<double>(n[2]);
  if (points > 72057594037927936.0) {  // 2^56
    std::ostringstream s;
    s << "the grid has " << n[0] << " x " << n[1] << " x " << n[2] << " = " << points
      << " nodes; at most 2^56 (7.2e16) are supported (64-bit offsets)";
    ADI_THROW(InvalidArgument, s.str());
  }
  if (!(theta >= 0.5 && theta <= 1.0)) {
    std::ostringstream s;
    s << "theta = " << theta
      << ": expected 0.5 <= theta <= 1 (below 1/2 neither scheme is unconditionally stable)";
    ADI_THROW(InvalidArgument, s.str());
  }
  // Derived values the kernels use must be finite: an overflowing K dt / h^2
  // would end in a NaN pivot far from its cause.
  for (int a = 0; a < 3; ++a) {
    if (flat(a) || material.conductivity[a]) continue;
    const double r = mesh_ratio(a);
    if (!std::isfinite(r)) {
      std::ostringstream s;
      s << "the mesh ratio along " << names[a] << ", K dt / (c h^2) = " << alpha[a] << " * " << dt << " / ("
        << capacity << " * " << spacing(a) << "^2), is not finite: reduce dt or the conductivity, or coarsen the grid";
      ADI_THROW(InvalidArgument, s.str());
    }
  }
}

void check_field_values(const std::vector<double>& v, const std::string& what, const std::string& name,
                        const std::array<index_t, 3>& n, bool signed_ok) {
  for (std::size_t q = 0; q < v.size(); ++q) {
    const double x = v[q];
    if (std::isfinite(x) && (signed_ok || x > 0.0)) continue;
    const index_t i = static_cast<index_t>(q) % n[0], j = (static_cast<index_t>(q) / n[0]) % n[1],
                  k = static_cast<index_t>(q) / (n[0] * n[1]);
    throw_bad_field_value(what, name, x, {{i, j, k}}, signed_ok);
  }
}

void throw_bad_field_value(const std::string& what, const std::string& name, double x,
                           const std::array<index_t, 3>& node, bool signed_ok) {
  std::ostringstream s;
  s << what << " field " << name << ": value " << x << " at node (i, j, k) = (" << node[0] << ", " << node[1] << ", "
    << node[2] << ") (dataset index [" << node[2] << ", " << node[1] << ", " << node[0]
    << "]): expected a finite value" << (signed_ok ? "" : " > 0");
  ADI_THROW(InvalidArgument, s.str());
}

}  // namespace adi
