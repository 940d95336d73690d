// The resolved config as YAML: every default filled in, the scheme and the
// grid as they run (--dry-run, the log, the files' provenance, checkpoints).

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

namespace adi::io {

namespace config_reader {

namespace {

void emit_field(YAML::Emitter& e, const FieldRef& f) {
  e << YAML::Flow << YAML::BeginMap << YAML::Key << "file" << YAML::Value << f.file << YAML::Key << "dataset"
    << YAML::Value << f.dataset << YAML::EndMap;
}

void emit_table(YAML::Emitter& e, const TimeTable& t) {
  e << YAML::Flow << YAML::BeginSeq;
  for (std::size_t k = 0; k < t.t.size(); ++k) e << YAML::Flow << YAML::BeginSeq << num(t.t[k]) << num(t.v[k]) << YAML::EndSeq;
  e << YAML::EndSeq;
}

/// The short forms where they say everything (so that the resolved configs
/// of runs without the new face data stay as they were), else the long form.
void emit_face(YAML::Emitter& e, Boundary b, const FaceData& d) {
  if (b == Boundary::Periodic) {
    e << "periodic";
    return;
  }
  if (b == Boundary::Dirichlet && d.value_from_initial && d.table.empty()) {
    e << "dirichlet";
    return;
  }
  if (b == Boundary::Neumann && d.flux == 0.0 && d.table.empty() && !(d.emissivity > 0.0)) {
    e << "neumann";
    return;
  }
  e << YAML::Flow << YAML::BeginMap << YAML::Key << "type" << YAML::Value;
  if (b == Boundary::Dirichlet) {
    e << "dirichlet";
    if (!d.value_from_initial) e << YAML::Key << "value" << YAML::Value << num(d.value);
  } else if (b == Boundary::Neumann) {
    e << "neumann" << YAML::Key << "flux" << YAML::Value << num(d.flux);
  } else {
    e << "convective" << YAML::Key << "h" << YAML::Value << num(d.h) << YAML::Key << "ambient" << YAML::Value << num(d.ambient);
  }
  if (!d.table.empty()) {
    e << YAML::Key << "table" << YAML::Value;
    emit_table(e, d.table);
  }
  if (d.emissivity > 0.0)
    e << YAML::Key << "radiation" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "emissivity"
      << YAML::Value << num(d.emissivity) << YAML::Key << "ambient" << YAML::Value << num(d.radiation_ambient)
      << YAML::EndMap;
  e << YAML::EndMap;
}

/// A material property: its number, or its table [[T, value], ...].
void emit_property(YAML::Emitter& e, const PropertyTable& t) {
  if (t.constant()) {
    e << num(t.v[0]);
    return;
  }
  e << YAML::Flow << YAML::BeginSeq;
  for (std::size_t k = 0; k < t.t.size(); ++k)
    e << YAML::Flow << YAML::BeginSeq << num(t.t[k]) << num(t.v[k]) << YAML::EndSeq;
  e << YAML::EndSeq;
}

}  // namespace

std::string emit_resolved(const RunConfig& c) {
  const HeatProblem& p = c.problem;
  YAML::Emitter e;
  e.SetDoublePrecision(17);
  e << YAML::BeginMap;
  // A stretched axis as its coordinates (a rule's nodes resolved), and no
  // length of its own: they give it (settle_coordinates).
  e << YAML::Key << "grid" << YAML::Value << YAML::Flow << YAML::BeginMap;
  for (int a = 0; a < 3; ++a) {
    if (!p.stretched(a)) {
      e << YAML::Key << std::string("n") + "xyz"[a] << YAML::Value << p.n[a];
      continue;
    }
    const std::vector<double>& x = p.coordinates[a];
    const std::size_t nodes = static_cast<std::size_t>(p.n[a]);
    e << YAML::Key << std::string(1, "xyz"[a]) << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
      << "coordinates" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (std::size_t i = 0; i < nodes; ++i) e << num(x[i]);
    e << YAML::EndSeq;
    if (x.size() > nodes) e << YAML::Key << "period" << YAML::Value << num(x[nodes] - x[0]);
    e << YAML::EndMap;
  }
  e << YAML::EndMap;
  e << YAML::Key << "domain" << YAML::Value << YAML::Flow << YAML::BeginMap;
  for (int a = 0; a < 3; ++a)
    if (!p.stretched(a)) e << YAML::Key << std::string("l") + "xyz"[a] << YAML::Value << num(p.length[a]);
  e << YAML::Key << "origin" << YAML::Value << YAML::Flow << YAML::BeginSeq << num(c.origin[0])
    << num(c.origin[1]) << num(c.origin[2]) << YAML::EndSeq << YAML::EndMap;
  if (c.material.given && (c.material.regions.given() || c.material.temperature)) {
    const MaterialConfig& m = c.material;
    e << YAML::Key << "material" << YAML::Value << YAML::BeginMap;
    if (m.regions.given()) {
      e << YAML::Key << "regions" << YAML::Value;
      emit_field(e, m.regions);
    }
    e << YAML::Key << "materials" << YAML::Value << YAML::BeginMap;
    for (const RegionMaterial& mat : m.materials) {
      e << YAML::Key << mat.name << YAML::Value << YAML::Flow << YAML::BeginMap;
      if (m.regions.given()) e << YAML::Key << "id" << YAML::Value << mat.id;
      e << YAML::Key << "conductivity" << YAML::Value;
      if (mat.isotropic) {
        emit_property(e, mat.conductivity[0]);
      } else {
        // A flat axis (nz = 1) has no conduction: its value, when not given, is 0 and not written.
        e << YAML::Flow << YAML::BeginMap;
        for (int a = 0; a < 3; ++a)
          if (!(p.flat(a) && mat.conductivity[a].constant() && mat.conductivity[a].v[0] == 0.0)) {
            e << YAML::Key << std::string(1, "xyz"[a]) << YAML::Value;
            emit_property(e, mat.conductivity[a]);
          }
        e << YAML::EndMap;
      }
      e << YAML::Key << "heat_capacity" << YAML::Value;
      emit_property(e, mat.capacity);
      e << YAML::EndMap;
    }
    e << YAML::EndMap << YAML::EndMap;
  } else if (c.material.given) {
    const MaterialConfig& m = c.material;
    e << YAML::Key << "material" << YAML::Value << YAML::Flow << YAML::BeginMap;
    e << YAML::Key << "conductivity" << YAML::Value;
    if (m.isotropic_field) {
      emit_field(e, m.conductivity[0]);
    } else {
      e << YAML::Flow << YAML::BeginMap;
      for (int a = 0; a < 3; ++a) {
        e << YAML::Key << std::string(1, "xyz"[a]) << YAML::Value;
        if (m.conductivity[a].given())
          emit_field(e, m.conductivity[a]);
        else
          e << num(p.alpha[a]);
      }
      e << YAML::EndMap;
    }
    e << YAML::Key << "heat_capacity" << YAML::Value;
    if (m.capacity.given())
      emit_field(e, m.capacity);
    else
      e << num(p.capacity);
    e << YAML::EndMap;
  } else {
    e << YAML::Key << "diffusivity" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "x"
      << YAML::Value << num(p.alpha[0]) << YAML::Key << "y" << YAML::Value << num(p.alpha[1]) << YAML::Key << "z"
      << YAML::Value << num(p.alpha[2]) << YAML::EndMap;
  }
  // Only when there is one: the resolved configs of the other runs stay as they were.
  if (p.source != 0.0 || c.material.source.given() || !p.source_table.empty()) {
    e << YAML::Key << "source" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "power_density"
      << YAML::Value;
    if (c.material.source.given())
      emit_field(e, c.material.source);
    else
      e << num(p.source);
    if (!p.source_table.empty()) {
      e << YAML::Key << "table" << YAML::Value;
      emit_table(e, p.source_table);
    }
    e << YAML::EndMap;
  }
  e << YAML::Key << "boundary" << YAML::Value << YAML::Flow << YAML::BeginMap;
  const char* ax[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a)) continue;  // a flat axis has no faces (and naming one is an error)
    for (int side = 0; side < 2; ++side) {
      e << YAML::Key << std::string(ax[a]) + (side ? "_hi" : "_lo") << YAML::Value;
      emit_face(e, side ? p.hi[a] : p.lo[a], side ? p.hi_data[a] : p.lo_data[a]);
    }
  }
  e << YAML::EndMap;
  const bool steady = c.solve.steady;
  if (steady) {
    e << YAML::Key << "solve" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "steady" << YAML::Value
      << YAML::Flow << YAML::BeginMap << YAML::Key << "tolerance" << YAML::Value << num(c.solve.tolerance)
      << YAML::Key << "max_iterations" << YAML::Value << c.solve.max_iterations << YAML::EndMap << YAML::EndMap;
  } else {
    e << YAML::Key << "time" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "dt" << YAML::Value
      << num(p.dt) << YAML::Key << "steps" << YAML::Value << c.steps;
    // Only when set: the resolved configs of the other runs stay as they were.
    if (c.t_start != 0.0) e << YAML::Key << "start" << YAML::Value << number_words(c.t_start);
    if (c.solve.stop_rate > 0) e << YAML::Key << "stop_rate" << YAML::Value << num(c.solve.stop_rate);
    e << YAML::EndMap;
    e << YAML::Key << "scheme" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "type" << YAML::Value
      << scheme_name(p.scheme_in_use()) << YAML::Key << "theta" << YAML::Value << num(p.theta);
    if (c.material.temperature || p.radiates())
      e << YAML::Key << "nonlinear" << YAML::Value << nonlinear_step_name(p.nonlinear);
    e << YAML::EndMap;
  }
  e << YAML::Key << "precision" << YAML::Value << precision_name(c.precision);
  e << YAML::Key << "backend" << YAML::Value << backend_name(c.backend);
  if (c.initial.kind == InitialConfig::Kind::Analytic) {
    e << YAML::Key << "initial" << YAML::Value << "analytic";
  } else if (c.initial.kind == InitialConfig::Kind::Uniform) {
    e << YAML::Key << "initial" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "value"
      << YAML::Value << c.initial.value << YAML::EndMap;
  } else {
    e << YAML::Key << "initial" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "file"
      << YAML::Value << c.initial.file << YAML::Key << "dataset" << YAML::Value << c.initial.dataset << YAML::Key
      << "boundary_from_file" << YAML::Value << c.initial.boundary_from_file << YAML::EndMap;
  }
  if (steady) {  // (the keys check_steady allows)
    e << YAML::Key << "output" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "file" << YAML::Value
      << c.output.file << YAML::Key << "compression" << YAML::Value << c.output.compression << YAML::Key << "xdmf"
      << YAML::Value << c.output.xdmf;
  } else {
    e << YAML::Key << "output" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "file" << YAML::Value
      << c.output.file << YAML::Key << "every" << YAML::Value << c.output.every_steps << YAML::Key << "every_time"
      << YAML::Value << num(c.output.every_time) << YAML::Key << "initial" << YAML::Value << c.output.write_initial
      << YAML::Key << "final" << YAML::Value << c.output.write_final << YAML::Key << "compression" << YAML::Value
      << c.output.compression << YAML::Key << "xdmf" << YAML::Value << c.output.xdmf;
  }
  // Only when asked for: the resolved configs of other runs stay as they were.
  if (c.output.heat_flux)
    e << YAML::Key << "fields" << YAML::Value << YAML::Flow << YAML::BeginSeq << "u" << "heat_flux" << YAML::EndSeq;
  e << YAML::EndMap;
  if (!steady)
    e << YAML::Key << "checkpoint" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "file"
      << YAML::Value << c.checkpoint.file << YAML::Key << "every" << YAML::Value << c.checkpoint.every_steps
      << YAML::Key << "every_seconds" << YAML::Value << num(c.checkpoint.every_seconds) << YAML::EndMap;
  e << YAML::Key << "log" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "every" << YAML::Value
    << c.log_every << YAML::EndMap;
  if (c.probes.any()) {
    const ProbesConfig& pc = c.probes;
    e << YAML::Key << "probes" << YAML::Value << YAML::BeginMap << YAML::Key << "points" << YAML::Value
      << YAML::BeginMap;
    for (const ProbePoint& pt : pc.points)
      e << YAML::Key << pt.name << YAML::Value << YAML::Flow << YAML::BeginSeq << num(pt.x[0]) << num(pt.x[1])
        << num(pt.x[2]) << YAML::EndSeq;
    e << YAML::EndMap << YAML::Key << "every" << YAML::Value << pc.every << YAML::Key << "csv" << YAML::Value;
    if (!pc.csv_file.empty())
      e << YAML::DoubleQuoted << pc.csv_file;
    else
      e << pc.csv;
    e << YAML::EndMap;
  }
  // Only when on: configs of runs without diagnostics stay as they were.
  if (c.diagnostics.heat_flows) {
    e << YAML::Key << "diagnostics" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "heat_flows"
      << YAML::Value << true;
    if (c.diagnostics.csv) {
      e << YAML::Key << "csv" << YAML::Value;
      if (c.diagnostics.csv_file.empty())
        e << true;
      else
        e << c.diagnostics.csv_file;
    }
    e << YAML::EndMap;
  }
  // Only when set: the automatic grid depends on the rank count of each run,
  // and configs of serial runs stay as they were.
  if (!c.parallel.automatic())
    e << YAML::Key << "parallel" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "grid"
      << YAML::Value << YAML::Flow << YAML::BeginSeq << c.parallel.grid[0] << c.parallel.grid[1]
      << c.parallel.grid[2] << YAML::EndSeq << YAML::EndMap;
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

}  // namespace config_reader

std::string to_yaml(const RunConfig& c) { return config_reader::emit_resolved(c); }

}  // namespace adi::io
