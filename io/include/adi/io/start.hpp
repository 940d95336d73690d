#pragma once
// A fresh run's starting point, from its config: where its input files are,
// the problem its stepper solves and its initial field. Shared by
// `adi3d run` (app/run_driver.cpp, which adds restarts, MPI and logging) and
// the Python Problem (python/src/problem.cpp), so that both start from the
// same values bit for bit.

#include <adi/io/config.hpp>
#include <adi/io/hdf5.hpp>
#include <adi/problem.hpp>

#include <optional>
#include <string>
#include <vector>

namespace adi::io {

/// An input path of the config (initial or material file): relative paths
/// are relative to the config's folder (c.base_dir).
std::string resolve_input(const RunConfig& c, const std::string& path);

/// The problem the stepper solves: the config's, plus (general problems
/// only) the field its Dirichlet faces take their values from (dirichlet.hpp):
/// the initial file's (`initial`, the header inspect_field read; without it
/// and with moving faces, a restart, the file is inspected again), a
/// uniform value's, or 0 where `boundary_from_file: false` says so. Classic
/// problems are returned unchanged.
HeatProblem stepper_problem(const RunConfig& c, const std::optional<FieldInfo>& initial);

/// Whether the stepper reads the initial field again during the run: some
/// Dirichlet face keeps the initial field's values and moves with a table
/// (its value at t is the initial value times f(t)), and the faces are not
/// zeroed (`boundary_from_file: false`).
bool faces_read_initial(const RunConfig& c);

/// Where faces_read_initial(c): points c.problem.initial_field at what they
/// read, an Hdf5Field of the initial file (`initial`, or the file inspected
/// again: a restart) or the uniform value, so that its contents are part of
/// the problem (identity.hpp) and every rank's stepper reads the same
/// source. Does nothing otherwise.
void attach_face_values(RunConfig& c, const std::optional<FieldInfo>& initial);

/// Sets the nodes of every Dirichlet face to 0 (`boundary_from_file: false`).
template <class T>
void zero_dirichlet_faces(const HeatProblem& p, std::vector<T>& u);

/// A run in one process: ConfigError naming parallel.grid when the config
/// asks for a process grid of more than one rank; `hint` says what to do
/// instead (the CLI's mpirun, the Python Problem's adi3d run).
void check_single_process(const RunConfig& c, const std::string& hint);

/// The whole initial field of a fresh start, packed x fastest: the initial
/// file (`initial` is its header; values checked finite, converted to T with
/// the rounding counted), a uniform value, or the analytic mode.
template <class T>
FieldData<T> initial_values(const RunConfig& c, const std::optional<FieldInfo>& initial);

}  // namespace adi::io
