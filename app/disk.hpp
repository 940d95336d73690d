#pragma once
// What a run will write to disk, estimated from the plan before the first
// step (adi3d run and run --dry-run), against the free space of each file
// system it writes to: a run that cannot fit is refused (exit 3) unless
// --force, one that takes more than 80 % of the free space is warned about.
// The estimate is an upper bound for uncompressed outputs (the field of
// every output step in the run's precision, HDF5's few KiB a step, the
// material fields once, the checkpoint and its temporary replacement); with
// output.compression the output may be much smaller, so it is never refused.

#include "run_driver.hpp"

#include <string>
#include <vector>

namespace adi::app {

struct DiskEstimate {
  struct File {
    std::string role;    ///< "output", "checkpoint"
    std::string path;
    double bytes = 0;    ///< this run's writes to it, at most
    std::string detail;  ///< how the bytes add up ("11 steps x 144.46 KiB ...")
  };
  struct Volume {
    std::string folder;               ///< a folder on it (the first file's)
    std::vector<std::string> files;   ///< paths written there
    double need = 0;                  ///< bytes this run writes there
    double freed = 0;                 ///< bytes of a file --overwrite replaces there
    double free = -1;                 ///< available to this user (statvfs f_bavail); -1: unknown
    bool compressed = false;          ///< an output there is compressed (need is an upper bound)
  };
  std::vector<File> files;
  std::vector<Volume> volumes;
};

/// Threshold of the warning: a run that needs more than this fraction of a
/// file system's free space.
constexpr double kDiskWarnFraction = 0.8;

DiskEstimate estimate_disk(const RunPlan& plan, bool overwrite);

/// Lines for --dry-run ("# disk: ...").
std::string describe_disk(const DiskEstimate& d);

/// Warns above kDiskWarnFraction of the free space; throws io::IoError
/// (exit 3) when the run cannot fit, unless `force` (then it warns).
void check_disk(const DiskEstimate& d, bool force);

}  // namespace adi::app
