// YAML → RunConfig. Every value is checked for type and range here; messages
// name file:line:column (yaml-cpp marks are 0-based, we print 1-based), the
// key path, what was expected and what was found.
//
// The entry points: a config from a file or a text (config_reader.hpp says
// which file of the reader does what).

#include <adi/io/config.hpp>

#include "config_reader.hpp"
#include "embedded_config.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace adi::io {

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

RunConfig parse_config(const std::string& text, const std::string& name, const std::vector<std::string>& overrides) {
  YAML::Node root = config_reader::parse_yaml(text, name);
  if (root.IsDefined() && !root.IsNull() && !root.IsMap())
    throw ConfigError(name + ":1:1", "", "expected a mapping of sections (grid, time, ...), got " + config_reader::describe(root),
                      __FILE__, __LINE__);
  if (!root.IsDefined() || root.IsNull())
    throw ConfigError(name, "", "the config is empty; expected a mapping of sections (grid, time, ...)", __FILE__,
                      __LINE__);
  const auto ov = config_reader::apply_overrides(root, overrides, name);
  const config_reader::Reader r(name, ov, root);
  RunConfig c = config_reader::build(root, r);
  c.resolved_yaml = config_reader::emit_resolved(c);
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

const std::string& default_config_text() {
  static const std::string text(kEmbeddedDefaultConfig);
  return text;
}

}  // namespace adi::io
