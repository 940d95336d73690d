// The identity of a problem (adi/io/identity.hpp).

#include <adi/io/hdf5.hpp>
#include <adi/io/identity.hpp>
#include <adi/io/start.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace adi::io {

namespace {

std::string num(double v) { return number_words(v); }

std::string list3(const std::array<double, 3>& v) { return "[" + num(v[0]) + ", " + num(v[1]) + ", " + num(v[2]) + "]"; }

std::string table_text(const TimeTable& t) {
  if (t.empty()) return "none";
  std::string s = "[";
  for (std::size_t k = 0; k < t.t.size(); ++k) s += (k ? ", [" : "[") + num(t.t[k]) + ", " + num(t.v[k]) + "]";
  return s + "]";
}

/// A temperature-dependent property of every material, by name (and id):
/// "si 2: [[300, 148], [400, 98]]; cu 1: 390".
template <class Pick>
std::string materials_text(const MaterialConfig& m, Pick pick) {
  std::string s = "by temperature: ";
  for (std::size_t q = 0; q < m.materials.size(); ++q) {
    const RegionMaterial& mat = m.materials[q];
    const PropertyTable& t = pick(mat);
    s += (q ? "; " : "") + mat.name + (m.regions.given() ? " " + std::to_string(mat.id) : std::string()) + ": ";
    if (t.constant()) {
      s += num(t.v[0]);
      continue;
    }
    s += "[";
    for (std::size_t k = 0; k < t.t.size(); ++k) s += (k ? ", [" : "[") + num(t.t[k]) + ", " + num(t.v[k]) + "]";
    s += "]";
  }
  return s;
}

std::string field_value(const std::string& checksum) {
  return checksum.empty() ? std::string("field (checksum unknown)") : "field " + checksum;
}

}  // namespace

std::vector<ProblemItem> problem_items(const RunConfig& c, const ChecksumLookup& lookup) {
  const HeatProblem& p = c.problem;
  std::vector<ProblemItem> items;
  auto add = [&](const std::string& key, const std::string& value, const std::string& label = "",
                 const std::string& note = "", const std::string& legacy = "") {
    items.push_back({key, value, label, note, legacy});
  };
  // The checksum of a field by its name in the outputs ("conductivity_x").
  auto checksum = [&](const std::string& name, const FieldSource* src) -> std::string {
    if (lookup) return lookup(name);
    return src ? src->checksum() : std::string();
  };
  auto ref_note = [&](const FieldRef& f) { return f.given() ? f.file + ":" + f.dataset : std::string(); };
  const char* ax = "xyz";

  add("grid", "[" + std::to_string(p.n[0]) + ", " + std::to_string(p.n[1]) + ", " + std::to_string(p.n[2]) + "]");
  for (int a = 0; a < 3; ++a) add(std::string("domain.l") + ax[a], num(p.length[a]));
  add("domain.origin", list3(c.origin));
  // A stretched axis: its nodes as a count, the ends and the FNV-1a of
  // their float64 bits (short, whatever the grid: the identity is an HDF5
  // attribute). An item only where an axis is stretched: uniform runs keep
  // their identity.
  for (int a = 0; a < 3; ++a) {
    if (!p.stretched(a)) continue;
    const std::vector<double>& x = p.coordinates[a];
    std::uint64_t h = 1469598103934665603ull;
    for (double v : x) {
      unsigned char b[sizeof v];
      std::memcpy(b, &v, sizeof v);
      for (unsigned char ch : b) h = (h ^ ch) * 1099511628211ull;
    }
    char fnv[40];
    std::snprintf(fnv, sizeof fnv, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
    add(std::string("grid.") + ax[a] + ".coordinates",
        std::to_string(x.size()) + " values " + num(x.front()) + " .. " + num(x.back()) + " " + fnv);
  }

  // K per axis (not along a flat axis: nothing is computed there), c, q.
  const MaterialConfig& m = c.material;
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a)) continue;
    const std::string key = std::string("material.conductivity.") + ax[a];
    const std::string label = m.given ? "" : std::string("diffusivity.") + ax[a];
    if (m.temperature) {
      add(key, materials_text(m, [a](const RegionMaterial& mat) -> const PropertyTable& { return mat.conductivity[a]; }));
    } else if (m.conductivity[a].given()) {
      const std::string name = m.isotropic_field ? "conductivity" : std::string("conductivity_") + ax[a];
      add(key, field_value(checksum(name, p.material.conductivity[a].get())), label, ref_note(m.conductivity[a]));
    } else {
      add(key, num(p.alpha[a]), label);
    }
  }
  if (m.temperature) {
    add("material.heat_capacity",
        materials_text(m, [](const RegionMaterial& mat) -> const PropertyTable& { return mat.capacity; }));
    if (m.regions.given())
      add("material.regions",
          field_value(checksum("regions", p.material.temperature ? p.material.temperature->index_source().get()
                                                                 : nullptr)),
          "", ref_note(m.regions));
  } else if (m.capacity.given())
    add("material.heat_capacity", field_value(checksum("heat_capacity", p.material.capacity.get())), "",
        ref_note(m.capacity));
  else
    add("material.heat_capacity", num(p.capacity));
  if (m.source.given())
    add("source.power_density", field_value(checksum("source", p.material.source.get())), "", ref_note(m.source));
  else
    add("source.power_density", num(p.source));
  add("source.table", table_text(p.source_table));

  // Every face of an axis that is not flat: its type and the data of that type.
  const bool zeroed = c.initial.kind == InitialConfig::Kind::File && !c.initial.boundary_from_file;
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a)) continue;
    for (int side = 0; side < 2; ++side) {
      const std::string face = std::string("boundary.") + ax[a] + (side ? "_hi" : "_lo");
      const Boundary b = side ? p.hi[a] : p.lo[a];
      const FaceData& d = side ? p.hi_data[a] : p.lo_data[a];
      add(face + ".type", b == Boundary::Robin ? "convective" : boundary_name(b));
      if (b == Boundary::Periodic) continue;
      if (b == Boundary::Dirichlet)
        add(face + ".value", !d.value_from_initial ? num(d.value)
                             : zeroed              ? std::string("0 (initial.boundary_from_file: false)")
                                                   : std::string("the initial field's face values"));
      if (b == Boundary::Neumann) add(face + ".flux", num(d.flux));
      if (b == Boundary::Robin) {
        add(face + ".h", num(d.h));
        add(face + ".ambient", num(d.ambient));
      }
      add(face + ".table", table_text(d.table));
      if (d.emissivity > 0.0)
        add(face + ".radiation", "emissivity " + num(d.emissivity) + ", ambient " + num(d.radiation_ambient));
    }
  }
  // The initial field's face values, where the stepper reads them again.
  if (faces_read_initial(c)) {
    if (c.initial.kind == InitialConfig::Kind::File)
      add("initial.file", field_value(checksum("initial", p.initial_field.get())), "initial.file (the moving Dirichlet faces' values)",
          c.initial.file + ":" + c.initial.dataset);
    else if (c.initial.kind == InitialConfig::Kind::Uniform)
      add("initial.value", num(c.initial.value), "initial.value (the moving Dirichlet faces' values)");
  }
  // The scheme that runs (auto resolved): every run before scheme.type
  // existed took the Douglas step.
  add("scheme.type", scheme_name(p.scheme_in_use()), "", "", "douglas");
  add("scheme.theta", num(p.theta));
  if (m.temperature || p.radiates()) add("scheme.nonlinear", nonlinear_step_name(p.nonlinear), "", "", "iterate");
  add("time.start", num(c.t_start), "", "", "0");
  return items;
}

std::string problem_items_text(const std::vector<ProblemItem>& items) {
  std::string s;
  for (const ProblemItem& it : items) s += it.key + " = " + it.value + "\n";
  return s;
}

std::vector<ProblemItem> parse_problem_items(const std::string& text) {
  std::vector<ProblemItem> items;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    items.push_back({line.substr(0, eq), line.substr(eq + 3), "", "", ""});
  }
  return items;
}

std::string problem_hash(const std::vector<ProblemItem>& items) {
  std::uint64_t h = 1469598103934665603ull;
  for (const ProblemItem& it : items)
    for (const std::string* s : {&it.key, &it.value})
      for (const char ch : *s + "\n") h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  char buf[40];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string first_difference(const std::vector<ProblemItem>& stored, const std::string& stored_name,
                             const std::vector<ProblemItem>& now, const std::string& now_name) {
  auto find = [](const std::vector<ProblemItem>& v, const std::string& key) -> const ProblemItem* {
    for (const ProblemItem& it : v)
      if (it.key == key) return &it;
    return nullptr;
  };
  for (const ProblemItem& it : now) {
    const ProblemItem* old = find(stored, it.key);
    std::string old_value;
    if (old)
      old_value = old->value;
    else if (!it.legacy.empty())
      old_value = it.legacy;
    else
      continue;  // not recorded there, and no value older runs had
    if (old_value == it.value) continue;
    return (it.label.empty() ? it.key : it.label) + " differs: " + stored_name + " " + old_value + ", " + now_name +
           " " + it.value + (it.note.empty() ? "" : " (" + it.note + ")");
  }
  for (const ProblemItem& it : stored)
    if (!find(now, it.key))
      return it.key + " differs: " + stored_name + " " + it.value + ", " + now_name + " has none";
  return "";
}

std::vector<ProblemItem> problem_items_of_stored(const std::string& config_yaml, const std::string& input_fields,
                                                 const std::string& name) {
  RunConfig c;
  try {
    c = parse_config(config_yaml, name);
  } catch (const ConfigError&) {
    // A config an older adi3d wrote that this one no longer accepts: its
    // items are unknown, and nothing is compared (an empty list).
    return {};
  }
  // "conductivity = wall.h5:/K fnv1a64:0123..." per line.
  auto lookup = [&](const std::string& field) -> std::string {
    std::istringstream in(input_fields);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(field + " = ", 0) != 0) continue;
      const auto sp = line.find_last_of(' ');
      return sp == std::string::npos ? std::string() : line.substr(sp + 1);
    }
    return "";
  };
  std::vector<ProblemItem> items = problem_items(c, lookup);
  // A field whose checksum was not recorded cannot be compared: left out
  // (first_difference then does not compare it).
  std::vector<ProblemItem> known;
  for (ProblemItem& it : items)
    if (it.value != field_value("")) known.push_back(std::move(it));
  return known;
}

}  // namespace adi::io
