#include <adi/options.hpp>

#include <algorithm>
#include <sstream>

namespace adi {

// 128 bytes, one cache line: a y or z tile row of 16 fp64 / 32 fp32 lines
// is one line. Measured on an H100 (#18, docs/PERFORMANCE.md): 32- and
// 64-byte rows cost 257^3 fp64 9-10 % of its step (y and z tiles straddle
// two lines), 256-byte rows (the fp64 pitch before) gained 0-1.5 % for twice
// the padding.
index_t SolverOptions::device_row_pitch(index_t nx, std::size_t elem_bytes) const {
  const index_t bytes = row_align > 0 ? row_align : 128;
  const index_t a = std::max<index_t>(1, bytes / static_cast<index_t>(elem_bytes));
  return (nx + a - 1) / a * a;
}

std::string SolverOptions::describe() const {
  const SolverOptions d{};
  std::ostringstream s;
  auto line = [&](const char* env, const char* name, auto v, auto dv) {
    s << "  " << name << " = " << v << (v == dv ? "" : "   (set by " + std::string(env) + ")") << "\n";
  };
#define ADI_KNOB(type, field, def, variable, form, rule, effect, default_text) line(variable, #field, field, d.field);
#include <adi/solver_knobs.def>
#undef ADI_KNOB
  return s.str();
}

const std::vector<KnobInfo>& SolverOptions::knobs() {
  static const std::vector<KnobInfo> rows{
#define ADI_KNOB(type, field, def, variable, form, rule, effect, default_text) \
  KnobInfo{#field, variable, form, rule, effect, default_text},
#include <adi/solver_knobs.def>
#undef ADI_KNOB
  };
  return rows;
}

}  // namespace adi
