#pragma once
// Laplace's equation by Jacobi sweeps of a star of radius r: each sweep sets
// every interior cell so that the discrete Laplacian vanishes there, given
// its neighbours' old values. The RMS of a sweep's update is a sum
// reduction (exact: the same bits on any layout); the run stops when it
// falls below stencil.tolerance, or at time.max_timesteps. Time counts
// sweeps (dt = 1). The boundary values are a harmonic function's.

#include "Components/Stencil/ExactSolutions.h"
#include "Components/Stencil/StencilKernel.h"

namespace tessera::stencil {

class JacobiKernel final : public StencilKernel {
 public:
  JacobiKernel(ApplicationContext& context, const StencilParameters& parameters,
               const Level& level);

  void scheduleInitialize(const Level& level, Scheduler& sched) override;
  void scheduleComputeStableTimestep(const Level& level, Scheduler& sched) override;
  void scheduleTimeAdvance(const Level& level, Scheduler& sched) override;
  void scheduleAnalysis(const Level& level, Scheduler& sched) override;
  const VarLabel* stableTimestepLabel() const override { return m_delT; }
  std::vector<const VarLabel*> stateLabels() const override { return {m_u}; }
  std::vector<std::pair<std::string, double>> analysisResults(
      const DataWarehouse& dw) const override;
  bool converged(const DataWarehouse& newDW) const override;

 private:
  void initialize(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                  ExecutionContext& exec) const;
  void computeStableTimestep(const Patch& patch, const DataWarehouse& oldDW,
                             DataWarehouse& newDW, ExecutionContext& exec) const;
  void sweep(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
             ExecutionContext& exec) const;
  void computeErrors(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                     ExecutionContext& exec) const;
  void applyBoundaryConditions(const Patch& patch, const CellArray<double>& u,
                               ExecutionContext& exec) const;
  double updateRms(double sumOfSquares) const;

  StencilParameters m_parameters;
  StarWeights m_weights;
  HarmonicSolution m_exact;
  std::int64_t m_numCells;
  const VarLabel* m_u;
  const VarLabel* m_delT;
  const VarLabel* m_update;     // sum over cells of a sweep's squared update
  const VarLabel* m_lastUpdate; // the analysis' copy of the last sweep's RMS update
  const VarLabel* m_squaredError;
  const VarLabel* m_maxError;
};

}  // namespace tessera::stencil
