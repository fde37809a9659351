// sus: runs a Tessera simulation described by a YAML input deck.
//   sus [options] deck.yaml
// Exit codes: 0 success, 1 bad input (deck, options), 2 runtime failure.

#include "CCA/Components/Parent/ComponentRegistry.h"
#include "CCA/Components/Schedulers/GraphScheduler.h"
#include "CCA/Components/SimulationController/SimulationController.h"
#include "Components/RegisterComponents.h"
#include "Core/Parallel/Agreement.h"
#include "Core/Parallel/Environment.h"
#include "Core/ProblemSpec/ProblemSpec.h"
#include "Core/Util/Error.h"
#include "Core/Util/Logger.h"
#include "Core/Util/Timer.h"
#include "Core/Util/Version.h"
#include "StandAlone/CliChecks.h"
#include "StandAlone/RunRecord.h"
#include "StandAlone/RunReport.h"

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace {

constexpr int kExitSuccess = 0;
constexpr int kExitBadInput = 1;
constexpr int kExitRuntimeFailure = 2;

struct Options {
  std::string deck;
  bool validateOnly = false;
  bool quiet = false;
  int maxTimesteps = -1;
  int threads = 0;
  std::string taskGraphFile;
  std::string logLevel = "info";
  std::vector<std::string> overrides;
  std::string scheduler;
  std::string statsFile;
  std::string traceFile;
  std::string recordFile;
  std::string restartDir;
  int restartCheckpoint = -1;
};

// A restart runs the deck stored in the run directory.
std::string deckPath(const Options& options) {
  return options.restartDir.empty() ? options.deck : options.restartDir + "/input.yaml";
}

// The deck as run: the file with the --set overrides applied.
tessera::ProblemSpec deckWithOverrides(const Options& options) {
  tessera::ProblemSpec deck = tessera::ProblemSpec::fromFile(deckPath(options));
  for (const std::string& assignment : options.overrides) {
    const auto equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw tessera::InputError("--set expects KEY.PATH=VALUE, got '" + assignment + "'");
    }
    deck = deck.withOverride(assignment.substr(0, equals), assignment.substr(equals + 1));
  }
  return deck;
}

// Kokkos starts before the deck is validated, so read scheduler.device_threads
// leniently here; a bad value is reported properly by the validation later.
int deviceThreadsFromDeck(const Options& options) {
  try {
    const auto scheduler = deckWithOverrides(options).findSection("scheduler");
    return scheduler ? std::max(0, scheduler->get<int>("device_threads", 0)) : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

// The run record, to --record FILE and to RUN_DIR/result.json (rank 0 writes).
void writeRecords(const Options& options, const std::vector<std::string>& commandLine,
                  const tessera::ProblemSpec& deck, const tessera::RunResult& result,
                  const tessera::Timer& sinceStart, const tessera::Communicator& world) {
  using namespace tessera;
  RunSetting setting;
  setting.commandLine = commandLine;
  setting.deckFile = deckPath(options);
  setting.overrides = options.overrides;
  setting.restartedFrom = options.restartDir;
  setting.ranks = world.size();
  setting.threadsPerRank = Kokkos::DefaultExecutionSpace().concurrency();
  setting.peakMemoryBytes = peakMemoryPerRank(world);
  setting.runSeconds = world.allreduceMax(sinceStart.seconds());
  agreeOn(world, [&] {
    if (!world.isRoot()) return;
    const nlohmann::ordered_json record = runRecord(deck, result, setting);
    if (!options.recordFile.empty()) writeRunRecord(options.recordFile, record);
    if (!result.outputDirectory.empty())
      writeRunRecord(result.outputDirectory + "/result.json", record);
  });
}

int runSus(const Options& options, const std::vector<std::string>& commandLine,
           const tessera::Communicator& world) {
  using namespace tessera;
  const Timer sinceStart;
  Logger log(world.rank(), options.quiet ? LogLevel::Warning : parseLogLevel(options.logLevel),
             std::cout);
  ComponentRegistry components;
  registerComponents(components);
  // Every rank reads the deck; they agree on it before anything collective.
  const ProblemSpec deck = agreeOn(world, [&] {
    if (!options.restartDir.empty() &&
        !std::filesystem::exists(options.restartDir + "/index.yaml")) {
      throw InputError("'" + options.restartDir +
                       "' is not a Tessera run directory (it has no index.yaml); give the "
                       "directory a run wrote, e.g. burgers.tsa");
    }
    if (!options.recordFile.empty() && world.isRoot())
      requireWritableFile(options.recordFile, "the run record");
    return deckWithOverrides(options);
  });
  SimulationController controller(deck, components, world, log);
  if (options.validateOnly) {
    agreeOn(world, [&] { controller.validate(); });
    if (world.isRoot()) std::cout << deckPath(options) << ": valid\n";
    return kExitSuccess;
  }
  RunOptions run;
  if (options.maxTimesteps >= 0) run.maxTimesteps = options.maxTimesteps;
  run.taskGraphFile = options.taskGraphFile;
  run.schedulerType = options.scheduler;
  if (!options.restartDir.empty()) {
    run.restart = RestartOptions{options.restartDir, std::nullopt};
    if (options.restartCheckpoint >= 0) run.restart->timestep = options.restartCheckpoint;
  }
  run.statsFile = options.statsFile;
  run.traceFile = options.traceFile;
  const RunResult result = controller.run(run);
  if (world.isRoot()) printRunReport(std::cout, result, world.size());
  writeRecords(options, commandLine, deck, result, sinceStart, world);
  return kExitSuccess;
}

// An error all ranks agreed on is reported once, by rank 0, and every rank
// returns the exit code. Any other error may have left the other ranks in a
// collective: the rank that saw it reports it and aborts the job. An agreed
// error after which the process cannot finalise (Error::endsTheProcess) is
// reported once, by rank 0, which then aborts the job; the other ranks wait
// for that in a barrier rank 0 never joins.
int reportFailure(const tessera::Communicator& world, const std::string& what, bool badInput,
                  bool agreed, bool endsTheProcess) {
  const int code = badInput ? kExitBadInput : kExitRuntimeFailure;
  const char* kind = badInput ? "error" : "runtime failure";
  if (agreed || world.size() == 1) {
    // One write per message: the ranks' stderr reach mpirun's as they come,
    // and pieces of two ranks' messages would interleave.
    if (world.isRoot())
      std::cerr << (std::string("sus: ") + kind + ": " + what + "\n") << std::flush;
    if (endsTheProcess) {
      if (world.isRoot()) MPI_Abort(world.get(), code);
      MPI_Barrier(world.get());
    }
    return code;
  }
  std::cerr << (std::string("sus: ") + kind + " on rank " + std::to_string(world.rank()) + ": " +
                what + "\n")
            << std::flush;
  MPI_Abort(world.get(), code);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> commandLine(argv, argv + argc);
  CLI::App app{"sus: run a Tessera simulation from a YAML input deck", "sus"};
  Options options;
  app.add_option("deck", options.deck, "the input deck (YAML)")->check(CLI::ExistingFile);
  app.add_flag("--validate", options.validateOnly, "check the deck and exit (0 valid, 1 not)");
  app.add_option("--max-timesteps", options.maxTimesteps, "stop after N timesteps")
      ->check(tessera::kNonNegative);
  app.add_option("--emit-taskgraph", options.taskGraphFile,
                 "write the compiled timestep graph as GraphViz DOT");
  app.add_option(
         "--nthreads,--threads", options.threads,
         "device (Kokkos) threads per rank; default scheduler.device_threads, else OMP_NUM_THREADS")
      ->check(tessera::kPositive);
  app.add_option("--scheduler", options.scheduler,
                 "host, sync or async (overrides scheduler.type); a list such as "
                 "host,sync,async runs the timesteps in turn in each mode (to compare them)")
      ->check(CLI::Validator(
          [](std::string& modes) -> std::string {
            try {
              tessera::splitSchedulerModes(modes);  // the controller's own reading
            } catch (const tessera::InputError& error) {
              return error.what();
            }
            return {};
          },
          "MODE[,MODE...]"));
  app.add_option("--stats", options.statsFile, "write per-timestep statistics as JSON lines");
  app.add_option(
      "--trace", options.traceFile,
      "write a timeline of the run (Chrome trace-event JSON: Perfetto, chrome://tracing)");
  app.add_option("--record", options.recordFile,
                 "write the run record (JSON: deck as run, digests, reductions, analysis, times, "
                 "memory) to FILE; run directories get one as result.json");
  app.add_option(
         "--restart", options.restartDir,
         "continue the run in RUN_DIR from its newest usable checkpoint (deck: RUN_DIR/input.yaml)")
      ->check(CLI::ExistingDirectory);
  app.add_option("--checkpoint", options.restartCheckpoint,
                 "with --restart: the checkpoint's timestep")
      ->check(tessera::kNonNegative);
  app.add_option("--log-level", options.logLevel, "error, warning, info or debug")
      ->check(CLI::IsMember({"error", "warning", "info", "debug"}));
  app.add_option("--set", options.overrides,
                 "override a deck value, e.g. --set grid.level.patches=[4,2,2] (repeatable)")
      ->allow_extra_args(false);
  app.add_flag("--quiet", options.quiet, "print only warnings, errors and the final report");
  app.set_version_flag("--version", std::string("sus (Tessera) ") + tessera::kVersion);
  try {
    app.parse(argc, argv);
    if (options.deck.empty() && options.restartDir.empty()) throw CLI::RequiredError("deck");
    if (!options.deck.empty() && !options.restartDir.empty()) {
      throw CLI::ValidationError("--restart",
                                 "takes the deck from the run directory: give no deck");
    }
    if (options.restartCheckpoint >= 0 && options.restartDir.empty()) {
      throw CLI::ValidationError("--checkpoint", "needs --restart");
    }
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitSuccess : kExitBadInput;
  }

  tessera::EnvironmentOptions environmentOptions;
  environmentOptions.numThreads =
      options.threads > 0 ? options.threads : deviceThreadsFromDeck(options);
  tessera::Environment env(argc, argv, environmentOptions);
  const tessera::Communicator& world = env.world();
  try {
    return runSus(options, commandLine, world);
  } catch (const tessera::Error& e) {
    return reportFailure(world, e.what(), dynamic_cast<const tessera::InputError*>(&e) != nullptr,
                         e.agreedByAllRanks(), e.endsTheProcess());
  } catch (const std::exception& e) {
    return reportFailure(world, e.what(), false, false, false);
  }
}
