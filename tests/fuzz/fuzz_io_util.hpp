#pragma once
// The HDF5 targets hand the input bytes to the readers as a file: HDF5 reads
// files, not memory (a file image would take another code path than adi3d's).

#include "fuzz_common.hpp"

#include <adi/io/probe.hpp>

#include <hdf5.h>

#include <dirent.h>
#include <fstream>
#include <sstream>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ADI_FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ADI_FUZZ_ASAN 1
#endif
#ifdef ADI_FUZZ_ASAN
#include <csignal>
#include <sanitizer/common_interface_defs.h>
#endif

namespace adi::fuzz {

/// A scratch file of this process (fuzzing workers are processes, so the
/// pid keeps them apart), removed at exit.
inline const std::string& scratch_file() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    std::string p = std::string(dir && *dir ? dir : "/tmp") + "/adi3d_fuzz_" + std::to_string(::getpid()) + ".h5";
    static std::string for_exit;
    for_exit = p;
    std::atexit([] { std::remove(for_exit.c_str()); });
    return p;
  }();
  return path;
}

inline const std::string& write_scratch(const std::uint8_t* data, std::size_t size) {
  const std::string& p = scratch_file();
  std::FILE* f = std::fopen(p.c_str(), "wb");
  if (!f) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return p;
}

/// Every HDF5 identifier adi3d opened for the input is closed again, on
/// success and on every error path (its RAII handles); HDF5's own leaks on
/// damaged metadata are suppressed (lsan.supp), a leaked handle is not.
inline void expect_no_open_hdf5_objects() {
  const ssize_t open = H5Fget_obj_count(static_cast<hid_t>(H5F_OBJ_ALL), H5F_OBJ_ALL);
  if (open != 0) finding("HDF5 objects left open after the input", std::to_string(open));
}

inline std::string scratch_dir() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

/// Reads and removes the sanitizer reports the probe's child left (files
/// "<prefix>.<pid>").
inline std::string take_reports(const std::string& dir, const std::string& stem) {
  std::string text;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.rfind(stem + ".", 0) != 0) continue;
      const std::string p = dir + "/" + name;
      std::ifstream f(p);
      std::ostringstream s;
      s << f.rdbuf();
      text += s.str();
      std::remove(p.c_str());
    }
    ::closedir(d);
  }
  return text;
}

/// Whether a sanitizer report blames the HDF5 library (the innermost frame
/// that is either HDF5 or adi3d is HDF5's) rather than adi3d's code.
inline bool blames_hdf5(const std::string& report) {
  if (report.find("runtime error:") != std::string::npos) return false;  // UBSan: only adi3d is instrumented
  std::istringstream in(report);
  for (std::string line; std::getline(in, line);) {
    if (line.find("    #") != 0) continue;
    if (line.find("libhdf5") != std::string::npos) return true;
    if (line.find(" adi::") != std::string::npos || line.find("/io/src/") != std::string::npos ||
        line.find("/solver/") != std::string::npos)
      return false;
  }
  return true;  // no stack (a plain signal): only HDF5 runs uninstrumented in the child
}

#ifdef ADI_FUZZ_ASAN
/// In the probe's child: an abort (a finding of the target, an assertion)
/// leaves a stack in the report for blames_hdf5, and libFuzzer's death
/// callback (which would save a crash input for a contained crash) is off.
extern "C" inline void abort_with_stack(int) {
  __sanitizer_print_stack_trace();
  ::_exit(1);
}
inline void child_setup(const std::string& report_prefix) {
  __sanitizer_set_report_path(report_prefix.c_str());
  __sanitizer_set_death_callback(nullptr);
  std::signal(SIGABRT, abort_with_stack);
}
#else
inline void child_setup(const std::string&) {}
#endif

/// adi3d's order of things (io/probe.hpp): the read runs in a child first.
/// Returns true when the child's read succeeded (the caller then repeats it
/// in-process, as adi3d does, where libFuzzer counts coverage and the
/// sanitizers watch); false when it failed with an error (adi3d reports that
/// error without repeating the read: checked to be one line) or the child
/// died inside the HDF5 library, which adi3d turns into a clear IoError
/// (exit 3): contained, not a finding. A child that died in adi3d's own code,
/// or hung, is a finding.
/// adi3d's ADI_ISOLATE_READS, read here as adi3d's app reads it (the io
/// library takes it as ProbeLimits::isolate): run_fuzzer.sh fuzzes with
/// ADI_ISOLATE_READS=0 (in-process, ~10x faster) and triages with 1.
inline bool isolate_reads() {
  const char* v = std::getenv("ADI_ISOLATE_READS");
  return !(v && std::string(v) == "0");
}

template <class F>
bool child_survives(const std::string& path, F&& read) {
  const std::string dir = scratch_dir();
  const std::string stem = "adi3d_fuzz_report_" + std::to_string(::getpid());
  const std::string prefix = dir + "/" + stem;
  try {
    adi::io::probe_in_child(
        path, "fuzz input",
        [&] {
          child_setup(prefix);
          read();
        },
        adi::io::ProbeLimits{isolate_reads(), 8.0, 1024.0 * 1024 * 1024});
    return true;
  } catch (const adi::io::IoError& e) {
    const std::string report = take_reports(dir, stem);
    const std::string m = e.what();
    if (m.find("did not finish") != std::string::npos) finding("the read hangs", m);
    if (m.find("crashed reading it") == std::string::npos) {
      expect_clean_failure([&] { throw; });  // the child's error: one line, an adi::Error
      return false;
    }
    // The child names the layer it crashed in (io/src/probe.cpp); in the main
    // build, with no sanitizer report, that is the only way to tell.
    if (m.find("adi3d's own reader crashed") != std::string::npos || !blames_hdf5(report))
      finding("crash in adi3d's code (in the probe's child)", m + "\n" + report);
    return false;
  }
}

/// The run's memory check (app/memory.cpp) happens before any field is
/// read: a file claiming a huge grid stops there with exit 7. The targets
/// read only fields up to this many nodes (and count the rest as checked).
constexpr std::int64_t kMaxNodes = std::int64_t(1) << 20;

}  // namespace adi::fuzz
