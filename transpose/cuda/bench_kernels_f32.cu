// transpose_bench kernels, float: every map at odd I, multiples of the vector
// length (scalar and 16-byte paths), and around one wavefront (31, 32, 33).
#include "bench_kernels.cuh"

ADI_BENCH_SCALAR(f32, float, 3);
ADI_BENCH_BOTH(f32, float, 4);
ADI_BENCH_SCALAR(f32, float, 6);
ADI_BENCH_BOTH(f32, float, 8);
ADI_BENCH_BOTH(f32, float, 16);
ADI_BENCH_SCALAR(f32, float, 31);
ADI_BENCH_BOTH(f32, float, 32);
ADI_BENCH_SCALAR(f32, float, 33);
ADI_BENCH_BOTH(f32, float, 64);
