// Fuzz target: the YAML config loader with --set overrides
// (adi::io::parse_config), as `adi3d run CONFIG --set ...` uses it.
//
// Input: YAML text; if it contains a line "%%", the lines after it are the
// --set overrides, one "key.path=value" per line (so the seeds stay readable
// and the mutator can reach the override paths).
//
// Besides crashes, sanitizer reports and hangs, a finding is: an exception
// that is not an adi::Error, a multi-line message, or an accepted config
// whose resolved YAML (what --dry-run prints and checkpoints store) does not
// parse back to the same config.

#include "fuzz_common.hpp"

#include <adi/io/config.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::string text = input;
  std::vector<std::string> overrides;
  const std::size_t sep = input.find("\n%%\n");
  if (sep != std::string::npos) {
    text = input.substr(0, sep + 1);
    std::size_t pos = sep + 4;
    while (pos < input.size()) {
      std::size_t nl = input.find('\n', pos);
      if (nl == std::string::npos) nl = input.size();
      if (nl > pos) overrides.push_back(input.substr(pos, nl - pos));
      pos = nl + 1;
    }
  }
  adi::fuzz::expect_clean_failure([&] {
    const adi::io::RunConfig c = adi::io::parse_config(text, "fuzz.yaml", overrides);
    // Accepted: the problem is valid and the resolved YAML is a fixed point.
    c.problem.validate();
    adi::io::RunConfig back;
    try {
      back = adi::io::parse_config(c.resolved_yaml, "resolved.yaml");
    } catch (const adi::Error& e) {
      adi::fuzz::finding("the resolved config does not parse back", std::string(e.what()) + "\n" + c.resolved_yaml);
    }
    if (back.resolved_yaml != c.resolved_yaml)
      adi::fuzz::finding("the resolved config is not a fixed point", c.resolved_yaml + "---\n" + back.resolved_yaml);
  });
  return 0;
}
