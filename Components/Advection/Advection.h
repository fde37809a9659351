#pragma once
// Linear advection of a scalar phi by the swirl (SwirlFlow.h) on a periodic
// box [0, 1] x [0, 1] x [0, Lz]: finite volume in flux form, the unsplit
// second-order Godunov scheme with monotonized central slopes, CFL 0.7 by
// default. The flow reverses at t = 1, so at t = 2 the exact solution is
// the initial condition: the analysis reports the L1, L2 and max errors
// against it over the composite grid, and the integral of phi against the
// one at t = 0. The refinement test problem of AMReX (Advection_AmrCore);
// docs/advection.md.

#include "CCA/Ports/Application.h"
#include "Components/Advection/SwirlFlow.h"

#include <array>
#include <cstdint>
#include <vector>

namespace tessera {

class Advection final : public Application {
 public:
  explicit Advection(ApplicationContext& context);

  Schema deckSchema() const override;
  void problemSetup(const ProblemSpec& deck, Grid& grid) override;

  void scheduleInitialize(const Level& level, Scheduler& sched) override;
  void scheduleComputeStableTimestep(const Level& level, Scheduler& sched) override;
  void scheduleTimeAdvance(const Level& level, Scheduler& sched) override;
  void scheduleAnalysis(const Level& level, Scheduler& sched) override;
  void scheduleErrorEstimate(const Level& level, Scheduler& sched,
                             const VarLabel* refineFlag) override;

  const VarLabel* stableTimestepLabel() const override { return m_delT; }
  std::vector<const VarLabel*> stateLabels() const override { return {m_phi}; }
  std::vector<ConservedFlux> conservedFluxes() const override;
  std::vector<std::pair<std::string, double>> analysisResults(
      const DataWarehouse& dw) const override;

 private:
  // The face lines of `level` (made in problemSetup for every level the deck allows).
  const swirl::FaceLines& linesOf(const Level& level) const;
  void initialize(const PatchGroup& group, const DataWarehouse& oldDW, DataWarehouse& newDW,
                  ExecutionContext& exec) const;
  void computeStableTimestep(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                             ExecutionContext& exec) const;
  void timeAdvance(const PatchGroup& group, const DataWarehouse& oldDW, DataWarehouse& newDW,
                   ExecutionContext& exec) const;
  // The composite integral of phi in `from`, as `total` in `into`.
  void computeTotal(const Patch& patch, const DataWarehouse& from, DataWarehouse& into,
                    const VarLabel* total, ExecutionContext& exec) const;
  void computeErrors(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                     ExecutionContext& exec) const;

  const VarLabel* m_phi;
  const VarLabel* m_delT;
  // The composite integral of phi (in level-0 cells) at the end (analysis)
  // and at t = 0 (initialisation; nothing computes it again, so the
  // warehouses keep it: OnDemandDataWarehouse::keepReductionsOf).
  const VarLabel* m_total;
  const VarLabel* m_initialTotal;
  const VarLabel* m_squaredError;
  const VarLabel* m_absoluteError;
  const VarLabel* m_maxError;
  // The fluxes through each cell's low and high x and y faces, kept for
  // refluxing (w = 0: none cross a z face).
  std::array<const VarLabel*, 2> m_lowFlux;
  std::array<const VarLabel*, 2> m_highFlux;
  bool m_reflux = false;  // the deck refluxes: the timestep keeps its fluxes
  double m_cfl = 0.7;
  // Tag where phi exceeds thresholds[level] (one per level that tags).
  std::vector<double> m_thresholds{1.01, 1.1, 1.5};
  std::vector<swirl::FaceLines> m_lines;  // by level
  std::int64_t m_numCells = 0;            // level 0's
  double m_cellVolume = 0.0;              // level 0's
};

}  // namespace tessera
