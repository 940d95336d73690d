// build(): the sections read (config_sections.cpp), then the checks of the
// config across its sections: values each key allows that
// combine into ones no step survives, where probes go, what a steady solve
// refuses, the faces' data against the precision, and the grid and time
// settled once an initial file has given the grid.

#include "config_reader.hpp"

#include <adi/radiation.hpp>

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

namespace adi::io {

namespace config_reader {

namespace {

/// Values each key allows can still combine into ones no step survives: a
/// huge diffusivity times dt over a tiny spacing squared overflows to inf,
/// and the solver would only report a non-finite pivot (exit 5) far from the
/// cause. Checked here, naming the keys that make the value.
void check_derived(const Reader& r, const YAML::Node& root, const RunConfig& c) {
  const HeatProblem& p = c.problem;
  const char* ax = "xyz";
  const YAML::Node time = root["time"];
  const YAML::Node at = time.IsDefined() && time.IsMap() && time["dt"] ? time["dt"] : time;
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a)) continue;
    const double h = p.min_gap(a);
    const double lambda = p.mesh_ratio(a);
    if (std::isfinite(lambda) && h > 0) continue;
    const std::string A(1, ax[a]);
    std::ostringstream s;
    s.precision(6);
    s << "the mesh ratio alpha dt / h^2 along " << A << " is " << lambda << " (alpha = " << p.alpha[a]
      << " from diffusivity, dt = " << p.dt << " from time.dt, h = "
      << (p.stretched(a) ? "the smallest gap of grid." + A + ".coordinates" : "domain.l" + A + " / (grid.n" + A + " - 1)")
      << " = " << h << "); expected a finite number (a smaller dt or diffusivity, or a coarser grid)";
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
    // A radiating face is linearised about the iterate: 0 K has no slope.
    if (c.problem.radiates())
      r.fail(root, "initial",
             "missing; a steady solve with radiating faces starts from temperatures in kelvin (the radiation is "
             "linearised about each iterate, and 0 K has no slope): expected initial: {value: T} with T > 0 K");
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

std::string position_of(const RunConfig& c, const std::string& key, const std::string& fallback) {
  for (const auto& [k, w] : c.positions)
    if (k == key) return w;
  return fallback;
}

/// Radiating faces need absolute temperatures.
void check_radiation(const Reader& r, const YAML::Node& root, const RunConfig& c) {
  const FaceOrigin& f = first_radiating_face(c);
  // Radiation needs absolute temperatures. 20 degC and 20 K cannot be told
  // apart, but a temperature below 0 is Celsius (or wrong) for sure.
  const std::string kelvin = "an absolute temperature >= 0 K: " + f.key +
                             " radiates, so every temperature is in kelvin (20 degC is 293.15 K)";
  if (c.initial.kind == InitialConfig::Kind::Uniform && c.initial.value < 0.0)
    r.fail(root["initial"]["value"], "initial.value", "expected " + kelvin + ", got " + number_words(c.initial.value));
  const HeatProblem& p = c.problem;
  for (int q = 0; q < 6; ++q) {
    const int a = q / 2, side = q % 2;
    if (p.flat(a)) continue;
    const Boundary b = side ? p.hi[a] : p.lo[a];
    const FaceData& d = side ? p.hi_data[a] : p.lo_data[a];
    const FaceOrigin& o = c.faces[static_cast<std::size_t>(q)];
    const double v = b == Boundary::Dirichlet && !d.value_from_initial ? d.value
                     : b == Boundary::Robin                            ? d.ambient
                                                                        : 0.0;
    if (v < 0.0)
      throw ConfigError(position_of(c, o.key + (b == Boundary::Robin ? ".ambient" : ".value"), o.where),
                        o.key + (b == Boundary::Robin ? ".ambient" : ".value"),
                        "expected " + kelvin + ", got " + number_words(v), __FILE__, __LINE__);
  }
}

}  // namespace

RunConfig build(const YAML::Node& root, const Reader& r) {
  RunConfig c;
  c.source = r.name();
  read_sections(r, root, c);
  settle_coordinates(r, root, c);

  // diffusivity is K / c with c = 1: beside a material it would say K twice.
  if (const YAML::Node m = root["material"]) {
    if (root["diffusivity"] && m.IsMap() && (m["conductivity"] || m["heat_capacity"] || m["regions"]))
      r.fail(root["diffusivity"], "diffusivity",
             std::string("contradicts material.") +
                 (m["conductivity"] ? "conductivity" : m["heat_capacity"] ? "heat_capacity" : "regions") +
                 ": diffusivity is K / c with c = 1; give either diffusivity or material {conductivity, "
                 "heat_capacity}");
  }
  // scheme.type auto (resolve_scheme; a grid taken from the initial file
  // is settled later: settle_grid).
  if (!c.grid_pending) resolve_scheme(c);
  if (c.problem.radiates()) check_radiation(r, root, c);
  if (const YAML::Node n = root["material"]; n && !c.material.regions.given() && !n["materials"]) {
    // Inside `material:` the values are SI: a forgotten property has no
    // meaningful default (c = 1 J/(m^3 K) made steel diffuse about 3.6
    // million times too fast). `diffusivity:` is the form whose c is 1.
    // (With material.regions each material gives both: read_regions.)
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

}  // namespace config_reader

using config_reader::num;
using config_reader::position_of;
using config_reader::resolve_scheme;

namespace {
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
    for (int side = 0; side < 2; ++side) {
      const double h = p.end_gap(a, side);  // the face's half cell is h / 2
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
      if (d.emissivity > 0.0) {
        // The radiation's source at the surroundings' temperature (the face's
        // own is checked as the run goes: a node that far off stops it).
        const std::string sub = position_of(c, face + ".radiation", "").empty() ? "ambient" : "radiation";
        const std::string key = face + (sub == std::string("radiation") ? ".radiation.ambient" : ".ambient");
        const double q = 2.0 * d.emissivity * kStefanBoltzmann * std::pow(d.radiation_ambient, 4) / h;
        need(key, at(sub.c_str()),
             "2 emissivity sigma ambient^4 / " + hx + " = 2 x " + number_words(d.emissivity) + " x " +
                 number_words(kStefanBoltzmann) + " x " + number_words(d.radiation_ambient) + "^4 / " + number_words(h),
             q, "a smaller ambient temperature (radiation needs kelvin)");
        if (cap > 0)
          need(key, at(sub.c_str()), "dt x 2 emissivity sigma ambient^4 / (" + hx + " c) = " + number_words(p.dt) +
                                         " x " + number_words(q) + " / " + number_words(cap),
               p.dt * q / cap, "a smaller ambient temperature or time step");
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

const FaceOrigin& first_radiating_face(const RunConfig& c) {
  for (int f = 0; f < 6; ++f) {
    const FaceData& d = f % 2 ? c.problem.hi_data[f / 2] : c.problem.lo_data[f / 2];
    if (d.emissivity > 0.0) return c.faces[static_cast<std::size_t>(f)];
  }
  ADI_THROW(InvalidArgument, "first_radiating_face: no face radiates");
}

}  // namespace adi::io
