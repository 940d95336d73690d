// adi3d: command-line entry point. Maps exceptions to the documented exit
// codes (exit_codes.hpp); the library itself never exits.

#include "commands.hpp"
#include "exit_codes.hpp"
#include "log.hpp"
#include "memory.hpp"

#include <adi/io/io.hpp>
#include <adi/solver.hpp>

#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <exception>

using namespace adi;
using namespace adi::app;

namespace {
int report(const char* kind, const std::exception& e, int code) {
  // One line whatever the message quotes (file names, library text).
  std::fprintf(stderr, "adi3d: %s%s\n", kind, printable(e.what()).c_str());
  if (const auto* ae = dynamic_cast<const adi::Error*>(&e); ae && *ae->source_file())
    spdlog::debug("raised at {}:{}", ae->source_file(), ae->source_line());
  return code;
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"adi3d: the 3D heat equation by ADI (Douglas) on GPUs and CPUs"};
  app.require_subcommand(1);
  app.fallthrough();  // -q / -v also after the subcommand
  bool quiet = false, verbose = false;
  app.add_flag("-q,--quiet", quiet, "only warnings and errors on stderr");
  app.add_flag("-v,--verbose", verbose, "debug messages on stderr");
  app.set_version_flag("--version", std::string("adi3d ") + ADI_VERSION + " (" + ADI_GIT_HASH + ")");

  RunOptions run;
  for (int i = 0; i < argc; ++i) run.argv.emplace_back(argv[i]);
  auto* c_run = app.add_subcommand("run", "run a case described by a YAML config");
  c_run->add_option("config", run.config, "config file (default: the built-in configs/heat.yaml)");
  c_run->add_option("--set", run.sets, "override a config value, e.g. --set grid.nx=129 (repeatable)")
      ->allow_extra_args(false);  // one value per --set: a config file after it stays the positional
  c_run->add_option("--backend", run.backend, "cpu | cuda | auto (same as --set backend=...)");
  c_run->add_option("--precision", run.precision, "float32 | float64 (same as --set precision=...)");
  c_run->add_flag("--dry-run", run.dry_run,
                  "print the resolved config and the memory the run needs, and stop (exit 7 if it does not fit)");
  c_run->add_flag("--overwrite", run.overwrite, "replace an existing output file");
  c_run->add_option("--restart", run.restart,
                    "continue from this checkpoint (the config defaults to the one stored in it)");

  ValidateOptions val;
  auto* c_val = app.add_subcommand("validate", "round-off check and convergence study against the analytic solution");
  c_val->add_option("--backend", val.backend, "cpu | cuda | auto")->capture_default_str();
  c_val->add_option("--levels", val.levels, "cells per axis of each refinement level")->delimiter(',')
      ->capture_default_str();
  c_val->add_option("--json", val.json, "also write the results as JSON to this file ('-' = stdout)");

  LayoutOptions lay;
  auto* c_layout = app.add_subcommand("layout", "draw a shared-memory transposition map and its bank conflicts");
  c_layout->add_option("--width,-I", lay.width, "elements per thread, 1..256")->required();
  c_layout->add_option("--dtype", lay.dtype, "f32 | f64")->capture_default_str();
  c_layout->add_option("--map", lay.map, "giles | pitch | xor | none")->capture_default_str();
  c_layout->add_flag("--vector16", lay.vector16, "draw the 16-byte (float4/double2) variant of the map");

  auto* c_info = app.add_subcommand("info", "version, build options and visible devices");

  std::string recover_file;
  auto* c_recover = app.add_subcommand(
      "recover", "undo the unfinished write of a killed run in an output file (a --restart does it itself)");
  c_recover->add_option("file", recover_file, "the output file (its journal is <file>.journal)")->required();

  BenchOptions bench;
  auto* c_bench = app.add_subcommand("bench", "time the phases of a Douglas step against the measured copy bandwidth");
  c_bench->add_option("--size", bench.sizes, "grid size N (N^3) or NXxNYxNZ (repeatable)")->capture_default_str();
  c_bench->add_option("--precision", bench.precision, "float32 | float64 | both")->capture_default_str();
  c_bench->add_option("--backend", bench.backend, "cpu | cuda | auto")->capture_default_str();
  c_bench->add_option("--reps", bench.reps, "timed repetitions per phase (median reported)")->capture_default_str();
  c_bench->add_option("--warmup", bench.warmup, "untimed repetitions first")->capture_default_str();
  c_bench->add_option("--baseline", bench.baseline, "also run the step with cuSPARSE (cusparse)");
  c_bench->add_option("--json", bench.json, "write the results as JSON to this file");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kOk : kUsageError;
  }
  setup_logging(quiet ? Verbosity::Quiet : verbose ? Verbosity::Verbose : Verbosity::Normal);
  run.quiet = quiet;
  // A full file-size limit (ulimit -f) must fail the write with EFBIG, which
  // is reported and cleaned up, rather than kill the process mid-write.
  std::signal(SIGXFSZ, SIG_IGN);

  try {
    if (c_layout->parsed()) return cmd_layout(lay);
    if (c_run->parsed()) return cmd_run(run);
    if (c_val->parsed()) return cmd_validate(val);
    if (c_info->parsed()) return cmd_info();
    if (c_recover->parsed()) {
      const bool undone = io::recover_output(recover_file);
      std::printf("%s: %s\n", recover_file.c_str(),
                  undone ? "the unfinished write of a killed run was undone; the file is back at its last complete "
                           "step (the one its .xmf lists last)"
                         : "nothing to recover (no journal: the last run closed it or was not killed inside a write)");
      return kOk;
    }
    if (c_bench->parsed()) return cmd_bench(bench);
  } catch (const io::ConfigError& e) {
    return report("error: ", e, kUsageError);
  } catch (const io::IoError& e) {
    return report("error: ", e, kIoError);
  } catch (const InsufficientMemory& e) {
    return report("not enough memory: ", e, kOutOfMemory);
  } catch (const InvalidArgument& e) {
    return report("error: ", e, kUsageError);
  } catch (const BackendUnavailable& e) {
    return report("error: ", e, kBackendError);
  } catch (const NumericalError& e) {
    return report("numerical error: ", e, kNumericalError);
  } catch (const std::bad_alloc& e) {
    return report("out of memory: ", e, kOutOfMemory);
  } catch (const std::exception& e) {
    return report("error: ", e, kInternalError);
  }
  return kUsageError;
}
