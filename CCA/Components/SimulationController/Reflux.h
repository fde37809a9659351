#pragma once
// Refluxing (docs/amr.md, "Refluxing"): where a finer level meets a coarser
// one, the coarse cell beside the interface was updated with the coarse
// flux through it while the fine cells beyond used the fine fluxes; the
// runtime replaces the first by the second, so that a conservative
// component's total is kept to rounding (AMReX's FluxRegister, built from
// the runtime's own tasks):
//
// 1. on the finer level, a register per axis and side: at the fine cells
//    whose low (high) face lies on a coarse face, the sum of the fluxes
//    through it over the finer steps of one coarser step, times ratio over
//    their count; zero elsewhere;
// 2. on the coarser level, the registers made (zero) on every patch and the
//    finer level's averaged onto the cells it covers (the runtime's
//    restriction: the average of r^3 cells of which r^2 carry a face's
//    flux times r is the mean flux through the coarse face);
// 3. on the coarser patches near the finer level, each cell the finer
//    level does not cover, beside one it does, corrected by
//    dt_coarse / dx * (coarse flux - mean fine flux) through their common
//    face (signed by the side).

#include "CCA/Ports/Application.h"
#include "CCA/Ports/Scheduler.h"
#include "Core/Grid/Level.h"
#include "Core/Grid/VarLabel.h"

#include <string>
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
  // Appended to the registers' names (the time, when subcycling).
  std::string when;
};

void scheduleReflux(const RefluxStep& step, VarLabelRegistry& labels, Scheduler& sched);

}  // namespace tessera
