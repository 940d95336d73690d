// The shared-memory bank model (bank_model.hpp) and the access patterns of
// WarpTranspose, instruction by instruction.

#include <adi/error.hpp>
#include <adi/transpose/bank_model.hpp>

#include <algorithm>
#include <string>

namespace adi::transpose {

namespace {

void check_width(int width_bytes) {
  ADI_REQUIRE(width_bytes == 4 || width_bytes == 8 || width_bytes == 16,
              "bank model: access width must be 4, 8 or 16 bytes, got " + std::to_string(width_bytes));
}

void check_elem_bytes(int elem_bytes) {
  ADI_REQUIRE(elem_bytes == 4 || elem_bytes == 8,
              "bank model: element size must be 4 or 8 bytes, got " + std::to_string(elem_bytes));
}

void check_width_I(int I) {
  ADI_REQUIRE(I >= 1 && I <= 256, "bank model: I (elements per thread) must be in 1..256, got " + std::to_string(I));
}

}  // namespace

int lanes_per_phase(int width_bytes) {
  check_width(width_bytes);
  return kWavefrontBytes / width_bytes;
}

WarpCost warp_cost(const WarpAddresses& addr, int width_bytes) {
  const int lanes = lanes_per_phase(width_bytes);
  const int words_per_lane = width_bytes / kBankBytes;
  WarpCost cost;
  for (int first = 0; first < kWarpSize; first += lanes) {
    // At most 8 lanes x 4 words = 16 lanes x 2 words = 32 words per phase.
    std::array<std::int64_t, kWarpSize> words{};
    int n = 0;
    for (int t = first; t < first + lanes; ++t) {
      const std::int64_t a = addr[static_cast<std::size_t>(t)];
      if (a == kInactiveLane) continue;
      ADI_REQUIRE(a >= 0 && a % width_bytes == 0,
                  "bank model: lane " + std::to_string(t) + " address " + std::to_string(a) +
                      " is not a non-negative multiple of the access width " + std::to_string(width_bytes));
      for (int w = 0; w < words_per_lane; ++w) words[static_cast<std::size_t>(n++)] = a / kBankBytes + w;
    }
    if (n == 0) continue;
    std::sort(words.begin(), words.begin() + n);
    const auto end = std::unique(words.begin(), words.begin() + n);
    std::array<int, kBankCount> per_bank{};
    for (auto it = words.begin(); it != end; ++it) ++per_bank[static_cast<std::size_t>(*it % kBankCount)];
    const int phase = *std::max_element(per_bank.begin(), per_bank.end());
    cost.wavefronts += phase;
    cost.ideal += 1;
    cost.worst_phase = std::max(cost.worst_phase, phase);
  }
  return cost;
}

int wavefronts(const WarpAddresses& addr, int width_bytes) { return warp_cost(addr, width_bytes).wavefronts; }

int wavefronts_of_elements(const std::array<int, kWarpSize>& element_index, int elem_bytes) {
  WarpAddresses a;
  for (std::size_t t = 0; t < a.size(); ++t)
    a[t] = element_index[t] < 0 ? kInactiveLane : static_cast<std::int64_t>(element_index[t]) * elem_bytes;
  return wavefronts(a, elem_bytes);
}

bool path_available(Path path, int I, int elem_bytes) {
  check_elem_bytes(elem_bytes);
  return path == Path::Scalar || I % vector_elems(elem_bytes) == 0;
}

int access_width(Path path, Pass pass, int elem_bytes) {
  check_elem_bytes(elem_bytes);
  if (path == Path::Scalar) return elem_bytes;
  if (path == Path::Vector16Columns && pass == Pass::ColumnWise) return elem_bytes;
  return kVectorBytes;
}

std::vector<WarpAddresses> pass_addresses(MapKind map, int I, int elem_bytes, Path path, Pass pass) {
  check_width_I(I);
  check_elem_bytes(elem_bytes);
  ADI_REQUIRE(path_available(path, I, elem_bytes),
              "bank model: the 16-byte path needs I to be a multiple of " +
                  std::to_string(vector_elems(elem_bytes)) + ", got I = " + std::to_string(I));
  const int W = wavefront_elems(elem_bytes);
  const int v = vector_elems(elem_bytes);
  std::vector<WarpAddresses> out;

  if (path == Path::Scalar) {
    // Row-wise: instruction q, lane t <-> element e = 32 q + t = (e mod I, e / I).
    // Column-wise: instruction i, lane j <-> element (i, j).
    for (int n = 0; n < I; ++n) {
      WarpAddresses a;
      for (int t = 0; t < kWarpSize; ++t) {
        const int e = n * kWarpSize + t;
        const int k = pass == Pass::RowWise ? map_index(map, e % I, e / I, I, W) : map_index(map, n, t, I, W);
        a[static_cast<std::size_t>(t)] = static_cast<std::int64_t>(k) * elem_bytes;
      }
      out.push_back(a);
    }
    return out;
  }

  const int Iv = I / v;  // 16-byte vectors per row
  if (pass == Pass::RowWise) {
    // Instruction q, lane t <-> vector p = 32 q + t = (vector p mod Iv of row p / Iv).
    for (int q = 0; q < Iv; ++q) {
      WarpAddresses a;
      for (int t = 0; t < kWarpSize; ++t) {
        const int p = q * kWarpSize + t;
        const int k = map_index16(map, (p % Iv) * v, p / Iv, I, elem_bytes);
        a[static_cast<std::size_t>(t)] = static_cast<std::int64_t>(k) * elem_bytes;
      }
      out.push_back(a);
    }
  } else if (path == Path::Vector16) {
    // Instruction m, lane j <-> vector m of row j.
    for (int m = 0; m < Iv; ++m) {
      WarpAddresses a;
      for (int j = 0; j < kWarpSize; ++j)
        a[static_cast<std::size_t>(j)] = static_cast<std::int64_t>(map_index16(map, m * v, j, I, elem_bytes)) * elem_bytes;
      out.push_back(a);
    }
  } else {
    // Instruction i, lane j <-> element (i, j), one element wide.
    for (int i = 0; i < I; ++i) {
      WarpAddresses a;
      for (int j = 0; j < kWarpSize; ++j)
        a[static_cast<std::size_t>(j)] = static_cast<std::int64_t>(map_index16(map, i, j, I, elem_bytes)) * elem_bytes;
      out.push_back(a);
    }
  }
  return out;
}

PassCost pass_cost(MapKind map, int I, int elem_bytes, Path path, Pass pass) {
  const int width = access_width(path, pass, elem_bytes);
  PassCost c;
  for (const auto& a : pass_addresses(map, I, elem_bytes, path, pass)) {
    const WarpCost w = warp_cost(a, width);
    ++c.instructions;
    c.wavefronts += w.wavefronts;
    c.ideal += w.ideal;
    c.worst_phase = std::max(c.worst_phase, w.worst_phase);
  }
  return c;
}

std::int64_t storage_bytes(MapKind map, int I, int elem_bytes, Path path) {
  check_width_I(I);
  check_elem_bytes(elem_bytes);
  ADI_REQUIRE(path_available(path, I, elem_bytes), "bank model: the 16-byte path is not available for this I");
  const int slots = path == Path::Scalar ? map_size(map, I, wavefront_elems(elem_bytes)) : map_size16(map, I, elem_bytes);
  return static_cast<std::int64_t>(slots) * elem_bytes;
}

}  // namespace adi::transpose
