#include "CCA/Components/SimulationController/InitialTagging.h"

#include "CCA/Components/DataArchiver/ArchiveReader.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Components/SimulationController/LevelScheduling.h"
#include "Core/Grid/TagClustering.h"
#include "Core/Grid/Variables/CCVariable.h"
#include "Core/Parallel/Agreement.h"
#include "Core/Parallel/Communicator.h"
#include "Core/Util/Logger.h"

#include <algorithm>
#include <memory>

namespace tessera {

namespace {

// The tiles of this rank's patches of `level` that hold a tag, grown by the buffer.
std::vector<IntVector> localTiles(const Level& level, const std::vector<int>& patchRanks,
                                  const OnDemandDataWarehouse& dw, const VarLabel* refineFlag,
                                  const AmrSpec& amr, int rank, std::int64_t& tagged) {
  TileMarks marks(amr.buffer, amr.tileCells(), level.resolution());
  std::vector<int> flag;
  for (const Patch* patch : patchesOwnedBy(level, patchRanks, rank)) {
    const auto flags =
        std::dynamic_pointer_cast<const CCVariable<int>>(dw.findGridVariable(refineFlag, *patch));
    TESSERA_REQUIRE_THROWS(flags != nullptr,
                           "the tagging task left no '" << refineFlag->name() << "' on " << *patch);
    // The flags in one host copy (x fastest), rather than an access per cell.
    const Box interior = patch->interior();
    flag.resize(static_cast<std::size_t>(interior.volume()));
    flags->pack(interior, reinterpret_cast<std::byte*>(flag.data()));
    const IntVector size = interior.size();
    const int* row = flag.data();
    for (int k = interior.lo().z; k < interior.hi().z; ++k) {
      for (int j = interior.lo().y; j < interior.hi().y; ++j, row += size.x)
        tagged += marks.markRow(interior.lo().x, j, k, row, size.x);
    }
  }
  return marks.tiles();
}

// Every rank's tiles, the same sorted list on every rank.
std::vector<IntVector> allTiles(const std::vector<IntVector>& mine, const Communicator& comm) {
  std::vector<int> flat;
  for (const IntVector& tile : mine)
    flat.insert(flat.end(), {tile.x, tile.y, tile.z});
  const std::vector<int> all = comm.allgatherv(flat);
  std::vector<IntVector> tiles;
  for (std::size_t at = 0; at + 2 < all.size(); at += 3)
    tiles.push_back({all[at], all[at + 1], all[at + 2]});
  return uniqueTiles(std::move(tiles));
}

}  // namespace

std::vector<IntVector> taggedTiles(const Level& level, const std::vector<int>& patchRanks,
                                   const OnDemandDataWarehouse& dw, const VarLabel* refineFlag,
                                   const AmrSpec& amr, const Communicator& comm,
                                   std::int64_t& tagged) {
  std::int64_t mineTagged = 0;
  const std::vector<IntVector> mine = agreeOn(comm, [&] {
    return localTiles(level, patchRanks, dw, refineFlag, amr, comm.rank(), mineTagged);
  });
  std::vector<IntVector> tiles = allTiles(mine, comm);
  tagged = comm.allreduceSum(mineTagged);
  return tiles;
}

std::optional<AmrSpec> amrSpecOf(const ProblemSpec& deck, const Grid& grid) {
  const std::optional<ProblemSpec> amr = deck.findSection("amr");
  if (!amr) return std::nullopt;
  return AmrSpec::fromDeck(*amr, grid.level(0).spec());
}

void requireTagging(Application& app, const Grid& grid, const ProblemSpec& amrSection,
                    GraphScheduler& sched, const VarLabel* refineFlag) {
  sched.beginGraph("tagging");
  app.scheduleErrorEstimate(grid.level(0), sched, refineFlag);
  if (sched.recordedGraph().empty()) {
    throw amrSection.errorAtValue(
        "max_levels",
        "the component tags no cells (it has no scheduleErrorEstimate), so "
        "its levels above 0 need fixed amr.regions");
  }
}

void addTaggedLevels(Grid& grid, const AmrSpec& amr, Application& app, GraphScheduler& sched,
                     const LoadBalancer& balancer, const VarLabel* refineFlag, double initTime,
                     const Communicator& comm, Logger& log) {
  while (grid.numLevels() < amr.maxLevels) {
    const Level& finest = grid.level(grid.numLevels() - 1);
    const std::vector<int> patchRanks = balancer.assign(grid, comm.size());
    sched.beginGraph("initialize and tag");
    forEachLevel(grid, [&](const Level& each) { app.scheduleInitialize(each, sched); });
    scheduleAveragingDown(grid, app.stateLabels(), sched);
    app.scheduleErrorEstimate(finest, sched, refineFlag);
    const CompiledGraph graph = sched.compile(grid, patchRanks);
    OnDemandDataWarehouse oldDW("OldDW", 0, initTime, 0.0);
    OnDemandDataWarehouse newDW("NewDW", 0, initTime, 0.0);
    newDW.setGhostLayers(graph.ghostLayers);
    sched.execute(graph, oldDW, newDW);

    std::int64_t tagged = 0;
    const std::vector<IntVector> tiles =
        taggedTiles(finest, patchRanks, newDW, refineFlag, amr, comm, tagged);
    const TaggedRegions next = regionsFromTiles(finest, tiles, amr.tileCells(), amr.ratio,
                                                amr.nestingBuffer, amr.maxPatchSize);
    if (next.regions.empty()) {
      log.info("tagging: level ", finest.index(), " has ", tagged,
               tagged == 0 ? " tagged cells: no finer level"
                           : " tagged cells, in no tile that nests: no finer level");
      break;
    }
    Level& added = grid.addRefinedLevel(amr.ratioVector(), next.regions);
    log.info("tagging: ", tagged, " cells of level ", finest.index(), " tagged; level ",
             added.index(), ": ", next.tiles, " tile(s) of ", amr.tileCells(), " cells below, ",
             added.numCells(), " cells in ", added.numPatches(), " patches",
             next.notNested > 0 ? ", " + std::to_string(next.notNested) +
                                      " tile(s) left out (not nested in level " +
                                      std::to_string(finest.index()) + ")"
                                : std::string());
  }
}

ArchivedGrid archivedGridOf(const std::string& runDirectory, std::optional<int> timestep,
                            const Communicator& comm, Logger& log) {
  // The checkpoints in the order a restart tries them (DataArchiver::restore):
  // the one asked for, else the newest whose hierarchy can be read.
  return agreeOn(comm, [&] {
    const ArchiveReader reader(runDirectory);
    const std::vector<ArchiveEntry>& checkpoints = reader.index().checkpoints;
    for (auto entry = checkpoints.rbegin(); entry != checkpoints.rend(); ++entry) {
      if (timestep && entry->timestep != *timestep) continue;
      try {
        return reader.grid(*entry);
      } catch (const Error& unreadable) {
        log.warning("restart: cannot read the levels of ", runDirectory, "/", entry->file, " (",
                    unreadable.what(), ")");
      }
    }
    // None: the restart itself says why, listing the checkpoints.
    return ArchivedGrid{};
  });
}

void addArchivedLevels(Grid& grid, const ArchivedGrid& archived, Logger& log) {
  for (const ArchivedLevel& level : archived.finerLevels) {
    std::vector<LevelRegion> regions;
    for (std::size_t k = 0; k < level.regions.size(); ++k)
      regions.push_back({level.regions[k], level.patches[k]});
    grid.addRefinedLevel(level.refinementRatio, std::move(regions));
  }
  if (!archived.finerLevels.empty())
    log.info("restart: ", archived.finerLevels.size(), " tagged level(s) from the checkpoint");
}

}  // namespace tessera
