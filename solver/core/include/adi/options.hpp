#pragma once
// Knobs of the backends for experiments and debugging, one table of them
// (solver_knobs.def). Library code never reads the environment: the app
// reads the ADI_* variables once (app/env_options.cpp) into this struct and
// passes it down; `adi3d info -v` prints it.

#include <adi/common.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace adi {

/// How the environment's value of a knob is read (app/env_options.cpp):
/// 0 or 1, an integer in a range, one of a few integers, a number > 0.
struct KnobRule {
  enum class Kind { Flag, Integer, OneOf, Positive } kind = Kind::Flag;
  long long lo = 0, hi = 0;   ///< Integer: the range
  int allowed[8] = {};        ///< OneOf: the values
  int n_allowed = 0;
  const char* what = "";      ///< what a malformed value's message says was expected
};

namespace knob_rule {
constexpr KnobRule flag() { return KnobRule{}; }
constexpr KnobRule integer(long long lo, long long hi, const char* what) {
  KnobRule r{};
  r.kind = KnobRule::Kind::Integer;
  r.lo = lo;
  r.hi = hi;
  r.what = what;
  return r;
}
template <class... I>
constexpr KnobRule one_of(const char* what, I... values) {
  static_assert(sizeof...(I) <= 8, "at most 8 values");
  KnobRule r{};
  r.kind = KnobRule::Kind::OneOf;
  r.what = what;
  ((r.allowed[r.n_allowed++] = values), ...);
  return r;
}
constexpr KnobRule positive(const char* what) {
  KnobRule r{};
  r.kind = KnobRule::Kind::Positive;
  r.what = what;
  return r;
}
}  // namespace knob_rule

/// One knob of a table (solver_knobs.def, app/app_knobs.def): its variable,
/// the docs' form of a value, its rule and the table's columns.
struct KnobInfo {
  const char* field;
  const char* variable;
  const char* form;
  KnobRule rule;
  const char* effect;
  const char* default_text;
};

struct SolverOptions {
  // The fields, one a row of solver_knobs.def (their defaults are what the
  // planners choose by themselves).
#define ADI_KNOB(type, field, def, variable, form, rule, effect, default_text) type field = def;
#include <adi/solver_knobs.def>
#undef ADI_KNOB

  /// Elements a device row of nx values of elem_bytes each takes: nx rounded
  /// up so that every row starts on row_align bytes (0: 128). The CUDA
  /// steppers and ranks pad their rows to it; the memory estimate counts it;
  /// the CPU stepper too where row_align is set (device_row_pitch(1, ..) is
  /// then its alignment in elements).
  index_t device_row_pitch(index_t nx, std::size_t elem_bytes) const;

  /// One line per knob, "name = value (default|set)", for `adi3d info -v`.
  std::string describe() const;

  /// The rows of solver_knobs.def.
  static const std::vector<KnobInfo>& knobs();
};

}  // namespace adi
