// adi3d validate: the round-off check and the convergence study against the
// analytic mode, printed as tables (and JSON for plotting).

#include "commands.hpp"
#include "exit_codes.hpp"
#include "log.hpp"
#include "roundoff.hpp"
#include "util.hpp"

#include <adi/io/result_file.hpp>
#include <adi/solver.hpp>
#include <adi/verification.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace adi::app {

namespace {

struct RoundoffCase {
  std::string name;
  HeatProblem p;
  index_t steps;
};

std::vector<RoundoffCase> roundoff_cases() {
  std::vector<RoundoffCase> cs;
  HeatProblem a;  // anisotropic, non-cubic, all Dirichlet
  a.n = {37, 29, 23};
  a.length = {1.0, 0.8, 0.6};
  a.alpha = {1.0, 0.5, 0.25};
  a.dt = 2e-3;
  cs.push_back({"dirichlet 37x29x23", a, 25});
  HeatProblem b = a;  // mixed faces: cosine and quarter-wave modes
  b.lo = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Neumann};
  b.hi = {Boundary::Neumann, Boundary::Neumann, Boundary::Dirichlet};
  cs.push_back({"neumann/mixed 37x29x23", b, 25});
  return cs;
}

}  // namespace

int cmd_validate(const ValidateOptions& o) {
  // The convergence order needs a pair of levels, each a grid of >= 3 nodes
  // (2 cells), finer and finer: anything else is a usage error, not a
  // "passed" without an order or a failed study.
  if (o.levels.size() < 2)
    ADI_THROW(InvalidArgument, "--levels: expected at least 2 levels (the order is measured between a pair), got " +
                                   std::to_string(o.levels.size()));
  for (std::size_t q = 0; q < o.levels.size(); ++q) {
    if (o.levels[q] < 2)
      ADI_THROW(InvalidArgument, "--levels: expected cells per axis >= 2, got " + std::to_string(o.levels[q]));
    if (q > 0 && o.levels[q] <= o.levels[q - 1])
      ADI_THROW(InvalidArgument, "--levels: expected increasing cells per axis (coarse to fine), got " +
                                     std::to_string(o.levels[q - 1]) + " then " + std::to_string(o.levels[q]));
  }
  // Before the study, not after it: an existing file is refused.
  if (!o.json.empty()) io::check_result_file(o.json, "validation JSON", o.overwrite);
  // With --json - the JSON is stdout's only content; the tables go to stderr.
  std::FILE* out = o.json == "-" ? stderr : stdout;
  const Backend be = resolve_backend(parse_backend(o.backend));
  bool ok = true;
  std::ostringstream js;
  js << "{\n  \"backend\": \"" << backend_name(be) << "\",\n  \"roundoff\": [";

  std::fprintf(out, "Round-off check: after n steps the discrete solution equals g^n U(0)\n");
  std::fprintf(out, "  %-24s %-8s %6s %14s %12s %10s\n", "case", "prec", "steps", "g", "max rel err", "tolerance");
  bool first = true;
  for (const auto& rc : roundoff_cases()) {
    for (Precision prec : {Precision::F64, Precision::F32}) {
      const RoundoffResult r = dispatch_precision(prec, [&](auto tag) {
        return roundoff_check<decltype(tag)>(rc.p, rc.steps, be);
      });
      const RoundoffVerdict v = roundoff_verdict(r.error, prec, r.steps);
      const double tol = v.tolerance;
      const bool pass = !v.missed();
      ok = ok && pass;
      std::fprintf(out, "  %-24s %-8s %6lld %14.10f %12.3e %10.0e  %s\n", rc.name.c_str(), precision_name(prec),
                  static_cast<long long>(r.steps), r.amplification, r.error.rel_max(), tol, pass ? "ok" : "FAILED");
      js << (first ? "" : ",") << "\n    {\"case\": \"" << json_escape(rc.name) << "\", \"precision\": \""
         << precision_name(prec) << "\", \"steps\": " << r.steps << ", \"g\": " << r.amplification
         << ", \"rel_error\": " << r.error.rel_max() << ", \"tolerance\": " << tol << "}";
      first = false;
    }
  }
  js << "\n  ],\n";

  // The general problem (materials, sources, every face type, periodic and
  // flat axes) against independent oracles (adi/verification.hpp), on the
  // backend of the rest of the validation (CUDA runs its general path).
  std::fprintf(out, "\nGeneral problem (materials, sources, faces): checks against exact solutions and balance laws, "
                    "backend %s\n", backend_name(be));
  std::fprintf(out, "  %-72s %-8s %12s  %-24s %s\n", "case", "prec", "value", "accepted", "quantity");
  StepperSpec spec;
  spec.backend = be;
  js << "  \"general\": [";
  first = true;
  for (const verify::Check& c : verify::all_checks(spec)) {
    ok = ok && c.ok;
    char range[64];
    std::snprintf(range, sizeof range, "[%.3g, %.3g]", c.lo, c.hi);
    std::fprintf(out, "  %-72s %-8s %12.4e  %-24s %s  %s\n", c.name.c_str(), precision_name(c.precision), c.value, range,
                c.quantity.c_str(), c.ok ? "ok" : "FAILED");
    if (!c.ok && !c.detail.empty()) std::fprintf(out, "      %s\n", c.detail.c_str());
    std::fflush(out);
    js << (first ? "" : ",") << "\n    {\"case\": \"" << json_escape(c.name) << "\", \"precision\": \""
       << precision_name(c.precision) << "\", \"quantity\": \"" << json_escape(c.quantity) << "\", \"value\": "
       << c.value << ", \"lo\": " << c.lo << ", \"hi\": " << c.hi << ", \"ok\": " << (c.ok ? "true" : "false")
       << "}";
    first = false;
  }
  js << "\n  ],\n";

  HeatProblem base;  // the unit cube, alpha = 1, zero Dirichlet faces
  ConvergenceOptions co;
  co.intervals.assign(o.levels.begin(), o.levels.end());
  std::fprintf(out, "\nConvergence to the exact solution u = exp(-3 pi^2 t) sin(pi x) sin(pi y) sin(pi z), float64,\n"
              "t_end = %g s, dt = t_end / cells (dt ~ h), theta = %g\n",
              co.t_end, base.theta);
  std::fprintf(out, "  %6s %11s %11s %6s %12s %7s %12s %7s %9s\n", "cells", "h", "dt", "steps", "max error", "order",
              "rms error", "order", "wall");
  const auto rows = convergence_study(base, co, Precision::F64, be, [out](const ConvergenceRow& r) {
    std::fprintf(out, "  %6lld %11.4e %11.4e %6lld %12.4e %7s %12.4e %7s %8.2fs\n", static_cast<long long>(r.intervals),
                r.h, r.dt, static_cast<long long>(r.steps), r.error.max_abs,
                r.order_max == 0 ? "-" : std::to_string(r.order_max).substr(0, 5).c_str(), r.error.rms,
                r.order_rms == 0 ? "-" : std::to_string(r.order_rms).substr(0, 5).c_str(), r.wall_seconds);
    std::fflush(out);
  });
  js << "  \"convergence\": {\"t_end\": " << co.t_end << ", \"precision\": \"float64\", \"rows\": [";
  for (std::size_t q = 0; q < rows.size(); ++q)
    js << (q ? "," : "") << "\n    {\"cells\": " << rows[q].intervals << ", \"h\": " << rows[q].h
       << ", \"dt\": " << rows[q].dt << ", \"steps\": " << rows[q].steps << ", \"max_error\": " << rows[q].error.max_abs
       << ", \"rms_error\": " << rows[q].error.rms << ", \"order_max\": " << rows[q].order_max
       << ", \"order_rms\": " << rows[q].order_rms << "}";
  js << "\n  ]},\n";
  if (rows.size() >= 2) {
    const double ord = rows.back().order_max;
    const bool pass = ord >= 1.9 && ord <= 2.1;
    ok = ok && pass;
    std::fprintf(out, "Observed order on the finest pair: %.3f (expected 2, accepted 1.9 .. 2.1): %s\n", ord,
                pass ? "ok" : "FAILED");
  }
  js << "  \"passed\": " << (ok ? "true" : "false") << "\n}\n";
  std::fprintf(out, "%s\n", ok ? "validation passed" : "VALIDATION FAILED");
  std::fflush(out);
  if (!o.json.empty()) io::write_result_file(o.json, js.str(), "validation JSON", o.overwrite);
  return ok ? kOk : kValidationFailed;
}

}  // namespace adi::app
