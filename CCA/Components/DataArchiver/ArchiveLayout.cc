#include "CCA/Components/DataArchiver/ArchiveLayout.h"

#include "CCA/Ports/LoadBalancer.h"
#include "Core/Grid/Variables/FieldDigest.h"
#include "Core/IO/H5Files.h"
#include "Core/Util/Version.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace tessera {

std::string blockPath(const VarLabel* label) { return std::string(kBlockGroup) + "/" + label->name(); }

std::string levelPath(int level) { return std::string(kLevelsGroup) + "/" + std::to_string(level); }

std::string regionPath(int level, int region) {
  return levelPath(level) + "/" + std::to_string(region);
}

H5Group openLevelGroup(hid_t file, const std::string& path, int level, int region) {
  const std::string link = region < 0 ? levelPath(level) : regionPath(level, region);
  if (!hasLink(file, kLevelsGroup) || !hasLink(file, levelPath(level)) ||
      (region >= 0 && !hasLink(file, link))) {
    throw InputError("'" + path + "' has no /" + link + " (a corrupt or truncated archive)");
  }
  return H5Group(H5Gopen2(file, link.c_str(), H5P_DEFAULT), "level group");
}

namespace {

// What a restart takes from a file besides the data, in one canonical text:
// its checksum ("metadata_digest") covers every attribute a reader uses.
// Format 3 adds the hierarchy: each finer level's ratio and region boxes
// (not their patch layouts, which a restart may change).
std::string metadataText(const ArchiveStep& step, const Grid& grid, std::int64_t format) {
  const Level& level = grid.level(0);
  const LevelSpec& spec = level.spec();
  std::ostringstream text;
  text << std::hexfloat << "format " << format << "\ncomponent " << step.component
       << "\ntime " << step.time << "\ntimestep " << step.timestep << "\ndelt " << step.delt
       << "\ndeck " << step.deckDigest << "\nlower " << spec.lower.x << ' ' << spec.lower.y << ' '
       << spec.lower.z << "\nupper " << spec.upper.x << ' ' << spec.upper.y << ' ' << spec.upper.z
       << "\nresolution " << spec.resolution << "\nindex_lo " << level.extendedCellBox().lo()
       << "\n";
  if (format >= 3) {
    text << "levels " << grid.numLevels() << "\n";
    for (int l = 1; l < grid.numLevels(); ++l) {
      const Level& finer = grid.level(l);
      text << "level " << l << " ratio " << finer.refinementRatio() << "\n";
      for (const LevelRegion& region : finer.regions())
        text << "  region " << region.cells.lo() << ' ' << region.cells.hi() << "\n";
    }
  }
  return text.str();
}

}  // namespace

void writeGridAttributes(hid_t file, const ArchiveStep& step, const Grid& grid) {
  const Level& level = grid.level(0);
  const LevelSpec& spec = level.spec();
  writeAttribute(file, "format_version", static_cast<std::int64_t>(kArchiveFormatVersion));
  writeAttribute(file, "tessera_version", std::string(kVersion));
  writeAttribute(file, "component", step.component);
  writeAttribute(file, "time", step.time);
  writeAttribute(file, "timestep", static_cast<std::int64_t>(step.timestep));
  writeAttribute(file, "delt", step.delt);
  writeAttribute(file, "deck_digest", step.deckDigest);
  writeAttribute(file, "lower", spec.lower);
  writeAttribute(file, "upper", spec.upper);
  writeAttribute(file, "resolution", spec.resolution);
  writeAttribute(file, "spacing", level.spacing());
  writeAttribute(file, "patches", spec.patches);
  writeAttribute(file, "extra_cells", level.extendedCellBox().lo() * -1);
  writeAttribute(file, "index_lo", level.extendedCellBox().lo());
  writeAttribute(file, "levels", static_cast<std::int64_t>(grid.numLevels()));
  writeAttribute(file, "metadata_digest",
                 digestOfText(metadataText(step, grid, kArchiveFormatVersion)));
}

void writeLevelAttributes(hid_t group, const Level& level) {
  writeAttribute(group, "refinement_ratio", level.refinementRatio());
  writeAttribute(group, "resolution", level.resolution());
  writeAttribute(group, "spacing", level.spacing());
  writeAttribute(group, "regions", static_cast<std::int64_t>(level.regions().size()));
}

void writeRegionAttributes(hid_t group, const Level& level, int region) {
  const LevelRegion& cells = level.regions()[static_cast<std::size_t>(region)];
  writeAttribute(group, "cells_lo", cells.cells.lo());
  writeAttribute(group, "cells_hi", cells.cells.hi());
  writeAttribute(group, "patches", cells.patches);
  writeAttribute(group, "index_lo", level.extendedRegionBox(region).lo());
}

namespace {

std::string boxText(const Box& box) {
  std::ostringstream text;
  text << box;
  return text.str();
}

void checkSameGrid(hid_t file, const std::string& path, const Grid& grid, std::int64_t format) {
  const Level& level = grid.level(0);
  const LevelSpec& spec = level.spec();
  const auto differs = [&](const std::string& what) {
    throw InputError("'" + path + "' holds another grid: its " + what + " differs from the deck's");
  };
  if (readIntVectorAttribute(file, "resolution") != spec.resolution) differs("resolution");
  if (readIntVectorAttribute(file, "index_lo") != level.extendedCellBox().lo())
    differs("extra_cells");
  if (readVector3Attribute(file, "lower") != spec.lower) differs("lower corner");
  if (readVector3Attribute(file, "upper") != spec.upper) differs("upper corner");
  const std::int64_t levels = format >= 3 ? readIntAttribute(file, "levels") : 1;
  if (levels != grid.numLevels()) {
    throw InputError("'" + path + "' holds " + std::to_string(levels) + " level(s), the deck " +
                     std::to_string(grid.numLevels()) + " (amr.regions changed?)");
  }
  for (int l = 1; l < grid.numLevels(); ++l) {
    const Level& finer = grid.level(l);
    const H5Group group = openLevelGroup(file, path, l);
    const std::string which = "level " + std::to_string(l);
    if (readIntVectorAttribute(group.get(), "refinement_ratio") != finer.refinementRatio())
      differs(which + "'s refinement ratio");
    if (readIntAttribute(group.get(), "regions") != static_cast<std::int64_t>(finer.regions().size()))
      differs(which + "'s number of regions");
    for (int k = 0; k < static_cast<int>(finer.regions().size()); ++k) {
      const H5Group region = openLevelGroup(file, path, l, k);
      const Box stored(readIntVectorAttribute(region.get(), "cells_lo"),
                       readIntVectorAttribute(region.get(), "cells_hi"));
      if (stored != finer.regions()[static_cast<std::size_t>(k)].cells)
        differs(which + "'s region " + std::to_string(k) + " (" + boxText(stored) + ")");
    }
  }
}

}  // namespace

ArchiveStep readStepAttributes(hid_t file, const std::string& path, const Grid& grid) {
  const std::int64_t format = readIntAttribute(file, "format_version");
  // Format 2 is format 3 without finer levels: single-level archives stay readable.
  if (format != kArchiveFormatVersion && format != 2) {
    throw InputError("'" + path + "' has archive format " + std::to_string(format) +
                     ", this Tessera reads 2 and " + std::to_string(kArchiveFormatVersion));
  }
  checkSameGrid(file, path, grid, format);
  ArchiveStep step;
  step.time = readDoubleAttribute(file, "time");
  step.timestep = static_cast<int>(readIntAttribute(file, "timestep"));
  step.delt = readDoubleAttribute(file, "delt");
  step.component = readStringAttribute(file, "component");
  step.deckDigest = readUnsignedAttribute(file, "deck_digest");
  if (digestOfText(metadataText(step, grid, format)) !=
      readUnsignedAttribute(file, "metadata_digest")) {
    throw InputError("'" + path +
                     "': its attributes (time, timestep, delt, component, deck, levels) fail "
                     "their checksum (corrupt metadata)");
  }
  return step;
}

std::vector<RegionData> regionsOf(const Grid& grid, const std::vector<int>& patchRanks, int rank) {
  std::vector<RegionData> all;
  for (int l = 0; l < grid.numLevels(); ++l) {
    const Level& level = grid.level(l);
    for (int k = 0; k < static_cast<int>(level.regions().size()); ++k) {
      RegionData data{l, k, level.extendedRegionBox(k), {}};
      for (const Patch* patch : patchesOwnedBy(level, patchRanks, rank))
        if (patch->region() == k) data.mine.push_back(patch);
      all.push_back(std::move(data));
    }
  }
  return all;
}


}  // namespace tessera
