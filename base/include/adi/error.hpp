#pragma once
// Errors are exceptions that carry the source file and line where they were
// raised (Ginkgo style); the message itself is written for the user.

#include <cstdio>
#include <stdexcept>
#include <string>

namespace adi {

/// `text` with control characters and bytes that are not UTF-8 escaped
/// (\n, \t, \r, \xHH), so that a message quoting user input (a config value,
/// a file name, a library's text) stays one readable line on the terminal;
/// longer than `max_len` bytes it is cut and "..." appended (0: no limit).
inline std::string printable(const std::string& text, std::size_t max_len = 0) {
  std::string out;
  const bool cut = max_len > 0 && text.size() > max_len;
  const std::size_t n = cut ? max_len : text.size();
  out.reserve(n + 8);
  auto hex = [&](unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    out += buf;
  };
  for (std::size_t q = 0; q < n; ++q) {
    const unsigned char c = static_cast<unsigned char>(text[q]);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7f) hex(c);
    else if (c < 0x80) out += static_cast<char>(c);
    else {
      // A UTF-8 sequence is kept whole (names with accents stay readable).
      const std::size_t len = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
      bool ok = len > 0 && q + len <= n;
      for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(text[q + k]) & 0xc0) == 0x80;
      if (ok) {
        out.append(text, q, len);
        q += len - 1;
      } else {
        hex(c);
      }
    }
  }
  if (cut) out += "...";
  return out;
}

/// Every message is one line: printable() is applied here, once for all
/// subclasses, because messages quote what inputs hold (a dataset name from
/// an HDF5 file, an attribute, a path) and any of them may carry a newline
/// (the fuzzer found one in the list of a file's datasets). printable() of
/// printable text is the same text, so a message escaped before stays as it is.
class Error : public std::runtime_error {
 public:
  Error(const std::string& message, const char* file = "", int line = 0)
      : std::runtime_error(printable(message)), file_(file ? file : ""), line_(line) {}
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
