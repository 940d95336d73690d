// transpose_bench: round-trips 32 x I tiles through WarpTranspose with every
// map, checks the result element by element, and times it; or, with --once,
// launches every kernel exactly once for ncu (scripts/transpose_ncu.sh) and
// records what the bank model predicts for that very launch.
//
//   transpose_bench [--filter S]... [--elements N] [--reps R] [--runs N]
//                   [--once [--tiles N]] [--model] [--json FILE] [--list]
//
// --model prints (and writes to --json) what the bank model predicts for the
// --once launches, without a GPU.
//
// Exit codes: 0 all kernels round-tripped exactly, 1 a mismatch or a CUDA
// error, 2 bad usage, 77 no CUDA device (ctest: skipped; ADI_REQUIRE_GPU=1
// turns that into 1).

#include "bench_kernels.cuh"

#include <adi/transpose/bank_model.hpp>

#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace adi::transpose::bench {

std::vector<Entry>& registry() {
  static std::vector<Entry> r;
  return r;
}
bool register_kernel(Entry e) {
  registry().push_back(std::move(e));
  return true;
}

}  // namespace adi::transpose::bench

using namespace adi::transpose;
using namespace adi::transpose::bench;

#define BENCH_CUDA(call)                                                                                   \
  do {                                                                                                     \
    const cudaError_t e_ = (call);                                                                         \
    if (e_ != cudaSuccess)                                                                                 \
      throw std::runtime_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " #call ": " + \
                               cudaGetErrorString(e_));                                                    \
  } while (0)

namespace {

struct Options {
  std::vector<std::string> filters;
  long long elements = 1LL << 25;  // per array, timing mode
  int reps = -1;                   // extra shared-memory round trips (default: 32 timing, 1 --once)
  int runs = 5;
  bool once = false;
  bool model_only = false;         // --model: the --once predictions, no GPU
  int tiles = 1024;                // --once
  std::string json;
  bool list = false;
  bool require_gpu = false;        // --require-gpu: no device is a failure (exit 1), not a skip (77)
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "transpose_bench: %s\n"
               "usage: transpose_bench [--filter S]... [--elements N] [--reps R] [--runs N] [--once [--tiles N]]\n"
               "                       [--model] [--json FILE] [--list] [--require-gpu]\n"
               "  --filter S    only kernels whose name contains S (repeat: all must match), e.g. giles, f64, _i32_\n"
               "  --elements N  elements per array when timing (default 2^25)\n"
               "  --reps R      extra shared-memory round trips per tile (default 32; 1 with --once)\n"
               "  --runs N      timed launches per measurement, the median is reported (default 5)\n"
               "  --once        launch every kernel exactly once (for ncu), --tiles tiles each (default 1024)\n"
               "  --model       only print the bank model's prediction for the --once launches (no GPU needed)\n"
               "  --json FILE   also write the results as JSON\n"
               "  --list        list the kernel names and exit\n"
               "  --require-gpu without a CUDA device exit 1 (default: 77, ctest's skip)\n",
               why);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    auto value = [&]() -> std::string {
      if (a + 1 >= argc) usage((s + " needs a value").c_str());
      return argv[++a];
    };
    auto number = [&](long long lo, long long hi) {
      const std::string v = value();
      char* end = nullptr;
      const long long x = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end || x < lo || x > hi)
        usage((s + ": expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got '" + v + "'")
                  .c_str());
      return x;
    };
    if (s == "--filter") o.filters.push_back(value());
    else if (s == "--elements") o.elements = number(1024, 1LL << 31);
    else if (s == "--reps") o.reps = static_cast<int>(number(0, 100000));
    else if (s == "--runs") o.runs = static_cast<int>(number(1, 1000));
    else if (s == "--once") o.once = true;
    else if (s == "--model") o.once = o.model_only = true;
    else if (s == "--tiles") o.tiles = static_cast<int>(number(1, 1 << 22));
    else if (s == "--json") o.json = value();
    else if (s == "--list") o.list = true;
    else if (s == "--require-gpu") o.require_gpu = true;
    else if (s == "-h" || s == "--help") usage("round-trips 32 x I tiles through each shared-memory map");
    else usage(("unknown argument '" + s + "'").c_str());
  }
  if (o.reps < 0) o.reps = o.once ? 1 : 32;
  // An earlier run's results are not overwritten (write_json opens "wx").
  if (!o.json.empty() && ::access(o.json.c_str(), F_OK) == 0)
    usage(("--json " + o.json + ": the file exists; choose another name").c_str());
  return o;
}

/// Creates `path` (fails if it exists: fopen's "x") and checks every byte.
void write_json(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wx");
  if (!f) throw std::runtime_error("cannot create " + path + " (" + std::strerror(errno) + ")");
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error("cannot write " + path + " (" + std::strerror(errno) + ")");
}

/// What the bank model predicts for one launch: per warp, load does a
/// row-wise store and a column-wise load, store the reverse, and each rep
/// both; so stores and loads each see (reps + 1) passes of either kind.
struct Model {
  long long st_wavefronts = 0, st_conflicts = 0, ld_wavefronts = 0, ld_conflicts = 0;
};
Model model(const Entry& e, long long tiles, int reps) {
  const PassCost row = pass_cost(e.map, e.I, e.elem_bytes, e.path, Pass::RowWise);
  const PassCost col = pass_cost(e.map, e.I, e.elem_bytes, e.path, Pass::ColumnWise);
  const long long n = tiles * (reps + 1LL);
  Model m;
  m.st_wavefronts = m.ld_wavefronts = n * (row.wavefronts + col.wavefronts);
  m.st_conflicts = m.ld_conflicts = n * (row.conflicts() + col.conflicts());
  return m;
}

struct Result {
  const Entry* e;
  long long tiles = 0;
  int reps = 0;
  double ms_roundtrip = 0, ms_reps = 0;
  Model m;
  long long mismatches = 0;
};

const char* path_name(Path p) { return p == Path::Scalar ? "scalar" : "vec16"; }

/// Deterministic data: exact in float, distinct enough to catch a misplaced element.
template <class T>
std::vector<T> make_data(long long n) {
  std::vector<T> h(static_cast<std::size_t>(n));
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  for (auto& v : h) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v = static_cast<T>(static_cast<double>(x >> 40) * 0x1p-12);
  }
  return h;
}

struct Buffers {
  void* in = nullptr;
  void* out = nullptr;
  std::size_t bytes = 0;
  std::vector<float> hf;
  std::vector<double> hd;
  ~Buffers() {
    cudaFree(in);
    cudaFree(out);
  }
};

long long check(const Entry& e, const Buffers& b, long long n) {
  long long bad = 0;
  if (e.elem_bytes == 4) {
    std::vector<float> got(static_cast<std::size_t>(n));
    BENCH_CUDA(cudaMemcpy(got.data(), b.out, static_cast<std::size_t>(n) * 4, cudaMemcpyDeviceToHost));
    for (long long k = 0; k < n; ++k) bad += got[static_cast<std::size_t>(k)] != b.hf[static_cast<std::size_t>(k)];
  } else {
    std::vector<double> got(static_cast<std::size_t>(n));
    BENCH_CUDA(cudaMemcpy(got.data(), b.out, static_cast<std::size_t>(n) * 8, cudaMemcpyDeviceToHost));
    for (long long k = 0; k < n; ++k) bad += got[static_cast<std::size_t>(k)] != b.hd[static_cast<std::size_t>(k)];
  }
  return bad;
}

double time_ms(const Entry& e, const Buffers& b, long long tiles, int reps, int runs) {
  cudaEvent_t t0, t1;
  BENCH_CUDA(cudaEventCreate(&t0));
  BENCH_CUDA(cudaEventCreate(&t1));
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    BENCH_CUDA(cudaEventRecord(t0));
    e.launch(b.in, b.out, static_cast<int>(tiles), reps);
    BENCH_CUDA(cudaGetLastError());
    BENCH_CUDA(cudaEventRecord(t1));
    BENCH_CUDA(cudaEventSynchronize(t1));
    float x = 0;
    BENCH_CUDA(cudaEventElapsedTime(&x, t0, t1));
    ms.push_back(x);
  }
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

std::string json_of(const std::vector<Result>& rs, const Options& o, const std::string& device) {
  std::ostringstream js;
  js << "{\n  \"device\": \"" << device << "\",\n  \"mode\": \""
     << (o.model_only ? "model" : o.once ? "once" : "timing")
     << "\",\n  \"kernels\": [";
  for (std::size_t k = 0; k < rs.size(); ++k) {
    const Result& r = rs[k];
    const Entry& e = *r.e;
    js << (k ? "," : "") << "\n    {\"kernel\": \"" << e.name << "\", \"map\": \"" << map_name(e.map)
       << "\", \"dtype\": \"" << (e.elem_bytes == 4 ? "f32" : "f64") << "\", \"I\": " << e.I << ", \"path\": \""
       << path_name(e.path) << "\", \"smem_bytes_per_warp\": " << e.storage_bytes
       << ", \"warps_per_block\": " << e.warps_per_block << ", \"tiles\": " << r.tiles << ", \"reps\": " << r.reps
       << ", \"model\": {\"st_wavefronts\": " << r.m.st_wavefronts << ", \"st_conflicts\": " << r.m.st_conflicts
       << ", \"ld_wavefronts\": " << r.m.ld_wavefronts << ", \"ld_conflicts\": " << r.m.ld_conflicts << "}";
    if (!o.once) js << ", \"ms_roundtrip\": " << r.ms_roundtrip << ", \"ms_with_reps\": " << r.ms_reps;
    js << ", \"mismatches\": " << r.mismatches << "}";
  }
  js << "\n  ]\n}\n";
  return js.str();
}

int run(const Options& o) {
  std::vector<Entry> entries;
  for (const Entry& e : registry()) {
    bool ok = true;
    for (const auto& f : o.filters) ok = ok && e.name.find(f) != std::string::npos;
    if (ok) entries.push_back(e);
  }
  auto map_order = [](MapKind m) { return m == MapKind::Giles ? 0 : m == MapKind::Xor ? 1 : m == MapKind::Pitch ? 2 : 3; };
  std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    if (a.elem_bytes != b.elem_bytes) return a.elem_bytes < b.elem_bytes;
    if (a.I != b.I) return a.I < b.I;
    if (a.path != b.path) return a.path < b.path;
    return map_order(a.map) < map_order(b.map);
  });
  if (o.list) {
    for (const Entry& e : entries) std::printf("%s\n", e.name.c_str());
    return 0;
  }
  if (entries.empty()) usage("no kernel matches the filters (see --list)");

  auto tiles_of = [&](const Entry& e) {
    return o.once ? static_cast<long long>(o.tiles) : std::max(1LL, o.elements / (kWarpSize * e.I));
  };
  const char* once_header = "  %-32s %6s %6s %5s | %14s %12s %14s %12s | %s\n";
  const char* once_line = "  %-32s %6d %6lld %5d | %14lld %12lld %14lld %12lld | %s\n";
  std::vector<Result> rs;
  if (o.model_only) {
    std::printf("transpose_bench --model: the bank model's prediction for --once --tiles %d --reps %d\n", o.tiles,
                o.reps);
    std::printf(once_header, "kernel", "smem/w", "tiles", "reps", "model st wavef", "st conflicts", "model ld wavef",
                "ld conflicts", "check");
    for (const Entry& e : entries) {
      Result r;
      r.e = &e;
      r.tiles = tiles_of(e);
      r.reps = o.reps;
      r.m = model(e, r.tiles, r.reps);
      std::printf(once_line, e.name.c_str(), e.storage_bytes, r.tiles, r.reps, r.m.st_wavefronts, r.m.st_conflicts,
                  r.m.ld_wavefronts, r.m.ld_conflicts, "-");
      rs.push_back(r);
    }
    if (!o.json.empty()) {
      write_json(o.json, json_of(rs, o, "none (model only)"));
    }
    return 0;
  }

  // Without a device: 77 (ctest's "skipped"), or a failure with
  // --require-gpu (the gpu tests pass it when ADI_REQUIRE_GPU=1).
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "transpose_bench: no usable CUDA device%s\n", o.require_gpu ? " (--require-gpu)" : "; skipped");
    return o.require_gpu ? 1 : 77;
  }
  int dev = 0;
  BENCH_CUDA(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  BENCH_CUDA(cudaGetDeviceProperties(&prop, dev));
  std::printf("transpose_bench on %s (%d SMs), %s\n", prop.name, prop.multiProcessorCount,
              o.once ? "one launch per kernel (--once)" : "median of --runs launches");

  // One pair of buffers for the largest case.
  long long max_elems = 0;
  for (const Entry& e : entries) max_elems = std::max(max_elems, tiles_of(e) * kWarpSize * e.I);
  Buffers b;
  b.bytes = static_cast<std::size_t>(max_elems) * 8;
  BENCH_CUDA(cudaMalloc(&b.in, b.bytes));
  BENCH_CUDA(cudaMalloc(&b.out, b.bytes));
  b.hf = make_data<float>(max_elems);
  b.hd = make_data<double>(max_elems);
  int uploaded = 0;

  long long total_bad = 0;
  if (o.once)
    std::printf(once_header, "kernel", "smem/w", "tiles", "reps", "model st wavef", "st conflicts", "model ld wavef",
                "ld conflicts", "check");
  else
    std::printf("  %-32s %6s %8s | %10s %9s | %10s %12s | %12s | %s\n", "kernel", "smem/w", "tiles", "round trip",
                "GB/s", "+reps (ms)", "smem Gelem/s", "model confl.", "check");
  for (const Entry& e : entries) {
    if (uploaded != e.elem_bytes) {
      if (e.elem_bytes == 4)
        BENCH_CUDA(cudaMemcpy(b.in, b.hf.data(), b.hf.size() * 4, cudaMemcpyHostToDevice));
      else
        BENCH_CUDA(cudaMemcpy(b.in, b.hd.data(), b.hd.size() * 8, cudaMemcpyHostToDevice));
      uploaded = e.elem_bytes;
    }
    Result r;
    r.e = &e;
    r.tiles = tiles_of(e);
    r.reps = o.reps;
    const long long n = r.tiles * kWarpSize * e.I;
    BENCH_CUDA(cudaMemset(b.out, 0xFF, static_cast<std::size_t>(n) * static_cast<std::size_t>(e.elem_bytes)));
    if (o.once) {
      e.launch(b.in, b.out, static_cast<int>(r.tiles), r.reps);
      BENCH_CUDA(cudaGetLastError());
      BENCH_CUDA(cudaDeviceSynchronize());
      r.mismatches = check(e, b, n);
      r.m = model(e, r.tiles, r.reps);
      std::printf(once_line, e.name.c_str(), e.storage_bytes, r.tiles, r.reps, r.m.st_wavefronts, r.m.st_conflicts,
                  r.m.ld_wavefronts, r.m.ld_conflicts, r.mismatches ? "FAILED" : "ok");
    } else {
      // Round trip (reps = 0), checked, then timed; then the same with reps.
      e.launch(b.in, b.out, static_cast<int>(r.tiles), 0);
      BENCH_CUDA(cudaGetLastError());
      BENCH_CUDA(cudaDeviceSynchronize());
      r.mismatches = check(e, b, n);
      r.ms_roundtrip = time_ms(e, b, r.tiles, 0, o.runs);
      r.ms_reps = time_ms(e, b, r.tiles, r.reps, o.runs);
      r.mismatches += check(e, b, n);
      r.m = model(e, r.tiles, r.reps);
      const double bytes = 2.0 * static_cast<double>(n) * e.elem_bytes;
      const double extra = r.ms_reps - r.ms_roundtrip;
      const double gelem = 2.0 * r.reps * static_cast<double>(n);  // two transpositions per rep
      char smem[32] = "-";
      if (r.reps > 0 && extra > 0) std::snprintf(smem, sizeof smem, "%.1f", gelem / (extra * 1e6));
      const Model per_tile = model(e, 1, 0);
      std::printf("  %-32s %6d %8lld | %8.3fms %9.1f | %10.3f %12s | %12lld | %s\n", e.name.c_str(), e.storage_bytes,
                  r.tiles, r.ms_roundtrip, bytes / (r.ms_roundtrip * 1e6), r.ms_reps, smem,
                  per_tile.st_conflicts + per_tile.ld_conflicts, r.mismatches ? "FAILED" : "ok");
    }
    total_bad += r.mismatches;
    rs.push_back(r);
  }
  if (!o.once)
    std::printf("round trip: global -> columns -> global, GB/s = bytes read + written / time; +reps: the same\n"
                "with %d extra shared-memory round trips per tile; smem Gelem/s = 2 reps elements / extra time;\n"
                "model confl.: extra wavefronts per tile round trip (stores + loads) in the bank model\n",
                o.reps);
  if (!o.json.empty()) {
    write_json(o.json, json_of(rs, o, prop.name));
  }
  if (total_bad) {
    std::fprintf(stderr, "transpose_bench: %lld elements did not round-trip\n", total_bad);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "transpose_bench: %s\n", e.what());
    return 1;
  }
}
