// The physical properties' sections of a config: `diffusivity:`, `material:`
// (constants, per-axis values, fields from HDF5, materials by region) and
// `source:`; config_sections.cpp reads the others and calls these through
// its table of sections (config_reader.hpp).

#include "config_reader.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace adi::io::config_reader {

namespace {

// ---- values that are a number or a field, per-axis maps -----------------------

/// `{file: k.h5, dataset: /K}`: a field from HDF5 (read and checked when the
/// run starts, io/hdf5.hpp).
FieldRef read_field_ref(const Reader& r, const YAML::Node& n, const std::string& key) {
  r.only_keys(n, key, {"file", "dataset"});
  FieldRef f;
  f.key = key;
  f.where = r.where(n, key);
  if (!n["file"]) r.fail(n, key + ".file", "missing; expected the HDF5 file of the field ({file: f.h5, dataset: /K})");
  f.file = r.text(n["file"], key + ".file");
  if (f.file.empty()) r.fail(n["file"], key + ".file", "expected a file name, got an empty string");
  if (!n["dataset"]) r.fail(n, key + ".dataset", "missing; expected the dataset path inside the file, e.g. /K");
  f.dataset = r.text(n["dataset"], key + ".dataset");
  if (f.dataset.empty()) r.fail(n["dataset"], key + ".dataset", "expected a dataset path such as /K");
  return f;
}

/// A number (into `value`, which must satisfy `positive` if set) or a field
/// mapping (into `field`).
void read_number_or_field(const Reader& r, const YAML::Node& n, const std::string& key, double& value, FieldRef& field,
                          bool positive, const std::string& expected) {
  if (n.IsMap()) {
    field = read_field_ref(r, n, key);
    return;
  }
  if (!n.IsScalar()) r.fail(n, key, "expected " + expected + " or a field {file: ..., dataset: ...}, got " + describe(n));
  value = r.real(n, key);
  require(r, n, key, !positive || value > 0, expected);
}

/// A per-axis map {x: .., y: .., z: ..}: every axis that is not flat must be
/// named, or a `default:` given (#15: a partial map never fills in silently).
template <class F>
void read_per_axis(const Reader& r, const YAML::Node& n, const std::string& key, RunConfig& c, F&& one) {
  r.only_keys(n, key, {"x", "y", "z", "default"});
  const char* an[3] = {"x", "y", "z"};
  std::string missing;
  PendingAxes pending{key, r.where(n, key), {}};
  for (int a = 0; a < 3; ++a) {
    if (const YAML::Node v = n[an[a]])
      one(a, v, key + "." + an[a]);
    else if (const YAML::Node d = n["default"])
      one(a, d, key + ".default");
    else if (c.grid_pending)
      pending.missing[a] = true;  // fine if the file's grid makes the axis flat
    else if (!c.problem.flat(a))
      missing += (missing.empty() ? "" : ", ") + std::string(an[a]);
  }
  if (!missing.empty())
    r.fail(n, key,
           "missing axis " + missing + ": a per-axis map names x, y and z (or gives default: for the others)");
  if (pending.missing[0] || pending.missing[1] || pending.missing[2]) c.pending_axes.push_back(pending);
}

}  // namespace

void read_diffusivity(const Reader& r, const YAML::Node& n, RunConfig& c) {
  if (!n) return;
  std::array<double, 3>& alpha = c.problem.alpha;
  if (n.IsScalar()) {
    const double v = r.real(n, "diffusivity");
    require(r, n, "diffusivity", v >= 0, "a diffusivity >= 0 [m^2/s]");
    alpha.fill(v);
    return;
  }
  read_per_axis(r, n, "diffusivity", c, [&](int a, const YAML::Node& v, const std::string& key) {
    alpha[a] = r.real(v, key);
    require(r, v, key, alpha[a] >= 0, "a diffusivity >= 0 [m^2/s]");
  });
}

namespace {

const char* kConductivityExpected = "a conductivity > 0 [W/(m K)]";
const char* kCapacityExpected = "a volumetric heat capacity > 0 [J/(m^3 K)]";

/// A property of a material of `material.materials`: a number > 0, or a
/// table of (temperature, value) pairs [[T0, v0], [T1, v1], ...]: at least
/// two, temperatures finite and strictly increasing, values finite > 0
/// (piecewise linear between them; a temperature outside the table stops
/// the run, TemperatureState::evaluate).
PropertyTable read_material_property(const Reader& r, const YAML::Node& n, const std::string& key,
                                     const std::string& expected) {
  if (n.IsMap() && (n["file"] || n["dataset"]))
    r.fail(n, key, "a field inside a material: give the material a number (" + expected +
                       ") or a table, or drop material.materials and give the field as material." +
                       key.substr(key.rfind('.') + 1));
  if (!n.IsSequence()) {
    const double v = r.real(n, key);
    require(r, n, key, v > 0, expected + " or a table [[T0, v0], [T1, v1], ...] of temperature [K] and value");
    return PropertyTable::constant_value(v);
  }
  if (n.size() < 2)
    r.fail(n, key,
           "a table of " + std::to_string(n.size()) +
               " point" + (n.size() == 1 ? "" : "s") +
               "; expected at least two (temperature, value) pairs [[T0, v0], [T1, v1], ...] (a constant: one number)");
  PropertyTable t;
  for (std::size_t k = 0; k < n.size(); ++k) {
    const YAML::Node e = n[k];
    const std::string ek = key + "[" + std::to_string(k) + "]";
    if (!e.IsSequence() || e.size() != 2)
      r.fail(e, ek, "expected a pair [T, value] (temperature [K], " + expected.substr(2) + "), got " +
                        (e.IsSequence() ? std::to_string(e.size()) + " values" : describe(e)));
    const double tk = r.real(e[0], ek), vk = r.real(e[1], ek);
    if (!t.t.empty() && !(tk > t.t.back()))
      r.fail(e[0], ek, "expected temperatures that increase strictly, got T = " + describe(e[0]) + " after T = " +
                           describe(n[k - 1][0]));
    require(r, e[1], ek, vk > 0, expected);
    t.t.push_back(tk);
    t.v.push_back(vk);
  }
  return t;
}

/// `material: {regions: {file, dataset}, materials: {name: {id, conductivity,
/// heat_capacity}, ...}}`: the conductivity and heat capacity of each node
/// are those of the material whose id the node holds in the region field.
/// Every material gives both properties (no defaults), each id names one
/// material, and a node whose id no material has stops the run when the
/// field is read (RegionField).
void read_regions(const Reader& r, const YAML::Node& n, RunConfig& c) {
  MaterialConfig& m = c.material;
  const YAML::Node rn = n["regions"], mn = n["materials"];
  for (const char* k : {"conductivity", "heat_capacity"})
    if (n[k])
      r.fail(n[k], std::string("material.") + k,
             std::string("given beside material.") + (rn ? "regions" : "materials") +
                 ": each material of material.materials gives its own " + std::string(k) +
                 " (one or the other, not both)");
  if (!mn)
    r.fail(n, "material.materials",
           "missing; material.regions needs the materials its ids name ({copper: {id: 1, conductivity: 400, "
           "heat_capacity: 3.45e6}, ...})");
  if (!mn.IsMap() || mn.size() == 0)
    r.fail(mn, "material.materials",
           "expected a mapping of named materials {name: {id: N, conductivity: K, heat_capacity: c}, ...}, got " +
               (mn.IsMap() ? std::string("an empty one") : describe(mn)));
  m.where = r.where(mn, "material.materials");
  // One material without a region field is every node's; several need the
  // field that says which node is which.
  if (!rn && mn.size() > 1)
    r.fail(n, "material.regions",
           "missing; " + std::to_string(mn.size()) +
               " materials need the region field that says which material each node is "
               "({file: f.h5, dataset: /region}, integer ids of shape (nz, ny, nx))");
  if (rn) {
    if (!rn.IsMap())
      r.fail(rn, "material.regions", "expected a field {file: f.h5, dataset: /region}, got " + describe(rn));
    m.regions = read_field_ref(r, rn, "material.regions");
  }
  const std::vector<const char*> keys = rn ? std::vector<const char*>{"id", "conductivity", "heat_capacity"}
                                           : std::vector<const char*>{"conductivity", "heat_capacity"};
  for (auto it = mn.begin(); it != mn.end(); ++it) {
    RegionMaterial mat;
    mat.name = it->first.Scalar();
    const std::string key = "material.materials." + printable(mat.name, kQuoteMax);
    const YAML::Node v = it->second;
    if (!v.IsMap())
      r.fail(v, key, std::string("expected a mapping {") + (rn ? "id: N, " : "") +
                         "conductivity: K, heat_capacity: c}, got " + describe(v));
    if (!rn && v["id"])
      r.fail(v["id"], key + ".id",
             "an id without material.regions: the one material is every node's (give material.regions to "
             "place several)");
    r.only_keys(v, key, keys);
    for (const char* k : keys)
      if (!v[k])
        r.fail(v, key + "." + k,
               std::string("missing; every material gives ") +
                   (std::string(k) == "id" ? "the id its nodes hold in the region field (an integer)"
                    : std::string(k) == "conductivity"
                        ? "its conductivity K [W/(m K)] (a number, a table [[T0, K0], [T1, K1], ...] or "
                          "{x: .., y: .., z: ..})"
                        : "its volumetric heat capacity c = rho c_p [J/(m^3 K)]"));
    if (rn) {
      const index_t id = r.integer(v["id"], key + ".id");
      require(r, v["id"], key + ".id", id >= -2147483648LL && id <= 2147483647LL,
              "an integer id from -2147483648 to 2147483647");
      mat.id = id;
    }
    for (const RegionMaterial& o : m.materials)
      if (rn && o.id == mat.id)
        r.fail(v["id"], key + ".id",
               "id " + std::to_string(mat.id) + " is also material '" + printable(o.name, kQuoteMax) +
                   "''s; each id names one material");
    const YAML::Node k = v["conductivity"];
    if (k.IsMap() && !k["file"] && !k["dataset"]) {
      mat.isotropic = false;
      read_per_axis(r, k, key + ".conductivity", c, [&](int a, const YAML::Node& kv, const std::string& ak) {
        mat.conductivity[a] = read_material_property(r, kv, ak, kConductivityExpected);
      });
    } else {
      mat.conductivity.fill(read_material_property(r, k, key + ".conductivity", kConductivityExpected));
    }
    mat.capacity = read_material_property(r, v["heat_capacity"], key + ".heat_capacity", kCapacityExpected);
    m.materials.push_back(mat);
  }
  m.isotropic_field = std::all_of(m.materials.begin(), m.materials.end(),
                                  [](const RegionMaterial& mat) { return mat.isotropic; });
  m.temperature = std::any_of(m.materials.begin(), m.materials.end(),
                              [](const RegionMaterial& mat) { return mat.depends_on_temperature(); });
  if (!rn && !m.temperature) {
    // One material of constants: the constant problem.
    const RegionMaterial& mat = m.materials[0];
    for (int a = 0; a < 3; ++a) c.problem.alpha[a] = mat.conductivity[a].v[0];
    c.problem.capacity = mat.capacity.v[0];
    return;
  }
  if (m.temperature) return;  // attach_fields builds the TemperatureState
  // The conductivity and capacity fields: refs to the region field, each
  // with its values by id (one ref for all axes when every material's K is
  // one number).
  std::vector<RegionMaterial> by_id = m.materials;
  std::sort(by_id.begin(), by_id.end(), [](const RegionMaterial& a, const RegionMaterial& b) { return a.id < b.id; });
  auto ref = [&](const std::string& what, auto value) {
    auto rv = std::make_shared<RegionValues>();
    rv->what = what;
    for (const RegionMaterial& mat : by_id) rv->value.emplace_back(mat.id, value(mat));
    FieldRef f = m.regions;
    f.by_region = std::move(rv);
    return f;
  };
  for (int a = 0; a < 3; ++a) {
    if (a > 0 && m.isotropic_field) {
      m.conductivity[a] = m.conductivity[0];
      continue;
    }
    m.conductivity[a] = ref(m.isotropic_field ? std::string("conductivity") : std::string("conductivity ") + "xyz"[a],
                            [a](const RegionMaterial& mat) { return mat.conductivity[a].v[0]; });
  }
  m.capacity = ref("heat capacity", [](const RegionMaterial& mat) { return mat.capacity.v[0]; });
}

}  // namespace

void read_material(const Reader& r, const YAML::Node& n, RunConfig& c) {
  if (!n) return;
  r.only_keys(n, "material", {"conductivity", "heat_capacity", "regions", "materials"});
  MaterialConfig& m = c.material;
  m.given = true;
  if (!n.IsMap()) r.fail(n, "material", "expected a mapping {conductivity: K, heat_capacity: c}, got " + describe(n));
  if (n["regions"] || n["materials"]) {
    read_regions(r, n, c);
    return;
  }
  if (const YAML::Node k = n["conductivity"]) {
    const std::string key = "material.conductivity";
    if (k.IsMap() && (k["file"] || k["dataset"])) {  // one field for all axes
      m.conductivity[0] = read_field_ref(r, k, key);
      m.conductivity[1] = m.conductivity[2] = m.conductivity[0];
      m.isotropic_field = true;
    } else if (k.IsMap()) {
      read_per_axis(r, k, key, c, [&](int a, const YAML::Node& v, const std::string& ak) {
        read_number_or_field(r, v, ak, c.problem.alpha[a], m.conductivity[a], true, kConductivityExpected);
      });
    } else {
      double v = 1.0;
      FieldRef unused;
      read_number_or_field(r, k, key, v, unused, true, kConductivityExpected);
      c.problem.alpha.fill(v);
    }
  }
  if (const YAML::Node h = n["heat_capacity"])
    read_number_or_field(r, h, "material.heat_capacity", c.problem.capacity, m.capacity, true, kCapacityExpected);
}

void read_source(const Reader& r, const YAML::Node& n, RunConfig& c) {
  if (!n.IsDefined() || n.IsNull()) return;
  const char* expected = "a power density [W/m^3]";
  if (!n.IsMap()) {
    double v = 0.0;
    FieldRef unused;
    read_number_or_field(r, n, "source", v, unused, false, expected);
    c.problem.source = v;
    c.positions.emplace_back("source.power_density", r.where(n, "source"));
    return;
  }
  r.only_keys(n, "source", {"power_density", "table"});
  for (const char* k : {"power_density", "table"})
    if (n[k]) c.positions.emplace_back(std::string("source.") + k, r.where(n[k], std::string("source.") + k));
  if (!n["power_density"])
    r.fail(n, "source.power_density", "missing; expected a power density [W/m^3] or a field {file: ..., dataset: ...}");
  read_number_or_field(r, n["power_density"], "source.power_density", c.problem.source, c.material.source, false,
                       expected);
  if (const YAML::Node t = n["table"]) c.problem.source_table = read_table(r, t, "source.table");
}

}  // namespace adi::io::config_reader
