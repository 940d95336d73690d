// One reader per section of a config; read_sections calls them in the
// order of kSections.

#include "config_reader.hpp"

#include <adi/io/hdf5.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cctype>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace adi::io::config_reader {

namespace {

// ---- One reader per section ------------------------------------------------
//
// Each reads its section's node `n` (undefined when the section is absent)
// into the config `c`; a required section's reader reports its absence
// itself (Reader::missing). build() calls them in the order of kSections.

/// grid.x (y, z) as a map: {coordinates: [x0, x1, ...] or {file, dataset},
/// period: P (a periodic axis)} or {n: N, stretch: {from: lo | hi | both,
/// ratio: r}} (the length from domain.l<axis>).
void read_grid_axis(const Reader& r, const YAML::Node& m, const std::string& key, RunConfig& c, int a) {
  r.only_keys(m, key, {"coordinates", "period", "n", "stretch"});
  AxisGridInput& g = c.grid_axes[static_cast<std::size_t>(a)];
  index_t& na = c.problem.n[a];
  if (const YAML::Node v = m["coordinates"]) {
    if (m["n"] || m["stretch"])
      r.fail(m[m["n"] ? "n" : "stretch"], key + (m["n"] ? ".n" : ".stretch"),
             "contradicts " + key + ".coordinates: give the coordinates, or n with a stretch rule");
    g.kind = AxisGridInput::Kind::Coordinates;
    if (v.IsMap()) {
      r.only_keys(v, key + ".coordinates", {"file", "dataset"});
      if (!v["file"] || !v["dataset"])
        r.fail(v, key + ".coordinates." + (v["file"] ? "dataset" : "file"),
               "missing; expected {file: grid.h5, dataset: /z} (a 1-D dataset of node coordinates [m])");
      std::string file = r.text(v["file"], key + ".coordinates.file");
      const std::string ds = r.text(v["dataset"], key + ".coordinates.dataset");
      const std::string& cfg = r.name();
      const auto slash = cfg.find_last_of('/');
      if (!file.empty() && file[0] != '/' && slash != std::string::npos)
        file = cfg.substr(0, slash == 0 ? 1 : slash) + "/" + file;
      try {
        g.values = adi::io::read_vector(file, ds);
      } catch (const std::exception& e) {
        r.fail(v, key + ".coordinates", e.what());
      }
      g.values_from = file + ":" + ds;
    } else {
      if (!v.IsSequence())
        r.fail(v, key + ".coordinates",
               "expected a list of node coordinates [m] or {file: ..., dataset: ...}, got " + describe(v));
      for (std::size_t i = 0; i < v.size(); ++i) g.values.push_back(r.real(v[i], key + ".coordinates"));
      g.values_from = "the config";
    }
    const std::vector<double>& x = g.values;
    if (x.size() < 3)
      r.fail(v, key + ".coordinates",
             "expected at least 3 coordinates (two boundary nodes and one interior node), got " +
                 std::to_string(x.size()) + (g.values_from == "the config" ? "" : " in " + g.values_from));
    if (x.size() > static_cast<std::size_t>(kMaxGridExtent))
      r.fail(v, key + ".coordinates", "expected at most " + std::to_string(kMaxGridExtent) + " coordinates");
    for (std::size_t i = 0; i < x.size(); ++i) {
      std::ostringstream s;
      if (!std::isfinite(x[i])) {
        s << "value " << i << " is " << x[i] << (g.values_from == "the config" ? "" : " in " + g.values_from)
          << "; expected finite coordinates [m]";
        r.fail(v.IsSequence() ? v[i] : v, key + ".coordinates", s.str());
      }
      if (i > 0 && !(x[i] > x[i - 1])) {
        s << "value " << i << " = " << number_words(x[i]) << " does not exceed value " << i - 1 << " = "
          << number_words(x[i - 1])
          << (g.values_from == "the config" ? "" : " in " + g.values_from)
          << "; expected strictly increasing node coordinates [m]";
        r.fail(v.IsSequence() ? v[i] : v, key + ".coordinates", s.str());
      }
    }
    na = static_cast<index_t>(x.size());
    if (const YAML::Node p = m["period"]) {
      g.has_period = true;
      g.period = r.real(p, key + ".period");
      require(r, p, key + ".period", g.period > x.back() - x.front(),
              "a period [m] longer than the coordinates' span (node 0's periodic image lies at x0 + period)");
    }
    return;
  }
  if (!m["n"] || !m["stretch"])
    r.fail(m, key + (m["n"] ? ".stretch" : ".n"),
           "missing; expected {coordinates: [...]} or {n: N, stretch: {from: lo, ratio: 1.1}}");
  if (m["period"])
    r.fail(m["period"], key + ".period",
           "a stretch rule is for an axis with faces: give coordinates and a period for a periodic axis");
  g.kind = AxisGridInput::Kind::Stretch;
  na = r.integer(m["n"], key + ".n");
  require(r, m["n"], key + ".n", na >= 3, "an integer >= 3 (two boundary nodes and at least one interior node)");
  require(r, m["n"], key + ".n", na <= kMaxGridExtent, "an integer <= " + std::to_string(kMaxGridExtent));
  const YAML::Node s = m["stretch"];
  r.only_keys(s, key + ".stretch", {"from", "ratio"});
  if (!s.IsMap() || !s["from"] || !s["ratio"])
    r.fail(s, key + ".stretch" + (s.IsMap() && s["from"] ? ".ratio" : ".from"),
           "missing; expected {from: lo | hi | both (the face(s) the nodes cluster at), ratio: r (each gap over the "
           "one before it, away from that face, 1 <= r <= 10)}");
  g.from = r.choice<std::string>(s["from"], key + ".stretch.from", {{"lo", "lo"}, {"hi", "hi"}, {"both", "both"}});
  g.ratio = r.real(s["ratio"], key + ".stretch.ratio");
  require(r, s["ratio"], key + ".stretch.ratio", g.ratio >= 1.0 && g.ratio <= 10.0,
          "a ratio 1 <= r <= 10 (each gap over the one before it, away from the clustering face; 1: uniform)");
}

void read_grid(const Reader& r, const YAML::Node& n, RunConfig& c) {
  // With an initial HDF5 file the grid may come from the file's dataset
  // shape instead (read_initial runs first, see build()).
  const bool from_file = c.initial.kind == InitialConfig::Kind::File;
  if (!n && !from_file) r.missing("grid", "missing section 'grid' (nx, ny, nz: nodes per axis, boundary nodes included)");
  r.only_keys(n, "grid", {"nx", "ny", "nz", "x", "y", "z"});
  const char* nn[3] = {"nx", "ny", "nz"};
  const char* an[3] = {"x", "y", "z"};
  c.given.grid = n.IsDefined() && !n.IsNull();
  // Which axes are flat is known once the file is read (settle_grid): the
  // readers below then record what they would check against the grid.
  c.grid_pending = from_file && !c.given.grid;
  for (int a = 0; a < 3 && c.given.grid; ++a) {
    const std::string key = std::string("grid.") + nn[a];
    const YAML::Node v = n[nn[a]];
    if (const YAML::Node m = n[an[a]]) {
      if (v)
        r.fail(m, std::string("grid.") + an[a],
               std::string("contradicts grid.") + nn[a] + ": both give the " + an[a] + " axis; give one of them");
      read_grid_axis(r, m, std::string("grid.") + an[a], c, a);
      continue;
    }
    if (!v)
      r.fail(n, key,
             std::string("missing; expected an integer >= 3 (or grid.") + an[a] +
                 ": {coordinates: [...]} or {n: N, stretch: {from: lo, ratio: 1.1}})");
    index_t& na = c.problem.n[a];
    na = r.integer(v, key);
    require(r, v, key, na >= 3 || na == 1,
            "an integer >= 3 (two boundary nodes and at least one interior node), or 1 (a flat axis: a 2D or 1D "
            "problem)");
    require(r, v, key, na <= kMaxGridExtent, "an integer <= " + std::to_string(kMaxGridExtent));
  }
}

void read_domain(const Reader& r, const YAML::Node& n, RunConfig& c) {
  if (!n) return;
  r.only_keys(n, "domain", {"lx", "ly", "lz", "origin"});
  const char* ln[3] = {"lx", "ly", "lz"};
  for (int a = 0; a < 3; ++a)
    if (const YAML::Node v = n[ln[a]]) {
      const std::string key = std::string("domain.") + ln[a];
      c.problem.length[a] = r.real(v, key);
      require(r, v, key, c.problem.length[a] > 0, "a length > 0 [m]");
      c.given.length[a] = true;
    }
  if (const YAML::Node o = n["origin"]) {
    if (!o.IsSequence() || o.size() != 3)
      r.fail(o, "domain.origin",
             "expected [x0, y0, z0] (three coordinates [m]), got " +
                 (o.IsSequence() ? std::to_string(o.size()) + " values" : describe(o)));
    for (int a = 0; a < 3; ++a) c.origin[a] = r.real(o[a], "domain.origin");
    c.given.origin = true;
  }
}

}  // namespace

TimeTable read_table(const Reader& r, const YAML::Node& n, const std::string& key) {
  if (!n.IsSequence() || n.size() == 0)
    r.fail(n, key, "expected a table [[t0, f0], [t1, f1], ...] (time [s], factor), got " + describe(n));
  TimeTable t;
  for (std::size_t k = 0; k < n.size(); ++k) {
    const YAML::Node e = n[k];
    const std::string ek = key + "[" + std::to_string(k) + "]";
    if (!e.IsSequence() || e.size() != 2)
      r.fail(e, ek, "expected a pair [t, f] (time [s], factor), got " +
                        (e.IsSequence() ? std::to_string(e.size()) + " values" : describe(e)));
    const double tk = r.real(e[0], ek), vk = r.real(e[1], ek);
    if (!t.t.empty() && !(tk > t.t.back()))
      r.fail(e[0], ek, "expected times that increase strictly, got t = " + describe(e[0]) + " after t = " +
                           describe(n[k - 1][0]));
    t.t.push_back(tk);
    t.v.push_back(vk);
  }
  return t;
}

namespace {

// ---- boundary ------------------------------------------------------------------

struct FaceSpec {
  Boundary kind = Boundary::Dirichlet;
  FaceData data;
};

/// emissivity and ambient of a radiating face (radiation: {...}, or the keys
/// of type: radiation): emissivity in (0, 1], an absolute ambient >= 0 K.
void read_radiation(const Reader& r, const YAML::Node& m, const std::string& key, FaceData& d) {
  if (!m["emissivity"]) r.fail(m, key + ".emissivity", "missing; expected the surface's emissivity, 0 < e <= 1");
  d.emissivity = r.real(m["emissivity"], key + ".emissivity");
  require(r, m["emissivity"], key + ".emissivity", d.emissivity > 0.0 && d.emissivity <= 1.0,
          "an emissivity 0 < e <= 1");
  if (!m["ambient"])
    r.fail(m, key + ".ambient", "missing; expected the temperature of the surroundings the face radiates to [K]");
  d.radiation_ambient = r.real(m["ambient"], key + ".ambient");
  require(r, m["ambient"], key + ".ambient", d.radiation_ambient >= 0.0,
          "an absolute temperature >= 0 K (radiation needs kelvin: 20 degC is 293.15 K)");
}

/// One face: a short form (dirichlet, neumann, insulated, periodic) or
/// {type: ..., and the keys of that type}.
FaceSpec read_face(const Reader& r, const YAML::Node& n, const std::string& key,
                   std::vector<std::pair<std::string, std::string>>& positions) {
  FaceSpec f;
  if (n.IsMap())
    for (const char* k : {"value", "flux", "h", "ambient", "table", "emissivity", "radiation"})
      if (n[k]) positions.emplace_back(key + "." + k, r.where(n[k], key + "." + k));
  const std::vector<std::pair<const char*, int>> types{{"dirichlet", 0},  {"neumann", 1}, {"insulated", 2},
                                                       {"convective", 3}, {"robin", 3},   {"periodic", 4},
                                                       {"radiation", 5}};
  const YAML::Node t = n.IsMap() ? n["type"] : n;
  if (n.IsMap() && !t)
    r.fail(n, key + ".type", "missing; expected dirichlet, neumann, insulated, convective, robin, radiation or periodic");
  const int type = r.choice(t, n.IsMap() ? key + ".type" : key, types);
  static const std::vector<const char*> allowed[6] = {{"type", "value", "table"},
                                                      {"type", "flux", "table", "radiation"},
                                                      {"type", "radiation"},
                                                      {"type", "h", "ambient", "table", "radiation"},
                                                      {"type"},
                                                      {"type", "emissivity", "ambient"}};
  if (!n.IsMap()) {
    if (type == 3)
      r.fail(n, key, "a convective face needs its data: expected {type: convective, h: W/(m^2 K), ambient: T}");
    if (type == 5)
      r.fail(n, key, "a radiating face needs its data: expected {type: radiation, emissivity: 0..1, ambient: T [K]}");
  } else {
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string k = it->first.Scalar();
      const auto& al = allowed[type];
      if (std::find_if(al.begin(), al.end(), [&](const char* x) { return k == x; }) != al.end()) continue;
      if (k == "value" || k == "flux" || k == "h" || k == "ambient" || k == "table" || k == "emissivity" ||
          k == "radiation") {
        std::string list;
        for (const char* x : al) list += (list.empty() ? "" : ", ") + std::string(x);
        r.fail(it->first, key + "." + k,
               "does not belong to a " + t.Scalar() + " face; expected one of: " + list);
      }
    }
    r.only_keys(n, key, allowed[type]);
  }
  switch (type) {
    case 0:
      f.kind = Boundary::Dirichlet;
      if (n.IsMap() && n["value"]) {
        f.data.value_from_initial = false;
        f.data.value = r.real(n["value"], key + ".value");
      }
      break;
    case 1:
      f.kind = Boundary::Neumann;
      if (n.IsMap() && n["flux"]) f.data.flux = r.real(n["flux"], key + ".flux");
      break;
    case 2: f.kind = Boundary::Neumann; break;
    case 3:
      f.kind = Boundary::Robin;
      if (!n["h"]) r.fail(n, key + ".h", "missing; expected a heat transfer coefficient >= 0 [W/(m^2 K)]");
      f.data.h = r.real(n["h"], key + ".h");
      require(r, n["h"], key + ".h", f.data.h >= 0, "a heat transfer coefficient >= 0 [W/(m^2 K)]");
      if (!n["ambient"]) r.fail(n, key + ".ambient", "missing; expected the ambient temperature u_inf");
      f.data.ambient = r.real(n["ambient"], key + ".ambient");
      break;
    case 5:
      f.kind = Boundary::Neumann;  // insulated, and radiating
      read_radiation(r, n, key, f.data);
      break;
    default: f.kind = Boundary::Periodic; break;
  }
  if (n.IsMap() && n["table"]) f.data.table = read_table(r, n["table"], key + ".table");
  if (n.IsMap() && n["radiation"]) {
    const YAML::Node m = n["radiation"];
    if (!m.IsMap())
      r.fail(m, key + ".radiation", "expected {emissivity: 0..1, ambient: T [K]}, got " + describe(m));
    r.only_keys(m, key + ".radiation", {"emissivity", "ambient"});
    read_radiation(r, m, key + ".radiation", f.data);
  }
  return f;
}

void read_boundary(const Reader& r, const YAML::Node& b, RunConfig& c) {
  HeatProblem& p = c.problem;
  if (!b.IsDefined() || b.IsNull()) return;
  const char* ax[3] = {"x", "y", "z"};
  const char* nn[3] = {"nx", "ny", "nz"};
  std::array<bool, 6> set{};
  std::array<YAML::Node, 6> node;
  std::array<std::string, 6> key;
  auto put = [&](int a, int side, const FaceSpec& f, const YAML::Node& n, const std::string& k) {
    (side ? p.hi : p.lo)[a] = f.kind;
    (side ? p.hi_data : p.lo_data)[a] = f.data;
    set[2 * a + side] = true;
    node[2 * a + side] = n;
    key[2 * a + side] = k;
    c.faces[2 * a + side] = FaceOrigin{k, r.where(n, k), k != "boundary" && k != "boundary.default", false};
  };
  if (!b.IsMap()) {  // one kind for all faces
    const FaceSpec f = read_face(r, b, "boundary", c.positions);
    for (int a = 0; a < 3; ++a)
      if (!p.flat(a))
        for (int side = 0; side < 2; ++side) put(a, side, f, b, "boundary");
  } else {
    r.only_keys(b, "boundary", {"x", "y", "z", "x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi", "default"});
    auto not_flat = [&](int a, const YAML::Node& n, const std::string& k) {
      if (p.flat(a))
        r.fail(n, k,
               std::string("the ") + ax[a] + " axis is flat (" + nn[a] + " = 1: a 2D or 1D problem) and has no faces; "
               "remove this key");
    };
    for (int a = 0; a < 3; ++a) {
      const std::string k = std::string("boundary.") + ax[a];
      const YAML::Node n = b[ax[a]];
      if (!n) continue;
      not_flat(a, n, k);
      if (n.IsMap() && !n["type"]) {
        r.only_keys(n, k, {"lo", "hi"});
        for (int side = 0; side < 2; ++side) {
          const char* s = side ? "hi" : "lo";
          if (!n[s])
            r.fail(n, k + "." + s, std::string("missing; name both faces of the axis (lo and hi), or use ") + ax[a] +
                                       "_lo / " + ax[a] + "_hi and boundary.default");
          put(a, side, read_face(r, n[s], k + "." + s, c.positions), n[s], k + "." + s);
        }
      } else {
        const FaceSpec f = read_face(r, n, k, c.positions);
        put(a, 0, f, n, k);
        put(a, 1, f, n, k);
      }
    }
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        const std::string face = std::string(ax[a]) + (side ? "_hi" : "_lo");
        const YAML::Node n = b[face];
        if (!n) continue;
        not_flat(a, n, "boundary." + face);
        if (set[2 * a + side]) {
          // Said twice: a --set override replaces what it conflicts with;
          // in the file itself it is an error.
          const bool face_set = r.where(n, "boundary." + face).rfind("--set ", 0) == 0;
          const bool axis_set = r.where(node[2 * a + side], key[2 * a + side]).rfind("--set ", 0) == 0;
          if (axis_set && !face_set) continue;
          if (!face_set)
            r.fail(n, "boundary." + face, "this face is also set by " + key[2 * a + side] + "; give each face once");
        }
        put(a, side, read_face(r, n, "boundary." + face, c.positions), n, "boundary." + face);
      }
    std::string missing;
    const YAML::Node d = b["default"];
    const FaceSpec def = d ? read_face(r, d, "boundary.default", c.positions) : FaceSpec{};
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        if (p.flat(a) || set[2 * a + side]) continue;
        if (d)
          put(a, side, def, d, "boundary.default");
        else if (c.grid_pending)  // an error unless the file's grid makes the axis flat (settle_grid)
          c.faces[2 * a + side] = FaceOrigin{"boundary", r.where(b, "boundary"), false, true};
        else
          missing += (missing.empty() ? "" : ", ") + std::string(ax[a]) + (side ? "_hi" : "_lo");
      }
    if (!missing.empty())
      r.fail(b, "boundary",
             "missing face " + missing + ": name every face (x, y, z, or x_lo ... z_hi), or give boundary.default");
  }
  // Periodic is a property of the axis: both faces or neither.
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a)) continue;
    const bool lo = p.lo[a] == Boundary::Periodic, hi = p.hi[a] == Boundary::Periodic;
    if (lo == hi) continue;
    const int q = 2 * a + (lo ? 0 : 1);
    r.fail(node[q], key[q],
           std::string("periodic applies to both faces of an axis: ") + ax[a] + "_" + (lo ? "lo" : "hi") +
               " is periodic but " + ax[a] + "_" + (lo ? "hi" : "lo") + " is " +
               boundary_name(lo ? p.hi[a] : p.lo[a]) + " (write " + ax[a] + ": periodic)");
  }
}

/// `solve: steady`, `solve: transient`, or `solve: {steady: {tolerance: ..,
/// max_iterations: ..}}` (read before the sections that depend on it).
void read_solve(const Reader& r, const YAML::Node& n, RunConfig& c) {
  if (!n) return;
  SolveConfig& s = c.solve;
  s.where = r.where(n, "solve");
  const char* expected = "transient, steady or {steady: {tolerance: .., max_iterations: ..}}";
  if (n.IsScalar()) {
    const std::string v = n.Scalar();
    if (v == "steady")
      s.steady = true;
    else if (v != "transient")
      r.fail(n, "solve", std::string("expected ") + expected + ", got " + describe(n));
    return;
  }
  r.only_keys(n, "solve", {"steady"});
  const YAML::Node st = n["steady"];
  if (!st) r.fail(n, "solve", std::string("expected ") + expected + ", got an empty mapping");
  if (!st.IsMap()) r.fail(st, "solve.steady", "expected {tolerance: .., max_iterations: ..} (or write solve: steady), got " + describe(st));
  r.only_keys(st, "solve.steady", {"tolerance", "max_iterations"});
  s.steady = true;
  if (const YAML::Node t = st["tolerance"]) {
    s.tolerance = r.real(t, "solve.steady.tolerance");
    require(r, t, "solve.steady.tolerance", s.tolerance > 0 && s.tolerance < 1,
            "a relative residual 0 < tolerance < 1 (e.g. 1e-10)");
  }
  if (const YAML::Node m = st["max_iterations"]) {
    s.max_iterations = r.integer(m, "solve.steady.max_iterations");
    require(r, m, "solve.steady.max_iterations", s.max_iterations >= 1, "an integer >= 1");
  }
}

void read_time(const Reader& r, const YAML::Node& t, RunConfig& c) {
  TimeRequest& q = c.time_request;
  if (c.solve.steady) {
    // A steady state has no time: a time: section beside solve: steady would
    // be read by nothing (and a user toggling the mode would not notice).
    if (t)
      r.fail(t, "time",
             "contradicts solve: steady (" + c.solve.where +
                 "): a steady state has no time step or end time; remove time:, or remove solve: steady to march in "
                 "time");
    q = TimeRequest{};
    q.dt = 1.0;  // never used: the steady solver chooses its own sweep parameters
    resolve_time(c);
    return;
  }
  if (!t) r.missing("time", "missing section 'time' (dt and either steps or t_end)");
  r.only_keys(t, "time", {"dt", "steps", "t_end", "start", "stop_rate"});
  if (const YAML::Node sr = t["stop_rate"]) {
    c.solve.stop_rate = r.real(sr, "time.stop_rate");
    require(r, sr, "time.stop_rate", c.solve.stop_rate > 0,
            "a rate > 0 [K/s]: the run stops once max|u^{n+1} - u^n| / dt falls below it");
  }
  if (!t["dt"]) r.fail(t, "time.dt", "missing; expected a time step > 0 [s]");
  q.dt = r.real(t["dt"], "time.dt");
  require(r, t["dt"], "time.dt", q.dt > 0, "a time step > 0 [s]");
  if (const YAML::Node s0 = t["start"]) c.t_start = r.real(s0, "time.start");
  c.axis = TimeAxis{};
  c.axis.t0 = c.t_start;
  if (t["steps"] && t["t_end"]) r.fail(t["t_end"], "time.t_end", "give either time.steps or time.t_end, not both");
  if (const YAML::Node s = t["steps"]) {
    q.steps = r.integer(s, "time.steps");
    require(r, s, "time.steps", q.steps >= 0, "an integer >= 0");
    q.where = r.where(s, "time.steps");
  } else if (const YAML::Node e = t["t_end"]) {
    q.by_t_end = true;
    q.t_end = r.real(e, "time.t_end");
    require(r, e, "time.t_end", q.t_end >= c.t_start,
            c.t_start == 0.0 ? std::string("a time >= 0 [s]") : "a time >= time.start = " + number_words(c.t_start) + " [s]");
    q.where = r.where(e, "time.t_end");
  } else {
    r.fail(t, "time", "missing time.steps or time.t_end");
  }
  resolve_time(c);
  // Every step's time must be a finite number (the files store it; the
  // output schedule divides it): check_derived, after the mesh ratio.
}

void read_scheme(const Reader& r, const YAML::Node& n, RunConfig& c) {
  if (!n) return;
  r.only_keys(n, "scheme", {"type", "theta", "nonlinear"});
  if (const YAML::Node ty = n["type"])
    c.problem.scheme = r.choice<SchemeType>(
        ty, "scheme.type",
        {{"auto", SchemeType::Auto}, {"douglas", SchemeType::Douglas}, {"strang", SchemeType::Strang}});
  if (const YAML::Node nl = n["nonlinear"]) {
    c.problem.nonlinear = r.choice<NonlinearStep>(
        nl, "scheme.nonlinear",
        {{"iterate", NonlinearStep::Iterate},
         {"predictor-corrector", NonlinearStep::PredictorCorrector},
         {"extrapolated", NonlinearStep::Extrapolated}});
    // (material and boundary are read before scheme: kSections)
    if (!c.material.temperature && !c.problem.radiates())
      r.fail(nl, "scheme.nonlinear",
             "only a run with temperature tables (material.materials) or a radiating face has a nonlinear step; "
             "remove scheme.nonlinear");
  }
  if (const YAML::Node th = n["theta"]) {
    c.problem.theta = r.real(th, "scheme.theta");
    require(r, th, "scheme.theta", c.problem.theta >= 0.5 && c.problem.theta <= 1.0,
            "0.5 <= theta <= 1 (below 1/2 neither scheme is unconditionally stable)");
  }
}

void read_precision(const Reader& r, const YAML::Node& n, RunConfig& c) {
  if (!n) return;
  c.precision = r.choice<Precision>(
      n, "precision", {{"float64", Precision::F64}, {"fp64", Precision::F64}, {"double", Precision::F64},
                       {"float32", Precision::F32}, {"fp32", Precision::F32}, {"float", Precision::F32}});
}

void read_backend(const Reader& r, const YAML::Node& n, RunConfig& c) {
  if (!n) return;
  c.backend = r.choice<Backend>(n, "backend", {{"cpu", Backend::Cpu}, {"cuda", Backend::Cuda}, {"auto", Backend::Auto}});
}

void read_initial(const Reader& r, const YAML::Node& n, RunConfig& c) {
  InitialConfig& ic = c.initial;
  if (!n.IsDefined() || n.IsNull()) return;
  if (n.IsScalar()) {
    const std::string s = r.text(n, "initial");
    if (s != "analytic")
      r.fail(n, "initial", "expected 'analytic', {value: T} or {file: ..., dataset: ...}, got " + describe(n));
    return;
  }
  if (n.IsMap() && n["value"]) {  // a uniform start
    r.only_keys(n, "initial", {"value"});
    ic.kind = InitialConfig::Kind::Uniform;
    ic.value = r.real(n["value"], "initial.value");
    return;
  }
  r.only_keys(n, "initial", {"type", "file", "dataset", "boundary_from_file", "value"});
  std::string type = n["file"] ? "file" : "analytic";
  if (n["type"]) {
    type = r.text(n["type"], "initial.type");
    if (type != "analytic" && type != "file") r.fail(n["type"], "initial.type", "expected analytic or file");
  }
  if (type == "file") {
    ic.kind = InitialConfig::Kind::File;
    if (!n["file"]) r.fail(n, "initial.file", "missing; expected the HDF5 file of the initial field");
    ic.file = r.text(n["file"], "initial.file");
    if (ic.file.empty()) r.fail(n["file"], "initial.file", "expected a file name, got an empty string");
    if (n["dataset"]) ic.dataset = r.text(n["dataset"], "initial.dataset");
    if (ic.dataset.empty()) r.fail(n["dataset"], "initial.dataset", "expected a dataset path such as /u");
    if (n["boundary_from_file"])
      ic.boundary_from_file = r.boolean(n["boundary_from_file"], "initial.boundary_from_file");
  }
}

/// output.fields: the fields of each output step, u always among them
/// (the output's steps are its /steps/NNNNNN/u datasets).
void read_output_fields(const Reader& r, const YAML::Node& f, OutputConfig& out) {
  const std::string key = "output.fields";
  if (!f.IsSequence()) r.fail(f, key, "expected a list such as [u, heat_flux], got " + describe(f));
  bool u = false;
  std::set<std::string> seen;
  for (std::size_t q = 0; q < f.size(); ++q) {
    const std::string k = key + "[" + std::to_string(q) + "]";
    const std::string name = r.choice<std::string>(f[q], k, {{"u", "u"}, {"heat_flux", "heat_flux"}});
    if (!seen.insert(name).second) r.fail(f[q], k, "'" + name + "' is listed twice");
    u = u || name == "u";
    out.heat_flux = out.heat_flux || name == "heat_flux";
  }
  if (!u) r.fail(f, key, "expected a list that includes u (every output step holds u), got " + describe(f));
}

void read_output(const Reader& r, const YAML::Node& o, RunConfig& c) {
  if (!o) return;
  OutputConfig& out = c.output;
  r.only_keys(o, "output", {"file", "every", "every_time", "initial", "final", "compression", "xdmf", "fields"});
  if (o["file"]) out.file = r.text(o["file"], "output.file");
  if (const YAML::Node e = o["every"]) {
    out.every_steps = r.integer(e, "output.every");
    require(r, e, "output.every", out.every_steps >= 0, "a number of steps >= 0");
  }
  if (const YAML::Node e = o["every_time"]) {
    out.every_time = r.real(e, "output.every_time");
    require(r, e, "output.every_time", out.every_time >= 0, "a simulated time >= 0 [s]");
  }
  if (o["initial"]) out.write_initial = r.boolean(o["initial"], "output.initial");
  if (o["final"]) out.write_final = r.boolean(o["final"], "output.final");
  if (const YAML::Node e = o["compression"]) {
    const index_t lvl = r.integer(e, "output.compression");
    require(r, e, "output.compression", lvl >= 0 && lvl <= 9, "a gzip level 0..9 (0 = off)");
    out.compression = static_cast<int>(lvl);
  }
  if (o["xdmf"]) out.xdmf = r.boolean(o["xdmf"], "output.xdmf");
  if (const YAML::Node f = o["fields"]) read_output_fields(r, f, out);
  // Output steps asked for, and no file named: output.file defaults to ""
  // (no output), and the run wrote nothing without a word. An explicit
  // `file: ""` says "no output" (--set output.file="" turns a case's
  // output off) and is taken at its word.
  if (!o["file"]) {
    if (out.every_steps > 0)
      r.fail(o["every"], "output.every",
             "asks for output steps, but no output.file is given: set output.file (\"\" for no output), or remove "
             "output.every");
    if (out.every_time > 0)
      r.fail(o["every_time"], "output.every_time",
             "asks for output steps, but no output.file is given: set output.file (\"\" for no output), or remove "
             "output.every_time");
    if (out.heat_flux)
      r.fail(o["fields"], "output.fields",
             "asks for the heat flux, but no output.file is given: set output.file, or remove heat_flux");
  }
}

void read_checkpoint(const Reader& r, const YAML::Node& k, RunConfig& c) {
  if (!k) return;
  CheckpointConfig& ck = c.checkpoint;
  r.only_keys(k, "checkpoint", {"file", "every", "every_seconds"});
  if (k["file"]) ck.file = r.text(k["file"], "checkpoint.file");
  if (const YAML::Node e = k["every"]) {
    ck.every_steps = r.integer(e, "checkpoint.every");
    require(r, e, "checkpoint.every", ck.every_steps >= 0, "a number of steps >= 0");
  }
  if (const YAML::Node e = k["every_seconds"]) {
    ck.every_seconds = r.real(e, "checkpoint.every_seconds");
    require(r, e, "checkpoint.every_seconds", ck.every_seconds >= 0, "wall-clock seconds >= 0");
  }
}

void read_diagnostics(const Reader& r, const YAML::Node& n, RunConfig& c) {
  if (!n) return;
  DiagnosticsConfig& d = c.diagnostics;
  r.only_keys(n, "diagnostics", {"heat_flows", "csv"});
  if (n["heat_flows"]) d.heat_flows = r.boolean(n["heat_flows"], "diagnostics.heat_flows");
  if (const YAML::Node e = n["csv"]) {
    // true / false, or the file's name.
    std::string v = e.IsScalar() ? e.Scalar() : std::string();
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (v == "true" || v == "false" || v == "yes" || v == "no" || v == "on" || v == "off") {
      d.csv = r.boolean(e, "diagnostics.csv");
    } else {
      d.csv_file = r.text(e, "diagnostics.csv");
      if (d.csv_file.empty()) r.fail(e, "diagnostics.csv", "expected true, false or a file name, got an empty string");
      d.csv = true;
    }
    if (d.csv && !d.heat_flows)
      r.fail(e, "diagnostics.csv", "writes the heat flows, which are off: set diagnostics.heat_flows: true");
  }
}

void read_log(const Reader& r, const YAML::Node& l, RunConfig& c) {
  if (!l) return;
  r.only_keys(l, "log", {"every"});
  if (const YAML::Node e = l["every"]) {
    c.log_every = r.integer(e, "log.every");
    require(r, e, "log.every", c.log_every >= 0, "a number of steps >= 0");
  }
}

void read_parallel(const Reader& r, const YAML::Node& par, RunConfig& c) {
  if (!par) return;
  r.only_keys(par, "parallel", {"grid"});
  const YAML::Node g = par["grid"];
  if (!g) return;
  std::array<int, 3>& pg = c.parallel.grid;
  c.parallel.where = r.where(g, "parallel.grid");
  if (g.IsScalar() && g.Scalar() == "auto") return;
  if (!g.IsSequence() || g.size() != 3)
    r.fail(g, "parallel.grid",
           "expected [1, Py, Pz] (ranks along x, y, z) or auto, got " +
               (g.IsSequence() ? std::to_string(g.size()) + " values" : describe(g)));
  for (int a = 0; a < 3; ++a) {
    const index_t v = r.integer(g[a], "parallel.grid");
    require(r, g[a], "parallel.grid", v >= 1 && v <= 1000000, "a number of ranks >= 1");
    pg[a] = static_cast<int>(v);
  }
  if (pg[0] != 1)
    r.fail(g[0], "parallel.grid",
           "the x axis is never split (x lines stay on one rank): expected [1, Py, Pz], got [" +
               std::to_string(pg[0]) + ", " + std::to_string(pg[1]) + ", " + std::to_string(pg[2]) + "]");
}

/// A probe's name becomes an HDF5 dataset (/probes/<name>) and a CSV column:
/// letters, digits, '_', '-', '.', at most 64 of them, not "." or "..".
bool probe_name_ok(const std::string& s) {
  if (s.empty() || s.size() > 64 || s == "." || s == "..") return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char ch) {
    return std::isalnum(ch) || ch == '_' || ch == '-' || ch == '.';
  });
}

/// probes: {points: {name: [x, y, z], ...}, every: N, csv: true | FILE}.
/// Whether a point lies in the box is checked once the grid is final (an
/// initial file may give it): io::locate_probes, with the `where` kept here.
void read_probes(const Reader& r, const YAML::Node& n, RunConfig& c) {
  if (!n) return;
  ProbesConfig& pc = c.probes;
  r.only_keys(n, "probes", {"points", "every", "csv"});
  const YAML::Node pts = n["points"];
  if (!pts) r.fail(n, "probes.points", "missing: expected probes: {points: {name: [x, y, z], ...}}");
  if (!pts.IsMap() || pts.size() == 0)
    r.fail(pts, "probes.points", "expected a mapping of named points such as {junction: [0.01, 0.02, 0.003]}, got " +
                                     describe(pts));
  for (auto it = pts.begin(); it != pts.end(); ++it) {
    const std::string name = it->first.Scalar();
    const std::string key = "probes.points." + printable(name, kQuoteMax);
    if (!probe_name_ok(name))
      r.fail(it->first, key,
             "expected a probe name of letters, digits, '_', '-' and '.' (at most 64; it names a dataset and a CSV "
             "column), got '" + printable(name, kQuoteMax) + "'");
    const YAML::Node v = it->second;
    if (!v.IsSequence() || v.size() != 3)
      r.fail(v, key,
             "expected the point's coordinates [x, y, z] in m, got " +
                 (v.IsSequence() ? std::to_string(v.size()) + " values" : describe(v)));
    ProbePoint p;
    p.name = name;
    p.where = r.where(it->first, key);
    for (int a = 0; a < 3; ++a) p.x[a] = r.real(v[a], key + "[" + std::to_string(a) + "]");
    pc.points.push_back(p);
  }
  if (const YAML::Node e = n["every"]) {
    pc.every = r.integer(e, "probes.every");
    require(r, e, "probes.every", pc.every >= 1, "a number of steps >= 1");
  }
  if (const YAML::Node e = n["csv"]) {
    std::string s = e.IsScalar() ? e.Scalar() : std::string();
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
    // A quoted scalar ("yes") is a file name; a plain true / false a switch.
    const bool word = s == "true" || s == "yes" || s == "on" || s == "false" || s == "no" || s == "off";
    if (word && e.Tag() != "!") {
      pc.csv = r.boolean(e, "probes.csv");
    } else {
      pc.csv_file = r.text(e, "probes.csv");
      pc.csv = true;
      if (pc.csv_file.empty()) r.fail(e, "probes.csv", "expected true, false or a file name, got ''");
      if (!printable_utf8(pc.csv_file))
        r.fail(e, "probes.csv", "expected a file name of printable UTF-8 characters, got '" +
                                    printable(pc.csv_file, kQuoteMax) + "'");
    }
  }
}

/// The top-level sections, in the order the "unknown key" message lists
/// them. Adding a section: a reader above, a row here, its struct in
/// config.hpp and its lines in emit_resolved (config_emit.cpp).
struct Section {
  const char* key;
  void (*read)(const Reader&, const YAML::Node&, RunConfig&);
};
constexpr Section kSections[] = {
    {"grid", read_grid},
    {"domain", read_domain},
    {"diffusivity", read_diffusivity},
    {"material", read_material},
    {"source", read_source},
    {"boundary", read_boundary},
    {"time", read_time},
    {"scheme", read_scheme},
    {"precision", read_precision},
    {"backend", read_backend},
    {"initial", read_initial},
    {"output", read_output},
    {"checkpoint", read_checkpoint},
    {"log", read_log},
    {"parallel", read_parallel},
    {"solve", read_solve},
    {"probes", read_probes},
    {"diagnostics", read_diagnostics},
};
/// Read before the others: sections whose values others depend on (with an
/// initial HDF5 file the grid may come from the file).
constexpr const char* kReadFirst[] = {"initial", "solve"};

}  // namespace

void read_sections(const Reader& r, const YAML::Node& root, RunConfig& c) {
  std::vector<const char*> keys;
  for (const Section& s : kSections) keys.push_back(s.key);
  r.only_keys(root, "", keys);
  r.no_empty_values(root, "");
  auto first = [](const char* key) {
    return std::any_of(std::begin(kReadFirst), std::end(kReadFirst),
                       [&](const char* f) { return std::strcmp(f, key) == 0; });
  };
  for (const bool pass_first : {true, false})
    for (const Section& s : kSections)
      if (first(s.key) == pass_first) s.read(r, root[s.key], c);
}

void settle_coordinates(const Reader& r, const YAML::Node& root, RunConfig& c) {
  HeatProblem& p = c.problem;
  const char* an[3] = {"x", "y", "z"};
  const char* ln[3] = {"lx", "ly", "lz"};
  for (int a = 0; a < 3; ++a) {
    AxisGridInput& g = c.grid_axes[static_cast<std::size_t>(a)];
    if (g.kind == AxisGridInput::Kind::Count) continue;
    const std::string key = std::string("grid.") + an[a];
    const YAML::Node at = root["grid"][an[a]];
    std::vector<double> x;
    if (g.kind == AxisGridInput::Kind::Coordinates) {
      if (c.given.length[a])
        r.fail(root["domain"][ln[a]], std::string("domain.") + ln[a],
               "contradicts " + key + ".coordinates, which give the " + an[a] +
                   " extent: leave domain." + ln[a] + " out");
      if (c.given.origin && c.origin[a] != g.values.front()) {
        std::ostringstream s;
        s << "contradicts " << key << ".coordinates: the " << an[a] << " origin is " << number_words(c.origin[a])
          << " but the first coordinate is " << number_words(g.values.front())
          << "; expected the same value (or leave it out)";
        r.fail(root["domain"]["origin"], "domain.origin", s.str());
      }
      if (p.periodic(a) != g.has_period)
        r.fail(at, key + ".period",
               p.periodic(a) ? "missing; a periodic axis with coordinates needs its period [m] (node 0's periodic "
                               "image lies at x0 + period, which gives the wrap's gap)"
                             : "is for a periodic axis; this axis has faces (the boundary is not periodic)");
      c.origin[a] = g.values.front();
      x = g.values;
      if (g.has_period) x.push_back(x.front() + g.period);
    } else {
      if (p.periodic(a))
        r.fail(at, key + ".stretch", "is for an axis with faces; on a periodic axis give coordinates and a period");
      // Gaps d_k = r^k from the clustering face (both: from each face to the
      // middle), scaled to the length; positions summed from the origin.
      const index_t gaps = p.n[a] - 1;
      std::vector<double> d(static_cast<std::size_t>(gaps));
      for (index_t k = 0; k < gaps; ++k) {
        const index_t from_lo = k, from_hi = gaps - 1 - k;
        const index_t e = g.from == "lo" ? from_lo : g.from == "hi" ? from_hi : std::min(from_lo, from_hi);
        d[static_cast<std::size_t>(k)] = std::pow(g.ratio, static_cast<double>(e));
      }
      double sum = 0.0;
      for (double v : d) sum += v;
      x.assign(static_cast<std::size_t>(p.n[a]), c.origin[a]);
      double acc = 0.0;
      for (index_t k = 0; k < gaps; ++k) {
        acc += d[static_cast<std::size_t>(k)];
        x[static_cast<std::size_t>(k) + 1] = c.origin[a] + p.length[a] * (acc / sum);
      }
      x.back() = c.origin[a] + p.length[a];
    }
    // Uniform to round-off: the uniform axis, bit for bit (its h = L / gaps).
    const std::size_t m = x.size() - 1;
    const double span = x.back() - x.front(), mean = span / static_cast<double>(m);
    double worst = 0.0, ratio = 1.0;
    std::size_t ratio_at = 0;
    for (std::size_t i = 0; i < m; ++i) {
      const double gi = x[i + 1] - x[i];
      worst = std::max(worst, std::fabs(gi - mean));
      if (i > 0) {
        const double q = std::max(gi / (x[i] - x[i - 1]), (x[i] - x[i - 1]) / gi);
        if (q > ratio) ratio = q, ratio_at = i;
      }
    }
    p.length[a] = span;
    if (worst <= 1e-12 * mean) {
      p.coordinates[a].clear();
      continue;
    }
    p.coordinates[a] = x;
    if (ratio > kGapRatioWarning) {
      std::ostringstream s;
      s.precision(3);
      s << key << ": neighbouring gaps differ by a factor " << ratio << " at node " << ratio_at
        << " (more than " << kGapRatioWarning
        << "): the rows there are first order in the local truncation error; a smoother stretching is more "
           "accurate";
      c.warnings.push_back(s.str());
    }
  }
}

}  // namespace adi::io::config_reader
