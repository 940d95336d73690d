// YAML → RunConfig. Every value is checked for type and range here; messages
// name file:line:column (yaml-cpp marks are 0-based, we print 1-based), the
// key path, what was expected and what was found.

#include <adi/io/config.hpp>

#include "embedded_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace adi::io {

namespace {

struct Override {
  std::string path;  // dotted key path
  std::string text;  // the whole "path=value" argument
};

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

/// How a value is quoted in messages: long values are cut (a message is one
/// line, not a dump of the input).
constexpr std::size_t kQuoteMax = 60;

std::string describe(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a sequence";
  return "'" + printable(n.Scalar(), kQuoteMax) + "'";
}

class Reader {
 public:
  Reader(std::string name, std::vector<Override> ov, YAML::Node root)
      : name_(std::move(name)), overrides_(std::move(ov)), root_(std::move(root)) {}

  std::string where(const YAML::Node& n, const std::string& key) const {
    for (const auto& o : overrides_)
      if (o.path == key || key.rfind(o.path + ".", 0) == 0) return "--set " + o.text;
    std::ostringstream s;
    s << name_;
    if (n.IsDefined() && n.Mark().line >= 0) s << ":" << n.Mark().line + 1 << ":" << n.Mark().column + 1;
    return s.str();
  }

  [[noreturn]] void fail(const YAML::Node& n, const std::string& key, const std::string& what) const {
    throw ConfigError(where(n, key), key, what, __FILE__, __LINE__);
  }

  /// A required section (or top-level key) is absent: the error points at
  /// the document.
  [[noreturn]] void missing(const std::string& key, const std::string& what) const { fail(root_, key, what); }

  /// Rejects keys of `map` not in `allowed`, suggesting the closest one.
  void only_keys(const YAML::Node& map, const std::string& path, const std::vector<const char*>& allowed) const {
    if (!map.IsDefined() || map.IsNull()) return;
    if (!map.IsMap()) fail(map, path, "expected a mapping, got " + describe(map));
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string k = it->first.Scalar();
      bool ok = false;
      std::string best;
      std::size_t best_d = 1000;
      std::string list;
      for (const char* a : allowed) {
        if (k == a) ok = true;
        const std::size_t d = edit_distance(k, a);
        if (d < best_d) best_d = d, best = a;
        list += (list.empty() ? "" : ", ") + std::string(a);
      }
      if (!ok) {
        std::string msg = "unknown key '" + printable(k, kQuoteMax) + "'";
        if (best_d <= 2) msg += " (did you mean '" + best + "'?)";
        msg += "; expected one of: " + list;
        fail(it->first, path.empty() ? printable(k, kQuoteMax) : path + "." + printable(k, kQuoteMax), msg);
      }
    }
  }

  /// A key written with no value (`grid:`) is an error, not the defaults:
  /// the user meant to say something there (issue #14: `grid:` ran 3x3x3).
  void no_empty_values(const YAML::Node& map, const std::string& path) const {
    if (!map.IsDefined() || !map.IsMap()) return;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string key = (path.empty() ? "" : path + ".") + printable(it->first.Scalar(), kQuoteMax);
      if (it->second.IsNull())
        fail(it->first, key, "has no value (an empty key is an error, not a request for the defaults)");
      no_empty_values(it->second, key);
    }
  }

  double real(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected a number, got " + describe(n));
    const std::string& s = n.Scalar();
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE)
      fail(n, key, "expected a number, got " + describe(n));
    if (!std::isfinite(v)) fail(n, key, "expected a finite number, got " + describe(n));
    return v;
  }

  index_t integer(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected an integer, got " + describe(n));
    const std::string& s = n.Scalar();
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE)
      fail(n, key, "expected an integer, got " + describe(n));
    return static_cast<index_t>(v);
  }

  bool boolean(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected true or false, got " + describe(n));
    std::string s = n.Scalar();
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
    fail(n, key, "expected true or false, got " + describe(n));
  }

  std::string text(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected a string, got " + describe(n));
    return n.Scalar();
  }

  template <class E>
  E choice(const YAML::Node& n, const std::string& key, const std::vector<std::pair<const char*, E>>& options) const {
    std::string list;
    if (n.IsScalar()) {
      std::string s = n.Scalar();
      std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
      for (const auto& o : options)
        if (s == o.first) return o.second;
    }
    for (const auto& o : options) list += (list.empty() ? "" : ", ") + std::string(o.first);
    fail(n, key, "expected one of " + list + ", got " + describe(n));
  }

  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::vector<Override> overrides_;
  YAML::Node root_;
};

// Range checks in one line each at the call site.
void require(const Reader& r, const YAML::Node& n, const std::string& key, bool ok, const std::string& expected) {
  if (!ok) r.fail(n, key, "expected " + expected + ", got " + describe(n));
}

YAML::Node parse_yaml(const std::string& text, const std::string& name) {
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    std::ostringstream s;
    s << name << ":" << e.mark.line + 1 << ":" << e.mark.column + 1;
    throw ConfigError(s.str(), "", "YAML syntax error: " + e.msg, __FILE__, __LINE__);
  }
}

std::vector<Override> apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides) {
  std::vector<Override> out;
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError("--set " + o, "", "expected key.path=value", __FILE__, __LINE__);
    const std::string path = o.substr(0, eq);
    YAML::Node value;
    try {
      value = YAML::Load(o.substr(eq + 1));
    } catch (const YAML::ParserException& e) {
      throw ConfigError("--set " + o, path, "value is not valid YAML: " + e.msg, __FILE__, __LINE__);
    }
    std::vector<std::string> keys;
    std::stringstream ss(path);
    for (std::string k; std::getline(ss, k, '.');) {
      if (k.empty()) throw ConfigError("--set " + o, path, "empty key in path", __FILE__, __LINE__);
      keys.push_back(k);
    }
    // Walk down, creating maps; a scalar in the way (e.g. "boundary: dirichlet"
    // overridden by boundary.x=...) is an error rather than silently replaced.
    std::vector<YAML::Node> chain{root};
    for (std::size_t q = 0; q + 1 < keys.size(); ++q) {
      YAML::Node cur = chain.back();
      if (!cur.IsMap() && !cur.IsNull())
        throw ConfigError("--set " + o, path, "cannot set a key inside " + describe(cur), __FILE__, __LINE__);
      YAML::Node next = cur[keys[q]];
      if (!next.IsDefined() || next.IsNull()) {
        cur[keys[q]] = YAML::Node(YAML::NodeType::Map);
        next = cur[keys[q]];
      }
      chain.push_back(next);
    }
    YAML::Node parent = chain.back();
    if (!parent.IsMap() && !parent.IsNull())
      throw ConfigError("--set " + o, path, "cannot set a key inside " + describe(parent), __FILE__, __LINE__);
    parent[keys.back()] = value;
    out.push_back({path, o});
  }
  return out;
}

// ---- One reader per section ------------------------------------------------
//
// Each reads its section's node `n` (undefined when the section is absent)
// into the config `c`; a required section's reader reports its absence
// itself (Reader::missing). build() calls them in the order of kSections.

void read_grid(const Reader& r, const YAML::Node& n, RunConfig& c) {
  // With an initial HDF5 file the grid may come from the file's dataset
  // shape instead (read_initial runs first, see build()).
  const bool from_file = c.initial.kind == InitialConfig::Kind::File;
  if (!n && !from_file) r.missing("grid", "missing section 'grid' (nx, ny, nz: nodes per axis, boundary nodes included)");
  r.only_keys(n, "grid", {"nx", "ny", "nz"});
  const char* nn[3] = {"nx", "ny", "nz"};
  c.given.grid = n.IsDefined() && !n.IsNull();
  for (int a = 0; a < 3 && c.given.grid; ++a) {
    const std::string key = std::string("grid.") + nn[a];
    const YAML::Node v = n[nn[a]];
    if (!v) r.fail(n, key, std::string("missing; expected an integer >= 3"));
    index_t& na = c.problem.n[a];
    na = r.integer(v, key);
    require(r, v, key, na >= 3, "an integer >= 3 (two boundary nodes and at least one interior node)");
    require(r, v, key, na <= (index_t(1) << 24), "an integer <= 16777216");
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

void read_diffusivity(const Reader& r, const YAML::Node& n, RunConfig& c) {
  if (!n) return;
  std::array<double, 3>& alpha = c.problem.alpha;
  if (n.IsScalar()) {
    const double v = r.real(n, "diffusivity");
    require(r, n, "diffusivity", v >= 0, "a diffusivity >= 0 [m^2/s]");
    alpha.fill(v);
    return;
  }
  r.only_keys(n, "diffusivity", {"x", "y", "z"});
  const char* an[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a)
    if (const YAML::Node v = n[an[a]]) {
      const std::string key = std::string("diffusivity.") + an[a];
      alpha[a] = r.real(v, key);
      require(r, v, key, alpha[a] >= 0, "a diffusivity >= 0 [m^2/s]");
    }
}

void read_boundary(const Reader& r, const YAML::Node& b, RunConfig& c) {
  HeatProblem& p = c.problem;
  const std::vector<std::pair<const char*, Boundary>> kinds{{"dirichlet", Boundary::Dirichlet},
                                                            {"neumann", Boundary::Neumann}};
  if (!b.IsDefined() || b.IsNull()) return;
  if (b.IsScalar()) {  // one kind for all six faces
    const Boundary k = r.choice(b, "boundary", kinds);
    p.lo.fill(k);
    p.hi.fill(k);
    return;
  }
  r.only_keys(b, "boundary", {"x", "y", "z", "x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"});
  const char* ax[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    const std::string key = std::string("boundary.") + ax[a];
    if (const YAML::Node n = b[ax[a]]) {
      if (n.IsMap()) {
        r.only_keys(n, key, {"lo", "hi"});
        if (n["lo"]) p.lo[a] = r.choice(n["lo"], key + ".lo", kinds);
        if (n["hi"]) p.hi[a] = r.choice(n["hi"], key + ".hi", kinds);
      } else {
        p.lo[a] = p.hi[a] = r.choice(n, key, kinds);
      }
    }
    for (int side = 0; side < 2; ++side) {
      const std::string face = std::string(ax[a]) + (side ? "_hi" : "_lo");
      if (const YAML::Node n = b[face]) (side ? p.hi[a] : p.lo[a]) = r.choice(n, "boundary." + face, kinds);
    }
  }
}

void read_time(const Reader& r, const YAML::Node& t, RunConfig& c) {
  double& dt = c.problem.dt;
  if (!t) r.missing("time", "missing section 'time' (dt and either steps or t_end)");
  r.only_keys(t, "time", {"dt", "steps", "t_end"});
  if (!t["dt"]) r.fail(t, "time.dt", "missing; expected a time step > 0 [s]");
  dt = r.real(t["dt"], "time.dt");
  require(r, t["dt"], "time.dt", dt > 0, "a time step > 0 [s]");
  if (t["steps"] && t["t_end"]) r.fail(t["t_end"], "time.t_end", "give either time.steps or time.t_end, not both");
  if (const YAML::Node s = t["steps"]) {
    c.steps = r.integer(s, "time.steps");
    require(r, s, "time.steps", c.steps >= 0, "an integer >= 0");
  } else if (const YAML::Node e = t["t_end"]) {
    const double te = r.real(e, "time.t_end");
    require(r, e, "time.t_end", te >= 0, "a time >= 0 [s]");
    // The run ends exactly at t_end: the number of steps is rounded up and dt
    // shrunk to fit, never stretched.
    const double q = te / dt;
    require(r, e, "time.t_end", q < 1e12, "fewer than 1e12 steps of dt");
    // The tolerance absorbs the rounding of te / dt at exact multiples, and
    // is relative: a t_end below dt (q < 1) still takes one (shorter) step.
    c.steps = static_cast<index_t>(std::ceil(q * (1.0 - 1e-12)));
    if (te > 0 && c.steps == 0) c.steps = 1;
    if (c.steps > 0) dt = te / static_cast<double>(c.steps);
  } else {
    r.fail(t, "time", "missing time.steps or time.t_end");
  }
  // Every step's time t = step * dt must be a finite number (the files store
  // it; the output schedule divides it).
  const double t_end = static_cast<double>(c.steps) * dt;
  if (!std::isfinite(t_end) || t_end > 1e300)
    r.fail(t["steps"] ? t["steps"] : t["dt"], t["steps"] ? "time.steps" : "time.dt",
           "time.steps x time.dt = " + std::to_string(c.steps) + " x " + printable(t["dt"].Scalar(), kQuoteMax) +
               " overflows: the end time must be a finite number of seconds");
}

void read_scheme(const Reader& r, const YAML::Node& n, RunConfig& c) {
  if (!n) return;
  r.only_keys(n, "scheme", {"theta"});
  if (const YAML::Node th = n["theta"]) {
    c.problem.theta = r.real(th, "scheme.theta");
    require(r, th, "scheme.theta", c.problem.theta >= 0.5 && c.problem.theta <= 1.0,
            "0.5 <= theta <= 1 (below 1/2 the 3D Douglas scheme is not unconditionally stable)");
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
    if (s != "analytic") r.fail(n, "initial", "expected 'analytic' or {file: ..., dataset: ...}, got " + describe(n));
    return;
  }
  r.only_keys(n, "initial", {"type", "file", "dataset", "boundary_from_file"});
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

void read_output(const Reader& r, const YAML::Node& o, RunConfig& c) {
  if (!o) return;
  OutputConfig& out = c.output;
  r.only_keys(o, "output", {"file", "every", "every_time", "initial", "final", "compression", "xdmf"});
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

/// The top-level sections, in the order the "unknown key" message lists
/// them. Adding a section: a reader above, a row here, its struct in
/// config.hpp and its lines in emit_resolved_impl (to_yaml).
struct Section {
  const char* key;
  void (*read)(const Reader&, const YAML::Node&, RunConfig&);
};
constexpr Section kSections[] = {
    {"grid", read_grid},
    {"domain", read_domain},
    {"diffusivity", read_diffusivity},
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
};
/// Read before the others: sections whose values others depend on (with an
/// initial HDF5 file the grid may come from the file).
constexpr const char* kReadFirst[] = {"initial"};

RunConfig build(const YAML::Node& root, const Reader& r) {
  RunConfig c;
  c.source = r.name();
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

  c.t_end = static_cast<double>(c.steps) * c.problem.dt;
  try {
    c.problem.validate();  // belt and braces: the checks above should have caught everything
  } catch (const Error& e) {
    r.fail(root, "", e.what());
  }
  return c;
}

std::string emit_resolved_impl(const RunConfig& c) {
  const HeatProblem& p = c.problem;
  YAML::Emitter e;
  e.SetDoublePrecision(17);
  e << YAML::BeginMap;
  e << YAML::Key << "grid" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "nx" << YAML::Value
    << p.n[0] << YAML::Key << "ny" << YAML::Value << p.n[1] << YAML::Key << "nz" << YAML::Value << p.n[2]
    << YAML::EndMap;
  e << YAML::Key << "domain" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "lx" << YAML::Value
    << p.length[0] << YAML::Key << "ly" << YAML::Value << p.length[1] << YAML::Key << "lz" << YAML::Value
    << p.length[2] << YAML::Key << "origin" << YAML::Value << YAML::Flow << YAML::BeginSeq << c.origin[0]
    << c.origin[1] << c.origin[2] << YAML::EndSeq << YAML::EndMap;
  e << YAML::Key << "diffusivity" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "x"
    << YAML::Value << p.alpha[0] << YAML::Key << "y" << YAML::Value << p.alpha[1] << YAML::Key << "z"
    << YAML::Value << p.alpha[2] << YAML::EndMap;
  e << YAML::Key << "boundary" << YAML::Value << YAML::Flow << YAML::BeginMap;
  const char* ax[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a)
    e << YAML::Key << std::string(ax[a]) + "_lo" << YAML::Value << boundary_name(p.lo[a]) << YAML::Key
      << std::string(ax[a]) + "_hi" << YAML::Value << boundary_name(p.hi[a]);
  e << YAML::EndMap;
  e << YAML::Key << "time" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "dt" << YAML::Value
    << p.dt << YAML::Key << "steps" << YAML::Value << c.steps << YAML::EndMap;
  e << YAML::Key << "scheme" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "theta"
    << YAML::Value << p.theta << YAML::EndMap;
  e << YAML::Key << "precision" << YAML::Value << precision_name(c.precision);
  e << YAML::Key << "backend" << YAML::Value << backend_name(c.backend);
  if (c.initial.kind == InitialConfig::Kind::Analytic) {
    e << YAML::Key << "initial" << YAML::Value << "analytic";
  } else {
    e << YAML::Key << "initial" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "file"
      << YAML::Value << c.initial.file << YAML::Key << "dataset" << YAML::Value << c.initial.dataset << YAML::Key
      << "boundary_from_file" << YAML::Value << c.initial.boundary_from_file << YAML::EndMap;
  }
  e << YAML::Key << "output" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "file" << YAML::Value
    << c.output.file << YAML::Key << "every" << YAML::Value << c.output.every_steps << YAML::Key << "every_time"
    << YAML::Value << c.output.every_time << YAML::Key << "initial" << YAML::Value << c.output.write_initial
    << YAML::Key << "final" << YAML::Value << c.output.write_final << YAML::Key << "compression" << YAML::Value
    << c.output.compression << YAML::Key << "xdmf" << YAML::Value << c.output.xdmf << YAML::EndMap;
  e << YAML::Key << "checkpoint" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "file"
    << YAML::Value << c.checkpoint.file << YAML::Key << "every" << YAML::Value << c.checkpoint.every_steps
    << YAML::Key << "every_seconds" << YAML::Value << c.checkpoint.every_seconds << YAML::EndMap;
  e << YAML::Key << "log" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "every" << YAML::Value
    << c.log_every << YAML::EndMap;
  // Only when set: the automatic grid depends on the rank count of each run,
  // and configs of serial runs stay as they were.
  if (!c.parallel.automatic())
    e << YAML::Key << "parallel" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "grid"
      << YAML::Value << YAML::Flow << YAML::BeginSeq << c.parallel.grid[0] << c.parallel.grid[1]
      << c.parallel.grid[2] << YAML::EndSeq << YAML::EndMap;
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

}  // namespace

RunConfig parse_config(const std::string& text, const std::string& name, const std::vector<std::string>& overrides) {
  YAML::Node root = parse_yaml(text, name);
  if (root.IsDefined() && !root.IsNull() && !root.IsMap())
    throw ConfigError(name + ":1:1", "", "expected a mapping of sections (grid, time, ...), got " + describe(root),
                      __FILE__, __LINE__);
  if (!root.IsDefined() || root.IsNull())
    throw ConfigError(name, "", "the config is empty; expected a mapping of sections (grid, time, ...)", __FILE__,
                      __LINE__);
  const auto ov = apply_overrides(root, overrides);
  const Reader r(name, ov, root);
  RunConfig c = build(root, r);
  c.resolved_yaml = emit_resolved_impl(c);
  return c;
}

RunConfig load_config(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "", "cannot open config file (" + std::string(std::strerror(errno)) + ")",
                             __FILE__, __LINE__);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw ConfigError(path, "", "cannot read config file", __FILE__, __LINE__);
  RunConfig c = parse_config(ss.str(), path, overrides);
  const auto slash = path.find_last_of('/');
  c.base_dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  return c;
}

std::string to_yaml(const RunConfig& c) { return emit_resolved_impl(c); }

const std::string& default_config_text() {
  static const std::string text(kEmbeddedDefaultConfig);
  return text;
}

}  // namespace adi::io
