#pragma once
// The run record: one JSON document that says what a sus run was and what it
// computed (the deck as run, the parallel setting, the build, the digests,
// reductions and analysis results, times and memory). `sus --record FILE`
// writes it, and every run directory gets a copy as result.json. The
// regression harness (scripts/regression) reads it instead of scraping the
// report sus prints. docs/user-guide.md lists the fields.

#include "CCA/Components/SimulationController/SimulationController.h"
#include "Core/ProblemSpec/ProblemSpec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

class Communicator;

// How sus ran, beyond what the RunResult says.
struct RunSetting {
  std::vector<std::string> commandLine;
  std::string deckFile;  // the deck given, or the restarted run's input.yaml
  std::vector<std::string> overrides;  // --set KEY=VALUE, in order
  std::string restartedFrom;           // the --restart run directory, or empty
  int ranks = 1;
  int threadsPerRank = 1;
  double runSeconds = 0.0;  // from sus's start to the end of the run, slowest rank
  std::vector<std::int64_t> peakMemoryBytes;  // per rank
};

inline constexpr const char* kRunRecordFormat = "tessera-run-record";
inline constexpr int kRunRecordVersion = 1;

nlohmann::ordered_json runRecord(const ProblemSpec& deck, const RunResult& result,
                         const RunSetting& setting);

// Every rank's peak resident memory so far, on every rank (collective).
std::vector<std::int64_t> peakMemoryPerRank(const Communicator& comm);

// Throws InputError (on the calling rank) when `path` cannot be written: a
// directory, an unwritable file, or a folder that does not exist.
void requireWritableFile(const std::string& path, const std::string& what);

// Writes the record to `path` (whole or not at all: a temporary, then a rename).
void writeRunRecord(const std::string& path, const nlohmann::ordered_json& record);

}  // namespace tessera
