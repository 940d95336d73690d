#pragma once
// What the HDF5 tests share (test_hdf5.cpp, test_checkpoint.cpp): a scratch
// folder per test and files written with the plain HDF5 C API, not with the
// code under test.

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

namespace adi::test::hdf5 {

using namespace adi;
using namespace adi::io;
namespace fs = std::filesystem;

/// A temporary of `final_path` exists: "adi3d.<pid>.<random>.<name>.tmp"
/// next to it (io/lock.hpp, unique_temp_path).
inline bool temp_of_exists(const std::string& final_path) {
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
inline double f_node(index_t i, index_t j, index_t k) { return 0.5 + static_cast<double>(i) + 100.0 * j + 10000.0 * k; }

/// Writes a dataset of shape dims (C order) with the given file/memory type.
inline void write_dataset(const std::string& file, const std::string& name, hid_t ftype, hid_t mtype,
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

inline void write_attr3(const std::string& file, const std::string& obj, const char* name, std::array<double, 3> v) {
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
inline void write_field(const std::string& file, const std::string& name, index_t nx, index_t ny, index_t nz) {
  std::vector<double> v(static_cast<std::size_t>(nx * ny * nz));
  for (index_t k = 0; k < nz; ++k)
    for (index_t j = 0; j < ny; ++j)
      for (index_t i = 0; i < nx; ++i) v[i + nx * (j + ny * k)] = f_node(i, j, k);
  write_dataset(file, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                {static_cast<hsize_t>(nz), static_cast<hsize_t>(ny), static_cast<hsize_t>(nx)}, v.data());
}

template <class E, class F>
inline void expect_throw_matching(F&& f, const std::string& re) {
  try {
    f();
    FAIL() << "expected an exception matching " << re;
  } catch (const E& e) {
    EXPECT_TRUE(std::regex_search(e.what(), std::regex(re))) << "message: " << e.what() << "\nexpected: " << re;
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
  }
}

inline RunConfig file_config(const std::string& extra = "") {
  return parse_config("initial: {file: in.h5}\ntime: {dt: 0.001, steps: 3}\n" + extra, "case.yaml");
}

/// The grid of the output and checkpoint tests.
inline GridGeometry test_geometry() {
  GridGeometry g;
  g.n = {7, 5, 4};
  g.origin = {1.0, -2.0, 0.5};
  g.spacing = {0.5, 0.25, 0.125};
  return g;
}

}  // namespace adi::test::hdf5
