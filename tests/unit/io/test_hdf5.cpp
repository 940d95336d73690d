// HDF5 in and out, on real files in a scratch folder: the initial-field
// reader (layouts, dtypes, geometry attributes, every bad input), the output
// file (layout, temporary-then-rename, restart) and the XDMF sidecar.
// Checkpoints are test_checkpoint.cpp.

#include "hdf5_test_support.hpp"

using namespace adi;
using namespace adi::io;
using namespace adi::test::hdf5;

namespace {

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
