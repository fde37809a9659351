#include "Core/Grid/AmrSpec.h"

#include "Core/ProblemSpec/ProblemSpec.h"

#include <algorithm>
#include <sstream>

namespace tessera {

namespace {

constexpr int kMostLevels = 8;

IntVector domainOf(const LevelSpec& level0, int ratio, int level) {
  IntVector cells = level0.resolution;
  for (int l = 0; l < level; ++l)
    cells = cells * ratio;
  return cells;
}

// The largest patch extent of level 0 along any axis.
int largestPatch(const LevelSpec& level0) {
  int largest = 1;
  for (int axis = 0; axis < 3; ++axis)
    largest = std::max(largest, (level0.resolution[axis] + level0.patches[axis] - 1) /
                                    level0.patches[axis]);
  return largest;
}

template <class T>
std::string text(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

AmrSpec AmrSpec::fromDeck(const ProblemSpec& amr, const LevelSpec& level0) {
  AmrSpec spec;
  spec.maxLevels = amr.get<int>("max_levels", spec.maxLevels);
  if (spec.maxLevels < 1 || spec.maxLevels > kMostLevels) {
    throw amr.errorAtValue("max_levels", "max_levels must be between 1 and " +
                                             std::to_string(kMostLevels) + ", got " +
                                             std::to_string(spec.maxLevels));
  }
  spec.ratio = amr.get<int>("refinement_ratio", spec.ratio);
  spec.subcycle = amr.get<bool>("subcycle", spec.subcycle);
  spec.reflux = amr.get<bool>("reflux", spec.reflux);
  if (spec.subcycle && spec.ratio == 1) {
    throw amr.errorAtValue("refinement_ratio",
                           "subcycling takes refinement_ratio substeps of a level per step of the "
                           "level below: a ratio of 1 would make no substeps (use 2 or 4)");
  }
  if (spec.ratio != 2 && spec.ratio != 4) {
    throw amr.errorAtValue("refinement_ratio",
                           "the refinement ratio must be 2 or 4, got " + std::to_string(spec.ratio));
  }
  spec.nestingBuffer = amr.get<int>("nesting_buffer", spec.nestingBuffer);
  if (spec.nestingBuffer < 0) throw amr.errorAtValue("nesting_buffer", "must not be negative");
  spec.maxPatchSize = amr.get<int>("max_patch_size", largestPatch(level0));
  if (spec.maxPatchSize < 1) throw amr.errorAtValue("max_patch_size", "must be at least 1");
  spec.buffer = amr.get<int>("buffer", spec.buffer);
  if (spec.buffer < 0) throw amr.errorAtValue("buffer", "must not be negative");
  if (amr.has("regrid_interval")) {
    spec.regridInterval = amr.get<int>("regrid_interval");
    if (spec.regridInterval < 1) {
      throw amr.errorAtValue("regrid_interval", "regrid_interval must be at least 1 (timesteps "
                                                "between regrids), got " +
                                                    std::to_string(spec.regridInterval));
    }
  }

  std::vector<ProblemSpec> sections;
  if (const auto regions = amr.findSection("regions")) {
    for (const std::string& name : regions->keys()) {
      const ProblemSpec region = regions->section(name);
      RefinedRegion r;
      r.name = name;
      r.level = region.get<int>("level");
      if (r.level < 1 || r.level >= spec.maxLevels) {
        throw region.errorAtValue(
            "level", "region '" + name + "' is on level " + std::to_string(r.level) +
                         ", but max_levels " + std::to_string(spec.maxLevels) +
                         " allows levels 1 to " + std::to_string(spec.maxLevels - 1));
      }
      const IntVector low = region.get<IntVector>("low");
      const IntVector high = region.get<IntVector>("high");
      const IntVector below = domainOf(level0, spec.ratio, r.level - 1);
      for (int axis = 0; axis < 3; ++axis) {
        if (low[axis] < 0 || low[axis] >= below[axis]) {
          throw region.errorAtValue("low", "region '" + name + "': low " + text(low) +
                                               " is outside level " +
                                               std::to_string(r.level - 1) + "'s cells " +
                                               text(Box{IntVector{}, below}));
        }
        if (high[axis] <= low[axis] || high[axis] > below[axis]) {
          throw region.errorAtValue(
              "high", "region '" + name + "': high " + text(high) + " must exceed low " +
                          text(low) + " and lie within level " + std::to_string(r.level - 1) +
                          "'s cells " + text(Box{IntVector{}, below}) + " (half-open)");
        }
      }
      r.coarseCells = {low, high};
      r.patches = region.get<IntVector>("patches", IntVector{});
      for (int axis = 0; axis < 3 && r.patches != IntVector{}; ++axis) {
        if (r.patches[axis] < 1 || r.patches[axis] > r.coarseCells.size()[axis]) {
          throw region.errorAtValue(
              "patches", "region '" + name + "': " + text(r.patches) +
                             " patches need at least one cell of level " +
                             std::to_string(r.level - 1) + " each along every axis (the region has " +
                             text(r.coarseCells.size()) + ")");
        }
      }
      spec.regions.push_back(r);
      sections.push_back(region);
    }
  }

  if (spec.regridInterval > 0 && !spec.regions.empty()) {
    throw amr.errorAtValue("regrid_interval",
                           "fixed amr.regions do not regrid: regridding follows the component's "
                           "tags (leave out either regions or regrid_interval)");
  }
  if (spec.tagged() && amr.has("max_patch_size") && spec.maxPatchSize % spec.ratio != 0) {
    throw amr.errorAtValue("max_patch_size",
                           "tagged levels are made of tiles of max_patch_size / refinement_ratio "
                           "cells of the level below: max_patch_size " +
                               std::to_string(spec.maxPatchSize) +
                               " must be a multiple of refinement_ratio " +
                               std::to_string(spec.ratio));
  }
  if (spec.regridInterval > 0 && spec.maxLevels > 2 && spec.nestingBuffer < 1) {
    throw amr.errorAtValue("nesting_buffer",
                           "regridding more than one refined level needs nesting_buffer of at "
                           "least 1: a new cell of level l is refined from level l - 1 with its "
                           "neighbours, which level l - 1 must hold");
  }
  if (spec.regridInterval > 0 && spec.maxLevels < 2) {
    throw amr.errorAtValue("regrid_interval",
                           "regridding needs max_levels of 2 or more (got " +
                               std::to_string(spec.maxLevels) + ")");
  }
  for (std::size_t i = 0; i < spec.regions.size(); ++i) {
    const RefinedRegion& r = spec.regions[i];
    for (std::size_t j = 0; j < i; ++j) {
      const RefinedRegion& q = spec.regions[j];
      if (q.level == r.level && q.coarseCells.intersects(r.coarseCells)) {
        throw sections[i].errorAtValue("low", "region '" + r.name + "' " + text(r.coarseCells) +
                                                  " overlaps region '" + q.name + "' " +
                                                  text(q.coarseCells) + " of level " +
                                                  std::to_string(r.level));
      }
    }
    if (r.level == 1) continue;  // level 0 covers the domain
    // Proper nesting: the region and nesting_buffer cells of level l - 1
    // around it (within the domain, or across a periodic boundary) are
    // refined by level l - 1.
    const IntVector below = domainOf(level0, spec.ratio, r.level - 1);
    Box wanted = r.coarseCells.grow(spec.nestingBuffer);
    for (int axis = 0; axis < 3; ++axis) {
      if (level0.periodic[axis]) continue;
      IntVector lo = wanted.lo();
      IntVector hi = wanted.hi();
      lo[axis] = std::max(lo[axis], 0);
      hi[axis] = std::min(hi[axis], below[axis]);
      wanted = {lo, hi};
    }
    std::vector<Box> coarser;
    for (const RefinedRegion& q : spec.regions)
      if (q.level == r.level - 1) coarser.push_back(refine(q.coarseCells, spec.ratioVector()));
    const std::vector<Box> missing = uncovered(wanted, coarser, below, level0.periodic);
    if (!missing.empty()) {
      throw sections[i].errorAtValue(
          "low", "region '" + r.name + "' of level " + std::to_string(r.level) +
                     " is not properly nested in level " + std::to_string(r.level - 1) +
                     ": cells " + text(missing.front()) + " of level " +
                     std::to_string(r.level - 1) + (coarser.empty() ? "" : ", within") +
                     (coarser.empty() ? " (it has no region)"
                                      : " nesting_buffer " + std::to_string(spec.nestingBuffer) +
                                            " of the region, are not refined by it"));
    }
  }
  return spec;
}

IntVector patchLayoutFor(const Box& fineCells, int ratio, int maxPatchSize) {
  IntVector patches;
  for (int axis = 0; axis < 3; ++axis) {
    const int fine = fineCells.size()[axis];
    patches[axis] = std::min((fine + maxPatchSize - 1) / maxPatchSize, fine / ratio);
  }
  return patches;
}

int AmrSpec::numLevels() const {
  int levels = 1;
  for (const RefinedRegion& r : regions)
    levels = std::max(levels, r.level + 1);
  return levels;
}

std::vector<LevelRegion> AmrSpec::levelRegions(int level) const {
  std::vector<LevelRegion> cut;
  for (const RefinedRegion& r : regions) {
    if (r.level != level) continue;
    LevelRegion region;
    region.cells = refine(r.coarseCells, ratioVector());
    region.patches =
        r.patches != IntVector{} ? r.patches : patchLayoutFor(region.cells, ratio, maxPatchSize);
    cut.push_back(region);
  }
  return cut;
}

}  // namespace tessera
