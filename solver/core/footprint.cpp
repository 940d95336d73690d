#include <adi/footprint.hpp>

#include <algorithm>
#include <vector>

namespace adi {

StepperFootprint footprint_base(const HeatProblem& p, Precision precision, int ranks) {
  StepperFootprint f;
  const double points = static_cast<double>(p.n[0]) * static_cast<double>(p.n[1]) * static_cast<double>(p.n[2]);
  f.field_bytes = points * (precision == Precision::F32 ? 4.0 : 8.0);
  f.stepper_field = ranks > 1 ? 1.25 * f.field_bytes / ranks : f.field_bytes;
  // One array for each distinct field (an isotropic conductivity is one
  // array for the three axes), beside u and the work array.
  std::vector<const FieldSource*> distinct;
  const Material& mat = p.material;
  for (const FieldSource* s : {mat.conductivity[0].get(), mat.conductivity[1].get(), mat.conductivity[2].get(),
                               mat.capacity.get(), mat.source.get()})
    if (s && std::find(distinct.begin(), distinct.end(), s) == distinct.end()) distinct.push_back(s);
  f.material_fields = static_cast<int>(distinct.size());
  f.stepper_arrays = 2.0 + f.material_fields;
  return f;
}

}  // namespace adi
