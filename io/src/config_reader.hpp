#pragma once
// Internal to io's config reader (config*.cpp): how the YAML document is
// read and checked. config.cpp has the entry points (parse_config,
// load_config), config_yaml.cpp the document (one document, no duplicate
// keys, no recursive aliases) and the value checks' helpers,
// config_overrides.cpp the --set merge, config_sections.cpp one reader per
// section (config_material.cpp those of the physical properties),
// config_checks.cpp the checks across sections, config_emit.cpp
// the resolved config as YAML.

#include <adi/io/config.hpp>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace adi::io::config_reader {

struct Override {
  std::string path;  // dotted key path
  std::string text;  // the whole "path=value" argument
  bool erase = false;  // "path=null": deletes the key
};

/// How a value is quoted in messages: long values are cut (a message is one
/// line, not a dump of the input).
inline constexpr std::size_t kQuoteMax = 60;

/// Well-formed UTF-8 without control characters.
bool printable_utf8(const std::string& s);

/// The edit distance of two keys (the "did you mean" of an unknown key).
std::size_t edit_distance(const std::string& a, const std::string& b);

/// "--set path=value" as messages name an override (a long value cut).
std::string set_where(const std::string& text);

/// A node as messages quote it.
std::string describe(const YAML::Node& n);

/// Whether key path `key` is `path` or inside it: "source.table[2]" and
/// "source.table.x" are inside "source.table" (a --set of that path made them).
bool inside(const std::string& key, const std::string& path);

/// A number as the shortest text that reads back to the same double
/// (0.0002, not 0.00020000000000000001 as 17 significant digits print it):
/// what users read in --dry-run, the log and the files' provenance.
std::string num(double v);

/// scheme.type auto made definite: the Strang step when K or c is a field in
/// 3D (the axis operators do not commute; split.hpp), the Douglas step
/// otherwise; decided where the fields are known by name and the grid is
/// settled, so that the resolved config (outputs, checkpoints, --dry-run)
/// records the scheme that runs.
void resolve_scheme(RunConfig& c);

/// "name:line:column" of a parsed node (1-based).
std::string position(const std::string& name, const YAML::Mark& m);

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

// Range checks in one line each at the call site.
void require(const Reader& r, const YAML::Node& n, const std::string& key, bool ok, const std::string& expected);

/// Rejects a key repeated in a mapping of `n` (config_yaml.cpp says why);
/// `where` names a mark's position, `seen` the nodes walked.
void reject_duplicate_keys(const YAML::Node& n, const std::string& path,
                           const std::function<std::string(const YAML::Mark&)>& where,
                           std::set<std::pair<int, int>>& seen);

/// The first and only YAML document of `text`, its aliases checked; errors
/// at `where(mark)`, under `key` (empty: the document itself).
YAML::Node load_one_document(const std::string& text, const std::function<std::string(const YAML::Mark&)>& where,
                             const std::string& key);

/// The one document of `text` (file `name`): YAML syntax, a single
/// document, no recursive alias, no repeated key; errors name name:line:column.
YAML::Node parse_yaml(const std::string& text, const std::string& name);

/// Applies the --set overrides to `root` (config_overrides.cpp); the
/// overrides as the reader names them in messages.
std::vector<Override> apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides,
                                      const std::string& name);

/// Every section of `root` into `c`, each by its reader, unknown and empty
/// keys refused (config_sections.cpp).
void read_sections(const Reader& r, const YAML::Node& root, RunConfig& c);
/// grid.x / .y / .z into HeatProblem::coordinates, once domain and boundary
/// are read: the length and origin they imply (domain.l<axis> beside
/// coordinates is a contradiction), a periodic axis' period, a stretching
/// rule's nodes; coordinates uniform to round-off (1e-12 of a gap) make a
/// uniform axis, bit for bit the run that gives n and the length.
void settle_coordinates(const Reader& r, const YAML::Node& root, RunConfig& c);

/// `[[t0, f0], [t1, f1], ...]`: a piecewise-linear factor f(t), times
/// strictly increasing (a face's or the source's table; config_sections.cpp).
TimeTable read_table(const Reader& r, const YAML::Node& n, const std::string& key);

/// The physical properties' sections (config_material.cpp): `diffusivity:`,
/// `material:` (constants, per axis, fields, materials by region), `source:`.
void read_diffusivity(const Reader& r, const YAML::Node& n, RunConfig& c);
void read_material(const Reader& r, const YAML::Node& n, RunConfig& c);
void read_source(const Reader& r, const YAML::Node& n, RunConfig& c);

/// The config of a parsed document: its sections read, then checked across
/// them (config_checks.cpp).
RunConfig build(const YAML::Node& root, const Reader& r);

/// The resolved config as YAML (config_emit.cpp).
std::string emit_resolved(const RunConfig& c);

}  // namespace adi::io::config_reader
