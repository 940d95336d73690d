// The text of `adi3d layout` and its flag parsers.

#include <adi/error.hpp>
#include <adi/transpose/layout_report.hpp>

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace adi::transpose;

namespace {

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

/// The line of the wavefront table whose label starts with `label`.
std::string table_line(const std::string& report, const std::string& label) {
  for (const auto& l : lines_of(report))
    if (l.rfind("  " + label, 0) == 0) return l;
  return "";
}

}  // namespace

TEST(LayoutReport, GilesTwelveFloats) {
  LayoutRequest r;
  r.width = 12;
  const std::string s = layout_report(r);
  EXPECT_TRUE(contains(s, "32 x 12 tile: float32 (4-byte elements), map 'giles'")) << s;
  EXPECT_TRUE(contains(s, "P = 4, F = 3")) << s;
  EXPECT_TRUE(contains(s, "k = e + floor(e / 96)")) << s;
  // 384 data slots + floor(383 / 96) = 3 pads.
  EXPECT_TRUE(contains(s, "387 slots = 1548 bytes per warp: 384 data + 3 padding")) << s;
  // Grid rows: lane 8 starts at e = 96, after the first pad: slot 97.
  bool found = false;
  for (const auto& l : lines_of(s))
    if (std::regex_search(l, std::regex("^ +8 +97 +98 +99 "))) found = true;
  EXPECT_TRUE(found) << s;
  EXPECT_TRUE(contains(table_line(s, "scalar   row-wise"), "conflict-free")) << s;
  EXPECT_TRUE(contains(table_line(s, "scalar   column-wise"), "conflict-free")) << s;
  EXPECT_TRUE(contains(table_line(s, "16-byte  row-wise"), "conflict-free")) << s;
  EXPECT_TRUE(contains(table_line(s, "16-byte  column-wise"), "conflict-free")) << s;
  EXPECT_TRUE(contains(table_line(s, "16-byte map, scalar column reads"), "4-way")) << s;
}

TEST(LayoutReport, UnpaddedThirtyTwoFloatsIsThirtyTwoWay) {
  LayoutRequest r;
  r.width = 32;
  r.map = MapKind::None;
  const std::string s = layout_report(r);
  const std::string col = table_line(s, "scalar   column-wise");
  // 32 instructions, 32 wavefronts each.
  EXPECT_TRUE(std::regex_search(col, std::regex(" 32 +1024 +32 +32-way +32\\.00x the minimum"))) << col;
  EXPECT_TRUE(contains(table_line(s, "scalar   row-wise"), "conflict-free")) << s;
  EXPECT_TRUE(contains(s, "1024 slots = 4096 bytes per warp: 1024 data + 0 padding")) << s;
  // Every slot of column 5 is in bank 5.
  for (const auto& l : lines_of(s.substr(s.find("bank of slot k")))) {
    std::smatch m;
    if (std::regex_search(l, m, std::regex("^ +([0-9]+)((?: +[0-9]+){32})$"))) {
      std::istringstream in(m[2].str());
      int b = 0;
      for (int i = 0; i <= 5; ++i) in >> b;
      EXPECT_EQ(b, 5) << l;
    }
  }
}

TEST(LayoutReport, DoublesXorAndPitch) {
  LayoutRequest r;
  r.width = 8;
  r.elem_bytes = 8;
  r.map = MapKind::Xor;
  std::string s = layout_report(r);
  EXPECT_TRUE(contains(s, "float64 (8-byte elements), map 'xor'")) << s;
  EXPECT_TRUE(contains(s, "k = e XOR (floor(e / 16) mod 8)")) << s;
  EXPECT_TRUE(contains(s, "bank of slot k: 2k mod 32")) << s;
  EXPECT_TRUE(contains(table_line(s, "scalar   column-wise"), "conflict-free")) << s;
  r.map = MapKind::Pitch;
  r.width = 7;
  s = layout_report(r);
  EXPECT_TRUE(contains(s, "k = i + 8 j")) << s;
  // I + 1 = 8: 8-way in each half-warp; the row pass crosses row ends: 2-way.
  EXPECT_TRUE(contains(table_line(s, "scalar   column-wise"), "8-way")) << s;
  EXPECT_TRUE(contains(table_line(s, "scalar   row-wise"), "2-way")) << s;
  EXPECT_TRUE(contains(s, "no 16-byte path: I = 7 is not a multiple of 2")) << s;
}

TEST(LayoutReport, SixteenByteVariant) {
  LayoutRequest r;
  r.width = 16;
  r.vector16 = true;
  const std::string s = layout_report(r);
  EXPECT_TRUE(contains(s, "16-byte variant")) << s;
  EXPECT_TRUE(contains(s, "K = p + floor(p / 8),  p = i/4 + 4 j")) << s;
  // Vector starts: column 4 of every row is a multiple of 4.
  r.width = 6;
  EXPECT_THROW(layout_report(r), adi::InvalidArgument);
}

TEST(LayoutReport, Parsers) {
  EXPECT_EQ(parse_width("1"), 1);
  EXPECT_EQ(parse_width("256"), 256);
  for (const char* bad : {"0", "257", "-3", "abc", "12x", ""}) {
    try {
      parse_width(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const adi::InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("--width: expected an integer in 1..256 (elements per thread), got '") + bad + "'");
    }
  }
  EXPECT_EQ(parse_dtype("f32"), 4);
  EXPECT_EQ(parse_dtype("float64"), 8);
  EXPECT_EQ(parse_dtype("F64"), 8);
  EXPECT_THROW(parse_dtype("f16"), adi::InvalidArgument);
  EXPECT_EQ(parse_map_kind("giles"), MapKind::Giles);
  EXPECT_EQ(parse_map_kind("XOR"), MapKind::Xor);
  EXPECT_EQ(parse_map_kind("pitch"), MapKind::Pitch);
  EXPECT_EQ(parse_map_kind("none"), MapKind::None);
  try {
    parse_map_kind("cute");
    ADD_FAILURE();
  } catch (const adi::InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "--map: expected giles, pitch, xor or none, got 'cute'");
  }
  LayoutRequest r;
  r.width = 300;
  EXPECT_THROW(layout_report(r), adi::InvalidArgument);
}
