#pragma once
// The index of a run directory (index.yaml): which timesteps were output and
// checkpointed, with their time and delt. Rewritten atomically (a temporary
// file renamed into place) each time a file is complete.

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

struct ArchiveIndex {
  std::string component;
  std::string tesseraVersion;
  std::string deck = "input.yaml";
  std::string restartedFrom;  // run directory and timestep, when restarted
  std::vector<ArchiveEntry> outputs;
  std::vector<ArchiveEntry> checkpoints;

  // Writes `directory`/index.yaml through a temporary file and a rename.
  void save(const std::string& directory) const;
  // Reads `directory`/index.yaml; InputError naming the path and the reason.
  static ArchiveIndex load(const std::string& directory);
};

}  // namespace tessera
