#pragma once
// What the whole-grid CUDA stepper is whatever its plan: the device and its
// stream, the field u and the work array w on it (rows possibly padded:
// Layout3), host copies of them, probes' node reads, the field statistics,
// the phase clock, and a step replayed as one CUDA graph. CudaStepper
// (general/general_stepper.cu) adds the stages of its plan.
#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "field_stats.cuh"
#include "stepper_support.cuh"

#include <adi/options.hpp>
#include <adi/stepper.hpp>

#include <array>
#include <string>

namespace adi::cuda::detail {

template <class T>
class DeviceGridStepper : public Stepper<T> {
 public:
  DeviceGridStepper(const DeviceGridStepper&) = delete;
  DeviceGridStepper& operator=(const DeviceGridStepper&) = delete;
  ~DeviceGridStepper() override {
    if (graph_) cudaGraphExecDestroy(graph_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  const HeatProblem& problem() const override { return p_; }
  Backend backend() const override { return Backend::Cuda; }

  // Host fields are packed (x fastest); the device's rows may be padded.
  void set_field(const T* host) override { upload(u_.get(), host); }
  void get_field(T* host) override { download(u_.get(), host); }
  void set_work(const T* host) override { upload(w_.get(), host); }
  void get_work(T* host) override { download(w_.get(), host); }
  FieldView<T> field_view() override {
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return {u_.get(), layout_, true, device_};
  }
  // A probe's few nodes: one small copy each, not the field (stepper.hpp).
  void read_nodes(const std::array<index_t, 3>* nodes, std::size_t count, T* out) override {
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (std::size_t q = 0; q < count; ++q)
      ADI_CUDA_CHECK(cudaMemcpyAsync(out + q, u_.get() + layout_.offset(nodes[q][0], nodes[q][1], nodes[q][2]),
                                     sizeof(T), cudaMemcpyDeviceToHost, stream_));
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 protected:
  /// Selects the device (SolverOptions::cuda_device) and reads its name;
  /// the derived stepper allocates u_ and w_ and calls create_stream().
  DeviceGridStepper(const HeatProblem& p, const SolverOptions& o, const Layout3& layout)
      : p_(p), options_(o), device_((set_sync_checks(o.cuda_sync), select_device(o.cuda_device))), layout_(layout) {
    cudaDeviceProp prop{};
    ADI_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    name_ = prop.name;
    sm_count_ = prop.multiProcessorCount;
  }

  /// Everything runs on stream_, a non-blocking stream: it does not wait for
  /// the legacy default stream, so a plain cudaMemset could land after
  /// set_field's copy (seen with two processes sharing one GPU).
  void create_stream() {
    ADI_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    clock_.create();
  }

  void clock_begin() override { clock_.begin(stream_); }
  double clock_end_ms() override { return clock_.end_ms(stream_); }

  /// One step's launches: replayed as one CUDA graph, captured at the first
  /// step, where use_graph_ (the same kernels with the same arguments every
  /// step: the result is bit for bit the same), else launched one by one.
  template <class F>
  void launch_step_kernels(F&& kernels) {
    if (!use_graph_) {
      kernels();
      return;
    }
    if (!graph_) {
      // Relaxed capture: the launchers' cudaFuncSetAttribute and occupancy
      // queries are not stream work and may run while the stream is captured.
      cudaGraph_t g = nullptr;
      ADI_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed));
      try {
        kernels();
      } catch (...) {
        // end the capture so that the stream is usable, then report the launch error
        if (cudaStreamEndCapture(stream_, &g) == cudaSuccess && g) cudaGraphDestroy(g);
        cudaGetLastError();
        throw;
      }
      ADI_CUDA_CHECK(cudaStreamEndCapture(stream_, &g));
      const cudaError_t e = cudaGraphInstantiate(&graph_, g, 0);
      cudaGraphDestroy(g);
      if (e != cudaSuccess) graph_ = nullptr;
      ADI_CUDA_CHECK(e);
    }
    ADI_CUDA_CHECK(cudaGraphLaunch(graph_, stream_));
  }

  void upload(T* dev, const T* host) {
    const std::size_t row = sizeof(T) * static_cast<std::size_t>(layout_.n[0]);
    ADI_CUDA_CHECK(cudaMemcpy2DAsync(dev, sizeof(T) * layout_.stride[1], host, row, row,
                                     static_cast<std::size_t>(layout_.n[1] * layout_.n[2]), cudaMemcpyHostToDevice,
                                     stream_));
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void download(const T* dev, T* host) {
    const std::size_t row = sizeof(T) * static_cast<std::size_t>(layout_.n[0]);
    ADI_CUDA_CHECK(cudaMemcpy2DAsync(host, row, dev, sizeof(T) * layout_.stride[1], row,
                                     static_cast<std::size_t>(layout_.n[1] * layout_.n[2]), cudaMemcpyDeviceToHost,
                                     stream_));
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  HeatProblem p_;
  SolverOptions options_;
  int device_;
  std::string name_;
  int sm_count_ = 1;
  Layout3 layout_;
  DeviceBuffer<T> u_, w_;
  FieldStatsReducer stats_;
  cudaStream_t stream_ = nullptr;
  bool use_graph_ = false;           ///< a step is one CUDA graph (launch_step_kernels)
  cudaGraphExec_t graph_ = nullptr;  ///< captured at the first step

 private:
  EventClock clock_;
};

}  // namespace adi::cuda::detail
