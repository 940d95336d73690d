#pragma once
// Device selection and the phase clock shared by the CUDA stepper and the
// CUDA rank boxes; their field statistics share field_stats.cuh.

#include "cuda_check.hpp"

#include <adi/options.hpp>

#include <algorithm>
#include <string>

namespace adi::cuda::detail {

// SolverOptions::cuda_device (ADI_CUDA_DEVICE; -1: device 0).
inline int select_device(int requested) {
  int n = 0;
  ADI_CUDA_CHECK(cudaGetDeviceCount(&n));
  const int dev = requested < 0 ? 0 : requested;
  if (dev >= n)
    ADI_THROW(BackendUnavailable, "ADI_CUDA_DEVICE=" + std::to_string(dev) + " but " + std::to_string(n) +
                                      " CUDA device(s) are visible");
  ADI_CUDA_CHECK(cudaSetDevice(dev));
  return dev;
}

// Elements a device row is padded to (SolverOptions::device_row_pitch: why
// 128 bytes). Shared by the classic and general steppers and their MPI ranks.
template <class T>
index_t row_align_elems(const SolverOptions& o) {
  return o.device_row_pitch(1, sizeof(T));  // one element rounded up: the alignment
}

// The end of a "does not fit" message: where rows padded to 16 bytes only
// (ADI_ROW_ALIGN=16) would fit, say so. elems_at(a): the elements the
// arrays take with rows padded to a elements.
template <class T, class F>
std::string row_align_hint(const SolverOptions& o, std::size_t arrays, std::size_t free_b, F elems_at) {
  const index_t a = std::max<index_t>(1, 16 / static_cast<index_t>(sizeof(T)));
  if (row_align_elems<T>(o) <= a) return "";
  const std::size_t need = arrays * sizeof(T) * static_cast<std::size_t>(elems_at(a));
  if (need > free_b) return "";
  return "; rows padded to 16 bytes (ADI_ROW_ALIGN=16) would need " + std::to_string(need >> 20) +
         " MiB, with slower y and z solves";
}

// The phase clock of a CUDA stepper (Stepper::clock_begin / clock_end_ms):
// two events on the stepper's stream, so that a phase is timed on the
// device, launch latency and queued work before it excluded. create() once
// the stepper's device is current (events belong to the device they were
// made on).
class EventClock {
 public:
  EventClock() = default;
  EventClock(const EventClock&) = delete;
  EventClock& operator=(const EventClock&) = delete;
  ~EventClock() {
    if (ev0_) cudaEventDestroy(ev0_);
    if (ev1_) cudaEventDestroy(ev1_);
  }
  void create() {
    ADI_CUDA_CHECK(cudaEventCreate(&ev0_));
    ADI_CUDA_CHECK(cudaEventCreate(&ev1_));
  }
  void begin(cudaStream_t s) { ADI_CUDA_CHECK(cudaEventRecord(ev0_, s)); }
  double end_ms(cudaStream_t s) {
    ADI_CUDA_CHECK(cudaEventRecord(ev1_, s));
    ADI_CUDA_CHECK(cudaEventSynchronize(ev1_));
    float t = 0;
    ADI_CUDA_CHECK(cudaEventElapsedTime(&t, ev0_, ev1_));
    return t;
  }

 private:
  cudaEvent_t ev0_ = nullptr, ev1_ = nullptr;
};

}  // namespace adi::cuda::detail
