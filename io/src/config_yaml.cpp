// The YAML document of a config: read as one document, with no recursive
// alias and no repeated key, and the helpers the value checks share.

#include "config_reader.hpp"

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
  bool fields = c.material.capacity.given() || c.material.temperature;
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

}  // namespace adi::io::config_reader
