#pragma once
// Subcycling (amr.subcycle; docs/amr.md, "Subcycling"): level l takes r^l
// substeps per step of level 0, each of dt / r^l, in one graph per coarse
// step, as Uintah's and AMReX's time refinement does.
//
// The component schedules its timestep per level as in lockstep; the
// runtime records it once per substep, on variables renamed by time: a
// level's state after its substep ends at position p of the coarse step
// (p in finest substeps, 0 < p < N = r^(L-1)) is "phi@p/N" in the new
// warehouse, the start is the old warehouse's phi and the end the new
// warehouse's phi. The task sees its level's time and dt and the names it
// knows (SubstepWarehouse). A finer level's coarse-fine ghost cells at a
// position the coarser level has no state for are interpolated linearly
// in time between the coarser level's two states around it.
//
// Where a level meets its finer level's time (the end of each of its
// substeps) the two synchronise: the finer level's state is averaged onto
// it. Its own step leaves its state as "phi@p/N before sync", which the
// finer level's ghost cells read; the synchronised copy has the plain
// name. Intermediate states live until the end of the coarse step.

#include "CCA/Ports/Application.h"
#include "CCA/Ports/Scheduler.h"
#include "Core/Grid/Grid.h"
#include "Core/Grid/VarLabel.h"

#include <cstdint>

namespace tessera {

// How many steps `level` takes per step of level 0 (the product of the ratios below it).
int substepsOf(const Level& level);

// Records one coarse step of `grid` (every level's substeps, the
// synchronisations, every level's stable timestep) into `sched`.
// With `reflux`, each synchronisation refluxes the component's declared
// fluxes too (Reflux.h).
void scheduleSubcycledTimestep(const Grid& grid, Application& app, VarLabelRegistry& labels,
                               Scheduler& sched, bool reflux);

// The component's stable-timestep tasks on `level`, each contribution
// multiplied by the level's substeps: the reduction is then the largest
// coarse step every level allows.
void scheduleScaledStableTimestep(const Level& level, Application& app, Scheduler& sched);

// Cells updated by one coarse step: each level's cells times its substeps.
std::int64_t subcycledCellUpdates(const Grid& grid);

}  // namespace tessera
