#pragma once
// Where a computation runs: shared by the solver (backend choice), io (the
// config's `backend:` key) and the app, so that none of them needs the
// stepper's header for a name.

namespace adi {

enum class Backend { Cpu, Cuda, Auto };

constexpr const char* backend_name(Backend b) {
  return b == Backend::Cpu ? "cpu" : b == Backend::Cuda ? "cuda" : b == Backend::Auto ? "auto" : "?";
}

}  // namespace adi
