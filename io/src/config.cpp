// YAML → RunConfig. Every value is checked for type and range here; messages
// name file:line:column (yaml-cpp marks are 0-based, we print 1-based), the
// key path, what was expected and what was found.

#include <adi/io/config.hpp>

#include "embedded_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cctype>
#include <fstream>
#include <sys/stat.h>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace adi::io {

namespace {

struct Override {
  std::string path;  // dotted key path
  std::string text;  // the whole "path=value" argument
  bool erase = false;  // "path=null": deletes the key
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

/// "--set path=value" as messages name an override (a long value cut).
std::string set_where(const std::string& text) { return "--set " + printable(text, 2 * kQuoteMax); }

std::string describe(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a sequence";
  return "'" + printable(n.Scalar(), kQuoteMax) + "'";
}

/// Whether key path `key` is `path` or inside it: "source.table[2]" and
/// "source.table.x" are inside "source.table" (a --set of that path made them).
bool inside(const std::string& key, const std::string& path) {
  if (key.compare(0, path.size(), path) != 0) return false;
  return key.size() == path.size() || key[path.size()] == '.' || key[path.size()] == '[';
}

class Reader {
 public:
  Reader(std::string name, std::vector<Override> ov, YAML::Node root)
      : name_(std::move(name)), overrides_(std::move(ov)), root_(std::move(root)) {}

  std::string where(const YAML::Node& n, const std::string& key) const {
    for (const auto& o : overrides_)
      if (inside(key, o.path)) return set_where(o.text);
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
    if (s.empty() || end != s.c_str() + s.size())
      fail(n, key, "expected a number, got " + describe(n));
    // A number, but not one a double holds as written: past ~1.8e308 (strtod
    // gives inf), or so close to 0 that it is subnormal or 0 (1e-320, 1e-400).
    if (errno == ERANGE)
      fail(n, key, "expected a number a double holds (magnitude 2.2e-308 to 1.8e308, or 0), got " + describe(n));
    if (!std::isfinite(v)) fail(n, key, "expected a finite number, got " + describe(n));
    return v;
  }

  index_t integer(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected an integer, got " + describe(n));
    const std::string& s = n.Scalar();
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || end != s.c_str() + s.size())
      fail(n, key, "expected an integer, got " + describe(n));
    if (errno == ERANGE)  // an integer, but past what the key's own range check can even read
      fail(n, key, "expected an integer of magnitude at most 9223372036854775807, got " + describe(n));
    // YAML 1.2 (yaml-cpp, this reader) reads 010 as ten, YAML 1.1 (PyYAML,
    // and so many a script that writes or reads configs) as octal eight:
    // not a number to guess at.
    const std::size_t digits = s[0] == '+' || s[0] == '-' ? 1 : 0;
    if (s.size() > digits + 1 && s[digits] == '0')
      fail(n, key, "expected a decimal integer without leading zeros (YAML 1.1 readers take 010 as octal 8), got " +
                       describe(n));
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

/// A number as the shortest text that reads back to the same double
/// (0.0002, not 0.00020000000000000001 as 17 significant digits print it):
/// what users read in --dry-run, the log and the files' provenance.
std::string num(double v) {
  char buf[40];
  // %g with the fewest digits that read back exactly (%.17g always does).
  int digits = 1;
  for (; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  // %g turns to exponent form once the exponent reaches the digits printed
  // (20 -> "2e+01", 30000 -> "3e+04"): below 1e16 a plain number is as short
  // to read and reads back the same, so print enough digits for that.
  if (std::strchr(buf, 'e') && std::isfinite(v) && std::fabs(v) >= 1 && std::fabs(v) < 1e16) {
    const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(v))));
    std::snprintf(buf, sizeof buf, "%.*g", std::max(digits, exponent + 1), v);
  }
  return buf;
}

/// scheme.type auto made definite: the Strang step when K or c is a field in
/// 3D (the axis operators do not commute; split.hpp), the Douglas step
/// otherwise; decided where the fields are known by name and the grid is
/// settled, so that the resolved config (outputs, checkpoints, --dry-run)
/// records the scheme that runs.
void resolve_scheme(RunConfig& c) {
  if (c.problem.scheme != SchemeType::Auto) return;
  bool fields = c.material.capacity.given();
  for (int a = 0; a < 3; ++a) fields = fields || c.material.conductivity[a].given();
  c.problem.scheme = HeatProblem::auto_scheme(fields, c.problem.n);
}

// Range checks in one line each at the call site.
void require(const Reader& r, const YAML::Node& n, const std::string& key, bool ok, const std::string& expected) {
  if (!ok) r.fail(n, key, "expected " + expected + ", got " + describe(n));
}

/// "name:line:column" of a parsed node (1-based).
std::string position(const std::string& name, const YAML::Mark& m) {
  std::ostringstream s;
  s << name << ":" << m.line + 1 << ":" << m.column + 1;
  return s.str();
}

/// YAML allows a key once per mapping, but yaml-cpp keeps every entry of a
/// repeated key and its lookups find the first: `dt: 0.1` ... `dt: 0.2` would
/// run with 0.1 while the reader of the file sees 0.2 last (PyYAML keeps the
/// last). So every mapping of a parsed document is walked, keys compared, and
/// a repeat is an error naming both lines. `where` makes the position of a
/// node: a file:line:column, or the --set argument with its line in the value.
void reject_duplicate_keys(const YAML::Node& n, const std::string& path,
                           const std::function<std::string(const YAML::Mark&)>& where,
                           std::set<std::pair<int, int>>& seen) {
  if (!n.IsMap() && !n.IsSequence()) return;
  // An alias shares its anchor's node (and its mark): walk each node once, so
  // nested aliases (a "billion laughs" document) cost no more than the text.
  if (!seen.insert({n.Mark().line, n.Mark().column}).second) return;
  if (n.IsSequence()) {
    for (std::size_t i = 0; i < n.size(); ++i) reject_duplicate_keys(n[i], path, where, seen);
    return;
  }
  std::map<std::string, YAML::Mark> first;
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string k = it->first.IsScalar() ? it->first.Scalar() : std::string();
    const std::string key = path.empty() ? printable(k, kQuoteMax) : path + "." + printable(k, kQuoteMax);
    if (it->first.IsScalar()) {
      const auto [at, fresh] = first.emplace(k, it->first.Mark());
      if (!fresh)
        throw ConfigError(where(it->first.Mark()), key,
                          "duplicate key '" + printable(k, kQuoteMax) + "': first given at line " +
                              std::to_string(at->second.line + 1) +
                              ", again here (YAML allows a key once per mapping; remove one)",
                          __FILE__, __LINE__);
    }
    reject_duplicate_keys(it->second, key, where, seen);
  }
}

/// yaml-cpp builds an alias inside the node its anchor names (`grid: &a {nx:
/// *a}`) as a node that contains itself: every walk over the config would
/// never end (adi3d died of a stack overflow, from a file, a --set value and
/// --dry-run alike). Refused, naming the key where the alias sits and the
/// anchor's position. An alias shares its anchor's node and mark, so nodes
/// are told apart by their marks; a node explored once is not walked again,
/// so nested aliases (a "billion laughs" document) cost no more than the
/// text. Other aliases (a shared `&defaults` mapping) stay allowed.
void reject_recursive_aliases(const YAML::Node& n, const std::string& path,
                              const std::function<std::string(const YAML::Mark&)>& where,
                              std::map<std::pair<int, int>, int>& state) {
  if (!n.IsMap() && !n.IsSequence()) return;
  const YAML::Mark m = n.Mark();
  const std::pair<int, int> id{m.line, m.column};
  if (m.line >= 0) {
    const auto it = state.find(id);
    if (it != state.end()) {
      if (it->second == 1)
        throw ConfigError(where(m), path.empty() ? "(the document)" : path,
                          "a recursive YAML alias: the node anchored at line " + std::to_string(m.line + 1) +
                              ", column " + std::to_string(m.column + 1) +
                              " contains an alias to itself, which makes an endless config; write the values out "
                              "(an alias may only name a node outside itself)",
                          __FILE__, __LINE__);
      return;  // explored already
    }
    state[id] = 1;
  }
  if (n.IsSequence()) {
    for (std::size_t i = 0; i < n.size(); ++i)
      reject_recursive_aliases(n[i], path + "[" + std::to_string(i) + "]", where, state);
  } else {
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string k = it->first.IsScalar() ? printable(it->first.Scalar(), kQuoteMax) : std::string("?");
      const std::string key = path.empty() ? k : path + "." + k;
      reject_recursive_aliases(it->first, key, where, state);
      reject_recursive_aliases(it->second, key, where, state);
    }
  }
  if (m.line >= 0) state[id] = 2;
}

/// The one document of `text`. YAML::Load reads the first document and drops
/// the rest without a word; YAML::LoadAll would see them, but yaml-cpp's
/// LoadAll never returns on some inputs (a lone "," value: found by
/// fuzz_config). So the text after the first document is looked at as text:
/// a line that starts with "---" or "..." (then a blank or the line's end)
/// is always a document marker (YAML forbids them inside scalars), and after
/// the first document has ended, any line that is not blank or a comment is
/// a second document: an error at its position (`where`).
YAML::Node load_one_document(const std::string& text, const std::function<std::string(const YAML::Mark&)>& where,
                             const std::string& key) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(where(e.mark), key, (key.empty() ? "YAML syntax error: " : "value is not valid YAML: ") + e.msg,
                      __FILE__, __LINE__);
  }
  {
    std::map<std::pair<int, int>, int> state;
    reject_recursive_aliases(root, key, where, state);
  }
  auto content_from = [](const std::string& line, std::size_t from) {
    const std::size_t q = line.find_first_not_of(" \t\r", from);
    return q == std::string::npos || line[q] == '#' ? std::string::npos : q;
  };
  auto marker = [](const std::string& line, const char* m) {
    return line.compare(0, 3, m) == 0 && (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
  };
  // started: the first document has begun (a "---" or content); ended: it
  // is over (a "..." or a second "---").
  bool started = false, ended = false;
  std::size_t pos = 0;
  for (int lineno = 0; pos <= text.size(); ++lineno) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    const bool start = marker(line, "---"), end = marker(line, "...");
    std::size_t at = content_from(line, start || end ? 3 : 0);
    if (end && at == std::string::npos) {
      ended = ended || started;
      continue;
    }
    if (start) {
      ended = ended || started;
      started = true;
    }
    if (at == std::string::npos) continue;
    if (!started && !start && line[0] == '%') continue;  // a directive (%YAML 1.2) before the first "---"
    if (ended) {
      YAML::Mark m;
      m.line = lineno;
      m.column = static_cast<int>(at);
      throw ConfigError(where(m), key,
                        "a second YAML document (after '---' or '...'): a config is one document, and adi3d would "
                        "read only the first; remove the others or split the file",
                        __FILE__, __LINE__);
    }
    started = true;
  }
  return root;
}

YAML::Node parse_yaml(const std::string& text, const std::string& name) {
  YAML::Node root = load_one_document(text, [&](const YAML::Mark& m) { return position(name, m); }, "");
  std::set<std::pair<int, int>> seen;
  reject_duplicate_keys(root, "", [&](const YAML::Mark& m) { return position(name, m); }, seen);
  return root;
}

/// Keys that exclude each other: an override of one replaces the other where
/// the file gave it, so `--set time.t_end=2` works on a config that says
/// `steps:` (and extends a restarted run); both overridden is an error.
constexpr std::pair<const char*, const char*> kReplaces[] = {
    {"time.steps", "time.t_end"},
    {"time.t_end", "time.steps"},
};

std::vector<Override> apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides,
                                      const std::string& name) {
  std::vector<Override> out;
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError(set_where(o), "", "expected key.path=value", __FILE__, __LINE__);
    const std::string path = o.substr(0, eq);
    YAML::Node value = load_one_document(o.substr(eq + 1), [&](const YAML::Mark&) { return set_where(o); }, path);
    {
      // The value is a document of its own (often one line: say where in it).
      std::set<std::pair<int, int>> seen;
      reject_duplicate_keys(
          value, path,
          [&](const YAML::Mark& m) {
            return set_where(o) + " (value line " + std::to_string(m.line + 1) + ", column " +
                   std::to_string(m.column + 1) + ")";
          },
          seen);
    }
    std::vector<std::string> keys;
    std::stringstream ss(path);
    for (std::string k; std::getline(ss, k, '.');) {
      if (k.empty()) throw ConfigError(set_where(o), path, "empty key in path", __FILE__, __LINE__);
      keys.push_back(k);
    }
    // `key=null` (or `key=`) deletes the key: its default applies again. No
    // key takes null as a value, so nothing else could be meant.
    const bool erase = !value.IsDefined() || value.IsNull();
    // On one command line a key is given once, like in the file: a second
    // value (or one inside a mapping set as a whole, or time.steps beside
    // time.t_end) contradicts the first, and which one is meant is the
    // user's call, not "the last wins". Overrides still replace the file's
    // values (and time.steps the file's time.t_end).
    for (const Override& e : out) {
      std::string why;
      if (e.path == path) why = "given twice on the command line";
      else if (path.rfind(e.path + ".", 0) == 0 || e.path.rfind(path + ".", 0) == 0)
        why = "overlaps another override on the command line";
      for (const auto& [key, other] : kReplaces)
        if (path == key && e.path == other && !e.erase && !erase)
          why = std::string("contradicts another override: give either ") + key + " or " + other + ", not both";
      if (!why.empty())
        throw ConfigError(set_where(o), path, why + " (" + set_where(e.text) + "); give it once", __FILE__,
                          __LINE__);
    }
    // Walk down, creating maps; a scalar in the way (e.g. "diffusivity: 1"
    // overridden by diffusivity.x=...) is an error rather than silently
    // replaced: which values the other axes should keep is the user's call.
    std::vector<YAML::Node> chain{root};
    std::string walked;
    auto scalar_in_the_way = [&](const YAML::Node& cur) {
      std::string msg = "cannot set a key inside " + (walked.empty() ? std::string("the config") : walked) +
                        ", which is " + describe(cur);
      // Where that value came from: an earlier override, or the file.
      std::string from;
      for (const auto& e : out)
        if (e.path == walked || walked.rfind(e.path + ".", 0) == 0) from = set_where(e.text);
      if (from.empty() && cur.Mark().line >= 0) from = position(name, cur.Mark());
      if (!from.empty()) msg += " (" + from + ")";
      msg += "; set " + (walked.empty() ? std::string("it") : walked) +
             " as a whole instead, e.g. --set '" + walked + "={...}' naming every key it needs";
      throw ConfigError(set_where(o), path, msg, __FILE__, __LINE__);
    };
    for (std::size_t q = 0; q + 1 < keys.size(); ++q) {
      YAML::Node cur = chain.back();
      if (!cur.IsMap() && !cur.IsNull()) scalar_in_the_way(cur);
      YAML::Node next = cur[keys[q]];
      if (!next.IsDefined() || next.IsNull()) {
        if (erase)
          throw ConfigError(set_where(o), path, "nothing to delete: the config has no " + path, __FILE__,
                            __LINE__);
        cur[keys[q]] = YAML::Node(YAML::NodeType::Map);
        next = cur[keys[q]];
      }
      walked += (walked.empty() ? "" : ".") + keys[q];
      chain.push_back(next);
    }
    YAML::Node parent = chain.back();
    if (!parent.IsMap() && !parent.IsNull()) scalar_in_the_way(parent);
    if (erase) {
      if (!parent.IsMap() || !parent[keys.back()])
        throw ConfigError(set_where(o), path, "nothing to delete: the config has no " + path, __FILE__, __LINE__);
      parent.remove(keys.back());
      out.push_back({path, o, true});
      continue;
    }
    parent[keys.back()] = value;
    for (const auto& [key, other] : kReplaces) {
      if (path != key) continue;
      const std::string other_leaf = std::string(other).substr(std::string(other).rfind('.') + 1);
      if (parent[other_leaf]) parent.remove(other_leaf);
    }
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
  // Which axes are flat is known once the file is read (settle_grid): the
  // readers below then record what they would check against the grid.
  c.grid_pending = from_file && !c.given.grid;
  for (int a = 0; a < 3 && c.given.grid; ++a) {
    const std::string key = std::string("grid.") + nn[a];
    const YAML::Node v = n[nn[a]];
    if (!v) r.fail(n, key, std::string("missing; expected an integer >= 3"));
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

// ---- values that are a number or a field, tables, per-axis maps -------------

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

/// `[[t0, f0], [t1, f1], ...]`: a piecewise-linear factor f(t), times strictly increasing.
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

const char* kConductivityExpected = "a conductivity > 0 [W/(m K)]";

void read_material(const Reader& r, const YAML::Node& n, RunConfig& c) {
  if (!n) return;
  r.only_keys(n, "material", {"conductivity", "heat_capacity"});
  MaterialConfig& m = c.material;
  m.given = true;
  if (!n.IsMap()) r.fail(n, "material", "expected a mapping {conductivity: K, heat_capacity: c}, got " + describe(n));
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
    read_number_or_field(r, h, "material.heat_capacity", c.problem.capacity, m.capacity, true,
                         "a volumetric heat capacity > 0 [J/(m^3 K)]");
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

// ---- boundary ------------------------------------------------------------------

struct FaceSpec {
  Boundary kind = Boundary::Dirichlet;
  FaceData data;
};

/// One face: a short form (dirichlet, neumann, insulated, periodic) or
/// {type: ..., and the keys of that type}.
FaceSpec read_face(const Reader& r, const YAML::Node& n, const std::string& key,
                   std::vector<std::pair<std::string, std::string>>& positions) {
  FaceSpec f;
  if (n.IsMap())
    for (const char* k : {"value", "flux", "h", "ambient", "table"})
      if (n[k]) positions.emplace_back(key + "." + k, r.where(n[k], key + "." + k));
  const std::vector<std::pair<const char*, int>> types{{"dirichlet", 0}, {"neumann", 1},   {"insulated", 2},
                                                       {"convective", 3}, {"robin", 3},    {"periodic", 4}};
  const YAML::Node t = n.IsMap() ? n["type"] : n;
  if (n.IsMap() && !t) r.fail(n, key + ".type", "missing; expected dirichlet, neumann, insulated, convective, robin or periodic");
  const int type = r.choice(t, n.IsMap() ? key + ".type" : key, types);
  static const std::vector<const char*> allowed[5] = {{"type", "value", "table"},
                                                      {"type", "flux", "table"},
                                                      {"type"},
                                                      {"type", "h", "ambient", "table"},
                                                      {"type"}};
  if (!n.IsMap()) {
    if (type == 3)
      r.fail(n, key, "a convective face needs its data: expected {type: convective, h: W/(m^2 K), ambient: T}");
  } else {
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string k = it->first.Scalar();
      const auto& al = allowed[type];
      if (std::find_if(al.begin(), al.end(), [&](const char* x) { return k == x; }) != al.end()) continue;
      if (k == "value" || k == "flux" || k == "h" || k == "ambient" || k == "table") {
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
    default: f.kind = Boundary::Periodic; break;
  }
  if (n.IsMap() && n["table"]) f.data.table = read_table(r, n["table"], key + ".table");
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
  r.only_keys(n, "scheme", {"type", "theta"});
  if (const YAML::Node ty = n["type"])
    c.problem.scheme = r.choice<SchemeType>(
        ty, "scheme.type",
        {{"auto", SchemeType::Auto}, {"douglas", SchemeType::Douglas}, {"strang", SchemeType::Strang}});
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

/// Values each key allows can still combine into ones no step survives: a
/// huge diffusivity times dt over a tiny spacing squared overflows to inf,
/// and the solver would only report a non-finite pivot (exit 5) far from the
/// cause. Checked here, naming the keys that make the value.
/// Well-formed UTF-8 without control characters.
bool printable_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x20 || b == 0x7f) return false;
    const int len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 0;
    if (len == 0 || i + static_cast<std::size_t>(len) > s.size()) return false;
    for (int k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]) >> 6) != 0x2) return false;
    i += static_cast<std::size_t>(len);
  }
  return true;
}

void check_derived(const Reader& r, const YAML::Node& root, const RunConfig& c) {
  const HeatProblem& p = c.problem;
  const char* ax = "xyz";
  const YAML::Node time = root["time"];
  const YAML::Node at = time.IsDefined() && time.IsMap() && time["dt"] ? time["dt"] : time;
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a)) continue;
    const double h = p.spacing(a);
    const double lambda = p.mesh_ratio(a);
    if (std::isfinite(lambda) && h > 0) continue;
    const std::string A(1, ax[a]);
    std::ostringstream s;
    s.precision(6);
    s << "the mesh ratio alpha dt / h^2 along " << A << " is " << lambda << " (alpha = " << p.alpha[a]
      << " from diffusivity, dt = " << p.dt << " from time.dt, h = domain.l" << A << " / (grid.n" << A
      << " - 1) = " << h << "); expected a finite number (a smaller dt or diffusivity, or a coarser grid)";
    // Blame an override among the keys that make the value, if one is
    // (the message then names the --set, not a line of the file).
    std::string key = "time.dt";
    for (const std::string& k : {std::string("time.dt"), std::string("diffusivity"), "domain.l" + A, "grid.n" + A})
      if (r.where(YAML::Node(), k).rfind("--set ", 0) == 0) {
        key = k;
        break;
      }
    r.fail(at, key, s.str());
  }
  // A file name must be printable UTF-8: the resolved config (written into
  // every output and checkpoint, and read back by a restart) is YAML, which
  // cannot carry other bytes unchanged (tests/fuzz found a name that read
  // back as a different one).
  std::vector<std::pair<std::string, const std::string*>> named = {
      {"output.file", &c.output.file}, {"checkpoint.file", &c.checkpoint.file}, {"initial.file", &c.initial.file}};
  for (const FieldRef* f : {&c.material.conductivity[0], &c.material.conductivity[1], &c.material.conductivity[2],
                            &c.material.capacity, &c.material.source})
    if (f->given()) named.push_back({f->key, &f->file});
  for (const auto& [key, name] : named) {
    if (printable_utf8(*name)) continue;
    const std::string section = key.substr(0, key.find('.'));
    r.fail(root[section] ? root[section] : root, key,
           "expected a file name of printable UTF-8 characters, got '" + printable(*name, kQuoteMax) + "'");
  }
  // File names the system cannot hold (a component over NAME_MAX = 255
  // bytes, a path over PATH_MAX = 4096) fail deep in a file call otherwise.
  const std::pair<const char*, const std::string*> files[] = {
      {"output.file", &c.output.file}, {"checkpoint.file", &c.checkpoint.file}, {"initial.file", &c.initial.file}};
  for (const auto& [key, name] : files) {
    std::size_t longest = 0, start = 0;
    for (std::size_t q = 0; q <= name->size(); ++q)
      if (q == name->size() || (*name)[q] == '/') longest = std::max(longest, q - start), start = q + 1;
    if (longest <= 255 && name->size() < 4096) continue;
    const std::string k(key);
    const std::string section = k.substr(0, k.find('.'));
    const YAML::Node sec = root[section];
    const YAML::Node at_key = sec.IsMap() && sec["file"] ? sec["file"] : sec;
    r.fail(at_key, k,
           "expected a path of at most 4095 bytes whose names are at most 255 bytes each, got " +
               std::to_string(name->size()) + " bytes ('" + printable(*name, kQuoteMax) + "')");
  }
  // The .xmf names each dataset as "<file name>:/steps/.../u", and XDMF
  // readers (ParaView's) split that at the first colon: a colon in the
  // output's name makes a sidecar that points at a file that is not there.
  if (c.output.xdmf) {
    const std::string& f = c.output.file;
    const std::string base = f.substr(f.find_last_of('/') == std::string::npos ? 0 : f.find_last_of('/') + 1);
    if (base.find(':') != std::string::npos) {
      const YAML::Node o = root["output"];
      r.fail(o.IsMap() && o["file"] ? o["file"] : o, "output.file",
             "expected a file name without ':' (the .xmf sidecar names datasets as <file>:/steps/..., and ParaView "
             "splits that at the first ':'), got '" + printable(f, kQuoteMax) +
                 "'; choose another name, or set output.xdmf: false");
    }
  }
  if (!std::isfinite(c.t_end) || c.t_end > 1e300) {
    std::ostringstream s;
    s << "time.steps x time.dt = " << c.steps << " x " << p.dt << " is not a finite time; expected fewer steps or a smaller dt";
    r.fail(at, "time.steps", s.str());
  }
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

/// Where probes go, checked once output.file is known (after every section).
void check_probes_destination(const Reader& r, const YAML::Node& root, const RunConfig& c) {
  const ProbesConfig& pc = c.probes;
  if (!pc.any()) return;
  const YAML::Node n = root["probes"];
  if (pc.csv && pc.csv_file.empty() && c.output.file.empty())
    r.fail(n["csv"], "probes.csv",
           "csv: true names the CSV after output.file (run.h5 -> run.probes.csv), and there is no output.file: "
           "give the CSV a file name (csv: probes.csv)");
  if (!pc.csv && c.output.file.empty())
    r.fail(n, "probes",
           "probes are recorded into output.file (/probes/<name>) or a CSV, and neither is set: set output.file, or "
           "probes.csv: FILE");
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

/// solve: steady: what a steady solve has no use for is refused, not
/// ignored (a section read by nothing would look as if it mattered).
void check_steady(const Reader& r, const YAML::Node& root, RunConfig& c) {
  const std::string why = "contradicts solve: steady (" + c.solve.where + "): ";
  if (const YAML::Node n = root["scheme"])
    r.fail(n, "scheme", why + "a steady solve has no time scheme (its sweeps are its own, docs/USER_GUIDE.md "
                              "\"Steady states\"); remove scheme:");
  if (const YAML::Node n = root["checkpoint"])
    r.fail(n, "checkpoint", why + "a steady solve writes no checkpoints (it is not restarted); remove checkpoint:");
  if (const YAML::Node o = root["output"]; o.IsDefined() && o.IsMap())
    for (const char* k : {"every", "every_time", "initial", "final"})
      if (const YAML::Node n = o[k])
        r.fail(n, std::string("output.") + k,
               why + "a steady solve writes one field, the steady state (step 0); remove output." + k);
  const YAML::Node in = root["initial"];
  if (!in) {
    // The start changes the number of sweeps, never the answer.
    c.initial.kind = InitialConfig::Kind::Uniform;
    c.initial.value = 0.0;
  } else if (c.initial.kind == InitialConfig::Kind::Analytic) {
    r.fail(in, "initial",
           why + "the analytic mode is a transient's start; expected initial: {value: T} or {file: .., dataset: ..} "
                 "(the start of the iteration: it changes the number of sweeps, not the steady state), or no "
                 "initial: (0)");
  }
  if (c.precision == Precision::F32 && c.solve.tolerance < 1e-5) {
    const YAML::Node s = root["solve"];
    const YAML::Node t = s.IsMap() && s["steady"].IsMap() && s["steady"]["tolerance"] ? s["steady"]["tolerance"]
                                                                                     : root["precision"];
    r.fail(t, s.IsMap() && s["steady"].IsMap() && s["steady"]["tolerance"] ? "solve.steady.tolerance" : "precision",
           "float32 cannot reach a relative residual of " + number_words(c.solve.tolerance) +
               " (its round-off is about 1e-7 of the field); expected precision: float64, or "
               "solve.steady.tolerance >= 1e-5");
  }
}

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

  // diffusivity is K / c with c = 1: beside a material it would say K twice.
  if (const YAML::Node m = root["material"]) {
    if (root["diffusivity"] && m.IsMap() && (m["conductivity"] || m["heat_capacity"]))
      r.fail(root["diffusivity"], "diffusivity",
             std::string("contradicts material.") + (m["conductivity"] ? "conductivity" : "heat_capacity") +
                 ": diffusivity is K / c with c = 1; give either diffusivity or material {conductivity, "
                 "heat_capacity}");
  }
  // scheme.type auto (resolve_scheme; a grid taken from the initial file
  // is settled later: settle_grid).
  if (!c.grid_pending) resolve_scheme(c);
  if (const YAML::Node n = root["material"]) {
    // Inside `material:` the values are SI: a forgotten property has no
    // meaningful default (c = 1 J/(m^3 K) made steel diffuse about 3.6
    // million times too fast). `diffusivity:` is the form whose c is 1.
    if (!n["conductivity"])
      r.fail(n, "material.conductivity",
             "missing; expected the conductivity K [W/(m K)] (a number, {x: .., y: .., z: ..} or a field {file: .., "
             "dataset: ..}); for a diffusivity alpha [m^2/s] write diffusivity: alpha instead of material:");
    if (!n["heat_capacity"])
      r.fail(n, "material.heat_capacity",
             "missing; expected the volumetric heat capacity c = rho c_p [J/(m^3 K)] (a number or a field {file: .., "
             "dataset: ..}): there is no default for it (for a diffusivity alpha [m^2/s] with c = 1 write diffusivity: "
             "alpha instead of material:)");
  }
  if (c.solve.steady) check_steady(r, root, c);
  // The analytic mode is the eigenmode of the constant-coefficient problem
  // with Dirichlet / insulated faces: its errors mean nothing elsewhere.
  if (c.initial.kind == InitialConfig::Kind::Analytic && (!c.problem.classic_problem() || c.material.any_field())) {
    const YAML::Node in = root["initial"];
    r.fail(in.IsDefined() && !in.IsNull() ? in : root, "initial",
           std::string(in.IsDefined() && !in.IsNull() ? "" : "analytic (the default) ") +
               "is the analytic solution of the constant-coefficient problem with Dirichlet or insulated faces and "
               "no source; this case has none: expected initial: {value: T} or {file: ..., dataset: ...}");
  }
  check_derived(r, root, c);
  if (!c.grid_pending) check_face_data(c);
  check_probes_destination(r, root, c);
  try {
    c.problem.validate();  // belt and braces: the checks above should have caught everything
  } catch (const Error& e) {
    r.fail(root, "", e.what());
  }
  return c;
}

void emit_field(YAML::Emitter& e, const FieldRef& f) {
  e << YAML::Flow << YAML::BeginMap << YAML::Key << "file" << YAML::Value << f.file << YAML::Key << "dataset"
    << YAML::Value << f.dataset << YAML::EndMap;
}

void emit_table(YAML::Emitter& e, const TimeTable& t) {
  e << YAML::Flow << YAML::BeginSeq;
  for (std::size_t k = 0; k < t.t.size(); ++k) e << YAML::Flow << YAML::BeginSeq << num(t.t[k]) << num(t.v[k]) << YAML::EndSeq;
  e << YAML::EndSeq;
}

/// The short forms where they say everything (so that the resolved configs
/// of runs without the new face data stay as they were), else the long form.
void emit_face(YAML::Emitter& e, Boundary b, const FaceData& d) {
  if (b == Boundary::Periodic) {
    e << "periodic";
    return;
  }
  if (b == Boundary::Dirichlet && d.value_from_initial && d.table.empty()) {
    e << "dirichlet";
    return;
  }
  if (b == Boundary::Neumann && d.flux == 0.0 && d.table.empty()) {
    e << "neumann";
    return;
  }
  e << YAML::Flow << YAML::BeginMap << YAML::Key << "type" << YAML::Value;
  if (b == Boundary::Dirichlet) {
    e << "dirichlet";
    if (!d.value_from_initial) e << YAML::Key << "value" << YAML::Value << num(d.value);
  } else if (b == Boundary::Neumann) {
    e << "neumann" << YAML::Key << "flux" << YAML::Value << num(d.flux);
  } else {
    e << "convective" << YAML::Key << "h" << YAML::Value << num(d.h) << YAML::Key << "ambient" << YAML::Value << num(d.ambient);
  }
  if (!d.table.empty()) {
    e << YAML::Key << "table" << YAML::Value;
    emit_table(e, d.table);
  }
  e << YAML::EndMap;
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
    << num(p.length[0]) << YAML::Key << "ly" << YAML::Value << num(p.length[1]) << YAML::Key << "lz" << YAML::Value
    << num(p.length[2]) << YAML::Key << "origin" << YAML::Value << YAML::Flow << YAML::BeginSeq << num(c.origin[0])
    << num(c.origin[1]) << num(c.origin[2]) << YAML::EndSeq << YAML::EndMap;
  if (c.material.given) {
    const MaterialConfig& m = c.material;
    e << YAML::Key << "material" << YAML::Value << YAML::Flow << YAML::BeginMap;
    e << YAML::Key << "conductivity" << YAML::Value;
    if (m.isotropic_field) {
      emit_field(e, m.conductivity[0]);
    } else {
      e << YAML::Flow << YAML::BeginMap;
      for (int a = 0; a < 3; ++a) {
        e << YAML::Key << std::string(1, "xyz"[a]) << YAML::Value;
        if (m.conductivity[a].given())
          emit_field(e, m.conductivity[a]);
        else
          e << num(p.alpha[a]);
      }
      e << YAML::EndMap;
    }
    e << YAML::Key << "heat_capacity" << YAML::Value;
    if (m.capacity.given())
      emit_field(e, m.capacity);
    else
      e << num(p.capacity);
    e << YAML::EndMap;
  } else {
    e << YAML::Key << "diffusivity" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "x"
      << YAML::Value << num(p.alpha[0]) << YAML::Key << "y" << YAML::Value << num(p.alpha[1]) << YAML::Key << "z"
      << YAML::Value << num(p.alpha[2]) << YAML::EndMap;
  }
  // Only when there is one: the resolved configs of the other runs stay as they were.
  if (p.source != 0.0 || c.material.source.given() || !p.source_table.empty()) {
    e << YAML::Key << "source" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "power_density"
      << YAML::Value;
    if (c.material.source.given())
      emit_field(e, c.material.source);
    else
      e << num(p.source);
    if (!p.source_table.empty()) {
      e << YAML::Key << "table" << YAML::Value;
      emit_table(e, p.source_table);
    }
    e << YAML::EndMap;
  }
  e << YAML::Key << "boundary" << YAML::Value << YAML::Flow << YAML::BeginMap;
  const char* ax[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a)) continue;  // a flat axis has no faces (and naming one is an error)
    for (int side = 0; side < 2; ++side) {
      e << YAML::Key << std::string(ax[a]) + (side ? "_hi" : "_lo") << YAML::Value;
      emit_face(e, side ? p.hi[a] : p.lo[a], side ? p.hi_data[a] : p.lo_data[a]);
    }
  }
  e << YAML::EndMap;
  const bool steady = c.solve.steady;
  if (steady) {
    e << YAML::Key << "solve" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "steady" << YAML::Value
      << YAML::Flow << YAML::BeginMap << YAML::Key << "tolerance" << YAML::Value << num(c.solve.tolerance)
      << YAML::Key << "max_iterations" << YAML::Value << c.solve.max_iterations << YAML::EndMap << YAML::EndMap;
  } else {
    e << YAML::Key << "time" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "dt" << YAML::Value
      << num(p.dt) << YAML::Key << "steps" << YAML::Value << c.steps;
    // Only when set: the resolved configs of the other runs stay as they were.
    if (c.t_start != 0.0) e << YAML::Key << "start" << YAML::Value << number_words(c.t_start);
    if (c.solve.stop_rate > 0) e << YAML::Key << "stop_rate" << YAML::Value << num(c.solve.stop_rate);
    e << YAML::EndMap;
    e << YAML::Key << "scheme" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "type" << YAML::Value
      << scheme_name(p.scheme_in_use()) << YAML::Key << "theta" << YAML::Value << num(p.theta) << YAML::EndMap;
  }
  e << YAML::Key << "precision" << YAML::Value << precision_name(c.precision);
  e << YAML::Key << "backend" << YAML::Value << backend_name(c.backend);
  if (c.initial.kind == InitialConfig::Kind::Analytic) {
    e << YAML::Key << "initial" << YAML::Value << "analytic";
  } else if (c.initial.kind == InitialConfig::Kind::Uniform) {
    e << YAML::Key << "initial" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "value"
      << YAML::Value << c.initial.value << YAML::EndMap;
  } else {
    e << YAML::Key << "initial" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "file"
      << YAML::Value << c.initial.file << YAML::Key << "dataset" << YAML::Value << c.initial.dataset << YAML::Key
      << "boundary_from_file" << YAML::Value << c.initial.boundary_from_file << YAML::EndMap;
  }
  if (steady) {  // (the keys check_steady allows)
    e << YAML::Key << "output" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "file" << YAML::Value
      << c.output.file << YAML::Key << "compression" << YAML::Value << c.output.compression << YAML::Key << "xdmf"
      << YAML::Value << c.output.xdmf;
  } else {
    e << YAML::Key << "output" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "file" << YAML::Value
      << c.output.file << YAML::Key << "every" << YAML::Value << c.output.every_steps << YAML::Key << "every_time"
      << YAML::Value << num(c.output.every_time) << YAML::Key << "initial" << YAML::Value << c.output.write_initial
      << YAML::Key << "final" << YAML::Value << c.output.write_final << YAML::Key << "compression" << YAML::Value
      << c.output.compression << YAML::Key << "xdmf" << YAML::Value << c.output.xdmf;
  }
  // Only when asked for: the resolved configs of other runs stay as they were.
  if (c.output.heat_flux)
    e << YAML::Key << "fields" << YAML::Value << YAML::Flow << YAML::BeginSeq << "u" << "heat_flux" << YAML::EndSeq;
  e << YAML::EndMap;
  if (!steady)
    e << YAML::Key << "checkpoint" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "file"
      << YAML::Value << c.checkpoint.file << YAML::Key << "every" << YAML::Value << c.checkpoint.every_steps
      << YAML::Key << "every_seconds" << YAML::Value << num(c.checkpoint.every_seconds) << YAML::EndMap;
  e << YAML::Key << "log" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "every" << YAML::Value
    << c.log_every << YAML::EndMap;
  if (c.probes.any()) {
    const ProbesConfig& pc = c.probes;
    e << YAML::Key << "probes" << YAML::Value << YAML::BeginMap << YAML::Key << "points" << YAML::Value
      << YAML::BeginMap;
    for (const ProbePoint& pt : pc.points)
      e << YAML::Key << pt.name << YAML::Value << YAML::Flow << YAML::BeginSeq << num(pt.x[0]) << num(pt.x[1])
        << num(pt.x[2]) << YAML::EndSeq;
    e << YAML::EndMap << YAML::Key << "every" << YAML::Value << pc.every << YAML::Key << "csv" << YAML::Value;
    if (!pc.csv_file.empty())
      e << YAML::DoubleQuoted << pc.csv_file;
    else
      e << pc.csv;
    e << YAML::EndMap;
  }
  // Only when on: configs of runs without diagnostics stay as they were.
  if (c.diagnostics.heat_flows) {
    e << YAML::Key << "diagnostics" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "heat_flows"
      << YAML::Value << true;
    if (c.diagnostics.csv) {
      e << YAML::Key << "csv" << YAML::Value;
      if (c.diagnostics.csv_file.empty())
        e << true;
      else
        e << c.diagnostics.csv_file;
    }
    e << YAML::EndMap;
  }
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

std::string number_words(double v) {
  char buf[64];
  const double a = std::fabs(v);
  if (v == 0 || (a >= 1e-4 && a < 1e16)) {
    for (int decimals = 0; decimals <= 20; ++decimals) {
      std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
      if (std::strtod(buf, nullptr) == v) return buf;
    }
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

namespace {
std::string position_of(const RunConfig& c, const std::string& key, const std::string& fallback) {
  for (const auto& [k, w] : c.positions)
    if (k == key) return w;
  return fallback;
}
}  // namespace

void check_face_data(const RunConfig& c) {
  const HeatProblem& p = c.problem;
  const bool f32 = c.precision == Precision::F32;
  const double largest = f32 ? static_cast<double>(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
  const char* prec = precision_name(c.precision);
  // The largest |f(t)| of a table (piecewise linear: at its points; 1 without
  // one) and the largest change of f between two times.
  auto fmax = [](const TimeTable& t) {
    double m = t.empty() ? 1.0 : 0.0;
    for (const double v : t.v) m = std::max(m, std::fabs(v));
    return m;
  };
  auto fspan = [](const TimeTable& t) {
    if (t.empty()) return 0.0;
    return *std::max_element(t.v.begin(), t.v.end()) - *std::min_element(t.v.begin(), t.v.end());
  };
  // With a capacity field the values of c are not known here: the checks
  // that divide by c use the constant only.
  const double cap = p.material.capacity ? 0.0 : p.capacity;
  auto need = [&](const std::string& key, const std::string& where, const std::string& what, double v,
                  const std::string& advice) {
    if (std::isfinite(v) && std::fabs(v) <= largest) return;
    throw ConfigError(where, key,
                      what + " = " + number_words(v) + " is not a finite " + prec +
                          " number: the step would overflow (exit 5 at the first step); expected " + advice,
                      __FILE__, __LINE__);
  };
  const char* ax = "xyz";
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a) || p.periodic(a)) continue;
    const double h = p.spacing(a);
    for (int side = 0; side < 2; ++side) {
      const Boundary b = side ? p.hi[a] : p.lo[a];
      const FaceData& d = side ? p.hi_data[a] : p.lo_data[a];
      const FaceOrigin& o = c.faces[2 * a + side];
      const std::string face = o.key.empty() ? std::string("boundary.") + ax[a] + (side ? "_hi" : "_lo") : o.key;
      auto at = [&](const char* sub) { return position_of(c, face + "." + sub, o.where.empty() ? c.source : o.where); };
      const double F = fmax(d.table), S = fspan(d.table);
      const std::string hx = std::string("h_") + ax[a];
      if (b == Boundary::Dirichlet && d.value_from_initial && !d.table.empty()) {
        // The initial field's face values times f(t): known here for a
        // uniform start; for a file, f itself must be a finite number.
        const double v = c.initial.kind == InitialConfig::Kind::Uniform ? c.initial.value : 1.0;
        need(face + ".table", at("table"),
             c.initial.kind == InitialConfig::Kind::Uniform
                 ? "initial.value x table factor = " + number_words(v) + " x " + number_words(F)
                 : "the table factor " + number_words(F),
             v * F, "table factors whose products with the face's values are finite");
      } else if (b == Boundary::Dirichlet && !d.value_from_initial) {
        need(face + ".value", at("value"), "value x table factor = " + number_words(d.value) + " x " + number_words(F), d.value * F,
             "a value whose product with the table's factors is finite");
        need(face + ".value", at("value"), "value x (largest - smallest table factor) = " + number_words(d.value) + " x " + number_words(S),
             d.value * S, "a value whose changes over the table are finite");
      } else if (b == Boundary::Neumann && d.flux != 0.0) {
        const double beta = 2.0 * d.flux * F / h;
        need(face + ".flux", at("flux"), "2 flux x table factor / " + hx + " = 2 x " + number_words(d.flux) + " x " + number_words(F) + " / " + number_words(h),
             beta, "a smaller flux or table factor");
        if (cap > 0)
          need(face + ".flux", at("flux"), "dt x 2 flux x table factor / (" + hx + " c) = " + number_words(p.dt) + " x " + number_words(beta) + " / " + number_words(cap),
               p.dt * beta / cap, "a smaller flux, table factor or time step");
      } else if (b == Boundary::Robin) {
        const double g = 2.0 * d.h / h;
        need(face + ".h", at("h"), "2 h / " + hx + " = 2 x " + number_words(d.h) + " / " + number_words(h), g,
             "a smaller heat transfer coefficient h");
        if (cap > 0)
          need(face + ".h", at("h"), "theta dt 2 h / (" + hx + " c) = " + number_words(p.theta) + " x " + number_words(p.dt) + " x " + number_words(g) + " / " + number_words(cap),
               p.theta * p.dt * g / cap, "a smaller heat transfer coefficient h or time step");
        const double beta = g * d.ambient * F;
        need(face + ".ambient", at("ambient"),
             "2 h x ambient x table factor / " + hx + " = " + number_words(g) + " x " + number_words(d.ambient) + " x " + number_words(F), beta,
             "a smaller ambient temperature, table factor or h");
        if (cap > 0)
          need(face + ".ambient", at("ambient"), "dt x 2 h ambient f / (" + hx + " c) = " + number_words(p.dt) + " x " + number_words(beta) + " / " + number_words(cap),
               p.dt * beta / cap, "a smaller ambient temperature, table factor, h or time step");
      }
    }
  }
  if (!p.material.source && p.source != 0.0) {
    const double F = std::max(fmax(p.source_table), 0.0);
    const std::string at = position_of(c, "source.power_density", c.source);
    need("source.power_density", at, "power density x table factor = " + number_words(p.source) + " x " + number_words(F), p.source * F,
         "a smaller power density or table factor");
    if (cap > 0)
      need("source.power_density", at, "dt x power density x table factor / c = " + number_words(p.dt) + " x " + number_words(p.source * F) + " / " + number_words(cap),
           p.dt * p.source * F / cap, "a smaller power density, table factor or time step");
  }
}

void settle_grid(RunConfig& c, const std::string& grid_from) {
  if (!c.grid_pending) return;
  c.grid_pending = false;
  HeatProblem& p = c.problem;
  const char* ax = "xyz";
  const char* nn[3] = {"nx", "ny", "nz"};
  auto grid_words = [&](int a) {
    return std::string(nn[a]) + " = " + std::to_string(p.n[a]) + " from " + grid_from;
  };
  // A flat axis has no faces: naming one is an error, as with nz: 1 in the
  // config; faces a scalar `boundary:` or `default:` gave it are dropped.
  for (int a = 0; a < 3; ++a) {
    if (!p.flat(a)) continue;
    for (int side = 0; side < 2; ++side) {
      FaceOrigin& o = c.faces[2 * a + side];
      if (o.named)
        throw ConfigError(o.where, o.key,
                          std::string("the ") + ax[a] + " axis is flat (" + grid_words(a) +
                              ": a 2D or 1D problem) and has no faces; remove this key",
                          __FILE__, __LINE__);
      o = FaceOrigin{};
      (side ? p.hi : p.lo)[a] = Boundary::Dirichlet;
      (side ? p.hi_data : p.lo_data)[a] = FaceData{};
    }
  }
  std::string missing, where;
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side) {
      const FaceOrigin& o = c.faces[2 * a + side];
      if (p.flat(a) || !o.missing) continue;
      missing += (missing.empty() ? "" : ", ") + std::string(1, ax[a]) + (side ? "_hi" : "_lo");
      where = o.where;
    }
  if (!missing.empty())
    throw ConfigError(where, "boundary",
                      "missing face " + missing + " (the grid of " + grid_from +
                          " is not flat there): name every face (x, y, z, or x_lo ... z_hi), or give boundary.default",
                      __FILE__, __LINE__);
  for (const PendingAxes& m : c.pending_axes) {
    std::string axes;
    for (int a = 0; a < 3; ++a)
      if (m.missing[a] && !p.flat(a)) axes += (axes.empty() ? "" : ", ") + std::string(1, ax[a]);
    if (!axes.empty())
      throw ConfigError(m.where, m.key,
                        "missing axis " + axes + " (the grid of " + grid_from +
                            " is not flat there): a per-axis map names x, y and z (or gives default: for the others)",
                        __FILE__, __LINE__);
  }
  c.pending_axes.clear();
  resolve_scheme(c);
  check_face_data(c);
}

void resolve_time(RunConfig& c) {
  const TimeRequest& q = c.time_request;
  double& dt = c.problem.dt;
  dt = q.dt;
  c.dt_given = 0.0;
  if (!q.by_t_end) {
    c.steps = q.steps;
  } else {
    // The run ends exactly at t_end: the number of steps from the axis'
    // origin is rounded up and dt shrunk to fit, never stretched (the run
    // logs it). When t_end is a whole number of steps up to round-off, dt
    // stays the value given, bit for bit: span / round(span / dt) differs
    // from dt in the last bit for a third of such t_end (0.07 / 0.0002), and
    // a restarted run extended by --set time.t_end=... keeps its dt.
    const double span = q.t_end - c.axis.t0;
    if (!(span >= 0))
      throw ConfigError(q.where, "time.t_end",
                        "expected a time >= " + number_words(c.axis.t0) + " s (the time of step " + std::to_string(c.axis.s0) +
                            ", where this run's time axis starts), got " + number_words(q.t_end),
                        __FILE__, __LINE__);
    const double n = span / q.dt;
    if (!(n < 1e12))
      throw ConfigError(q.where, "time.t_end",
                        "expected fewer than 1e12 steps of dt, got (t_end - " + number_words(c.axis.t0) + ") / dt = " + number_words(n),
                        __FILE__, __LINE__);
    const double whole = std::round(n);
    index_t count = 0;
    if (whole >= 1 && std::fabs(n - whole) <= 1e-9 * whole) {
      count = static_cast<index_t>(whole);
    } else {
      count = static_cast<index_t>(std::ceil(n));
      if (count > 0) {
        c.dt_given = q.dt;
        dt = span / static_cast<double>(count);
      }
    }
    c.steps = c.axis.s0 + count;
  }
  c.t_end = c.axis.time_of(c.steps, dt);
}

RunConfig parse_config(const std::string& text, const std::string& name, const std::vector<std::string>& overrides) {
  YAML::Node root = parse_yaml(text, name);
  if (root.IsDefined() && !root.IsNull() && !root.IsMap())
    throw ConfigError(name + ":1:1", "", "expected a mapping of sections (grid, time, ...), got " + describe(root),
                      __FILE__, __LINE__);
  if (!root.IsDefined() || root.IsNull())
    throw ConfigError(name, "", "the config is empty; expected a mapping of sections (grid, time, ...)", __FILE__,
                      __LINE__);
  const auto ov = apply_overrides(root, overrides, name);
  const Reader r(name, ov, root);
  RunConfig c = build(root, r);
  c.resolved_yaml = emit_resolved_impl(c);
  return c;
}

namespace {

/// A config is a small text file. Anything else (a folder, /dev/zero, a
/// FIFO nobody writes to) would read as an empty config, read until memory
/// runs out, or block: say what the path is instead.
constexpr std::uintmax_t kMaxConfigBytes = 16u << 20;

void check_config_file_type(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw ConfigError(path, "", "cannot open config file (" + std::string(std::strerror(errno)) + ")", __FILE__,
                      __LINE__);
  const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                     : S_ISREG(st.st_mode)  ? nullptr
                                            : "not a regular file";
  if (kind)
    throw ConfigError(path, "", std::string("cannot read config file: it is ") + kind +
                                    ", not a file (expected a YAML file such as configs/heat.yaml)",
                      __FILE__, __LINE__);
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxConfigBytes)
    throw ConfigError(path, "", "the config file has " + std::to_string(st.st_size) +
                                    " bytes; a config is at most 16 MiB (is this the right file?)",
                      __FILE__, __LINE__);
}

}  // namespace

RunConfig load_config(const std::string& path, const std::vector<std::string>& overrides) {
  check_config_file_type(path);
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
