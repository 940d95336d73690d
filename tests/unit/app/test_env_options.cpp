// adi3d's environment knobs (app/env_options.hpp): read once, strictly; a
// malformed value is an InvalidArgument (exit 2) that names the variable.

#include <env_options.hpp>

#include <adi/error.hpp>

#include <gtest/gtest.h>

#include <map>
#include <vector>
#include <string>

using adi::app::EnvOptions;
using adi::app::read_env_options;

namespace {

EnvOptions read(const std::map<std::string, std::string>& env) {
  return read_env_options([&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

void expect_rejected(const std::string& name, const std::string& value) {
  try {
    read({{name, value}});
    FAIL() << name << "=" << value << " was accepted";
  } catch (const adi::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(name + "='"), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(EnvOptions, DefaultsWhenUnsetOrEmpty) {
  const EnvOptions d = read({});
  const adi::SolverOptions s{};
  EXPECT_EQ(d.solver.describe(), s.describe());
  EXPECT_TRUE(d.app.parallel_io);
  EXPECT_TRUE(d.app.isolate_reads);
  EXPECT_EQ(d.app.read_timeout_s, 60.0);
  EXPECT_EQ(d.app.fault_nan_at_step, -1);
  EXPECT_EQ(d.app.batch_job, "");
  // Empty values keep the defaults too.
  const EnvOptions e = read({{"ADI_X_SEG", ""}, {"ADI_MPI_OVERLAP", ""}, {"ADI_READ_TIMEOUT", ""}});
  EXPECT_EQ(e.solver.x_seg, 0);
  EXPECT_TRUE(e.solver.mpi_overlap);
  EXPECT_EQ(e.app.read_timeout_s, 60.0);
}

TEST(EnvOptions, ReadsEveryKnob) {
  const EnvOptions o = read({{"ADI_CUDA_DEVICE", "1"},   {"ADI_CUDA_SYNC", "1"},     {"ADI_X_SEG", "16"},
                             {"ADI_YZ_SEG", "32"},       {"ADI_LANES_PAIRS", "0"},   {"ADI_RHS_VEC", "2"},
                             {"ADI_FUSE_RHS", "0"},      {"ADI_FUSED_PLANES", "12"}, {"ADI_MPI_OVERLAP", "0"}, {"ADI_CUDA_GRAPH", "0"},
                             {"ADI_SKIP_FIXED", "0"}, {"ADI_SHORT_LINES", "0"},
                             {"ADI_ROW_ALIGN", "64"},
                             {"ADI_GENERAL_SEGMENTED", "0"}, {"ADI_GENERAL_X_TRANSPOSE", "0"},
                             {"ADI_GENERAL_X_IN_PLACE", "0"},
                             {"ADI_CLASSIC_RINGS", "0"}, {"ADI_LONG_LINES", "0"}, {"ADI_LINE_BLOCKS", "0"},
                             {"ADI_MPI_BATCHES", "3"},   {"ADI_PARALLEL_IO", "0"},   {"ADI_READ_TIMEOUT", "2.5"},
                             {"ADI_FAULT_NAN_AT_STEP", "7"}, {"ADI_ISOLATE_READS", "0"}, {"SLURM_JOB_ID", "4242"},
                             {"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_RESTART_COUNT", "1"}});
  EXPECT_EQ(o.solver.cuda_device, 1);
  EXPECT_TRUE(o.solver.cuda_sync);
  EXPECT_EQ(o.solver.x_seg, 16);
  EXPECT_EQ(o.solver.yz_seg, 32);
  EXPECT_FALSE(o.solver.lanes_pairs);
  EXPECT_EQ(o.solver.rhs_vec, 2);
  EXPECT_FALSE(o.solver.fuse_rhs);
  EXPECT_EQ(o.solver.fused_planes, 12);
  EXPECT_FALSE(o.solver.cuda_graph);
  EXPECT_FALSE(o.solver.skip_fixed);
  EXPECT_FALSE(o.solver.short_lines);
  EXPECT_EQ(o.solver.row_align, 64);
  EXPECT_FALSE(o.solver.general_segmented);
  EXPECT_FALSE(o.solver.general_x_transpose);
  EXPECT_FALSE(o.solver.general_x_in_place);
  EXPECT_FALSE(o.solver.classic_rings);
  EXPECT_FALSE(o.solver.long_lines);
  EXPECT_FALSE(o.solver.line_blocks);
  EXPECT_FALSE(o.solver.mpi_overlap);
  EXPECT_EQ(o.solver.mpi_batches, 3);
  EXPECT_FALSE(o.app.parallel_io);
  EXPECT_EQ(o.app.read_timeout_s, 2.5);
  EXPECT_EQ(o.app.fault_nan_at_step, 7);
  EXPECT_FALSE(o.app.isolate_reads);
  EXPECT_EQ(o.app.batch_job, "4242 array task 3 restart 1");
  EXPECT_NE(o.solver.describe().find("set by ADI_X_SEG"), std::string::npos);
  EXPECT_NE(o.app.describe().find("set by ADI_READ_TIMEOUT"), std::string::npos);
}

TEST(EnvOptions, MalformedValuesNameTheVariable) {
  for (const char* flag : {"ADI_CUDA_SYNC", "ADI_LANES_PAIRS", "ADI_FUSE_RHS", "ADI_CUDA_GRAPH", "ADI_SKIP_FIXED", "ADI_SHORT_LINES", "ADI_GENERAL_SEGMENTED", "ADI_GENERAL_X_TRANSPOSE", "ADI_GENERAL_X_IN_PLACE", "ADI_CLASSIC_RINGS", "ADI_LONG_LINES", "ADI_LINE_BLOCKS",
                           "ADI_MPI_OVERLAP", "ADI_PARALLEL_IO", "ADI_ISOLATE_READS"})
    for (const char* v : {"yes", "2", "01", " 1", "1 "}) expect_rejected(flag, v);
  for (const char* v : {"abc", "-1", "1.5", "0x1", " 0", "99999999999999999999"}) expect_rejected("ADI_CUDA_DEVICE", v);
  for (const char* v : {"65", "-2", "16k"}) {
    expect_rejected("ADI_X_SEG", v);
    expect_rejected("ADI_YZ_SEG", v);
  }
  for (const char* v : {"-1", "65537", "8p"}) expect_rejected("ADI_FUSED_PLANES", v);
  for (const char* v : {"1", "3", "8", "four"}) expect_rejected("ADI_RHS_VEC", v);
  for (const char* v : {"8", "48", "512", "-16", "32b"}) expect_rejected("ADI_ROW_ALIGN", v);
  for (const char* v : {"0", "-3", "x"}) expect_rejected("ADI_MPI_BATCHES", v);
  for (const char* v : {"0", "-5", "inf", "nan", "5s", " 5"}) expect_rejected("ADI_READ_TIMEOUT", v);
  for (const char* v : {"0", "-1", "seven"}) expect_rejected("ADI_FAULT_NAN_AT_STEP", v);
}

// A knob removed once its A/B was settled is refused whatever its value (it
// took 0 or 1, or 2 / 4 / 8), with the reason; empty, it is unset.
TEST(EnvOptions, RetiredKnobsAreRefusedByName) {
  for (const char* retired :
       {"ADI_LANES_CONST", "ADI_LANES_HALF_TILES", "ADI_FUSED_TILES", "ADI_RHS_AHEAD", "ADI_SKIP_FACE_LANE"})
    for (const char* v : {"0", "1", "4"}) {
      try {
        read({{retired, v}});
        ADD_FAILURE() << retired << "=" << v << " was accepted";
      } catch (const adi::InvalidArgument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(std::string(retired) + "='" + v + "' in the environment: no longer a knob"),
                  std::string::npos)
            << what;
        EXPECT_NE(what.find("docs/PERFORMANCE.md"), std::string::npos) << what;
      }
      EXPECT_NO_THROW(read({{retired, ""}}));
    }
}

// The knob table (solver_knobs.def, app_knobs.def) drives the parser: every
// row's variable is read (a malformed value names it), and every row is in
// the Markdown table docs/DEVELOPERS.md carries (adi3d info --knobs).
TEST(EnvOptions, EveryRowOfTheKnobTablesIsRead) {
  std::vector<adi::KnobInfo> rows = adi::SolverOptions::knobs();
  for (const adi::KnobInfo& k : adi::app::AppOptions::knobs()) rows.push_back(k);
  EXPECT_GE(rows.size(), 26u);
  const std::string table = adi::app::knob_table();
  for (const adi::KnobInfo& k : rows) {
    expect_rejected(k.variable, "x");
    EXPECT_NE(table.find(std::string("| `") + k.variable + k.form + "` | " + k.effect + " | "), std::string::npos)
        << k.variable;
  }
}
