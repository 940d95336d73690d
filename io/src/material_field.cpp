// Material and source fields from HDF5 (hdf5.hpp: Hdf5Field, attach_fields).

#include "h5par.hpp"
#include "h5util.hpp"

#include <adi/io/hdf5.hpp>
#include <adi/io/start.hpp>
#include <adi/radiation.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <sstream>

namespace adi::io {

using detail::H5Id;

namespace {

// The global (i, j, k) of value q of a read: a box (lo, size), x fastest...
struct BoxNode {
  const std::array<index_t, 3>& lo;
  const std::array<index_t, 3>& size;
  std::array<index_t, 3> operator()(index_t q) const {
    return {{lo[0] + q % size[0], lo[1] + (q / size[0]) % size[1], lo[2] + q / (size[0] * size[1])}};
  }
};
// ... or the index lists of a rank's box with its ghost layers.
struct IndexNode {
  const std::array<std::vector<index_t>, 3>& idx;
  index_t points() const { return static_cast<index_t>(idx[0].size() * idx[1].size() * idx[2].size()); }
  std::array<index_t, 3> operator()(index_t q) const {
    const index_t n0 = static_cast<index_t>(idx[0].size()), n1 = static_cast<index_t>(idx[1].size());
    return {{idx[0][static_cast<std::size_t>(q % n0)], idx[1][static_cast<std::size_t>((q / n0) % n1)],
             idx[2][static_cast<std::size_t>(q / (n0 * n1))]}};
  }
};

}  // namespace

Hdf5Field::Hdf5Field(FieldInfo info, std::string what, Values check, bool collective_reads)
    : info_(std::move(info)), what_(std::move(what)), check_(check), collective_reads_(collective_reads) {}

void Hdf5Field::read(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& size, double* out) const {
  const std::string ctx = name();
  for (int a = 0; a < 3; ++a)
    if (lo[a] < 0 || size[a] < 0 || lo[a] + size[a] > info_.n[a])
      throw IoError(ctx + ": a box outside the dataset was asked for", __FILE__, __LINE__);
  const index_t points = size[0] * size[1] * size[2];
  if (points == 0) return;
  detail::init_hdf5();
  const hid_t fid = H5Fopen(info_.file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (fid < 0)
    throw IoError(info_.file + ": cannot open the " + what_ + " field: the file is missing, truncated or damaged",
                  __FILE__, __LINE__);
  H5Id f(fid, H5Fclose);
  H5Id d(ADI_H5_CHECK(H5Dopen2(f.get(), info_.dataset.c_str(), H5P_DEFAULT), ctx, "cannot open dataset"), H5Dclose);
  H5Id fspace(H5Dget_space(d.get()), H5Sclose);
  // Dataset order (z, y, x): one hyperslab for the box, read as double.
  const hsize_t start[3] = {static_cast<hsize_t>(lo[2]), static_cast<hsize_t>(lo[1]), static_cast<hsize_t>(lo[0])};
  const hsize_t count[3] = {static_cast<hsize_t>(size[2]), static_cast<hsize_t>(size[1]),
                            static_cast<hsize_t>(size[0])};
  ADI_H5_CHECK(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), ctx,
               "cannot select a box");
  const hsize_t m = static_cast<hsize_t>(points);
  H5Id mspace(H5Screate_simple(1, &m, nullptr), H5Sclose);
  ADI_H5_CHECK(H5Dread(d.get(), H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT, out), ctx,
               "cannot read the " + what_ + " field (the file may be truncated or damaged)");
  check_values(out, points, BoxNode{lo, size});
}

template <class Node>
void Hdf5Field::check_values(const double* out, index_t points, const Node& node) const {
  const bool positive = check_ == Values::Positive;
  for (index_t q = 0; q < points; ++q) {
    const double v = out[q];
    if (std::isfinite(v) && (!positive || v > 0.0)) continue;
    const std::array<index_t, 3> g = node(q);
    std::ostringstream s;
    s << name() << ": the " << what_ << " field holds " << v << " at node (i, j, k) = (" << g[0] << ", " << g[1]
      << ", " << g[2] << ") (dataset index [" << g[2] << ", " << g[1] << ", " << g[0] << "]); expected a finite value"
      << (positive ? " > 0" : "");
    throw IoError(s.str(), __FILE__, __LINE__);
  }
}

// A rank's box of a distributed run: with parallel HDF5 one collective read
// of every rank (the MPI-IO driver, a collective transfer), the box and its
// ghost layers (their wrapped pieces on a periodic axis) one union of
// hyperslabs. HDF5 moves a union's elements in increasing dataset order,
// which is idx's order (each list ascending), so `out` needs no reordering.
// Every rank makes the same calls (h5par.hpp's rule); a failure before the
// read is agreed first, so no rank waits in a call another one skipped. The
// values are checked after the read (a bad one throws on its rank only, as
// the caller, load_box_field, expects: it reads the other fields before it
// throws). Otherwise, and without parallel HDF5 or with one process: the
// default, one independent read() per block.
void Hdf5Field::read_indices(const std::array<std::vector<index_t>, 3>& idx, double* out, bool collective) const {
  if (!collective || !collective_reads_ || !detail::par::built() || detail::par::size() < 2) {
    FieldSource::read_indices(idx, out, collective);
    return;
  }
  const std::string ctx = name();
  std::array<std::vector<std::array<hsize_t, 2>>, 3> runs;  // per axis: (first, length)
  detail::par::agree([&] {
    for (int a = 0; a < 3; ++a) {
      if (idx[a].empty()) throw IoError(ctx + ": an empty box was asked for", __FILE__, __LINE__);
      for (std::size_t p = 0; p < idx[a].size(); ++p)
        if (idx[a][p] < 0 || idx[a][p] >= info_.n[a] || (p > 0 && idx[a][p] <= idx[a][p - 1]))
          throw IoError(ctx + ": a box outside the dataset was asked for", __FILE__, __LINE__);
      for (std::size_t p = 0; p < idx[a].size();) {
        std::size_t e = p + 1;
        while (e < idx[a].size() && idx[a][e] == idx[a][e - 1] + 1) ++e;
        runs[a].push_back({{static_cast<hsize_t>(idx[a][p]), static_cast<hsize_t>(e - p)}});
        p = e;
      }
    }
    detail::init_hdf5();
  });
  H5Id f, d, fspace, mspace;
  detail::par::agree([&] {
    const hid_t fid = H5Fopen(info_.file.c_str(), H5F_ACC_RDONLY, detail::par::fapl(ctx).get());
    if (fid < 0)
      throw IoError(info_.file + ": cannot open the " + what_ + " field: the file is missing, truncated or damaged",
                    __FILE__, __LINE__);
    f = H5Id(fid, H5Fclose);
  });
  detail::par::agree([&] {
    d = H5Id(ADI_H5_CHECK(H5Dopen2(f.get(), info_.dataset.c_str(), H5P_DEFAULT), ctx, "cannot open dataset"),
             H5Dclose);
    fspace = H5Id(H5Dget_space(d.get()), H5Sclose);
    // Dataset order (z, y, x).
    bool first = true;
    for (const auto& rz : runs[2])
      for (const auto& ry : runs[1])
        for (const auto& rx : runs[0]) {
          const hsize_t start[3] = {rz[0], ry[0], rx[0]}, count[3] = {rz[1], ry[1], rx[1]};
          ADI_H5_CHECK(H5Sselect_hyperslab(fspace.get(), first ? H5S_SELECT_SET : H5S_SELECT_OR, start, nullptr, count,
                                           nullptr),
                       ctx, "cannot select this rank's box");
          first = false;
        }
    const hsize_t m = static_cast<hsize_t>(idx[0].size() * idx[1].size() * idx[2].size());
    mspace = H5Id(H5Screate_simple(1, &m, nullptr), H5Sclose);
  });
  detail::par::agree([&] {
    ADI_H5_CHECK(H5Dread(d.get(), H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), detail::par::dxpl(ctx).get(), out),
                 ctx, "cannot read the " + what_ + " field (the file may be truncated or damaged)");
  });
  const IndexNode node{idx};
  check_values(out, node.points(), node);
}

std::string field_checksum(const FieldSource& f, const std::array<index_t, 3>& n) {
  // FNV-1a (64 bit) over the float64 bytes, plane by plane: cheap, no
  // dependency, and enough to tell two inputs apart in the provenance.
  std::uint64_t h = 1469598103934665603ull;
  std::vector<double> plane(static_cast<std::size_t>(n[0] * n[1]));
  for (index_t k = 0; k < n[2]; ++k) {
    f.read({{0, 0, k}}, {{n[0], n[1], 1}}, plane.data());
    const auto* b = reinterpret_cast<const unsigned char*>(plane.data());
    for (std::size_t q = 0; q < plane.size() * sizeof(double); ++q) {
      h ^= b[q];
      h *= 1099511628211ull;
    }
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string Hdf5Field::checksum() const {
  if (checksum_.empty()) checksum_ = field_checksum(*this, info_.n);
  return checksum_;
}

RegionField::RegionField(std::shared_ptr<const Hdf5Field> ids, std::shared_ptr<const RegionValues> values)
    : ids_(std::move(ids)), values_(std::move(values)) {}

std::string RegionField::name() const { return ids_->name() + " (" + values_->what + " by region)"; }

template <class Node>
void RegionField::map_values(double* out, index_t points, const Node& node) const {
  const auto& v = values_->value;  // ids ascending
  for (index_t q = 0; q < points; ++q) {
    const double id = out[q];
    const auto it = std::lower_bound(v.begin(), v.end(), id,
                                     [](const std::pair<long long, double>& e, double x) { return e.first < x; });
    if (it != v.end() && static_cast<double>(it->first) == id) {
      out[q] = it->second;
      continue;
    }
    const std::array<index_t, 3> g = node(q);
    std::ostringstream s;
    s << ids_->name() << ": the region field holds " << id << " at node (i, j, k) = (" << g[0] << ", " << g[1]
      << ", " << g[2] << ") (dataset index [" << g[2] << ", " << g[1] << ", " << g[0]
      << "]), and no material of material.materials has that id (ids:";
    for (const auto& e : v) s << " " << e.first;
    s << ")";
    throw IoError(s.str(), __FILE__, __LINE__);
  }
}

void RegionField::read(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& size, double* out) const {
  ids_->read(lo, size, out);
  map_values(out, size[0] * size[1] * size[2], BoxNode{lo, size});
}

// The ids' read (collective where the ranks read together), then the values
// mapped on this rank: an unknown id throws on its rank only, after every
// collective call, as load_box_field expects of a bad value.
void RegionField::read_indices(const std::array<std::vector<index_t>, 3>& idx, double* out, bool collective) const {
  ids_->read_indices(idx, out, collective);
  const IndexNode node{idx};
  map_values(out, node.points(), node);
}

std::string RegionField::checksum() const {
  if (checksum_.empty()) checksum_ = field_checksum(*this, ids_->info().n);
  return checksum_;
}

namespace {

std::string shape_text(const std::array<index_t, 3>& n) {  // dataset order
  return "(" + std::to_string(n[2]) + ", " + std::to_string(n[1]) + ", " + std::to_string(n[0]) + ")";
}

std::shared_ptr<const FieldSource> open_field(const RunConfig& c, const FieldRef& ref, const std::string& what,
                                              Hdf5Field::Values check, bool collective_reads) {
  const std::string file = resolve_input(c, ref.file);
  const bool regions = ref.by_region != nullptr;
  FieldInfo info = inspect_field(file, ref.dataset, regions ? "the region field" : "the " + what + " field", regions);
  const HeatProblem& p = c.problem;
  if (info.n != p.n)
    throw ConfigError(ref.where, ref.key,
                      file + ":" + ref.dataset + " has shape (nz, ny, nx) = " + shape_text(info.n) +
                          " but the grid is " + shape_text(p.n) + "; a field needs one value per node",
                      __FILE__, __LINE__);
  check_field_coordinates(p, info, ref.where, ref.key);
  if (info.spacing)
    for (int a = 0; a < 3; ++a) {
      if (p.flat(a) || p.stretched(a)) continue;  // a stretched axis: its coordinates, compared above
      const double h = p.spacing(a), hf = (*info.spacing)[a];
      if (std::fabs(h - hf) > 1e-9 * std::max(h, hf)) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "spacing along %c is %.10g m in %s but %.10g m in the config", "xyz"[a], hf,
                      info.geometry_source.c_str(), h);
        throw ConfigError(ref.where, ref.key, buf, __FILE__, __LINE__);
      }
    }
  if (info.origin)
    for (int a = 0; a < 3; ++a) {
      if (p.stretched(a)) continue;
      const double o = c.origin[a], of = (*info.origin)[a];
      if (std::fabs(o - of) > 1e-9 * std::max({std::fabs(o), std::fabs(of), p.spacing(a)})) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "origin along %c is %.10g m in %s but %.10g m in the config", "xyz"[a], of,
                      info.geometry_source.c_str(), o);
        throw ConfigError(ref.where, ref.key, buf, __FILE__, __LINE__);
      }
    }
  if (regions)
    return std::make_shared<RegionField>(
        std::make_shared<Hdf5Field>(std::move(info), "region", Hdf5Field::Values::Finite, collective_reads),
        ref.by_region);
  return std::make_shared<Hdf5Field>(std::move(info), what, check, collective_reads);
}

}  // namespace

void attach_fields(RunConfig& c, bool collective_reads) {
  MaterialConfig& m = c.material;
  Material& mat = c.problem.material;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<const FieldSource>> opened;
  auto get = [&](const FieldRef& r, const std::string& what, Hdf5Field::Values v) {
    // One source per file, property and dataset (and by region per axis:
    // the values differ where the region field is the same).
    auto& s = opened[{r.file + "\n" + (r.by_region ? r.by_region->what : what), r.dataset}];
    if (!s) s = open_field(c, r, what, v, collective_reads);
    return s;
  };
  if (m.temperature) {
    // Temperature-dependent: each node's position in m.materials, from the
    // region field's ids (or every node the one material), and the state
    // whose K and c fields the nonlinear step re-evaluates.
    std::shared_ptr<const FieldSource> index;
    if (m.regions.given()) {
      auto rv = std::make_shared<RegionValues>();
      rv->what = "material";
      std::vector<std::pair<long long, double>> by_id;
      for (std::size_t q = 0; q < m.materials.size(); ++q)
        by_id.emplace_back(m.materials[q].id, static_cast<double>(q));
      std::sort(by_id.begin(), by_id.end());
      rv->value = std::move(by_id);
      FieldRef ref = m.regions;
      ref.by_region = std::move(rv);
      index = open_field(c, ref, "material", Hdf5Field::Values::Finite, collective_reads);
    }
    std::vector<TemperatureMaterial> tm;
    for (const RegionMaterial& r : m.materials) {
      TemperatureMaterial t;
      t.name = r.name;
      t.conductivity = r.conductivity;
      t.capacity = r.capacity;
      // A flat axis carries no conduction: its conductivity is never read.
      for (int a = 0; a < 3; ++a)
        if (c.problem.flat(a) && t.conductivity[a].constant() && !(t.conductivity[a].v[0] > 0))
          t.conductivity[a] = PropertyTable::constant_value(1.0);
      tm.push_back(std::move(t));
    }
    mat.temperature = std::make_shared<TemperatureState>(c.problem.n, index, std::move(tm), m.isotropic_field);
    for (int a = 0; a < 3; ++a)
      if (!c.problem.flat(a)) mat.conductivity[a] = mat.temperature->conductivity(a);
    mat.capacity = mat.temperature->capacity();
  }
  for (int a = 0; a < 3; ++a)
    if (m.conductivity[a].given() && !c.problem.flat(a))
      mat.conductivity[a] = get(m.conductivity[a], "conductivity", Hdf5Field::Values::Positive);
  if (m.capacity.given()) mat.capacity = get(m.capacity, "heat capacity", Hdf5Field::Values::Positive);
  if (m.source.given()) mat.source = get(m.source, "heat source", Hdf5Field::Values::Finite);
  // Radiating faces: their state serves the source field the nonlinear step
  // re-evaluates (the problem's own source inside it).
  c.problem.radiation = c.problem.radiates() ? std::make_shared<RadiationState>(c.problem) : nullptr;
}

std::vector<std::pair<std::string, std::shared_ptr<const FieldSource>>> named_fields(const RunConfig& c) {
  std::vector<std::pair<std::string, std::shared_ptr<const FieldSource>>> out;
  const Material& m = c.problem.material;
  if (m.temperature) {
    // K and c follow the temperature: no field of them holds for the whole
    // run (the tables are in the config the output records). The region
    // ids, an input, are written instead: ParaView shows the materials.
    if (const auto* g = dynamic_cast<const RegionField*>(m.temperature->index_source().get()))
      out.emplace_back("region", g->ids_source());
  } else if (c.material.isotropic_field && m.conductivity[0]) {
    out.emplace_back("conductivity", m.conductivity[0]);
  } else {
    for (int a = 0; a < 3; ++a)
      if (m.conductivity[a]) out.emplace_back(std::string("conductivity_") + "xyz"[a], m.conductivity[a]);
  }
  if (m.capacity && !m.temperature) out.emplace_back("heat_capacity", m.capacity);
  if (m.source) out.emplace_back("source", m.source);
  return out;
}

}  // namespace adi::io
