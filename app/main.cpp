// adi3d: command-line entry point. Maps exceptions to the documented exit
// codes (exit_codes.hpp, errors.cpp); the library itself never exits.
//
// Under mpirun / srun (and in a build with MPI) the Session below starts MPI;
// `run` and `bench` then work on every rank together, the other subcommands
// run on rank 0 only. Without a launcher MPI is never initialised.

#include "commands.hpp"
#include "errors.hpp"
#include "exit_codes.hpp"
#include "launch.hpp"
#include "log.hpp"
#include "memory.hpp"
#include "signals.hpp"

#include <adi/io/io.hpp>
#include <adi/mpi.hpp>
#include <adi/solver.hpp>

#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <exception>

using namespace adi;
using namespace adi::app;

int main(int argc, char** argv) {
  // Before anything else: a signal during set-up must not kill the process
  // by its default action (signals.hpp).
  install_signal_handlers();
  mpi::Session session(&argc, &argv, launched_by_mpi());
  const int rank = mpi::world_rank(), ranks = mpi::world_size();
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
                  "print the resolved config, the memory and disk space the run needs, and stop (exit 7 if it does not fit in "
                  "memory, 3 if its outputs do not fit on their disk)");
  c_run->add_flag("--overwrite", run.overwrite, "replace an existing output file");
  c_run->add_flag("--force", run.force,
                  "run even when the outputs are estimated not to fit in the free disk space (refused otherwise, "
                  "exit 3)");
  c_run->add_flag("--discard-after-checkpoint", run.discard_after_checkpoint,
                  "with --restart: allow deleting output steps after the checkpoint that this run will not write "
                  "again (refused otherwise, exit 2)");
  c_run->add_option("--restart", run.restart,
                    "continue from this checkpoint (the config defaults to the one stored in it)");

  ValidateOptions val;
  auto* c_val = app.add_subcommand("validate", "round-off check and convergence study against the analytic solution");
  c_val->add_option("--backend", val.backend, "cpu | cuda | auto")->capture_default_str();
  c_val->add_option("--levels", val.levels, "cells per axis of each refinement level")->delimiter(',')
      ->capture_default_str();
  c_val->add_option("--json", val.json, "also write the results as JSON to this file ('-' = stdout)");
  c_val->add_flag("--overwrite", val.overwrite, "replace an existing --json file (only a JSON file)");

  LayoutOptions lay;
  auto* c_layout = app.add_subcommand("layout", "draw a shared-memory transposition map and its bank conflicts");
  c_layout->add_option("--width,-I", lay.width, "elements per thread, 1..256")->required();
  c_layout->add_option("--dtype", lay.dtype, "f32 | f64")->capture_default_str();
  c_layout->add_option("--map", lay.map, "giles | pitch | xor | none")->capture_default_str();
  c_layout->add_flag("--vector16", lay.vector16, "draw the 16-byte (float4/double2) variant of the map");

  auto* c_info = app.add_subcommand("info", "version, build options and visible devices (-v: also the ADI_* knobs)");
  bool knob_table_only = false;
  c_info->add_flag("--knobs", knob_table_only,
                   "print the table of every ADI_* knob (Markdown, as docs/DEVELOPERS.md has it) and nothing else");

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
  c_bench->add_option("--material", bench.material,
                      "constant | field (an isotropic conductivity field, constant c, a heat source field) | tables (two "
                      "materials by region, K(T) and c(T) tables: the nonlinear step)")
      ->capture_default_str();
  c_bench->add_option("--faces", bench.faces,
                      "dirichlet | mixed (x value, y flux, z convective) | robin (all convective) | periodic (all axes)")
      ->capture_default_str();
  c_bench->add_option("--scheme", bench.scheme,
                      "auto | douglas | strang (scheme.type; auto: strang with a conductivity field)")
      ->capture_default_str();
  c_bench->add_option("--nonlinear", bench.nonlinear,
                      "with --material tables: iterate (default) | predictor-corrector | extrapolated "
                      "(scheme.nonlinear)");
  c_bench->add_option("--stretch", bench.stretch,
                      "stretched axes, e.g. z or xyz: their nodes grow geometrically from the lo face, 10x across the "
                      "axis (a periodic axis: gaps 0.5 to 1.5 of their mean); default none");
  c_bench->add_option("--json", bench.json, "write the results as JSON to this file");
  c_bench->add_flag("--overwrite", bench.overwrite, "replace an existing --json file (only a JSON file)");
  c_bench->add_option("--grid", bench.grid,
                      "under mpirun: the process grid 1xPYxPZ (default: chosen from the ranks and the size)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Every rank parsed the same command line: one message is enough.
    // --help and --version print as CLI11 prints them; a usage error is one
    // line with the adi3d: prefix, like every other error (a 5000-byte
    // argument quoted in it is cut).
    if (e.get_exit_code() == 0) return rank == 0 ? app.exit(e) : kOk;
    if (rank == 0) {
      std::string sub;
      for (const auto* s : app.get_subcommands()) sub += " " + s->get_name();
      std::fprintf(stderr, "adi3d: error: %s (see adi3d%s --help)\n", printable(e.what(), 300).c_str(),
                   sub.c_str());
    }
    return kUsageError;
  }
  setup_logging(quiet ? Verbosity::Quiet : verbose ? Verbosity::Verbose : Verbosity::Normal, rank);
  run.quiet = quiet;
  // Only `run` stops gracefully; the other commands keep the default actions.
  if (!c_run->parsed()) default_signal_handling();

  // Several copies that do not talk to each other (a build without MPI, or
  // ADI_MPI=0) would each run the whole case and write the same files.
  if (ranks == 1 && launched_size() > 1) {
    if (mpi::built())
      std::fprintf(stderr,
                   "adi3d: error: started as one of %d MPI ranks, but MPI was not started (ADI_MPI=0?); "
                   "unset ADI_MPI, or run it without mpirun/srun\n",
                   launched_size());
    else
      std::fprintf(stderr,
                   "adi3d: error: started as one of %d MPI ranks, but this adi3d was built without MPI "
                   "(configure with -DADI_ENABLE_MPI=ON); run it without mpirun/srun, or with one task\n",
                   launched_size());
    return kBackendError;
  }

  // Parallel HDF5 closes its library in MPI_Finalize; after a failed write
  // HDF5 1.10 keeps a file it could not close and crashes closing it again
  // there (exit 139 after the right error). Such a process ends with
  // MPI_Abort and its exit code instead.
  const auto ending = [&](int code) {
    if (code != kOk) exiting_with(code);
    if (session.active() && io::hdf5_files_open()) {
      std::fflush(stdout);
      std::fflush(stderr);
      mpi::abort(code);
    }
    return code;
  };
  try {
    // The environment, once: a malformed ADI_* value stops every command (exit 2).
    EnvOptions env;
    collectively([&] { env = read_env_options(); });
    run.env = env;
    bench.solver = env.solver;
    if (c_run->parsed()) return ending(cmd_run(run));
    if (c_bench->parsed()) return ending(cmd_bench(bench));
    // The rest is not distributed: rank 0 answers.
    if (rank != 0) return kOk;
    if (c_layout->parsed()) return cmd_layout(lay);
    if (c_val->parsed()) return cmd_validate(val);
    if (c_info->parsed()) return cmd_info(env, verbose, knob_table_only);
    if (c_recover->parsed()) {
      std::vector<std::string> removed;
      const bool undone = io::recover_output(recover_file, &removed);
      if (!removed.empty()) {
        std::string list;
        for (std::size_t q = 0; q < removed.size(); ++q) list += (q ? ", " : "") + removed[q];
        spdlog::info("removed {} {} that killed adi3d runs left (their processes are gone): {}", removed.size(),
                     removed.size() == 1 ? "temporary" : "temporaries", list);
      }
      std::printf("%s: %s\n", recover_file.c_str(),
                  undone ? "the unfinished write of a killed run was undone; the file is back at its last complete "
                           "step (the one its .xmf lists last)"
                         : "nothing to recover (no journal: the last run closed it or was not killed inside a write)");
      return kOk;
    }
  } catch (const CollectiveError& e) {
    exiting_with(e.code());
    // Every rank has it; it was printed once already, or rank 0 prints it
    // now (its message carries its kind, "numerical error: ...").
    if (!e.reported() && rank == 0) std::fprintf(stderr, "adi3d: %s\n", printable(e.what()).c_str());
    std::fflush(stderr);
    if (!e.reported()) mpi::barrier();  // (see collectively)
    return ending(e.code());
  } catch (const std::exception& e) {
    exiting_with(exit_code_of(e, nullptr));
    const int code = report(e, ranks > 1);
    // The other ranks may be waiting for this one in a collective call.
    if (ranks > 1) mpi::abort(code);
    return code;
  }
  return kUsageError;
}
