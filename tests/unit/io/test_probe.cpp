// The probe's child tells a crash of the HDF5 library (a damaged file) from a
// crash in adi3d's own reader (a bug): before issue #13.6 both read "the HDF5
// library crashed", so a segfault in adi3d's code passed the crash tests.

#include <adi/io/checkpoint.hpp>
#include <adi/io/probe.hpp>

#include <gtest/gtest.h>

#include <csignal>
#include <string>

namespace {

std::string probe_message(const std::function<void()>& probe) {
  try {
    adi::io::probe_in_child("case.h5", "initial field", probe, adi::io::ProbeLimits{});
  } catch (const adi::io::IoError& e) {
    return e.what();
  }
  return "no error";
}

// Under ASan/UBSan (scripts/sanitize.sh) the sanitizer reports a crash and
// ends the child with an exit status before the child's signal handler runs,
// so there is no crash layer to name: these two tests are for the main build,
// which runs them; the sanitizer build reports them skipped, saying why.
#if defined(__SANITIZE_ADDRESS__)
#define ADI_SKIP_UNDER_SANITIZERS() \
  GTEST_SKIP() << "a sanitizer build: the sanitizer ends a crashing child before its signal handler runs"
#else
#define ADI_SKIP_UNDER_SANITIZERS() (void)0
#endif

// Through a volatile pointer so the compiler cannot see the null store.
void crash_in_our_code() {
  volatile int* volatile p = nullptr;
  *p = 1;
}

TEST(ProbeCrashLayer, CrashInAdi3dCodeIsNotBlamedOnHdf5) {
  ADI_SKIP_UNDER_SANITIZERS();
  const std::string m = probe_message(crash_in_our_code);
  EXPECT_NE(m.find("adi3d's own reader crashed reading it"), std::string::npos) << m;
  EXPECT_NE(m.find("test_probe"), std::string::npos) << "names the object that faulted: " << m;
  EXPECT_EQ(m.find("HDF5 library crashed"), std::string::npos) << m;
  // An abort in our code (a failed assertion) too.
  const std::string a = probe_message([] { std::abort(); });
  EXPECT_NE(a.find("adi3d's own reader crashed"), std::string::npos) << a;
}

TEST(ProbeCrashLayer, CrashInsideHdf5IsBlamedOnHdf5) {
  ADI_SKIP_UNDER_SANITIZERS();
  // A checkpoint found by tests/fuzz on which HDF5 1.10 reads out of bounds.
  const std::string file = std::string(ADI_SOURCE_DIR) + "/tests/fuzz/regressions/checkpoint/hdf5_global_heap_read_overflow";
  std::string m;
  try {
    adi::io::probe_in_child(file, "checkpoint", [&] { (void)adi::io::read_checkpoint_state(file); },
                            adi::io::ProbeLimits{});
    m = "no error";
  } catch (const adi::io::IoError& e) {
    m = e.what();
  }
  if (m.find("crashed") == std::string::npos) GTEST_SKIP() << "this HDF5 does not crash on the file: " << m;
  EXPECT_NE(m.find("the HDF5 library crashed reading it"), std::string::npos) << m;
  EXPECT_NE(m.find("the crash was in libhdf5"), std::string::npos) << "the child's handler named HDF5: " << m;
}

TEST(ProbeCrashLayer, ErrorsAndSuccessAreUnchanged) {
  EXPECT_EQ(probe_message([] {}), "no error");
  const std::string m = probe_message([] { throw adi::io::IoError("case.h5: bad", __FILE__, __LINE__); });
  EXPECT_NE(m.find("case.h5: bad"), std::string::npos) << m;
}

}  // namespace
