// Fuzz target: the checkpoint reader, as `adi3d run --restart CKPT` uses it
// without a config: read_checkpoint_state (header, /grid, stored config,
// /u's shape and type), the stored config parsed, check_restart_compatible,
// then read_checkpoint_field (Fletcher-32 checked, NaN/Inf refused).
//
// Input: the bytes of an HDF5 file (seeds: adi3d checkpoints written by
// tests/fuzz/make_seeds.py). The reads run in a child first, as in adi3d
// (see fuzz_hdf5_field.cpp).

#include "fuzz_common.hpp"
#include "fuzz_io_util.hpp"

#include <adi/io/io.hpp>

namespace {
void read_as_adi3d_does(const std::string& path) {
  const adi::io::CheckpointState s = adi::io::read_checkpoint_state(path);
  const adi::io::RunConfig c = adi::io::parse_config(s.config_yaml, path + ":/provenance/config");
  adi::io::check_restart_compatible(path, s, c);
  const auto& n = s.geometry.n;
  if (static_cast<double>(n[0]) * static_cast<double>(n[1]) * static_cast<double>(n[2]) >
      static_cast<double>(adi::fuzz::kMaxNodes))
    return;
  if (s.precision == adi::Precision::F32)
    (void)adi::io::read_checkpoint_field<float>(path, s);
  else
    (void)adi::io::read_checkpoint_field<double>(path, s);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = adi::fuzz::write_scratch(data, size);
  if (!adi::fuzz::child_survives(path, [&] { read_as_adi3d_does(path); })) return 0;
  adi::fuzz::expect_clean_failure([&] { read_as_adi3d_does(path); });
  adi::fuzz::expect_no_open_hdf5_objects();
  return 0;
}
