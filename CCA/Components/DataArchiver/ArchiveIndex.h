#pragma once
// The index of a run directory (index.yaml): which timesteps were output and
// checkpointed, with their time and delt. Rewritten atomically (a temporary
// file renamed into place) each time a file is complete.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera {

struct ArchiveEntry {
  int timestep = 0;
  double time = 0.0;
  double delt = 0.0;
  std::string file;  // relative to the run directory
};

// A variable the files hold: a cell variable over the level, or a block
// variable's global array of rows x cols.
struct ArchivedLabel {
  std::string name;
  bool block = false;
  std::string valueType;
  std::int64_t rows = 0;  // block variables only
  std::int64_t cols = 0;
};

struct ArchiveIndex {
  std::string component;
  std::string tesseraVersion;
  std::string deck = "input.yaml";
  std::string restartedFrom;  // run directory and timestep, when restarted
  std::vector<ArchiveEntry> outputs;
  std::vector<ArchiveEntry> checkpoints;
  // What each output and each checkpoint holds (output.save, the state).
  std::vector<ArchivedLabel> outputVariables;
  std::vector<ArchivedLabel> checkpointVariables;

  // Writes `directory`/index.yaml through a temporary file and a rename.
  void save(const std::string& directory) const;
  // Reads `directory`/index.yaml; InputError naming the path and the reason.
  static ArchiveIndex load(const std::string& directory);
};

}  // namespace tessera
