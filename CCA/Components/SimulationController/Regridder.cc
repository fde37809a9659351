#include "CCA/Components/SimulationController/Regridder.h"

#include "CCA/Components/SimulationController/InitialTagging.h"
#include "CCA/Components/SimulationController/LevelScheduling.h"
#include "Core/Grid/TagClustering.h"
#include "Core/Parallel/Communicator.h"
#include "Core/Util/Logger.h"
#include "Core/Util/Timer.h"
#include "Core/Util/Trace.h"

#include <algorithm>
#include <sstream>
#include <utility>
#include <vector>

namespace tessera {

namespace {

// The tiles of `coarse` (a level below `fine`) that its regions must
// contain so that level `fine` + 1, made of `fineTiles`, nests in `fine`:
// the cells of `fine` under those tiles and nesting_buffer cells around
// them (clipped at walls, wrapped across periodic faces), seen from `coarse`.
std::vector<IntVector> tilesForNesting(const std::vector<IntVector>& fineTiles,
                                       const IntVector& fineResolution,
                                       const IntVector& coarseResolution,
                                       const std::array<bool, 3>& periodic, const AmrSpec& amr) {
  const IntVector tile = amr.tileCells();
  // Where coarse cells [lo, hi) along a periodic axis land, wrapped: one
  // run or two. Along the other axes they are clamped to the domain first
  // (clamping keeps a run contiguous).
  const auto runsAlong = [&](int axis, int lo, int hi) {
    std::vector<std::pair<int, int>> runs;
    const int n = coarseResolution[axis];
    if (!periodic[axis]) {
      runs.emplace_back(lo, hi);
    } else if (hi - lo >= n) {
      runs.emplace_back(0, n);
    } else {
      const int first = lo - floorDiv(lo, n) * n;
      runs.emplace_back(first, std::min(first + (hi - lo), n));
      if (first + (hi - lo) > n) runs.emplace_back(0, first + (hi - lo) - n);
    }
    return runs;
  };
  TileMarks marks(0, tile, coarseResolution);
  for (const IntVector& index : fineTiles) {
    const Box fine = Box{index * tile, (index + IntVector::uniform(1)) * tile}
                         .intersection(Box{IntVector{}, fineResolution})
                         .grow(amr.nestingBuffer);
    const Box coarse = coarsen(fine, amr.ratioVector());
    IntVector lo = coarse.lo(), hi = coarse.hi();  // the periodic axes as they are
    for (int axis = 0; axis < 3; ++axis) {
      if (periodic[axis]) continue;
      lo[axis] = 0;
      hi[axis] = coarseResolution[axis];
    }
    const Box below = clampedInto(coarse, Box{lo, hi});
    const auto xs = runsAlong(0, below.lo().x, below.hi().x);
    const auto ys = runsAlong(1, below.lo().y, below.hi().y);
    for (const auto& [z0, z1] : runsAlong(2, below.lo().z, below.hi().z))
      for (int z = z0; z < z1; ++z)
        for (const auto& [y0, y1] : ys)
          for (int y = y0; y < y1; ++y)
            for (const auto& [x0, x1] : xs)
              marks.markRun(x0, x1, y, z);
  }
  return marks.tiles();
}

std::vector<IntVector> merged(const std::vector<IntVector>& a, const std::vector<IntVector>& b) {
  std::vector<IntVector> all = a;
  all.insert(all.end(), b.begin(), b.end());
  return uniqueTiles(std::move(all));
}

}  // namespace

Regridder::Regridder(AmrSpec amr, Application& app, const VarLabel* refineFlag,
                     const Communicator& comm, Logger& log)
    : m_amr(std::move(amr)), m_app(app), m_refineFlag(refineFlag), m_comm(comm), m_log(log) {}

std::optional<Grid> Regridder::regrid(const Grid& grid, const std::vector<int>& patchRanks,
                                      int generation, OnDemandDataWarehouse& dw,
                                      GraphScheduler& sched, RegridTimes& times,
                                      TraceTrack* trace) {
  // Tags on every level that may have a finer one: level k's make level k + 1.
  const int top = std::min(grid.numLevels() - 1, m_amr.maxLevels - 2);
  std::vector<std::vector<IntVector>> tiles(static_cast<std::size_t>(top + 1));
  std::vector<std::int64_t> tagged(tiles.size(), 0);
  {
    const TraceScope traced(trace, "regrid: tagging", "regrid");
    const Timer timer;
    // The tagging graph is compiled once per grid and placement, and reused
    // while they stay (most regrids leave the levels as they are).
    if (!m_tagging || m_taggingGeneration != generation) {
      const TraceScope compiling(trace, "regrid: compile tagging", "regrid");
      sched.beginGraph("tagging");
      scheduleStateInPlace(grid, m_app.stateLabels(), sched);
      for (int k = 0; k <= top; ++k)
        m_app.scheduleErrorEstimate(grid.level(k), sched, m_refineFlag);
      m_tagging = std::make_unique<CompiledGraph>(sched.compile(grid, patchRanks));
      m_taggingGeneration = generation;
    }
    OnDemandDataWarehouse none("OldDW", dw.timestep(), dw.time(), 0.0);
    sched.execute(*m_tagging, none, dw);
    for (int k = 0; k <= top; ++k) {
      const auto kk = static_cast<std::size_t>(k);
      tiles[kk] =
          taggedTiles(grid.level(k), patchRanks, dw, m_refineFlag, m_amr, m_comm, tagged[kk]);
    }
    times.tagging = timer.seconds();
  }

  const TraceScope traced(trace, "regrid: clustering", "regrid");
  const Timer timer;
  // From the finest down: the tiles a level needs under the one above it.
  for (int k = top - 1; k >= 0; --k) {
    const auto kk = static_cast<std::size_t>(k);
    if (tiles[kk + 1].empty()) continue;
    const Level& fine = grid.level(k + 1);
    const IntVector coarseResolution = grid.level(k).resolution();
    const std::array<bool, 3> periodic{fine.periodic(0), fine.periodic(1), fine.periodic(2)};
    tiles[kk] = merged(tiles[kk], tilesForNesting(tiles[kk + 1], fine.resolution(),
                                                  coarseResolution, periodic, m_amr));
  }
  // Then level by level from level 0, which never changes.
  Grid next;
  next.addLevel(grid.level(0).spec());
  for (int k = 0; k <= top; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    const Level& below = next.level(k);
    const TaggedRegions regions = regionsFromTiles(below, tiles[kk], m_amr.tileCells(), m_amr.ratio,
                                                   m_amr.nestingBuffer, m_amr.maxPatchSize);
    if (regions.notNested > 0) {
      m_log.info("regrid: ", regions.notNested, " tile(s) of level ", k,
                 " left out (not nested in level ", k, ")");
    }
    if (regions.regions.empty()) {
      if (tagged[kk] == 0) m_log.info("regrid: level ", k, " has no tagged cells: no finer level");
      break;
    }
    next.addRefinedLevel(m_amr.ratioVector(), regions.regions);
  }
  times.clustering = timer.seconds();
  if (sameHierarchy(grid, next)) return std::nullopt;
  return next;
}

std::string Regridder::describeLevels(const Grid& grid) {
  std::ostringstream out;
  for (int l = 1; l < grid.numLevels(); ++l) {
    out << (l > 1 ? "; " : "") << "level " << l << ": " << grid.level(l).numCells() << " cells in "
        << grid.level(l).numPatches() << " patches";
  }
  if (grid.numLevels() == 1) out << "level 0 alone";
  return out.str();
}

bool sameHierarchy(const Grid& a, const Grid& b) {
  if (a.numLevels() != b.numLevels()) return false;
  for (int l = 1; l < a.numLevels(); ++l) {
    const std::vector<LevelRegion>& ra = a.level(l).regions();
    const std::vector<LevelRegion>& rb = b.level(l).regions();
    if (ra.size() != rb.size()) return false;
    for (std::size_t r = 0; r < ra.size(); ++r) {
      if (ra[r].cells != rb[r].cells || ra[r].patches != rb[r].patches) return false;
    }
  }
  return true;
}

}  // namespace tessera
