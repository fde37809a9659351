#pragma once
// A component's tasks on every level of a grid, and the runtime's own tasks
// between levels (docs/amr.md): the component schedules per level, as
// before, and never names the other levels.

#include "CCA/Ports/Scheduler.h"
#include "Core/Grid/Grid.h"

#include <functional>
#include <vector>

namespace tessera {

// Calls `perLevel(level)` for every level, coarsest first.
void forEachLevel(const Grid& grid, const std::function<void(const Level&)>& perLevel);

// Averages the cell variables of `labels` from each finer level onto the
// cells it covers below, finest first, with each label's coarsen operator:
// one task per level on the coarser patches a finer one covers (it
// modifies the variable there, after every task that computes it). Nothing
// on a grid of one level.
void scheduleAveragingDown(const Grid& grid, const std::vector<const VarLabel*>& labels,
                           Scheduler& sched);
// The same from `fine` onto the level below it alone.
void scheduleAveragingFrom(const Level& fine, const std::vector<const VarLabel*>& labels,
                           Scheduler& sched);

// Declares the cell variables of `labels` on every level as computed in the
// new warehouse by tasks that do nothing: for a graph run on a warehouse
// that already holds them (the state a regrid tags, or moved to a new
// grid), so that the tasks reading them there find a producer to follow.
void scheduleStateInPlace(const Grid& grid, const std::vector<const VarLabel*>& labels,
                          Scheduler& sched);

}  // namespace tessera
