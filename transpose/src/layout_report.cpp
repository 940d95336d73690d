// `adi3d layout`: the text, built from the maps and the bank model.

#include <adi/error.hpp>
#include <adi/transpose/bank_model.hpp>
#include <adi/transpose/layout_report.hpp>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>

namespace adi::transpose {

namespace {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

const char* dtype_name(int elem_bytes) { return elem_bytes == 4 ? "float32" : "float64"; }

/// The right-hand side of map m for a tile of width I at W elements per
/// wavefront, with the element index called `e` and the row `j`.
std::string formula_rhs(MapKind m, int I, int W, const char* e, const char* j) {
  const int F = odd_part(I), P = pow2_part(I);
  switch (m) {
    case MapKind::Giles:
      if (P > W) return format("%s + %s", e, j);
      if (P == 1) return format("%s", e);
      return format("%s + floor(%s / %d)", e, e, W * F);
    case MapKind::Pitch: return format("%s + %s", e, j);
    case MapKind::Xor: {
      const int mask = std::min(P, W) - 1;
      if (mask == 0) return format("%s", e);
      if (P >= W) return format("%s XOR (%s mod %d)", e, j, W);
      return format("%s XOR (floor(%s / %d) mod %d)", e, e, W * F, P);
    }
    case MapKind::None: break;
  }
  return e;
}

std::string why(MapKind m, int I, int W) {
  const int F = odd_part(I), P = pow2_part(I);
  switch (m) {
    case MapKind::Giles:
      if (P > W) return format("P = %d > W = %d: row pitch I + 1", P, W);
      if (P == 1) return "odd I: no padding needed";
      return format("one pad slot every W F = %d elements", W * F);
    case MapKind::Pitch: return "row pitch I + 1";
    case MapKind::Xor:
      if (std::min(P, W) == 1) return "odd I: nothing to permute";
      return format("the low %d bit%s of e permuted by row bits, no padding", P >= W ? __builtin_ctz(W) : __builtin_ctz(P),
                    std::min(P, W) > 2 ? "s" : "");
    case MapKind::None: break;
  }
  return "unpadded baseline";
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

}  // namespace

int parse_width(const std::string& s) {
  std::size_t used = 0;
  long v = -1;
  try {
    v = std::stol(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size() || v < 1 || v > 256)
    ADI_THROW(InvalidArgument, "--width: expected an integer in 1..256 (elements per thread), got '" + s + "'");
  return static_cast<int>(v);
}

int parse_dtype(const std::string& s) {
  const std::string l = lower(s);
  if (l == "f32" || l == "float32" || l == "float") return 4;
  if (l == "f64" || l == "float64" || l == "double") return 8;
  ADI_THROW(InvalidArgument, "--dtype: expected f32 or f64, got '" + s + "'");
}

MapKind parse_map_kind(const std::string& s) {
  const std::string l = lower(s);
  for (MapKind m : {MapKind::Giles, MapKind::Pitch, MapKind::Xor, MapKind::None})
    if (l == map_name(m)) return m;
  ADI_THROW(InvalidArgument, "--map: expected giles, pitch, xor or none, got '" + s + "'");
}

void check_request(const LayoutRequest& r) {
  if (r.width < 1 || r.width > 256)
    ADI_THROW(InvalidArgument, "--width: expected an integer in 1..256 (elements per thread), got '" +
                                   std::to_string(r.width) + "'");
  if (r.elem_bytes != 4 && r.elem_bytes != 8)
    ADI_THROW(InvalidArgument, "--dtype: expected f32 or f64 (4- or 8-byte elements), got " +
                                   std::to_string(r.elem_bytes) + "-byte elements");
  const int v = vector_elems(r.elem_bytes);
  if (r.vector16 && r.width % v != 0)
    ADI_THROW(InvalidArgument, format("--vector16: I = %d is not a multiple of %d (%d %s per 16-byte vector)", r.width, v,
                                      v, dtype_name(r.elem_bytes)));
}

std::string map_formula(MapKind m, int I, int elem_bytes, bool vector16) {
  if (!vector16) {
    const std::string rhs = formula_rhs(m, I, wavefront_elems(elem_bytes), "e", "j");
    if (m == MapKind::Pitch || (m == MapKind::Giles && rhs == "e + j"))
      return format("k = i + %d j", I + 1);
    return "k = " + rhs;
  }
  const int v = vector_elems(elem_bytes), Iv = I / v, W = kWavefrontBytes / kVectorBytes;
  const std::string rhs = formula_rhs(m, Iv, W, "p", "j");
  std::string K = m == MapKind::Pitch || (m == MapKind::Giles && rhs == "p + j") ? format("i/%d + %d j", v, Iv + 1)
                                                                                  : rhs;
  return format("k = %d K + i mod %d,  K = %s,  p = i/%d + %d j (16-byte vector index)", v, v, K.c_str(), v, Iv);
}

std::string layout_report(const LayoutRequest& r) {
  check_request(r);
  const int I = r.width, s = r.elem_bytes, W = wavefront_elems(s), v = vector_elems(s);
  const Path grid_path = r.vector16 ? Path::Vector16 : Path::Scalar;
  auto slot = [&](int i, int j) {
    return r.vector16 ? map_index16(r.map, i, j, I, s) : map_index(r.map, i, j, I, W);
  };
  const std::int64_t bytes = storage_bytes(r.map, I, s, grid_path);
  const std::int64_t slots = bytes / s, data = std::int64_t{kWarpSize} * I;

  std::string o;
  o += format("Shared-memory layout of a 32 x %d tile: %s (%d-byte elements), map '%s'%s\n", I, dtype_name(s), s,
              map_name(r.map), r.vector16 ? ", 16-byte variant" : "");
  o += format("  lane j owns row j = elements (i, j), i = 0..%d; row-major index e = i + %d j\n", I - 1, I);
  o += format("  I = %d = P F with P = %d, F = %d; one wavefront serves W = %d %s\n", I, pow2_part(I), odd_part(I),
              r.vector16 ? kWavefrontBytes / kVectorBytes : W, r.vector16 ? "16-byte vectors" : "elements");
  o += format("  slot    %s   (%s)\n", map_formula(r.map, I, s, r.vector16).c_str(),
              r.vector16 ? "the map on 16-byte vectors: each stays contiguous and aligned"
                         : why(r.map, I, W).c_str());
  o += format("  shared  %lld slots = %lld bytes per warp: %lld data + %lld padding (+%.1f%%)\n",
              static_cast<long long>(slots), static_cast<long long>(bytes), static_cast<long long>(data),
              static_cast<long long>(slots - data), 100.0 * static_cast<double>(slots - data) / static_cast<double>(data));

  // The grids, Giles' figures: rows j, columns i.
  const int kw = std::max(3, static_cast<int>(std::to_string(slots - 1).size())) + 1;
  o += "\nslot k(i, j)\n";
  o += format("%5s", "j\\i");
  for (int i = 0; i < I; ++i) o += format("%*d", kw, i);
  o += "\n";
  for (int j = 0; j < kWarpSize; ++j) {
    o += format("%5d", j);
    for (int i = 0; i < I; ++i) o += format("%*d", kw, slot(i, j));
    o += "\n";
  }
  o += s == 4 ? "\nbank of slot k: k mod 32\n"
              : "\nbank of slot k: 2k mod 32 (an 8-byte slot covers that bank and the next)\n";
  o += format("%5s", "j\\i");
  for (int i = 0; i < I; ++i) o += format("%4d", i);
  o += "\n";
  for (int j = 0; j < kWarpSize; ++j) {
    o += format("%5d", j);
    for (int i = 0; i < I; ++i) o += format("%4d", static_cast<int>((static_cast<std::int64_t>(slot(i, j)) * s / kBankBytes) % kBankCount));
    o += "\n";
  }

  o += "\nWavefronts (bank model: 32 banks x 4 bytes; a warp's 4-byte access is served in 1 phase of 32\n"
       "lanes, 8-byte in 2 phases of 16, 16-byte in 4 phases of 8; a phase takes as many wavefronts\n"
       "as the most distinct 4-byte words in one bank; docs/TRANSPOSE.md)\n";
  o += format("  %-48s %5s %6s %11s %8s %8s  %s\n", "path / pass", "width", "instr", "wavefronts", "minimum", "worst",
              "verdict");
  auto line = [&](Path path, Pass pass, const char* label) {
    const PassCost c = pass_cost(r.map, I, s, path, pass);
    std::string verdict = c.conflict_free()
                              ? "conflict-free"
                              : format("%.2fx the minimum", static_cast<double>(c.wavefronts) / static_cast<double>(c.ideal));
    o += format("  %-48s %3d B %6d %11lld %8lld %4d-way  %s\n", label, access_width(path, pass, s), c.instructions,
                static_cast<long long>(c.wavefronts), static_cast<long long>(c.ideal), c.worst_phase, verdict.c_str());
  };
  line(Path::Scalar, Pass::RowWise, "scalar   row-wise    (lane t: e = 32 q + t)");
  line(Path::Scalar, Pass::ColumnWise, "scalar   column-wise (lane j: element (i, j))");
  if (I % v == 0) {
    line(Path::Vector16, Pass::RowWise, "16-byte  row-wise    (lane t: vector 32 q + t)");
    line(Path::Vector16, Pass::ColumnWise, "16-byte  column-wise (lane j: its row's vectors)");
    line(Path::Vector16Columns, Pass::ColumnWise, "16-byte map, scalar column reads");
    o += format("  scalar path: %lld bytes per warp; 16-byte path (float4/double2 rows): %lld bytes per warp\n",
                static_cast<long long>(storage_bytes(r.map, I, s, Path::Scalar)),
                static_cast<long long>(storage_bytes(r.map, I, s, Path::Vector16)));
  } else {
    o += format("  no 16-byte path: I = %d is not a multiple of %d (%d %s per 16-byte vector)\n", I, v, v, dtype_name(s));
  }
  return o;
}

}  // namespace adi::transpose
