// The --set overrides merged into a parsed config document.

#include "config_reader.hpp"

#include <sstream>

namespace adi::io::config_reader {

namespace {

/// Keys that exclude each other: an override of one replaces the other where
/// the file gave it, so `--set time.t_end=2` works on a config that says
/// `steps:` (and extends a restarted run); both overridden is an error.
constexpr std::pair<const char*, const char*> kReplaces[] = {
    {"time.steps", "time.t_end"},
    {"time.t_end", "time.steps"},
};

}  // namespace

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

}  // namespace adi::io::config_reader
