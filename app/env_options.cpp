// The ADI_* environment, read once (see env_options.hpp).

#include "env_options.hpp"

#include <adi/error.hpp>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace adi::app {

namespace {

class EnvReader {
 public:
  explicit EnvReader(const EnvLookup& lookup) : lookup_(lookup) {}

  /// The value, or nullptr when unset or empty (both keep the default).
  const char* get(const char* name) const {
    const char* v = lookup_ ? lookup_(name) : std::getenv(name);
    return v && *v ? v : nullptr;
  }

  /// The knob's value by its rule, or `fallback` when unset or empty.
  template <class V>
  V read(const char* name, V fallback, const KnobRule& r) const {
    const char* v = get(name);
    if (!v) return fallback;
    const std::string s(v);
    switch (r.kind) {
      case KnobRule::Kind::Flag:
        if (s == "0") return V(false);
        if (s == "1") return V(true);
        fail(name, v, "expected 0 or 1");
      case KnobRule::Kind::Integer: {
        char* end = nullptr;
        errno = 0;
        const long long x = std::strtoll(v, &end, 10);
        const bool digits = (*v >= '0' && *v <= '9') || ((*v == '-' || *v == '+') && v[1] >= '0' && v[1] <= '9');
        if (!digits || *end || errno == ERANGE || x < r.lo || x > r.hi) fail(name, v, std::string("expected ") + r.what);
        return static_cast<V>(x);
      }
      case KnobRule::Kind::OneOf:
        for (int q = 0; q < r.n_allowed; ++q)
          if (std::to_string(r.allowed[q]) == s) return static_cast<V>(r.allowed[q]);
        fail(name, v, std::string("expected ") + r.what);
      case KnobRule::Kind::Positive: {
        char* end = nullptr;
        errno = 0;
        const double x = std::strtod(v, &end);
        if (end == v || *end || errno == ERANGE || !std::isfinite(x) || !(x > 0) ||
            std::isspace(static_cast<unsigned char>(*v)))
          fail(name, v, std::string("expected ") + r.what);
        return static_cast<V>(x);
      }
    }
    fail(name, v, "a knob of no known kind");
  }

  [[noreturn]] static void fail(const char* name, const char* value, const std::string& why) {
    ADI_THROW(InvalidArgument, std::string(name) + "='" + printable(value, 60) + "' in the environment: " + why);
  }

 private:
  const EnvLookup& lookup_;
};

// Knobs removed once their A/B was settled: a job script that still sets
// one asks for a path that no longer exists, so it is refused by name
// rather than ignored. Each finding stays in docs/PERFORMANCE.md.
struct RetiredKnob {
  const char* variable;
  const char* where;  // the docs/PERFORMANCE.md section that keeps its finding
};
constexpr RetiredKnob kRetiredKnobs[] = {
    {"ADI_LANES_CONST", "Segment lengths and tiles"},
    {"ADI_LANES_HALF_TILES", "Segment lengths and tiles"},
    {"ADI_FUSED_TILES", "The fused RHS + x kernel"},
    {"ADI_RHS_AHEAD", "RHS kernels"},
    {"ADI_SKIP_FACE_LANE", "The step"},
};

}  // namespace

EnvOptions read_env_options(const EnvLookup& lookup) {
  const EnvReader e(lookup);
  for (const RetiredKnob& r : kRetiredKnobs)
    if (const char* v = e.get(r.variable))
      EnvReader::fail(r.variable, v,
                      std::string("no longer a knob: its choice is settled (docs/PERFORMANCE.md, \"") + r.where +
                          "\"); unset it");
  EnvOptions o;
  SolverOptions& s = o.solver;
#define ADI_KNOB(type, field, def, variable, form, rule, effect, default_text) \
  s.field = e.read<type>(variable, s.field, rule);
#include <adi/solver_knobs.def>
#undef ADI_KNOB
  AppOptions& a = o.app;
#define ADI_KNOB(type, field, def, variable, form, rule, effect, default_text) \
  a.field = e.read<type>(variable, a.field, rule);
#include "app_knobs.def"
#undef ADI_KNOB
  // Slurm's own variables: recorded as they are (provenance), not parsed.
  if (const char* j = e.get("SLURM_JOB_ID")) {
    a.batch_job = j;
    if (const char* t = e.get("SLURM_ARRAY_TASK_ID")) a.batch_job += std::string(" array task ") + t;
    if (const char* r = e.get("SLURM_RESTART_COUNT")) a.batch_job += std::string(" restart ") + r;
  }
  return o;
}

std::string AppOptions::describe() const {
  const AppOptions d{};
  std::ostringstream s;
  auto line = [&](const char* env, const char* name, auto v, auto dv) {
    s << "  " << name << " = " << v << (v == dv ? "" : "   (set by " + std::string(env) + ")") << "\n";
  };
#define ADI_KNOB(type, field, def, variable, form, rule, effect, default_text) line(variable, #field, field, d.field);
#include "app_knobs.def"
#undef ADI_KNOB
  s << "  batch_job = " << (batch_job.empty() ? "(none)" : batch_job)
    << (batch_job.empty() ? "" : "   (from SLURM_JOB_ID)") << "\n";
  return s.str();
}

const std::vector<KnobInfo>& AppOptions::knobs() {
  static const std::vector<KnobInfo> rows{
#define ADI_KNOB(type, field, def, variable, form, rule, effect, default_text) \
  KnobInfo{#field, variable, form, rule, effect, default_text},
#include "app_knobs.def"
#undef ADI_KNOB
  };
  return rows;
}

std::string knob_table() {
  std::ostringstream s;
  s << "| knob | what it does | default | field |\n| --- | --- | --- | --- |\n";
  auto rows = [&](const std::vector<KnobInfo>& knobs, const char* owner) {
    for (const KnobInfo& k : knobs)
      s << "| `" << k.variable << k.form << "` | " << k.effect << " | " << k.default_text << " | `" << owner
        << "::" << k.field << "` |\n";
  };
  rows(SolverOptions::knobs(), "SolverOptions");
  rows(AppOptions::knobs(), "AppOptions");
  return s.str();
}

}  // namespace adi::app
