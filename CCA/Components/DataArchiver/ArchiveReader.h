#pragma once
// Serial, read-only access to a run directory, for the inspection and
// comparison tools: the index, the grid of each file, and whole variables.

#include "CCA/Components/DataArchiver/ArchiveIndex.h"
#include "Core/Grid/IntVector.h"
#include "Core/Grid/Vector3.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

// A cell variable over the level, or a block variable's global array as a
// plane: entry (row, column) at "cell" (column, row, 0), so that x (the
// column) varies fastest in both.
struct ArchivedVariable {
  std::string name;
  std::string valueType;
  bool block = false;            // a block variable (rows = size.y, columns = size.x)
  IntVector indexLo;             // global index of the first cell (extra cells are negative)
  IntVector size;                // cells per axis
  std::vector<double> values;    // x fastest, converted to double
  std::vector<std::uint8_t> raw; // the stored bytes, for bitwise comparison

  double at(const IntVector& cell) const;
  bool contains(const IntVector& cell) const;
};

// What a file holds of one variable, without its values.
struct ArchivedVariableInfo {
  std::string name;
  std::string valueType;
  bool block = false;
  IntVector size;  // as in ArchivedVariable
};

struct ArchivedGrid {
  Vector3 lower, upper, spacing;
  IntVector resolution, extraCells, patches;
};

class ArchiveReader {
 public:
  explicit ArchiveReader(const std::string& runDirectory);

  const std::string& directory() const { return m_directory; }
  const ArchiveIndex& index() const { return m_index; }
  // The variables stored in an output file: cell variables, then block
  // variables, each in name order.
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
