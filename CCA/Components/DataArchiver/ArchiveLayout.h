#pragma once
// Where things are in an archive file (ArchiveFile.h describes the format)
// and the attributes that describe its grid: shared by the writer and
// reader of ArchiveFile.cc and by the serial ArchiveReader.

#include "CCA/Components/DataArchiver/ArchiveFile.h"
#include "Core/Grid/Grid.h"
#include "Core/IO/H5Handle.h"

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

// The groups beside level 0's datasets at the root.
inline constexpr const char* kBlockGroup = "blocks";
inline constexpr const char* kLevelsGroup = "levels";
inline constexpr const char* kReductionGroup = "reductions";
// The placement the step ran with: `balance/patch_ranks` (a rank per patch,
// by id) and its attribute `ranks` (how many there were).
inline constexpr const char* kBalanceGroup = "balance";
inline constexpr const char* kPatchRanksDataset = "balance/patch_ranks";

// /blocks/<label>: a block variable's whole global array (rows, columns),
// whatever the layout that wrote it.
std::string blockPath(const VarLabel* label);
// /levels/<l>: a finer level; /levels/<l>/<k>: its region k, holding a
// dataset per cell variable over the region's cells plus its extra cells.
std::string levelPath(int level);
std::string regionPath(int level, int region);

// The group of a finer level (region < 0) or of one of its regions in the
// file at `path`; an InputError naming both when the file has none (a
// corrupt or truncated archive).
H5Group openLevelGroup(hid_t file, const std::string& path, int level, int region = -1);

// The root attributes: the step, level 0's grid, the number of levels, and
// the checksum of what a restart takes from them.
void writeGridAttributes(hid_t file, const ArchiveStep& step, const Grid& grid);
// A finer level's group: what a reader needs to place its regions.
void writeLevelAttributes(hid_t group, const Level& level);
void writeRegionAttributes(hid_t group, const Level& level, int region);
// The step a file holds, once its format, its grid (the hierarchy: levels,
// ratios, region boxes) and its metadata checksum match `grid`; InputError
// naming `path` and what differs otherwise.
ArchiveStep readStepAttributes(hid_t file, const std::string& path, const Grid& grid);

// Where a cell variable of one region goes: the region's dataset box and
// this rank's patches in it.
struct RegionData {
  int level = 0;
  int region = 0;
  Box box;                         // the dataset's cells (extra cells included)
  std::vector<const Patch*> mine;  // this rank's patches of the region
  std::string location() const { return level == 0 ? "/" : regionPath(level, region); }
};

// Every region of every level, level 0 first (at the file's root).
std::vector<RegionData> regionsOf(const Grid& grid, const std::vector<int>& patchRanks, int rank);

}  // namespace tessera
