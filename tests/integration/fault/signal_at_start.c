/* A signal while the shared libraries start up (the ~20 ms before main).
 *
 * Preloaded into adi3d (LD_PRELOAD), this library's initialiser runs with
 * the other libraries' (Open MPI's, HDF5's, the C++ runtime's) and, when
 * ADI_TEST_SIGNAL_AT_START names a signal number, raises it there: what a
 * SIGTERM sent in the first milliseconds of a run does. adi3d installs its
 * handlers from the executable's .preinit_array, which the dynamic loader
 * runs before every library initialiser, so the signal is caught and the run
 * stops before its first step (exit 75); without that it killed adi3d by
 * the default action (exit 143).
 */
#include <signal.h>
#include <stdlib.h>

__attribute__((constructor)) static void adi_test_signal_at_start(void) {
  const char* s = getenv("ADI_TEST_SIGNAL_AT_START");
  if (s && *s) raise(atoi(s));
}
