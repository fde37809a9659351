#include "StandAlone/RunRecord.h"

#include "CCA/Components/DataArchiver/ArchiveIndex.h"
#include "Core/IO/DurableFiles.h"
#include "Core/Parallel/Communicator.h"
#include "Core/Util/Error.h"
#include "Core/Util/PeakMemory.h"
#include "Core/Util/Version.h"

#include <Kokkos_Core.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace tessera {

namespace {

std::string hex(std::uint64_t digest) {
  char text[32];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(digest));
  return text;
}

}  // namespace

nlohmann::ordered_json runRecord(const ProblemSpec& deck, const RunResult& result,
                         const RunSetting& setting) {
  using json = nlohmann::ordered_json;
  json digests = json::object();
  for (const FieldDigest& field : result.digests)
    digests[field.name] = hex(field.digest);
  json reductions = json::object();
  for (const ReducedValue& reduction : result.reductions)
    reductions[reduction.name] = {{"type", reduction.valueType}, {"value", reduction.value}};
  // JSON has no NaN: a norm that is NaN is written as null, and says so.
  json analysis = json::object();
  for (const auto& [name, value] : result.analysis)
    analysis[name] = value;
  const double rate = result.wallSeconds > 0.0 ? result.cellUpdates / result.wallSeconds : 0.0;
  json record = {
      {"format", kRunRecordFormat},
      {"format_version", kRunRecordVersion},
      {"tessera",
       {{"version", kVersion},
        {"build_type", kBuildType},
        {"compiler", kCompiler},
        {"execution_space", Kokkos::DefaultExecutionSpace::name()}}},
      {"command_line", setting.commandLine},
      {"deck",
       {{"file", setting.deckFile},
        {"overrides", setting.overrides},
        {"as_run", deck.toYaml()}}},
      {"ranks", setting.ranks},
      {"threads_per_rank", setting.threadsPerRank},
      {"scheduler", result.schedulerMode},
      {"restarted_from", setting.restartedFrom.empty() ? json(nullptr) : json(setting.restartedFrom)},
      {"first_timestep", result.firstTimestep},
      {"timesteps", result.timesteps},
      {"final_timestep", result.firstTimestep + result.timesteps},
      {"simulation_time", result.time},
      {"digests", digests},
      {"reductions", reductions},
      {"analysis", analysis},
      {"wall_seconds", {{"time_loop", result.wallSeconds}, {"run", setting.runSeconds}}},
      {"cell_updates_per_second", rate},
      {"peak_memory_bytes", setting.peakMemoryBytes},
      {"communication",
       {{"bytes_sent", result.loopBytesSent}, {"bytes_received", result.loopBytesReceived}}},
      {"load_balance",
       {{"task_seconds", result.loopTaskSeconds},
        {"imbalance", result.loadImbalance()},
        {"rebalances", result.rebalances},
        {"patches_moved", result.patchesMoved}}},
      {"levels",
       {{"cells", result.levelCells},
        {"regrids", {{"tagged", result.regridChecks}, {"changed", result.regrids}}}}},
      {"output_directory",
       result.outputDirectory.empty() ? json(nullptr) : json(result.outputDirectory)},
  };
  return record;
}

std::vector<std::int64_t> peakMemoryPerRank(const Communicator& comm) {
  // Exact as doubles: far below 2^53 bytes.
  const std::vector<double> gathered =
      comm.allgather(static_cast<double>(peakResidentBytes()));
  return {gathered.begin(), gathered.end()};
}

void requireWritableFile(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ignored;
  const fs::path file(path);
  const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
  if (fs::is_directory(file, ignored)) {
    throw InputError("cannot write " + what + " to '" + path + "': it is a directory");
  }
  if (fs::exists(file, ignored) ? access(path.c_str(), W_OK) != 0
                                : !fs::is_directory(folder, ignored) ||
                                      access(folder.c_str(), W_OK) != 0) {
    throw InputError("cannot write " + what + " to '" + path + "': " +
                     (fs::exists(file, ignored) || fs::is_directory(folder, ignored)
                          ? "permission denied"
                          : "no folder '" + folder.string() + "'"));
  }
}

void writeRunRecord(const std::string& path, const nlohmann::ordered_json& record) {
  const std::string text =
      record.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  std::error_code ignored;
  if (std::filesystem::exists(path, ignored) && !std::filesystem::is_regular_file(path, ignored)) {
    // A pipe or a device (/dev/stdout): no temporary to rename over it.
    std::ofstream out(path);
    out << text;
    if (!out.flush()) throw Error("cannot write the run record to '" + path + "'");
    return;
  }
  writeFileAtomically(path, text);
}

}  // namespace tessera
