#pragma once
// The levels of a refined run that the component's tags make, rather than
// the deck's regions (docs/amr.md, "Tagging"): at initialisation, and from
// a checkpoint on restart.

#include "CCA/Components/DataArchiver/ArchiveReader.h"
#include "CCA/Components/Schedulers/GraphScheduler.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Ports/Application.h"
#include "CCA/Ports/LoadBalancer.h"
#include "Core/Grid/AmrSpec.h"
#include "Core/Grid/Grid.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tessera {

class Communicator;
class Logger;

// The deck's amr section as an AmrSpec, or nullopt without one.
std::optional<AmrSpec> amrSpecOf(const ProblemSpec& deck, const Grid& grid);

// A deck that leaves its levels to the component's tags needs a component
// that tags: the deck error naming amr.max_levels otherwise. Records into
// `sched` (any scheduler; nothing runs).
void requireTagging(Application& app, const Grid& grid, const ProblemSpec& amrSection,
                    GraphScheduler& sched, const VarLabel* refineFlag);

// The tiles (TagClustering.h) of `level` that the tagging tasks' flags in
// `dw` (this rank's patches, `patchRanks`) ask for, grown by amr.buffer:
// the same sorted list on every rank; `tagged` counts the tagged cells of
// all ranks. Collective.
std::vector<IntVector> taggedTiles(const Level& level, const std::vector<int>& patchRanks,
                                   const OnDemandDataWarehouse& dw, const VarLabel* refineFlag,
                                   const AmrSpec& amr, const Communicator& comm,
                                   std::int64_t& tagged);

// Grows `grid` (level 0 alone) level by level: the state is initialised on
// the levels so far, the component tags the finest (scheduleErrorEstimate),
// and the tiles around its tags (TagClustering.h) become the next level,
// until amr.max_levels or a level without tags. The state made on the way
// is dropped: the run initialises the final grid afresh. Collective.
void addTaggedLevels(Grid& grid, const AmrSpec& amr, Application& app, GraphScheduler& sched,
                     const LoadBalancer& balancer, const VarLabel* refineFlag, double initTime,
                     const Communicator& comm, Logger& log);

// What the checkpoint a restart of `runDirectory` reads (the one at
// `timestep`, else the newest) holds of the grid: its levels (a tagged
// run's are in its checkpoints, not in its deck) and its placement.
// Collective.
ArchivedGrid archivedGridOf(const std::string& runDirectory, std::optional<int> timestep,
                            const Communicator& comm, Logger& log);

// Grows `grid` (level 0 alone) to the hierarchy of `archived`.
void addArchivedLevels(Grid& grid, const ArchivedGrid& archived, Logger& log);

}  // namespace tessera
