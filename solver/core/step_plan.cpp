#include <adi/step_plan.hpp>

#include <adi/split.hpp>

namespace adi {

const char* row_provider_name(RowProvider r) {
  switch (r) {
    case RowProvider::ConstantTables: return "constant tables";
    case RowProvider::AxisTables: return "axis tables";
    case RowProvider::FieldRows: return "field rows";
  }
  return "?";
}

StepPlan plan_step(const HeatProblem& p) {
  StepPlan plan;
  plan.scheme = p.scheme_in_use();
  if (p.material.lines_vary())
    plan.rows = RowProvider::FieldRows;
  else if (p.classic_problem() && plan.scheme == SchemeType::Douglas)
    plan.rows = RowProvider::ConstantTables;
  else
    plan.rows = RowProvider::AxisTables;
  return plan;
}

std::vector<Phase> scheme_phases(const HeatProblem& p, const StepPlan& plan) {
  if (plan.scheme != SchemeType::Strang) return {Phase::Rhs, Phase::SolveX, Phase::SolveY, Phase::SolveZ};
  std::vector<Phase> ph{Phase::Rhs};
  for (const SplitFactor& f : strang_sequence(p))
    ph.push_back(f.axis == 0 ? Phase::SolveX : f.axis == 1 ? Phase::SolveY : Phase::SolveZ);
  return ph;
}

}  // namespace adi
