#pragma once
// Errors are exceptions that carry the source file and line where they were
// raised (Ginkgo style); the message itself is written for the user.

#include <stdexcept>
#include <string>

namespace adi {

class Error : public std::runtime_error {
 public:
  Error(const std::string& message, const char* file = "", int line = 0)
      : std::runtime_error(message), file_(file ? file : ""), line_(line) {}
  const char* source_file() const noexcept { return file_; }
  int source_line() const noexcept { return line_; }

 private:
  const char* file_;
  int line_;
};

/// A caller passed something the library cannot work with (bad sizes, bad strides...).
class InvalidArgument : public Error { using Error::Error; };
/// A backend that was not built, or a device that is not there.
class BackendUnavailable : public Error { using Error::Error; };
/// Zero pivot, NaN/Inf in a field, parameters that make the scheme meaningless.
class NumericalError : public Error { using Error::Error; };

}  // namespace adi

#define ADI_THROW(Type, msg) throw Type((msg), __FILE__, __LINE__)
#define ADI_REQUIRE(cond, msg)                                   \
  do {                                                           \
    if (!(cond)) ADI_THROW(::adi::InvalidArgument, (msg));       \
  } while (0)
