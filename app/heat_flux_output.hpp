#pragma once
// `output.fields: [u, heat_flux]` in `adi3d run`: the heat flux of each
// output step (io/heat_flux.hpp has the formula) in the writers' layout.

#include <adi/io/io.hpp>
#include <adi/solver.hpp>

#include <array>
#include <memory>
#include <optional>
#include <vector>

namespace adi::app {

/// `output.fields: [u, heat_flux]`: the heat flux of the field the writers
/// are given, in their layout (io/heat_flux.hpp). Whole-field writes
/// (one process, or gathered to rank 0): rank 0 computes it from the whole
/// field. Collective writes: each rank from its box, with the neighbouring
/// ranks' planes it needs from one all-reduce per split axis (a few planes,
/// at output steps only). The conductivity fields are read once, by boxes.
template <class T>
class HeatFluxOutput {
 public:
  HeatFluxOutput() = default;
  /// Collective: reads the conductivity fields this rank needs. `part`:
  /// this rank's box with collective writes; `dec`: the decomposition of a
  /// distributed run.
  HeatFluxOutput(const io::RunConfig& c, bool root, const std::optional<io::FieldPart>& part,
                 const std::optional<Decomposition>& dec);
  bool active() const { return active_; }
  /// Collective with collective writes. `values`: what the writers write
  /// (rank 0's whole field, or this rank's box); the flux in the same
  /// layout times 3, or nullptr where this rank writes no field.
  const T* compute(double t, const T* values);

 private:
  bool active_ = false, root_ = true;
  HeatProblem p_;
  std::optional<io::FieldPart> part_;
  std::optional<Decomposition> dec_;
  std::unique_ptr<io::FluxConductivity> K_;
  std::vector<T> flux_;
  std::array<std::array<std::vector<T>, 2>, 3> ghost_;
};

}  // namespace adi::app
