// Fuzz target: the HDF5 initial-field reader, as `initial: {file: ...}`
// uses it: inspect_field (header: dataset, type, rank, shape, geometry
// attributes), apply_field_geometry (the grid taken into a config), then
// read_field in both precisions (values, NaN/Inf, rounding).
//
// Input: the bytes of an HDF5 file (seeds: tests/fuzz/make_seeds.py). The
// dataset read is /u, as in the seeds. As in adi3d, the reads run in a child
// process first (io/probe.hpp); a crash there inside the HDF5 library is
// contained (adi3d exits 3 with a message), one in adi3d's code is a finding.

#include "fuzz_common.hpp"
#include "fuzz_io_util.hpp"

#include <adi/io/io.hpp>

namespace {
void read_as_adi3d_does(const std::string& path) {
  const adi::io::FieldInfo info = adi::io::inspect_field(path, "/u");
  adi::io::RunConfig c = adi::io::parse_config("initial: {file: f.h5}\ntime: {dt: 1.0e-3, steps: 1}\n", "f.yaml");
  adi::io::apply_field_geometry(c, info);
  c.problem.validate();
  if (static_cast<double>(info.n[0]) * static_cast<double>(info.n[1]) * static_cast<double>(info.n[2]) >
      static_cast<double>(adi::fuzz::kMaxNodes))
    return;
  const auto d = adi::io::read_field<double>(info);
  const auto f = adi::io::read_field<float>(info);
  if (d.values.size() != f.values.size()) adi::fuzz::finding("read_field", "sizes differ between precisions");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = adi::fuzz::write_scratch(data, size);
  if (!adi::fuzz::child_survives(path, [&] { read_as_adi3d_does(path); })) return 0;
  adi::fuzz::expect_clean_failure([&] { read_as_adi3d_does(path); });
  adi::fuzz::expect_no_open_hdf5_objects();
  return 0;
}
