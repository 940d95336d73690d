// HDF5 in and out, on real files in a scratch folder: the initial-field
// reader (layouts, dtypes, geometry attributes, every bad input), the output
// file (layout, temporary-then-rename, restart), checkpoints (bit-exact
// round trip, atomic replacement, truncation and corruption detected) and
// the XDMF sidecar. Test files are written with the plain HDF5 C API, not
// with the code under test.

#include <adi/io/io.hpp>

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <regex>
#include <unistd.h>

using namespace adi;
using namespace adi::io;
namespace fs = std::filesystem;

namespace {

/// A temporary of `final_path` exists: "adi3d.<pid>.<random>.<name>.tmp"
/// next to it (io/lock.hpp, unique_temp_path).
bool temp_of_exists(const std::string& final_path) {
  const std::filesystem::path f(final_path);
  const std::string tail = "." + f.filename().string() + ".tmp";
  for (const auto& e : std::filesystem::directory_iterator(f.parent_path())) {
    const std::string n = e.path().filename().string();
    if (n.rfind("adi3d.", 0) == 0 && n.size() > tail.size() && n.compare(n.size() - tail.size(), tail.size(), tail) == 0)
      return true;
  }
  return false;
}

class Hdf5Test : public ::testing::Test {
 protected:
  void SetUp() override {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("adi3d_test_hdf5_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

/// f(i, j, k): distinct per node and per axis, so a swapped axis cannot pass.
double f_node(index_t i, index_t j, index_t k) { return 0.5 + static_cast<double>(i) + 100.0 * j + 10000.0 * k; }

/// Writes a dataset of shape dims (C order) with the given file/memory type.
void write_dataset(const std::string& file, const std::string& name, hid_t ftype, hid_t mtype,
                   const std::vector<hsize_t>& dims, const void* data, bool create = true) {
  const hid_t f = create ? H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)
                         : H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  const hid_t s = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t d = H5Dcreate2(f, name.c_str(), ftype, s, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(d, 0);
  ASSERT_GE(H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0);
  H5Dclose(d);
  H5Sclose(s);
  H5Pclose(lcpl);
  H5Fclose(f);
}

void write_attr3(const std::string& file, const std::string& obj, const char* name, std::array<double, 3> v) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t o = H5Oopen(f, obj.c_str(), H5P_DEFAULT);
  ASSERT_GE(o, 0);
  const hsize_t three = 3;
  const hid_t s = H5Screate_simple(1, &three, nullptr);
  const hid_t a = H5Acreate2(o, name, H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_DOUBLE, v.data());
  H5Aclose(a);
  H5Sclose(s);
  H5Oclose(o);
  H5Fclose(f);
}

/// A float64 field f_node of nx * ny * nz nodes, dataset shape (nz, ny, nx).
void write_field(const std::string& file, const std::string& name, index_t nx, index_t ny, index_t nz) {
  std::vector<double> v(static_cast<std::size_t>(nx * ny * nz));
  for (index_t k = 0; k < nz; ++k)
    for (index_t j = 0; j < ny; ++j)
      for (index_t i = 0; i < nx; ++i) v[i + nx * (j + ny * k)] = f_node(i, j, k);
  write_dataset(file, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                {static_cast<hsize_t>(nz), static_cast<hsize_t>(ny), static_cast<hsize_t>(nx)}, v.data());
}

template <class E, class F>
void expect_throw_matching(F&& f, const std::string& re) {
  try {
    f();
    FAIL() << "expected an exception matching " << re;
  } catch (const E& e) {
    EXPECT_TRUE(std::regex_search(e.what(), std::regex(re))) << "message: " << e.what() << "\nexpected: " << re;
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
  }
}

RunConfig file_config(const std::string& extra = "") {
  return parse_config("initial: {file: in.h5}\ntime: {dt: 0.001, steps: 3}\n" + extra, "case.yaml");
}

// ---- material fields (Hdf5Field, attach_fields) ------------------------------------

// A box of the grid is one hyperslab, x fastest, equal to the whole field's
// nodes there (what one MPI rank reads); the checksum is that of the values
// (a float32 file holding the same numbers has the same one); a bad value
// names file, dataset and the node.
TEST_F(Hdf5Test, MaterialFieldReadsBoxesAndChecksValues) {
  const index_t nx = 7, ny = 5, nz = 4;
  std::vector<double> v(static_cast<std::size_t>(nx * ny * nz));
  for (index_t k = 0; k < nz; ++k)
    for (index_t j = 0; j < ny; ++j)
      for (index_t i = 0; i < nx; ++i) v[static_cast<std::size_t>(i + nx * (j + ny * k))] = f_node(i, j, k);
  write_dataset(path("k.h5"), "/K", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {4, 5, 7}, v.data());
  const std::vector<float> vf(v.begin(), v.end());  // f_node values are exact in float32
  write_dataset(path("k32.h5"), "/K", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {4, 5, 7}, vf.data());
  const Hdf5Field k(inspect_field(path("k.h5"), "/K"), "conductivity", Hdf5Field::Values::Positive);
  const std::array<index_t, 3> lo{{2, 1, 1}}, size{{4, 3, 2}};
  std::vector<double> box(static_cast<std::size_t>(size[0] * size[1] * size[2]), -1.0);
  k.read(lo, size, box.data());
  for (index_t c = 0; c < size[2]; ++c)
    for (index_t b = 0; b < size[1]; ++b)
      for (index_t a = 0; a < size[0]; ++a)
        EXPECT_EQ(box[static_cast<std::size_t>(a + size[0] * (b + size[1] * c))], f_node(lo[0] + a, lo[1] + b, lo[2] + c));
  const Hdf5Field k32(inspect_field(path("k32.h5"), "/K"), "conductivity", Hdf5Field::Values::Positive);
  EXPECT_EQ(k.checksum().substr(0, 8), "fnv1a64:");
  EXPECT_EQ(k.checksum(), k32.checksum());
  v[static_cast<std::size_t>(3 + nx * (2 + ny * 1))] = -2.0;  // node (3, 2, 1)
  write_dataset(path("bad.h5"), "/K", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {4, 5, 7}, v.data());
  const Hdf5Field bad(inspect_field(path("bad.h5"), "/K"), "conductivity", Hdf5Field::Values::Positive);
  EXPECT_THROW((void)bad.checksum(), IoError);  // it reads (and checks) every value
  const Hdf5Field signed_ok(inspect_field(path("bad.h5"), "/K"), "heat source", Hdf5Field::Values::Finite);
  EXPECT_NO_THROW(signed_ok.read({{0, 0, 0}}, {{nx, ny, nz}}, std::vector<double>(v.size()).data()));
  std::vector<double> all(v.size());
  expect_throw_matching<IoError>(
      [&] { bad.read({{0, 0, 0}}, {{nx, ny, nz}}, all.data()); },
      R"(bad\.h5:/K: the conductivity field holds -2 at node \(i, j, k\) = \(3, 2, 1\) \(dataset index \[1, 2, 3\]\); expected a finite value > 0)");
  // A box that misses the bad node reads fine: only what is read is checked.
  EXPECT_NO_THROW(bad.read({{4, 0, 0}}, {{3, 5, 4}}, all.data()));
  // attach_fields: shapes against the grid, named by the config key.
  RunConfig c = parse_config("grid: {nx: 7, ny: 5, nz: 4}\ntime: {dt: 0.1, steps: 1}\ninitial: {value: 1}\n"
                             "material: {conductivity: {file: k.h5, dataset: /K}, heat_capacity: {file: k32.h5, dataset: /K}}\n",
                             "case.yaml");
  c.base_dir = dir_.string();
  attach_fields(c);
  EXPECT_NE(c.problem.material.conductivity[0], nullptr);
  EXPECT_EQ(c.problem.material.conductivity[0], c.problem.material.conductivity[2]);
  EXPECT_NE(c.problem.material.capacity, nullptr);
  const auto named = named_fields(c);
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].first, "conductivity");
  EXPECT_EQ(named[1].first, "heat_capacity");
  RunConfig wrong = parse_config("grid: {nx: 7, ny: 5, nz: 5}\ntime: {dt: 0.1, steps: 1}\ninitial: {value: 1}\n"
                                 "material: {conductivity: {file: k.h5, dataset: /K}, heat_capacity: 1}\n",
                                 "case.yaml");
  wrong.base_dir = dir_.string();
  expect_throw_matching<ConfigError>([&] { attach_fields(wrong); },
                                     R"(^case\.yaml:4:26: material\.conductivity: .*k\.h5:/K has shape \(nz, ny, nx\) = \(4, 5, 7\) but the grid is \(5, 5, 7\))");
}

// ---- reading ------------------------------------------------------------------------

TEST_F(Hdf5Test, ReadsShapeZYXWithXFastest) {
  write_field(path("in.h5"), "/u", 7, 5, 4);
  const FieldInfo info = inspect_field(path("in.h5"), "/u");
  EXPECT_EQ(info.n, (std::array<index_t, 3>{7, 5, 4}));
  EXPECT_EQ(info.dtype, Precision::F64);
  EXPECT_FALSE(info.origin);
  EXPECT_FALSE(info.spacing);
  const auto d = read_field<double>(info);
  ASSERT_EQ(d.values.size(), 7u * 5u * 4u);
  for (index_t k = 0; k < 4; ++k)
    for (index_t j = 0; j < 5; ++j)
      for (index_t i = 0; i < 7; ++i) ASSERT_EQ(d.values[i + 7 * (j + 5 * k)], f_node(i, j, k)) << i << j << k;
  EXPECT_EQ(d.rounded, 0);
}

TEST_F(Hdf5Test, ConvertsPrecisionAndCountsRounding) {
  // float32 in a float64 run: exact.
  std::vector<float> v(3 * 4 * 5);
  for (std::size_t q = 0; q < v.size(); ++q) v[q] = 0.1f * static_cast<float>(q);
  write_dataset(path("f32.h5"), "/u", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {5, 4, 3}, v.data());
  const FieldInfo i32 = inspect_field(path("f32.h5"), "/u");
  EXPECT_EQ(i32.dtype, Precision::F32);
  const auto d = read_field<double>(i32);
  EXPECT_EQ(d.rounded, 0);
  for (std::size_t q = 0; q < v.size(); ++q) ASSERT_EQ(d.values[q], static_cast<double>(v[q]));
  // float64 in a float32 run: 0.1 * q is not representable (except q = 0).
  std::vector<double> w(3 * 4 * 5);
  for (std::size_t q = 0; q < w.size(); ++q) w[q] = 0.1 * static_cast<double>(q);
  write_dataset(path("f64.h5"), "/u", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {5, 4, 3}, w.data());
  const auto s = read_field<float>(inspect_field(path("f64.h5"), "/u"));
  EXPECT_GT(s.rounded, 0);
  EXPECT_LE(s.max_rel_rounding, 0.6 * std::numeric_limits<float>::epsilon());
  EXPECT_GT(s.max_rel_rounding, 0.0);
  for (std::size_t q = 0; q < w.size(); ++q) ASSERT_EQ(s.values[q], static_cast<float>(w[q]));
}

TEST_F(Hdf5Test, GeometryFromDatasetAttributesFillsTheConfig) {
  write_field(path("in.h5"), "/u", 9, 5, 4);
  write_attr3(path("in.h5"), "/u", "origin", {-1.0, 2.0, 0.5});
  write_attr3(path("in.h5"), "/u", "spacing", {0.25, 0.5, 0.125});
  const FieldInfo info = inspect_field(path("in.h5"), "/u");
  ASSERT_TRUE(info.origin && info.spacing);
  RunConfig c = file_config();
  apply_field_geometry(c, info);
  EXPECT_EQ(c.problem.n, (std::array<index_t, 3>{9, 5, 4}));
  EXPECT_DOUBLE_EQ(c.problem.length[0], 2.0);
  EXPECT_DOUBLE_EQ(c.problem.length[1], 2.0);
  EXPECT_DOUBLE_EQ(c.problem.length[2], 0.375);
  EXPECT_EQ(c.origin, (std::array<double, 3>{-1.0, 2.0, 0.5}));
  EXPECT_NE(c.resolved_yaml.find("nx: 9"), std::string::npos) << c.resolved_yaml;
  // The resolved config now parses on its own, with the file's grid.
  const RunConfig r = parse_config(c.resolved_yaml, "resolved");
  EXPECT_EQ(r.problem.n, c.problem.n);
  EXPECT_EQ(r.problem.length, c.problem.length);
}

TEST_F(Hdf5Test, GeometryFromGridGroupAndAgreementWithTheConfig) {
  write_field(path("in.h5"), "/data/field", 5, 5, 9);
  {
    const hid_t f = H5Fopen(path("in.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Gclose(H5Gcreate2(f, "/grid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Fclose(f);
  }
  write_attr3(path("in.h5"), "/grid", "spacing", {0.25, 0.25, 0.125});
  const FieldInfo info = inspect_field(path("in.h5"), "/data/field");
  ASSERT_TRUE(info.spacing);
  EXPECT_NE(info.geometry_source.find(":/grid"), std::string::npos);
  // Explicit and agreeing: fine.
  RunConfig ok = file_config("grid: {nx: 5, ny: 5, nz: 9}\ndomain: {lx: 1.0, lz: 1.0}\n");
  EXPECT_NO_THROW(apply_field_geometry(ok, info));
  // Explicit and disagreeing: a ConfigError naming the key and the file.
  RunConfig bad = file_config("domain: {lx: 2.0}\n");
  expect_throw_matching<ConfigError>([&] { apply_field_geometry(bad, info); },
                                     R"(^case\.yaml: domain\.lx: the config gives h_x = lx / \(nx - 1\) = 0\.5.* but .*in\.h5:/grid says spacing \(0\.25, 0\.25, 0\.125\))");
  RunConfig shape = file_config("grid: {nx: 5, ny: 6, nz: 9}\n");
  expect_throw_matching<ConfigError>([&] { apply_field_geometry(shape, info); },
                                     R"(^case\.yaml: grid: the config says nx, ny, nz = 5, 6, 9 but .*in\.h5:/data/field has shape \(nz, ny, nx\) = \(9, 5, 5\))");
  RunConfig origin = file_config("domain: {origin: [0, 0, 1]}\n");
  write_attr3(path("in.h5"), "/grid", "origin", {0.0, 0.0, 0.0});
  expect_throw_matching<ConfigError>([&] { apply_field_geometry(origin, inspect_field(path("in.h5"), "/data/field")); },
                                     R"(domain\.origin: the config gives origin \(0, 0, 1\) but)");
}

TEST_F(Hdf5Test, BadInputsGiveOneClearLine) {
  expect_throw_matching<IoError>([&] { inspect_field(path("missing.h5"), "/u"); },
                                 R"(missing\.h5: cannot open the initial field \(No such file or directory\))");
  {
    std::ofstream(path("text.h5")) << "grid: not hdf5\n";
  }
  expect_throw_matching<IoError>([&] { inspect_field(path("text.h5"), "/u"); }, R"(text\.h5: not an HDF5 file)");
  write_field(path("in.h5"), "/field", 3, 4, 5);
  expect_throw_matching<IoError>([&] { inspect_field(path("in.h5"), "/u"); },
                                 R"(in\.h5: dataset '/u' not found \(datasets in the file: /field\))");
  expect_throw_matching<IoError>([&] { inspect_field(path("in.h5"), "/field/x"); }, R"(dataset '/field/x' not found)");
  // A name from the file is quoted escaped: the message stays one line
  // (found by fuzz_hdf5_field: a dataset whose name holds a newline).
  write_field(path("odd.h5"), "/a\nb\tc", 3, 4, 5);
  expect_throw_matching<IoError>([&] { inspect_field(path("odd.h5"), "/u"); },
                                 R"(odd\.h5: dataset '/u' not found \(datasets in the file: /a\\nb\\tc\)$)");
  expect_throw_matching<IoError>([&] { inspect_field(path("in.h5"), "/"); }, R"(is a group, expected a dataset)");
  std::vector<double> flat(12, 1.0);
  write_dataset(path("rank2.h5"), "/u", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {3, 4}, flat.data());
  expect_throw_matching<IoError>([&] { inspect_field(path("rank2.h5"), "/u"); },
                                 R"(rank2\.h5:/u: expected a 3-D dataset of shape \(nz, ny, nx\), got rank 2 \(shape \(3, 4\)\))");
  std::vector<int> ints(3 * 4 * 5, 7);
  write_dataset(path("int.h5"), "/u", H5T_STD_I32LE, H5T_NATIVE_INT, {5, 4, 3}, ints.data());
  expect_throw_matching<IoError>([&] { inspect_field(path("int.h5"), "/u"); },
                                 R"(int\.h5:/u: expected float32 or float64 values, got 32-bit integers)");
  std::vector<double> thin(2 * 4 * 5, 1.0);
  write_dataset(path("thin.h5"), "/u", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {5, 4, 2}, thin.data());
  expect_throw_matching<IoError>([&] { inspect_field(path("thin.h5"), "/u"); },
                                 R"(shape \(nz, ny, nx\) = \(5, 4, 2\): every axis needs at least 3 nodes)");
  std::vector<double> nan(3 * 4 * 5, 1.0);
  nan[2 + 3 * (1 + 4 * 3)] = std::numeric_limits<double>::quiet_NaN();  // node (2, 1, 3)
  write_dataset(path("nan.h5"), "/u", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {5, 4, 3}, nan.data());
  expect_throw_matching<IoError>([&] { read_field<double>(inspect_field(path("nan.h5"), "/u")); },
                                 R"(nan\.h5:/u: holds NaN at node \(i, j, k\) = \(2, 1, 3\))");
  nan[2 + 3 * (1 + 4 * 3)] = -std::numeric_limits<double>::infinity();
  write_dataset(path("inf.h5"), "/u", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {5, 4, 3}, nan.data());
  expect_throw_matching<IoError>([&] { read_field<float>(inspect_field(path("inf.h5"), "/u")); },
                                 R"(holds Inf at node)");
  std::vector<double> big(3 * 4 * 5, 1e300);
  write_dataset(path("big.h5"), "/u", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {5, 4, 3}, big.data());
  expect_throw_matching<IoError>([&] { read_field<float>(inspect_field(path("big.h5"), "/u")); },
                                 R"(overflows float32)");
  expect_throw_matching<IoError>([&] { inspect_field(dir_.string(), "/u"); }, R"(is a directory)");
}

// ---- output ------------------------------------------------------------------------

GridGeometry test_geometry() {
  GridGeometry g;
  g.n = {7, 5, 4};
  g.origin = {1.0, -2.0, 0.5};
  g.spacing = {0.5, 0.25, 0.125};
  return g;
}

GridFile::Options out_options(const std::string& p, Precision prec = Precision::F64, int compression = 0) {
  GridFile::Options o;
  o.path = p;
  o.geometry = test_geometry();
  o.precision = prec;
  o.compression = compression;
  o.provenance = collect_provenance({"adi3d", "run", "case.yaml"}, "cpu", "CPU, test", "grid: {}\n");
  return o;
}

std::vector<double> ramp(std::size_t n, double scale) {
  std::vector<double> v(n);
  for (std::size_t q = 0; q < n; ++q) v[q] = scale * static_cast<double>(q) + 0.125;
  return v;
}

std::string read_str_attr(hid_t obj, const char* name) {
  const hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  EXPECT_GE(a, 0) << name;
  const hid_t t = H5Aget_type(a);  // variable-length UTF-8
  EXPECT_GT(H5Tis_variable_str(t), 0) << name;
  char* p = nullptr;
  H5Aread(a, t, &p);
  std::string s = p ? p : "";
  H5free_memory(p);
  H5Tclose(t);
  H5Aclose(a);
  return s;
}

TEST_F(Hdf5Test, OutputFileLayoutAndTemporaryName) {
  const std::string out = path("run.h5");
  const auto u0 = ramp(7 * 5 * 4, 1.0), u1 = ramp(7 * 5 * 4, -0.5);
  {
    GridFile g = GridFile::create(out_options(out));
    // Nothing under the final name until a step is complete.
    EXPECT_FALSE(fs::exists(out));
    EXPECT_TRUE(temp_of_exists(out));
    g.write_step(0, 0.0, u0.data());
    EXPECT_TRUE(fs::exists(out));
    EXPECT_FALSE(temp_of_exists(out));
    EXPECT_TRUE(fs::exists(path("run.xmf")));
    g.write_step(12, 0.012, u1.data());
    EXPECT_TRUE(g.has_step(12));
    g.finish("complete");
  }
  const hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  EXPECT_EQ(read_str_attr(f, "status"), "complete");
  EXPECT_EQ(read_str_attr(f, "format"), "adi3d-output");
  // /grid: origin and spacing in x, y, z; shape in dataset order.
  const hid_t grid = H5Gopen2(f, "/grid", H5P_DEFAULT);
  double v3[3];
  long long s3[3];
  H5Aread(H5Aopen(grid, "origin", H5P_DEFAULT), H5T_NATIVE_DOUBLE, v3);  // handles leak until H5Fclose: fine in a test
  EXPECT_EQ(v3[0], 1.0);
  EXPECT_EQ(v3[1], -2.0);
  EXPECT_EQ(v3[2], 0.5);
  H5Aread(H5Aopen(grid, "spacing", H5P_DEFAULT), H5T_NATIVE_DOUBLE, v3);
  EXPECT_EQ(v3[0], 0.5);
  EXPECT_EQ(v3[2], 0.125);
  H5Aread(H5Aopen(grid, "shape", H5P_DEFAULT), H5T_NATIVE_LLONG, s3);
  EXPECT_EQ(s3[0], 4);
  EXPECT_EQ(s3[1], 5);
  EXPECT_EQ(s3[2], 7);
  // Steps: exact values, dims (nz, ny, nx), time and step attributes.
  const hid_t d = H5Dopen2(f, "/steps/000012/u", H5P_DEFAULT);
  ASSERT_GE(d, 0);
  hsize_t dims[3];
  H5Sget_simple_extent_dims(H5Dget_space(d), dims, nullptr);
  EXPECT_EQ(dims[0], 4u);
  EXPECT_EQ(dims[1], 5u);
  EXPECT_EQ(dims[2], 7u);
  std::vector<double> back(u1.size());
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, back.data());
  EXPECT_EQ(back, u1);
  double t = 0;
  long long st = 0;
  H5Aread(H5Aopen(d, "time", H5P_DEFAULT), H5T_NATIVE_DOUBLE, &t);
  H5Aread(H5Aopen(d, "step", H5P_DEFAULT), H5T_NATIVE_LLONG, &st);
  EXPECT_EQ(t, 0.012);
  EXPECT_EQ(st, 12);
  // Provenance.
  const hid_t p = H5Gopen2(f, "/provenance", H5P_DEFAULT);
  ASSERT_GE(p, 0);
  EXPECT_EQ(read_str_attr(p, "command_line"), "adi3d run case.yaml");
  EXPECT_EQ(read_str_attr(p, "hdf5_version"), hdf5_library_version());
  EXPECT_FALSE(read_str_attr(p, "git_hash").empty());
  EXPECT_FALSE(read_str_attr(p, "end_time").empty());
  EXPECT_GT(H5Lexists(p, "config", H5P_DEFAULT), 0);
  H5Fclose(f);
}

TEST_F(Hdf5Test, OutputWithoutStepsLeavesNoTemporaryBehind) {
  {
    GridFile g = GridFile::create(out_options(path("a.h5")));
    EXPECT_TRUE(temp_of_exists(path("a.h5")));
  }  // destroyed without a step and without finish: an aborted run
  EXPECT_FALSE(temp_of_exists(path("a.h5")));
  EXPECT_FALSE(fs::exists(path("a.h5")));
}

// The undo journal (undo_vfd.cpp) exists only while a write is under way; a
// finished file has none, recover_output then does nothing, and a journal cut
// short before its header was complete (killed writing it: nothing was
// overwritten yet) is discarded without touching the file.
TEST_F(Hdf5Test, JournalOnlyDuringWritesAndRecoveryOfNothing) {
  std::vector<double> u(7 * 5 * 4, 0.5);
  {
    GridFile g = GridFile::create(out_options(path("j.h5")));
    g.write_step(0, 0.0, u.data());
    g.write_step(1, 0.1, u.data());
    EXPECT_FALSE(fs::exists(path("j.h5.journal"))) << "a journal outlived the flush of a step";
    g.finish("complete");
  }
  EXPECT_FALSE(fs::exists(path("j.h5.journal")));
  EXPECT_FALSE(recover_output(path("j.h5")));
  const auto before = fs::file_size(path("j.h5"));
  { std::ofstream(path("j.h5.journal"), std::ios::binary) << "adi3d-und"; }
  EXPECT_FALSE(recover_output(path("j.h5")));
  EXPECT_FALSE(fs::exists(path("j.h5.journal")));
  EXPECT_EQ(fs::file_size(path("j.h5")), before);
  // Reopened for a restart, written and finished: still no journal, both steps there.
  GridFile r = GridFile::reopen(out_options(path("j.h5")), 1);
  EXPECT_FALSE(r.rolled_back());
  EXPECT_EQ(r.steps().size(), 2u);
  r.write_step(2, 0.2, u.data());
  r.finish("complete");
  EXPECT_FALSE(fs::exists(path("j.h5.journal")));
}

TEST_F(Hdf5Test, OutputCompressionUsesShuffleAndGzipAndFloat32) {
  std::vector<float> u(7 * 5 * 4, 1.5f);
  {
    GridFile g = GridFile::create(out_options(path("c.h5"), Precision::F32, 6));
    g.write_step(3, 0.5, u.data());
    g.finish("complete");
  }
  const hid_t f = H5Fopen(path("c.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, "/steps/000003/u", H5P_DEFAULT);
  const hid_t dcpl = H5Dget_create_plist(d);
  ASSERT_EQ(H5Pget_nfilters(dcpl), 2);
  unsigned flags = 0;
  size_t nelem = 1;
  unsigned level = 0;
  EXPECT_EQ(H5Pget_filter2(dcpl, 0, &flags, &nelem, &level, 0, nullptr, nullptr), H5Z_FILTER_SHUFFLE);
  nelem = 1;
  EXPECT_EQ(H5Pget_filter2(dcpl, 1, &flags, &nelem, &level, 0, nullptr, nullptr), H5Z_FILTER_DEFLATE);
  EXPECT_EQ(level, 6u);
  const hid_t t = H5Dget_type(d);
  EXPECT_EQ(H5Tget_size(t), 4u);
  EXPECT_EQ(H5Tget_class(t), H5T_FLOAT);
  H5Fclose(f);
}

TEST_F(Hdf5Test, ReopenDropsStepsAfterTheRestartStep) {
  const auto u = ramp(7 * 5 * 4, 1.0);
  {
    GridFile g = GridFile::create(out_options(path("r.h5")));
    for (index_t s : {0, 5, 10, 15}) g.write_step(s, 0.001 * static_cast<double>(s), u.data());
    // killed here: status stays "running"
    g.set_status("running");
  }
  GridFile g = GridFile::reopen(out_options(path("r.h5")), 5);
  ASSERT_EQ(g.steps().size(), 2u);
  EXPECT_EQ(g.steps()[0].step, 0);
  EXPECT_EQ(g.steps()[1].step, 5);
  EXPECT_FALSE(g.has_step(10));
  g.write_step(10, 0.01, u.data());
  g.finish("complete");
  const hid_t f = H5Fopen(path("r.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GT(H5Lexists(f, "/steps/000010", H5P_DEFAULT), 0);
  EXPECT_EQ(H5Lexists(f, "/steps/000015", H5P_DEFAULT), 0);
  EXPECT_GT(H5Lexists(f, "/provenance/restart_001", H5P_DEFAULT), 0);
  H5Fclose(f);
  // The sidecar lists exactly the steps in the file.
  std::ifstream x(path("r.xmf"));
  const std::string text((std::istreambuf_iterator<char>(x)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("r.h5:/steps/000010/u"), std::string::npos);
  EXPECT_EQ(text.find("000015"), std::string::npos);
  // A different grid is refused.
  auto o = out_options(path("r.h5"));
  o.geometry.n[0] = 8;
  expect_throw_matching<IoError>([&] { GridFile::reopen(o, 5); }, R"(its /grid differs from the run's grid)");
}

TEST_F(Hdf5Test, OutputIntoAMissingFolderFailsCleanly) {
  {
    std::ofstream(path("plainfile")) << "x";
  }
  expect_throw_matching<IoError>([&] { GridFile::create(out_options(path("plainfile/out.h5"))); },
                                 R"(output file '.*plainfile/out\.h5': cannot create .*out\.h5\.tmp \(Not a directory\))");
}

// ---- checkpoints ------------------------------------------------------------------

template <class T>
void checkpoint_round_trip(const std::string& p) {
  std::mt19937_64 gen(12345);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<T> u(7 * 5 * 4);
  for (auto& x : u) x = static_cast<T>(dist(gen));
  CheckpointState s;
  s.step = 42;
  s.time = 42 * 0.001;
  s.steps_total = 100;
  s.precision = precision_of<T>();
  s.geometry = test_geometry();
  s.config_yaml = "grid: {nx: 7, ny: 5, nz: 4}\n";
  write_checkpoint(p, s, u.data(), collect_provenance({"adi3d"}, "cpu", "CPU", ""));
  EXPECT_FALSE(fs::exists(p + ".tmp"));
  const CheckpointState r = read_checkpoint_state(p);
  EXPECT_EQ(r.step, 42);
  EXPECT_EQ(r.time, s.time);
  EXPECT_EQ(r.steps_total, 100);
  EXPECT_EQ(r.precision, s.precision);
  EXPECT_EQ(r.geometry.n, s.geometry.n);
  EXPECT_EQ(r.config_yaml, s.config_yaml);
  const auto back = read_checkpoint_field<T>(p, r);
  ASSERT_EQ(back.size(), u.size());
  EXPECT_EQ(0, std::memcmp(back.data(), u.data(), sizeof(T) * u.size())) << "not bit-identical";
}

TEST_F(Hdf5Test, CheckpointRoundTripIsBitExact) {
  checkpoint_round_trip<double>(path("c64.h5"));
  checkpoint_round_trip<float>(path("c32.h5"));
  CheckpointState s = read_checkpoint_state(path("c32.h5"));
  expect_throw_matching<IoError>([&] { read_checkpoint_field<double>(path("c32.h5"), s); },
                                 R"(holds float32 data, the run is float64)");
}

// The config is stored as a fixed-length string (parallel HDF5 cannot write
// variable-length data); checkpoints written before that, with a
// variable-length string, must still restart.
TEST_F(Hdf5Test, ConfigStringReadsInBothLayouts) {
  checkpoint_round_trip<double>(path("c.h5"));
  const std::string yaml = "grid: {nx: 7, ny: 5, nz: 4}\n# \xc3\xa9t\xc3\xa9\n";  // UTF-8 survives both
  CheckpointState edited = read_checkpoint_state(path("c.h5"));
  edited.config_yaml = yaml;
  {
    const hid_t f = H5Fopen(path("c.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    const hid_t d0 = H5Dopen2(f, "/provenance/config", H5P_DEFAULT);
    const hid_t t0 = H5Dget_type(d0);
    EXPECT_EQ(H5Tis_variable_str(t0), 0) << "the config is written fixed-length";
    EXPECT_EQ(H5Tget_cset(t0), H5T_CSET_UTF8);
    H5Tclose(t0);
    H5Dclose(d0);
    ASSERT_GE(H5Ldelete(f, "/provenance/config", H5P_DEFAULT), 0);
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    const hid_t sp = H5Screate(H5S_SCALAR);
    const hid_t d = H5Dcreate2(f, "/provenance/config", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(d, 0);
    const char* c = yaml.c_str();
    ASSERT_GE(H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &c), 0);
    H5Dclose(d);
    // The header hash covers the config: a new config needs a new hash.
    ASSERT_GE(H5Adelete(f, "state_hash"), 0);
    const hid_t a = H5Acreate2(f, "state_hash", t, sp, H5P_DEFAULT, H5P_DEFAULT);
    const std::string h = checkpoint_state_hash(edited);
    const char* hp = h.c_str();
    ASSERT_GE(H5Awrite(a, t, &hp), 0);
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
    H5Fclose(f);
  }
  EXPECT_EQ(read_checkpoint_state(path("c.h5")).config_yaml, yaml);
}

// A collective file needs parallel HDF5 and a running MPI (adi3d passes a
// part only to ranks of a distributed run): here it is a clean error, and
// nothing is left on disk.
TEST_F(Hdf5Test, CollectiveWriteWithoutMpiIsAClearError) {
  GridFile::Options o;
  o.path = path("par.h5");
  o.geometry = test_geometry();
  o.provenance = collect_provenance({"adi3d"}, "cpu", "CPU", "");
  o.part = FieldPart{{{0, 0, 0}}, o.geometry.n};
  expect_throw_matching<IoError>([&] { (void)GridFile::create(o); },
                                 parallel_hdf5_built() ? R"(par\.h5'.*needs MPI, which is not running)"
                                                       : R"(par\.h5': a collective write needs parallel HDF5, which this adi3d was built without)");
  std::vector<double> u(static_cast<std::size_t>(o.geometry.n[0] * o.geometry.n[1] * o.geometry.n[2]), 1.0);
  CheckpointState s;
  s.geometry = o.geometry;
  const FieldPart all{{{0, 0, 0}}, o.geometry.n};
  expect_throw_matching<IoError>(
      [&] { write_checkpoint(path("ck.h5"), s, u.data(), o.provenance, &all); },
      parallel_hdf5_built() ? R"(ck\.h5'.*needs MPI, which is not running.*the previous checkpoint)"
                            : R"(ck\.h5': a collective write needs parallel HDF5, which this adi3d was built without)");
  EXPECT_TRUE(fs::is_empty(dir_)) << "files were left behind";
}

TEST_F(Hdf5Test, FailedCheckpointWriteKeepsThePreviousOne) {
#if defined(__SANITIZE_ADDRESS__)
  // UBSan's vptr check tests memory through a pipe: with no file descriptor
  // left it cannot, and reports a false "invalid vptr" on the exception. The
  // main build runs this test.
  GTEST_SKIP() << "a sanitizer build: the sanitizer runtime needs file descriptors this test takes away";
#endif
  const std::string p = path("ck.h5");
  checkpoint_round_trip<double>(p);
  const auto before = fs::file_size(p);
  std::vector<double> u(7 * 5 * 4, 0.0);
  CheckpointState s = read_checkpoint_state(p);
  s.step = 50;
  // The temporary (a unique name) cannot be created: no file descriptor
  // left (the lowest free one is at the limit).
  const int lowest_free = dup(0);
  ASSERT_GE(lowest_free, 0);
  close(lowest_free);
  rlimit old_limit{};
  getrlimit(RLIMIT_NOFILE, &old_limit);
  const rlimit none_left{static_cast<rlim_t>(lowest_free), old_limit.rlim_max};
  setrlimit(RLIMIT_NOFILE, &none_left);
  expect_throw_matching<IoError>([&] { write_checkpoint(p, s, u.data(), Provenance{}); },
                                 R"(checkpoint '.*ck\.h5': cannot create .*ck\.h5\.tmp .*the previous checkpoint \(if any\) is unchanged)");
  setrlimit(RLIMIT_NOFILE, &old_limit);
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << "left: " << e.path();
  EXPECT_EQ(fs::file_size(p), before);
  EXPECT_EQ(read_checkpoint_state(p).step, 42);
}

TEST_F(Hdf5Test, TruncatedOrCorruptCheckpointIsRefused) {
  const std::string p = path("ck.h5");
  checkpoint_round_trip<double>(p);
  fs::copy_file(p, path("half.h5"));
  fs::resize_file(path("half.h5"), fs::file_size(p) / 2);
  expect_throw_matching<IoError>([&] { read_checkpoint_state(path("half.h5")); },
                                 R"(half\.h5: cannot open checkpoint: the file is truncated or damaged)");
  // Flip bytes inside the field data: the Fletcher-32 checksum catches it.
  fs::copy_file(p, path("flip.h5"));
  std::vector<double> u;
  {
    const CheckpointState s = read_checkpoint_state(p);
    u = read_checkpoint_field<double>(p, s);
  }
  std::fstream io(path("flip.h5"), std::ios::in | std::ios::out | std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(io)), std::istreambuf_iterator<char>());
  const std::string needle(reinterpret_cast<const char*>(u.data() + 10), 8 * 4);
  const auto at = bytes.find(needle);
  ASSERT_NE(at, std::string::npos);
  io.seekp(static_cast<std::streamoff>(at + 3));
  io.put(static_cast<char>(bytes[at + 3] ^ 0x5a));
  io.close();
  const CheckpointState s = read_checkpoint_state(path("flip.h5"));
  expect_throw_matching<IoError>([&] { read_checkpoint_field<double>(path("flip.h5"), s); },
                                 R"(cannot read the field /u: the checkpoint is truncated or damaged)");
  // Not a checkpoint at all.
  write_field(path("other.h5"), "/u", 3, 3, 3);
  expect_throw_matching<IoError>([&] { read_checkpoint_state(path("other.h5")); }, R"(not an adi3d checkpoint)");
}

/// Replaces /grid's attribute `name` by three values of file type `type`
/// (written from `mem` values of memory type `mtype`).
void replace_grid_attr(const std::string& file, const char* name, hid_t type, hid_t mtype, const void* mem) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t g = H5Gopen2(f, "/grid", H5P_DEFAULT);
  ASSERT_GE(g, 0);
  ASSERT_GE(H5Adelete(g, name), 0);
  const hsize_t three = 3;
  const hid_t sp = H5Screate_simple(1, &three, nullptr);
  const hid_t a = H5Acreate2(g, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(a, 0);
  EXPECT_GE(H5Awrite(a, mtype, mem), 0);
  H5Aclose(a);
  H5Sclose(sp);
  H5Gclose(g);
  H5Fclose(f);
}

// The class of a fuzz finding (a 32-byte float /grid/shape: HDF5 converted it
// and the cast to a node count overflowed): only standard number types are
// converted, node counts are integers in the config's range, and origin and
// spacing are finite, each refused in one line.
TEST_F(Hdf5Test, CheckpointGridAttributesOfOddTypesOrValuesAreRefused) {
  const std::string p = path("ck.h5");
  checkpoint_round_trip<double>(p);
  auto variant = [&](const char* file, const char* name, hid_t type, hid_t mtype, const void* mem) {
    fs::copy_file(p, path(file), fs::copy_options::overwrite_existing);
    replace_grid_attr(path(file), name, type, mtype, mem);
    return path(file);
  };
  const double shape_d[3] = {4, 5, 7};
  expect_throw_matching<IoError>(
      [&] { read_checkpoint_state(variant("a.h5", "shape", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, shape_d)); },
      R"(a\.h5:/grid: attribute 'shape': expected 3 integers, got 3 floats$)");
  // A 24-bit integer and a 128-bit float: HDF5 would convert them softly.
  const hid_t int24 = H5Tcopy(H5T_STD_I32LE);
  H5Tset_precision(int24, 24);
  H5Tset_size(int24, 3);
  const std::uint8_t raw24[9] = {4, 0, 0, 5, 0, 0, 7, 0, 0};
  expect_throw_matching<IoError>(
      [&] { read_checkpoint_state(variant("b.h5", "shape", int24, int24, raw24)); },
      R"(attribute 'shape': stored as a 24-bit integer of a non-standard layout; expected an 8-64-bit integer$)");
  H5Tclose(int24);
  const hid_t f128 = H5Tcopy(H5T_IEEE_F64LE);
  H5Tset_size(f128, 16);
  std::uint8_t raw128[48] = {};
  expect_throw_matching<IoError>(
      [&] { read_checkpoint_state(variant("c.h5", "origin", f128, f128, raw128)); },
      R"(attribute 'origin': stored as a 128-bit float of a non-standard layout; expected IEEE float32/float64)");
  H5Tclose(f128);
  // Values: counts out of range, a NaN origin, a zero spacing.
  const long long huge[3] = {7, 5, 1LL << 40};
  expect_throw_matching<IoError>(
      [&] { read_checkpoint_state(variant("d.h5", "shape", H5T_STD_I64LE, H5T_NATIVE_LLONG, huge)); },
      R"(attribute 'shape': 1099511627776 nodes along an axis; expected 1 to 16777216$)");
  const long long zero[3] = {0, 5, 7};
  expect_throw_matching<IoError>(
      [&] { read_checkpoint_state(variant("e.h5", "shape", H5T_STD_I64LE, H5T_NATIVE_LLONG, zero)); },
      R"(attribute 'shape': 0 nodes along an axis)");
  const double nan_origin[3] = {0, std::nan(""), 0};
  expect_throw_matching<IoError>(
      [&] { read_checkpoint_state(variant("f.h5", "origin", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, nan_origin)); },
      R"(/grid: origin and spacing must be finite with spacing > 0$)");
  const double zero_h[3] = {0.1, 0, 0.1};
  expect_throw_matching<IoError>(
      [&] { read_checkpoint_state(variant("g.h5", "spacing", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, zero_h)); },
      R"(/grid: origin and spacing must be finite with spacing > 0$)");
  // A big-endian standard type is still read.
  const long long shape_ok[3] = {4, 5, 7};
  EXPECT_NO_THROW(read_checkpoint_state(variant("h.h5", "shape", H5T_STD_I32BE, H5T_NATIVE_LLONG, shape_ok)));
}

TEST_F(Hdf5Test, RestartNeedsTheSameProblem) {
  const RunConfig c = parse_config("grid: {nx: 7, ny: 5, nz: 4}\ntime: {dt: 0.001, steps: 100}\n", "case.yaml");
  CheckpointState s;
  s.step = 40;
  s.time = 40 * 0.001;
  s.dt = 0.001;
  s.steps_total = 100;
  s.precision = Precision::F64;
  s.geometry = geometry_of(c);
  s.config_yaml = c.resolved_yaml;
  s.problem = problem_items_text(problem_items(c));
  s.problem_hash = problem_hash(problem_items(c));
  EXPECT_NO_THROW(check_restart_compatible("ck.h5", s, c));
  EXPECT_NO_THROW(check_same_problem("ck.h5", s, problem_items(c)));
  // Time is on the checkpoint's axis (an edited step is caught), and the
  // step is within the checkpointed run's steps.
  CheckpointState edited = s;
  edited.step = 41;
  expect_throw_matching<IoError>([&] { check_restart_compatible("ck.h5", edited, c); },
                                 R"(the checkpoint says step 41 at time 0\.040000 s, but its time axis .* puts it at t = 0\.041000 s)");
  // Another dt is a new segment of the time axis, from the checkpoint on.
  RunConfig dt = parse_config("grid: {nx: 7, ny: 5, nz: 4}\ntime: {dt: 0.002, steps: 100}\n", "case.yaml");
  resolve_restart_time(dt, s);
  EXPECT_EQ(dt.axis.s0, 40);
  EXPECT_EQ(dt.axis.t0, 0.04);
  EXPECT_EQ(dt.axis.dt_before, 0.001);
  EXPECT_EQ(dt.axis.time_of(41, dt.problem.dt), 0.04 + 0.002);
  EXPECT_NO_THROW(check_restart_compatible("ck.h5", s, dt));
  EXPECT_NO_THROW(check_same_problem("ck.h5", s, problem_items(dt)));
  // The same dt keeps the checkpoint's axis (t = step x dt, bit for bit).
  RunConfig same = c;
  resolve_restart_time(same, s);
  EXPECT_EQ(same.axis.s0, 0);
  EXPECT_EQ(same.axis.t0, 0.0);
  const RunConfig grid = parse_config("grid: {nx: 9, ny: 5, nz: 4}\ntime: {dt: 0.001, steps: 100}\n", "case.yaml");
  expect_throw_matching<ConfigError>([&] { check_restart_compatible("ck.h5", s, grid); },
                                     R"(grid differs: checkpoint \[7, 5, 4\], config \[9, 5, 4\])");
  const RunConfig shorter = parse_config("grid: {nx: 7, ny: 5, nz: 4}\ntime: {dt: 0.001, steps: 30}\n", "case.yaml");
  expect_throw_matching<ConfigError>([&] { check_restart_compatible("ck.h5", s, shorter); },
                                     R"(it is at step 40 \(t = 0\.04 s\), beyond the run's end \(step 30)");
  // Every problem-defining item is compared, and named.
  const RunConfig theta =
      parse_config("grid: {nx: 7, ny: 5, nz: 4}\ntime: {dt: 0.001, steps: 100}\nscheme: {theta: 0.6}\n", "case.yaml");
  expect_throw_matching<ConfigError>([&] { check_same_problem("ck.h5", s, problem_items(theta)); },
                                     R"(scheme\.theta differs: checkpoint 0\.5, config 0\.6)");
  // A version 1 checkpoint (no axis, no problem): t = step x dt, and its
  // problem is read from its config.
  CheckpointState v1 = s;
  v1.format_version = 1;
  v1.dt = 0;
  v1.problem.clear();
  v1.problem_hash.clear();
  EXPECT_NO_THROW(check_restart_compatible("ck.h5", v1, c));
  EXPECT_NO_THROW(check_same_problem("ck.h5", v1, problem_items(c)));
  expect_throw_matching<ConfigError>([&] { check_same_problem("ck.h5", v1, problem_items(theta)); },
                                     R"(scheme\.theta differs: checkpoint 0\.5, config 0\.6)");
}

TEST_F(Hdf5Test, AnOutputNameItsXdmfCannotNameIsRefused) {
  GridFile::Options o;
  o.path = path("run:1.h5");
  o.geometry.n = {3, 3, 3};
  expect_throw_matching<IoError>([&] { (void)GridFile::create(o); }, R"(a name with ':' cannot be named by its \.xmf)");
  EXPECT_FALSE(fs::exists(path("run:1.h5")));
  o.xdmf = false;  // without the sidecar the name is fine
  EXPECT_NO_THROW((void)GridFile::create(o));
}

// ---- XDMF ---------------------------------------------------------------------------

TEST_F(Hdf5Test, XdmfListsSlowestFirst) {
  GridGeometry g;
  g.n = {9, 5, 3};
  g.origin = {1.0, 2.0, 3.0};
  g.spacing = {0.1, 0.2, 0.3};
  const std::string x = xdmf_text("run.h5", g, Precision::F32,
                                  {{0, 0.0, step_dataset(0)}, {1000000, 2.5, step_dataset(1000000)}});
  EXPECT_NE(x.find(R"(TopologyType="3DCoRectMesh" Dimensions="3 5 9")"), std::string::npos) << x;
  EXPECT_NE(x.find(">3 2 1</DataItem>"), std::string::npos) << x;
  // Shortest text that reads back to the same double (not 0.29999999999999999).
  EXPECT_NE(x.find(">0.3 0.2 0.1</DataItem>"), std::string::npos) << x;
  EXPECT_NE(x.find(R"(Precision="4" Dimensions="3 5 9">run.h5:/steps/000000/u<)"), std::string::npos) << x;
  EXPECT_NE(x.find("run.h5:/steps/1000000/u"), std::string::npos) << x;
  EXPECT_NE(x.find(R"(<Time Value="2.5"/>)"), std::string::npos) << x;
  EXPECT_NE(x.find(R"(CollectionType="Temporal")"), std::string::npos);
  write_xdmf(path("run.xmf"), "run.h5", g, Precision::F64, {});
  EXPECT_TRUE(fs::exists(path("run.xmf")));
  EXPECT_FALSE(fs::exists(path("run.xmf.tmp")));
  EXPECT_EQ(xdmf_path_for("a/b/run.h5"), "a/b/run.xmf");
  EXPECT_EQ(xdmf_path_for("run.hdf5"), "run.xmf");
  EXPECT_EQ(xdmf_path_for("run.out"), "run.out.xmf");
}

TEST(Provenance, ShellJoinQuotes) {
  EXPECT_EQ(shell_join({"adi3d", "run", "a b.yaml", "--set", "x='y'"}), R"(adi3d run 'a b.yaml' --set 'x='\''y'\''')");
  const Provenance p = collect_provenance({"adi3d"}, "cpu", "CPU", "cfg");
  EXPECT_FALSE(p.version.empty());
  EXPECT_FALSE(p.host.empty());
  EXPECT_TRUE(std::regex_match(p.start_time, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << p.start_time;
}

}  // namespace
