// transpose_bench kernels, double: the same widths as for float (every even
// I has a 16-byte path: two doubles per vector).
#include "bench_kernels.cuh"

ADI_BENCH_SCALAR(f64, double, 3);
ADI_BENCH_BOTH(f64, double, 4);
ADI_BENCH_BOTH(f64, double, 6);
ADI_BENCH_BOTH(f64, double, 8);
ADI_BENCH_BOTH(f64, double, 16);
ADI_BENCH_SCALAR(f64, double, 31);
ADI_BENCH_BOTH(f64, double, 32);
ADI_BENCH_SCALAR(f64, double, 33);
ADI_BENCH_BOTH(f64, double, 64);
