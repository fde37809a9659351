#pragma once
// The hooks a simulation component implements. The runtime calls
// problemSetup once, then asks for tasks; it never calls the physics directly.

#include "CCA/Ports/DataWarehouse.h"
#include "CCA/Ports/Scheduler.h"
#include "Core/Grid/Grid.h"
#include "Core/ProblemSpec/ProblemSpec.h"
#include "Core/ProblemSpec/Schema.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

class Communicator;
class Logger;

// What the runtime lends a component for its lifetime.
struct ApplicationContext {
  VarLabelRegistry& labels;
  Logger& log;
  const Communicator& comm;
};

// How long the time loop took, for components that report a rate (the
// slowest rank's times).
struct RunTiming {
  int timesteps = 0;              // run by this invocation
  double wallSeconds = 0.0;       // the whole time loop
  double firstStepSeconds = 0.0;  // its first timestep (a warm-up some benchmarks leave out)
  // Bytes each rank's scheduler sent and received in the time loop (ghost
  // cells and blocks; reductions apart), indexed by rank.
  std::vector<double> bytesSent;
  std::vector<double> bytesReceived;
};

// A conservative component's face fluxes (docs/amr.md, "Refluxing"): for
// the cell variable `conserved`, along each axis the fluxes its timestep
// computes through the low and the high face of every interior cell
// (CCVariable<double>s, per unit area and time: `conserved` changes by
// -dt sum_d (high_d - low_d) / dx_d), null for an axis no flux crosses.
// With them the runtime corrects the coarse cells next to a finer level by
// the difference between their flux and the finer level's through the same
// face, summed over its fine faces and substeps (AMReX's flux register).
// The flux labels are made with fluxTransfer(axis, high) (their face
// coarsen operator is how the runtime moves them to the level below).
struct ConservedFlux {
  const VarLabel* conserved = nullptr;
  std::array<const VarLabel*, 3> low{};
  std::array<const VarLabel*, 3> high{};
};

// How a flux through each cell's low (high) face along `axis` moves between
// levels: to the coarse faces it lies on (LevelTransfer.h).
inline LevelTransfer fluxTransfer(int axis, bool high) {
  return {RefineOp::Constant, faceOp(axis, high)};
}

class Application {
 public:
  explicit Application(ApplicationContext& context) : m_context(context) {}
  virtual ~Application() = default;
  Application(const Application&) = delete;
  Application& operator=(const Application&) = delete;

  // The schema of the component's own deck section (a top-level section
  // named after the component), validated with the rest of the deck.
  virtual Schema deckSchema() const { return Schema(); }
  // False for components whose data are not on the grid (block variables
  // only): their decks may leave the grid section out.
  virtual bool usesGrid() const { return true; }
  // Reads the component's parameters; may check the grid against them. It
  // sees level 0 and the deck's fixed regions: levels the component tags
  // (scheduleErrorEstimate) come later, so per-level state belongs in the
  // schedule hooks, which every level reaches.
  virtual void problemSetup(const ProblemSpec& deck, Grid& grid) = 0;

  virtual void scheduleInitialize(const Level& level, Scheduler& sched) = 0;
  // Re-creates state that is not a grid variable after a restart.
  virtual void scheduleRestartInitialize(const Level& level, Scheduler& sched) {
    (void)level;
    (void)sched;
  }
  // Computes stableTimestepLabel() (a MinVariable<double>) in the new
  // warehouse. A component whose steps have no stability limit (a matrix
  // product, a task pattern) leaves both out: it then steps by 1.
  virtual void scheduleComputeStableTimestep(const Level& level, Scheduler& sched) {
    (void)level;
    (void)sched;
  }
  virtual void scheduleTimeAdvance(const Level& level, Scheduler& sched) = 0;
  // Tagging (docs/amr.md): marks the cells of `level` that the next finer
  // level should cover, computing `refineFlag` (a CCVariable<int>, nonzero:
  // refine) in the new warehouse on the level's patches, from the state
  // there. The runtime calls it at initialisation when the deck's amr
  // section leaves the levels to the component (max_levels above 1, no
  // regions); regridding will call it every few steps. A component without
  // it runs refined decks with fixed regions only.
  virtual void scheduleErrorEstimate(const Level& level, Scheduler& sched,
                                     const VarLabel* refineFlag) {
    (void)level;
    (void)sched;
    (void)refineFlag;
  }
  // Diagnostics of the final state (e.g. errors against an exact solution).
  virtual void scheduleAnalysis(const Level& level, Scheduler& sched) {
    (void)level;
    (void)sched;
  }

  // The reduction scheduleComputeStableTimestep computes, or null: steps of
  // 1 (simulated time counts the steps), before time.timestep_multiplier
  // and time.delt_min / delt_max / delt_init, and without any reduction
  // (so without a synchronisation of the ranks) per step.
  virtual const VarLabel* stableTimestepLabel() const { return nullptr; }
  // The fluxes of refluxing (ConservedFlux): declared once, computed by the
  // timestep (computesVar) on every level whenever the deck refluxes
  // (AmrSpec::refluxes). None: no refluxing.
  virtual std::vector<ConservedFlux> conservedFluxes() const { return {}; }
  // The cell variables that make up the state: digested, saved and restored.
  virtual std::vector<const VarLabel*> stateLabels() const = 0;
  // Named numbers reported at the end, read from the analysis tasks' results
  // (`dw` also holds the reductions of the final state: those the timestep
  // computes, and those nothing computes again after initialisation).
  // They go into the run record and are compared by the regression tests:
  // only numbers that depend on the computed state, never on timing.
  virtual std::vector<std::pair<std::string, double>> analysisResults(
      const DataWarehouse& dw) const {
    (void)dw;
    return {};
  }
  // Lines of text printed after the analysis results (a verdict, a rate).
  virtual std::vector<std::string> analysisReport(const DataWarehouse& dw,
                                                  const RunTiming& timing) const {
    (void)dw;
    (void)timing;
    return {};
  }
  // The component's own end of the run (a converged iteration), checked
  // after each timestep on the new warehouse. It must read only what every
  // rank holds alike (reduction variables), so that the ranks stop together.
  virtual bool converged(const DataWarehouse& newDW) const {
    (void)newDW;
    return false;
  }

 protected:
  ApplicationContext& context() const { return m_context; }

 private:
  ApplicationContext& m_context;
};

}  // namespace tessera
