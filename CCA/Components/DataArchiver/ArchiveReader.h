#pragma once
// Serial, read-only access to a run directory, for the inspection and
// comparison tools: the index, the grid of each file, and whole variables.

#include "CCA/Components/DataArchiver/ArchiveIndex.h"
#include "Core/Grid/Box.h"
#include "Core/Grid/IntVector.h"
#include "Core/Grid/Vector3.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

// A cell variable over a level, or a block variable's global array as a
// plane: entry (row, column) at "cell" (column, row, 0), so that x (the
// column) varies fastest in both. A finer level's variable is named
// "<name>@level<l>" (as sus names its digests) and spans the box around its
// regions: the cells no region holds are not `covered` (NaN, zero bytes).
struct ArchivedVariable {
  std::string name;
  std::string valueType;
  bool block = false;            // a block variable (rows = size.y, columns = size.x)
  int level = 0;                 // a cell variable's level
  IntVector indexLo;             // level index of the first cell (extra cells are negative)
  IntVector size;                // cells per axis
  std::vector<double> values;    // x fastest, converted to double
  std::vector<std::uint8_t> raw; // the stored bytes, for bitwise comparison
  std::vector<std::uint8_t> covered;  // per cell, 1 where a region holds it; empty: all

  double at(const IntVector& cell) const;
  // Inside the box and held by a region.
  bool contains(const IntVector& cell) const;
};

// What a file holds of one variable, without its values.
struct ArchivedVariableInfo {
  std::string name;
  std::string valueType;
  bool block = false;
  IntVector size;  // as in ArchivedVariable
};

// A finer level of a refined run's output.
struct ArchivedLevel {
  IntVector refinementRatio;     // to the level below
  IntVector resolution;          // of the level's whole domain
  Vector3 spacing;
  std::vector<Box> regions;      // interior cells of each region
  std::vector<IntVector> patches;  // each region's patch layout
};

struct ArchivedGrid {
  Vector3 lower, upper, spacing;
  IntVector resolution, extraCells, patches;
  std::vector<ArchivedLevel> finerLevels;  // level 1, 2, ... (none for a single level)
  // The placement of the step (kPatchRanksDataset): a rank per patch on
  // placementRanks ranks; empty in files written before it was kept.
  std::vector<int> patchRanks;
  int placementRanks = 0;
  int numLevels() const { return 1 + static_cast<int>(finerLevels.size()); }
  // The resolution and spacing of level `l` (0: the grid's).
  IntVector resolutionOf(int l) const { return l == 0 ? resolution : finerLevels[l - 1].resolution; }
  Vector3 spacingOf(int l) const { return l == 0 ? spacing : finerLevels[l - 1].spacing; }
};

class ArchiveReader {
 public:
  explicit ArchiveReader(const std::string& runDirectory);

  const std::string& directory() const { return m_directory; }
  const ArchiveIndex& index() const { return m_index; }
  // The variables stored in an output file: cell variables of level 0, of
  // level 1 ("u@level1"), ..., then block variables, each in name order.
  std::vector<std::string> variables(const ArchiveEntry& entry) const;
  std::vector<ArchivedVariableInfo> describe(const ArchiveEntry& entry) const;
  ArchivedGrid grid(const ArchiveEntry& entry) const;
  ArchivedVariable read(const ArchiveEntry& entry, const std::string& variable) const;
  // The reduction variables stored with an output (name, value as double,
  // stored bytes), in name order.
  struct Reduction {
    std::string name;
    double value = 0.0;
    std::vector<std::uint8_t> raw;
  };
  std::vector<Reduction> reductions(const ArchiveEntry& entry) const;
  // The output entry at `timestep`; InputError listing the timesteps otherwise.
  const ArchiveEntry& output(int timestep) const;

 private:
  std::string path(const ArchiveEntry& entry) const { return m_directory + "/" + entry.file; }
  std::string m_directory;
  ArchiveIndex m_index;
};

}  // namespace tessera
