// The output schedule of adi3d run (app/output_schedule.hpp): which steps
// write outputs, checkpoints and log lines, without HDF5 or a stepper. The
// property that matters most: a run restarted at step k (from a checkpoint)
// schedules exactly what the uninterrupted run schedules after k.

#include <output_schedule.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

using adi::index_t;
using adi::app::OutputSchedule;

namespace {

/// A small case with an output file; `sets` as adi3d's --set.
adi::io::RunConfig config(const std::vector<std::string>& sets, index_t steps = 250) {
  const std::string text = "grid: {nx: 5, ny: 5, nz: 5}\ntime: {dt: 2.0e-4, steps: " + std::to_string(steps) +
                           "}\noutput: {file: out.h5}\n";
  return adi::io::parse_config(text, "case.yaml", sets);
}

OutputSchedule schedule(const adi::io::RunConfig& c) { return OutputSchedule(c, !c.output.file.empty()); }

std::vector<index_t> output_steps(const OutputSchedule& s, index_t from = 0) {
  std::vector<index_t> out;
  for (const auto& e : s.list(from))
    if (e.output) out.push_back(e.step);
  return out;
}

/// Every step in (from, steps] with something due, by testing each step:
/// what next_event must never skip.
std::vector<OutputSchedule::Entry> brute_force(const OutputSchedule& s, index_t from) {
  std::vector<OutputSchedule::Entry> out;
  if (s.output_due(from)) out.push_back({from, true, false, false});
  for (index_t k = from + 1; k <= s.steps(); ++k) {
    const OutputSchedule::Entry e{k, s.output_due(k), s.checkpoint_due(k), s.log_due(k)};
    if (e.output || e.checkpoint || e.log) out.push_back(e);
  }
  return out;
}

std::vector<OutputSchedule::Entry> after(const std::vector<OutputSchedule::Entry>& v, index_t k) {
  std::vector<OutputSchedule::Entry> out;
  for (const auto& e : v)
    if (e.step > k) out.push_back(e);
  return out;
}

/// Schedules of awkward shapes: every N not dividing the steps, every_time
/// not a multiple of dt (and t_end shrinking dt), all together.
std::vector<std::vector<std::string>> awkward_cases() {
  return {
      {"output.every=7", "checkpoint.every=11", "log.every=13"},
      {"output.every_time=1.3e-3", "checkpoint.every=25"},
      {"output.every_time=1e-3", "output.every=9", "checkpoint.every=4", "output.initial=false"},
      {"time={dt: 3.0e-4, t_end: 0.0517}", "output.every_time=7e-4", "checkpoint.every=17", "output.final=false"},
      {"time={dt: 1.0e-4, t_end: 0.013}", "output.every_time=1e-3", "log.every=50"},
      {"output.every=1", "checkpoint.every=1"},
      {"checkpoint.every=60", "output.file=''"},
  };
}


// A restart that changed dt (a new segment of the time axis, issue #59 item 5):
// every_time outputs land at the new times, t = t0 + (step - s0) dt; and a run
// from time.start counts every_time from absolute times.
TEST(OutputSchedule, EveryTimeOnASegmentAndFromTimeStart) {
  adi::io::RunConfig c = config({"time.dt=1", "time.steps=8", "output.every_time=3"});
  c.axis = adi::io::TimeAxis{8.0, 8, 1.0, ""};
  c.problem.dt = 0.5;
  c.steps = 16;  // t = 12
  const OutputSchedule s = schedule(c);
  EXPECT_EQ(s.time_of(7), 7.0);
  EXPECT_EQ(s.time_of(9), 8.5);
  EXPECT_EQ(output_steps(s, 8), (std::vector<index_t>{10, 16}));  // t = 9 and 12 (the last step)
  // The list never skips a step brute force finds.
  EXPECT_EQ(s.list(8), brute_force(s, 8));
  const auto late = adi::io::parse_config(
      "grid: {nx: 5, ny: 5, nz: 5}\ntime: {dt: 1, t_end: 20, start: 10}\noutput: {file: out.h5, every_time: 4}\n",
      "case.yaml");
  const OutputSchedule t = schedule(late);
  EXPECT_EQ(output_steps(t), (std::vector<index_t>{0, 2, 6, 10}));  // t = 10, 12, 16, 20
}

}  // namespace

TEST(OutputSchedule, EveryStepsWithInitialAndFinal) {
  EXPECT_EQ(output_steps(schedule(config({"output.every=100"}))), (std::vector<index_t>{0, 100, 200, 250}));
  EXPECT_EQ(output_steps(schedule(config({"output.every=100", "output.initial=false"}))),
            (std::vector<index_t>{100, 200, 250}));
  EXPECT_EQ(output_steps(schedule(config({"output.every=100", "output.final=false"}))),
            (std::vector<index_t>{0, 100, 200}));
  EXPECT_EQ(output_steps(schedule(config({"output.every=125"}))), (std::vector<index_t>{0, 125, 250}));
  // Nothing but the first and the last step when no interval is set.
  EXPECT_EQ(output_steps(schedule(config({}))), (std::vector<index_t>{0, 250}));
}

TEST(OutputSchedule, NoOutputFileSchedulesNoOutput) {
  const OutputSchedule s = schedule(config({"output.every=10", "output.every_time=1e-3", "output.file=''"}));
  for (index_t k = 0; k <= s.steps(); ++k) EXPECT_FALSE(s.output_due(k)) << "step " << k;
  // ... and does not stop the loop at output steps.
  EXPECT_EQ(s.next_event(0), s.steps());
}

TEST(OutputSchedule, EveryTimeWritesTheFirstStepReachingEachMultiple) {
  // dt = 3e-4, every 1e-3 s: t = 1e-3 is reached at step 4 (1.2e-3), 2e-3 at
  // 7, 3e-3 exactly at step 10 (where s dt / T rounds just below 3: the
  // 1e-9 in time_index keeps it), ...
  const OutputSchedule s =
      schedule(config({"time={dt: 3.0e-4, steps: 40}", "output.every_time=1e-3", "output.final=false"}));
  EXPECT_EQ(output_steps(s), (std::vector<index_t>{0, 4, 7, 10, 14, 17, 20, 24, 27, 30, 34, 37, 40}));
  // Against the definition, for every multiple k T up to the end.
  const double dt = 3.0e-4, T = 1e-3;
  std::set<index_t> expected{0};
  for (int k = 1; k * T <= 40 * dt + 1e-12; ++k) expected.insert(static_cast<index_t>(std::ceil(k * T / dt - 1e-6)));
  const auto got = output_steps(s);
  EXPECT_EQ(std::set<index_t>(got.begin(), got.end()), expected);
}

TEST(OutputSchedule, CheckpointsAndLogLines) {
  const OutputSchedule s = schedule(config({"checkpoint.every=60", "log.every=100"}));
  std::vector<index_t> ck, log;
  for (const auto& e : s.list(0)) {
    if (e.checkpoint) ck.push_back(e.step);
    if (e.log) log.push_back(e.step);
  }
  EXPECT_EQ(ck, (std::vector<index_t>{60, 120, 180, 240}));
  EXPECT_EQ(log, (std::vector<index_t>{100, 200, 250}));  // and the last step
  EXPECT_FALSE(s.log_by_wall_clock());
  // log.every = 0: the wall clock decides, the schedule has only the last step.
  const OutputSchedule w = schedule(config({}));
  EXPECT_TRUE(w.log_by_wall_clock());
  for (index_t k = 1; k < w.steps(); ++k) ASSERT_FALSE(w.log_due(k));
  EXPECT_TRUE(w.log_due(w.steps()));
}

TEST(OutputSchedule, NextEventNeverSkipsAScheduledStep) {
  for (const auto& sets : awkward_cases()) {
    const OutputSchedule s = schedule(config(sets));
    SCOPED_TRACE(::testing::PrintToString(sets));
    for (index_t from : {index_t(0), index_t(1), index_t(37), s.steps() - 1}) {
      EXPECT_EQ(s.list(from), brute_force(s, from)) << "from step " << from;
      for (index_t k = from; k < s.steps(); k = s.next_event(k)) ASSERT_GT(s.next_event(k), k);
    }
  }
}

TEST(OutputSchedule, RestartAtACheckpointSchedulesTheSameSteps) {
  for (const auto& sets : awkward_cases()) {
    const OutputSchedule s = schedule(config(sets));
    SCOPED_TRACE(::testing::PrintToString(sets));
    const auto whole = s.list(0);
    // Every checkpoint step, and every step at all (a signal writes a
    // checkpoint wherever the run stands).
    for (index_t k = 0; k <= s.steps(); ++k) {
      const auto restarted = s.list(k);
      ASSERT_EQ(after(restarted, k), after(whole, k)) << "restart at step " << k;
      // The restarted run starts with the output of step k if the schedule
      // has one there (the file may hold it already: the loop asks it).
      const bool first_is_output = !restarted.empty() && restarted.front().step == k && restarted.front().output;
      ASSERT_EQ(first_is_output, s.output_due(k)) << "restart at step " << k;
    }
  }
}

TEST(OutputSchedule, RestartedScheduleDoesNotDependOnHowTheFirstRunWasCut) {
  // A run stopped twice (signals at steps 41 and 133) and restarted each time
  // visits the same scheduled steps as one uninterrupted run.
  const OutputSchedule s =
      schedule(config({"time={dt: 3.0e-4, t_end: 0.0517}", "output.every_time=7e-4", "checkpoint.every=17"}));
  std::vector<OutputSchedule::Entry> pieces;
  const index_t cuts[] = {0, 41, 133, s.steps()};
  for (int q = 0; q < 3; ++q)
    for (const auto& e : s.list(cuts[q]))
      if (e.step <= cuts[q + 1] && (q == 0 || e.step > cuts[q])) pieces.push_back(e);
  EXPECT_EQ(pieces, s.list(0));
}

TEST(OutputSchedule, TimeIsStepTimesDt) {
  const OutputSchedule s = schedule(config({"time={dt: 3.0e-4, t_end: 0.0517}"}));
  // t_end = 0.0517 with dt 3e-4: 173 steps of dt = 0.0517 / 173, ending exactly at t_end.
  EXPECT_EQ(s.steps(), 173);
  EXPECT_DOUBLE_EQ(s.time_of(173), 0.0517);
  EXPECT_EQ(s.time_of(100), 100 * (0.0517 / 173));
}

// Issue #15 item 6: every_time = 0.25 with dt = 0.02 writes at 0.26, 0.5,
// 0.76, 1.0 (a step of 0.02 cannot land on 0.25): reported, not silent.
TEST(OutputSchedule, OutputsOffTheirRequestedTimesAreReported) {
  const auto c = adi::io::parse_config(
      "grid: {nx: 5, ny: 5, nz: 5}\ntime: {dt: 0.02, steps: 50}\noutput: {file: out.h5, every_time: 0.25}\n",
      "case.yaml");
  const OutputSchedule s = schedule(c);
  EXPECT_TRUE(s.outputs_off_time());
  const auto off = s.off_time_outputs(10);
  ASSERT_EQ(off.size(), 2u);  // 0.25 -> 0.26 and 0.75 -> 0.76; 0.5 and 1.0 are hit
  EXPECT_DOUBLE_EQ(off[0].requested, 0.25);
  EXPECT_NEAR(off[0].actual, 0.26, 1e-12);
  EXPECT_DOUBLE_EQ(off[1].requested, 0.75);
  EXPECT_NEAR(off[1].actual, 0.76, 1e-12);
  // The steps agree with the schedule itself.
  EXPECT_EQ(output_steps(s), (std::vector<index_t>{0, 13, 25, 38, 50}));
  // A whole number of steps per interval (0.2 / 0.02 = 10, with round-off
  // in 0.2 / 0.02): nothing to report.
  const auto exact = adi::io::parse_config(
      "grid: {nx: 5, ny: 5, nz: 5}\ntime: {dt: 0.02, steps: 50}\noutput: {file: out.h5, every_time: 0.2}\n",
      "case.yaml");
  EXPECT_FALSE(schedule(exact).outputs_off_time());
  EXPECT_TRUE(schedule(exact).off_time_outputs(10).empty());
  // No output file, or no every_time: nothing either.
  EXPECT_FALSE(schedule(config({})).outputs_off_time());
}
