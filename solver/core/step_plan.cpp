#include <adi/step_plan.hpp>

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

}  // namespace adi
