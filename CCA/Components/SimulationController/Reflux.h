#pragma once
// Refluxing (docs/amr.md, "Refluxing"): where a finer level meets a coarser
// one, the coarse cell beside the interface was updated with the coarse
// flux through it while the fine cells beyond used the fine fluxes; the
// runtime replaces the first by the second, so that a conservative
// component's total is kept to rounding (AMReX's FluxRegister, made of the
// runtime's own tasks and data movement):
//
// 1. the finer level's fluxes of each of its steps in the coarser step are
//    averaged onto the coarser level by their face operators (fluxTransfer):
//    at the first and last coarse cells each finer patch covers along each
//    axis where the finer level ends there (not between two finer patches:
//    TaskGraph's finerOver), the mean flux of the fine faces on the coarse
//    face; the finer
//    level's last step writes into the coarser level's own flux variables
//    there (the coarser level's fluxes at covered cells are never read), the
//    earlier steps into variables the runtime makes for them;
// 2. on the coarser patches near the finer level, each cell the finer level
//    does not cover, beside one it does, is corrected by
//    dt_coarse / dx * (coarse flux - mean fine flux over the steps) through
//    their common face, added through its high face and subtracted through
//    its low face; a covered neighbour in another patch comes with the ghost
//    cells. Which cells and faces is known when the graph is recorded.
//
// Work and data in proportion to the finer patches' surfaces, not their volumes.

#include "CCA/Ports/Application.h"
#include "CCA/Ports/Scheduler.h"
#include "Core/Grid/Level.h"
#include "Core/Grid/VarLabel.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

// One coarser step's refluxing of the interface between `fine` and the level below it.
struct RefluxStep {
  const Level* fine = nullptr;
  // The finer level's fluxes at each of its steps in the coarser step (one
  // in lockstep, the ratio's when subcycling), each as the component
  // declared them (Application::conservedFluxes), under the step's names.
  std::vector<std::vector<ConservedFlux>> fineSteps;
  // The coarser level's, at its step; `conserved` names the state to correct.
  std::vector<ConservedFlux> coarse;
  // The coarser level's steps per timestep: its dt is the timestep's over this.
  int coarseSubsteps = 1;
  // Whether the level below the coarser one computes the coarser level's
  // flux names too (their ghost cells at the coarser level's own boundary
  // come from there); if not, the runtime makes them there.
  bool coarseNamesBelow = true;
  // The (name, level) pairs the runtime has made storage for in this graph
  // (several synchronisations need the same), shared by its RefluxSteps.
  std::set<std::pair<const VarLabel*, int>>* made = nullptr;
};

void scheduleReflux(const RefluxStep& step, Scheduler& sched);

}  // namespace tessera
