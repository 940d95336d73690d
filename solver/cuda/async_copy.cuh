#pragma once
// cp.async (sm_80+) helpers: global -> shared copies that complete in the
// background, so a block can have its next tile in flight while it solves the
// current one. Copies are per thread; cp.async.wait_group waits for the
// calling thread's own groups only, so a consumer that reads slots written by
// other threads must add a barrier (__syncwarp / __syncthreads) after waiting.

#include <cuda_runtime.h>

namespace adi::cuda {

/// Copies sizeof(T) bytes (4 or 8) from gmem to smem; with valid == false
/// nothing is read and the slot is zero-filled (src-size 0).
template <class T>
__device__ __forceinline__ void cp_async(T* smem, const T* gmem, bool valid) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async of 4 or 8 bytes");
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(gmem), "n"(sizeof(T)),
               "r"(valid ? static_cast<int>(sizeof(T)) : 0)
               : "memory");
}

/// The same without the predicate: always copies (no src-size operand).
template <class T>
__device__ __forceinline__ void cp_async(T* smem, const T* gmem) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async of 4 or 8 bytes");
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(gmem), "n"(sizeof(T)) : "memory");
}

/// The same from gmem + Bytes, with the offset an immediate of the
/// instruction (a plain `gmem + r * 32` in an unrolled loop became a 64-bit
/// address computation per copy).
template <int Bytes, class T>
__device__ __forceinline__ void cp_async_at(T* smem, const T* gmem) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async of 4 or 8 bytes");
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1+%2], %3;\n" ::"r"(s), "l"(gmem), "n"(Bytes), "n"(sizeof(T))
               : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

/// Waits until at most N of this thread's most recent groups are pending.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/// Returns v, but the compiler cannot see that it is loop-invariant. Persistent
/// kernels call it once per tile on lane/segment indices, so that the address
/// arithmetic derived from them is recomputed per tile instead of hoisted out
/// of the loop into dozens of registers that the data needs.
__device__ __forceinline__ int opaque(int v) {
  int r;
  asm volatile("mov.b32 %0, %1;" : "=r"(r) : "r"(v));
  return r;
}

}  // namespace adi::cuda
