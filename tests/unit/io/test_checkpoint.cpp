// Checkpoints on real files in a scratch folder: a bit-exact round trip,
// the config string in both layouts, atomic replacement (a failed write
// keeps the previous one), truncation, corruption and odd grid attributes
// refused, and a restart's problem checked against the checkpoint's.

#include "hdf5_test_support.hpp"

using namespace adi;
using namespace adi::io;
using namespace adi::test::hdf5;

namespace {

// ---- checkpoints ------------------------------------------------------------------

/// Flips one byte inside the first occurrence of values[10..13] in the file
/// (a dataset's raw data: the checksum must catch it).
void flip_byte_in(const std::string& file, const std::vector<double>& values) {
  std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(io)), std::istreambuf_iterator<char>());
  const std::string needle(reinterpret_cast<const char*>(values.data() + 10), 8 * 4);
  const auto at = bytes.find(needle);
  ASSERT_NE(at, std::string::npos);
  io.seekp(static_cast<std::streamoff>(at + 3));
  io.put(static_cast<char>(bytes[at + 3] ^ 0x5a));
}

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

// The extrapolated nonlinear step's previous field: /u_previous written
// beside /u and read back bit for bit; absent, has_previous is false and
// the read gives nothing; damaged, it is refused like /u.
TEST_F(Hdf5Test, PreviousFieldRoundTripIsBitExact) {
  std::vector<double> u(7 * 5 * 4), prev(u.size());
  for (std::size_t q = 0; q < u.size(); ++q) {
    u[q] = 300.0 + 0.1 * static_cast<double>(q);
    prev[q] = 299.0 + std::sqrt(static_cast<double>(q));
  }
  CheckpointState s;
  s.step = 3;
  s.time = 0.3;
  s.steps_total = 6;
  s.geometry = test_geometry();
  s.config_yaml = "grid: {nx: 7, ny: 5, nz: 4}\n";
  const Provenance prov = collect_provenance({"adi3d"}, "cpu", "CPU", "");
  write_checkpoint(path("with.h5"), s, u.data(), prov, nullptr, prev.data());
  const CheckpointState r = read_checkpoint_state(path("with.h5"));
  ASSERT_TRUE(r.has_previous);
  const auto a = read_checkpoint_field<double>(path("with.h5"), r), b = read_checkpoint_previous<double>(path("with.h5"), r);
  EXPECT_EQ(0, std::memcmp(a.data(), u.data(), sizeof(double) * u.size()));
  ASSERT_EQ(b.size(), prev.size());
  EXPECT_EQ(0, std::memcmp(b.data(), prev.data(), sizeof(double) * prev.size()));
  write_checkpoint(path("without.h5"), s, u.data(), prov);
  const CheckpointState w = read_checkpoint_state(path("without.h5"));
  EXPECT_FALSE(w.has_previous);
  EXPECT_TRUE(read_checkpoint_previous<double>(path("without.h5"), w).empty());
  // A flipped byte in /u_previous: its checksum refuses it.
  fs::copy_file(path("with.h5"), path("flip.h5"));
  flip_byte_in(path("flip.h5"), prev);
  const CheckpointState f = read_checkpoint_state(path("flip.h5"));
  EXPECT_NO_THROW(read_checkpoint_field<double>(path("flip.h5"), f));
  expect_throw_matching<IoError>([&] { read_checkpoint_previous<double>(path("flip.h5"), f); },
                                 R"(cannot read the field /u_previous: the checkpoint is truncated or damaged)");
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
  flip_byte_in(path("flip.h5"), u);
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

}  // namespace
