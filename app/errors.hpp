#pragma once
// Exceptions -> exit codes (exit_codes.hpp) and the one-line messages users
// see, and how errors end a distributed run.
//
// Under MPI an error on one rank must not leave the others waiting forever
// in a collective call. Two cases:
//   * errors all ranks can agree on (planning, opening files, building the
//     stepper, a step that failed on every rank together:
//     Stepper::failure_agreed): the work runs inside collectively(), which
//     tells every rank whether any failed; the lowest rank whose own error
//     it is prints it, and every rank ends with CollectiveError carrying
//     its message: the same exit code, MPI finalised normally;
//   * an error on one rank in the middle of the run (a failed write on
//     rank 0): main prints it and calls MPI_Abort with its exit code.
#include <adi/error.hpp>

#include <exception>
#include <functional>
#include <string>

namespace adi::app {

/// The exit code of an exception; `kind` gets the message prefix
/// ("error: ", "numerical error: ", ...).
int exit_code_of(const std::exception& e, const char** kind = nullptr);
/// Prints "adi3d: <kind><message>" on stderr (the source location at
/// --verbose; "[rank N]" first when tag_rank) and returns the exit code.
int report(const std::exception& e, bool tag_rank = false);

/// An error that every rank of the run raised together.
class CollectiveError : public Error {
 public:
  CollectiveError(int code, const std::string& message, bool reported, const char* file = "", int line = 0)
      : Error(message, file, line), code_(code), reported_(reported) {}
  int code() const { return code_; }
  /// Already printed (by the rank it came from); otherwise rank 0 prints it.
  bool reported() const { return reported_; }

 private:
  int code_;
  bool reported_;
};

/// Runs f on every rank of the run and agrees on the outcome (see above);
/// on a single rank it simply runs f.
void collectively(const std::function<void()>& f);

}  // namespace adi::app
