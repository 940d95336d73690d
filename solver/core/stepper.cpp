// What stepper.hpp declares beside the Stepper interface.

#include <adi/stepper.hpp>

namespace adi {

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::Rhs: return "rhs";
    case Phase::SolveX: return "x";
    case Phase::SolveY: return "y";
    case Phase::SolveZ: return "z+update";
    case Phase::Step: return "step";
    case Phase::RhsSolveX: return "rhs+x";
  }
  return "?";
}

}  // namespace adi
