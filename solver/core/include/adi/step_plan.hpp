#pragma once
// The planner: how a stepper forms the rows of its line solves and the
// right-hand side they solve for, decided once per problem and only here.
// Every backend builds its one stepper from the plan; a new kind of row (a
// stretched grid, a temperature-dependent K) is a new provider here and its
// rows in discrete.hpp, not a new stepper.

#include <adi/problem.hpp>
#include <adi/stepper.hpp>

#include <vector>

namespace adi {

enum class RowProvider : int {
  /// Constant K and c, Dirichlet (values from the initial field) and
  /// insulated faces, no source or tables, the Douglas scheme: one
  /// factorised matrix per axis (scheme.hpp's douglas_line_matrix) and the
  /// seven-point right-hand side of scheme.hpp. The constant problem's
  /// reference bits and its fastest kernels.
  ConstantTables = 0,
  /// K and c constant along every line (constants, per axis), any face type,
  /// sources, tables: one matrix per axis from discrete.hpp's rows,
  /// factorised once (a cyclic one on a periodic axis).
  AxisTables = 1,
  /// A K or c field: each line's rows formed from the fields as the line is
  /// solved (discrete.hpp's rows, harmonic face means).
  FieldRows = 2,
};
const char* row_provider_name(RowProvider r);

struct StepPlan {
  SchemeType scheme = SchemeType::Douglas;  ///< the scheme in use (never Auto)
  RowProvider rows = RowProvider::ConstantTables;
  bool constant_tables() const { return rows == RowProvider::ConstantTables; }
};

/// The plan of p's step.
StepPlan plan_step(const HeatProblem& p);

/// The phases of a step of p under the plan's scheme, in order: Douglas
/// Rhs, SolveX, SolveY, SolveZ; Strang the Dirichlet terms (Rhs), then one
/// solve phase per factor of strang_sequence (split.hpp).
std::vector<Phase> scheme_phases(const HeatProblem& p, const StepPlan& plan);

}  // namespace adi
