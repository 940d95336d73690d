#pragma once
// ADI_REQUIRE_GPU: the one parser of the knob that turns a GPU test's
// "no device, skipped" into a failure (the device runs set it to 1). Shared
// by tests/gpu (gpu_support.hpp), tests/mpi and the
// stepper contract, so a value cannot mean "required" to one and not to
// another: exactly "1" requires a GPU, anything else (unset, "", "0", "yes")
// does not, as the ctest entry of transpose_bench_roundtrip reads it.

#include <cstdlib>
#include <cstring>

namespace adi::test {

inline bool gpu_required() {
  const char* s = std::getenv("ADI_REQUIRE_GPU");
  return s != nullptr && std::strcmp(s, "1") == 0;
}

}  // namespace adi::test
