#pragma once
// The heat equation u_t = alpha Laplacian(u) by explicit Euler, the
// Laplacian a star of radius r (central differences of order 2r). Dirichlet
// values from the exact solution in the extra cells, or periodic axes.

#include "Components/Stencil/ExactSolutions.h"
#include "Components/Stencil/StencilKernel.h"

#include <initializer_list>

namespace tessera::stencil {

class HeatKernel final : public StencilKernel {
 public:
  // The exact solution is tabulated for every level of `grid` (its refined
  // levels too); the errors are level 0's.
  HeatKernel(ApplicationContext& context, const StencilParameters& parameters, const Grid& grid);

  void scheduleInitialize(const Level& level, Scheduler& sched) override;
  void scheduleComputeStableTimestep(const Level& level, Scheduler& sched) override;
  void scheduleTimeAdvance(const Level& level, Scheduler& sched) override;
  void scheduleAnalysis(const Level& level, Scheduler& sched) override;
  const VarLabel* stableTimestepLabel() const override { return m_delT; }
  std::vector<const VarLabel*> stateLabels() const override { return {m_u}; }
  std::vector<std::pair<std::string, double>> analysisResults(
      const DataWarehouse& dw) const override;

  // The forward-Euler limit: dt alpha sum_a |symbol| / dx_a^2 <= 2, where
  // the highest mode's amplification factor reaches -1.
  double stableTimestep(const Vector3& dx) const;

 private:
  void initialize(const PatchGroup& group, const DataWarehouse& oldDW, DataWarehouse& newDW,
                  ExecutionContext& exec) const;
  void computeStableTimestep(const PatchGroup& group, const DataWarehouse& oldDW,
                             DataWarehouse& newDW, ExecutionContext& exec) const;
  void timeAdvance(const PatchGroup& group, const DataWarehouse& oldDW, DataWarehouse& newDW,
                   ExecutionContext& exec) const;
  void computeErrors(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                     ExecutionContext& exec) const;
  // Dirichlet values at time t in the extra cells of the faces `which`.
  void applyBoundaryConditions(const PatchGroup& group, const CellArray<double>& u, double t,
                               ExecutionContext& exec, std::initializer_list<Face> which) const;

  const HeatSolution& exactOn(const Level& level) const {
    return m_exact.at(static_cast<std::size_t>(level.index()));
  }

  StencilParameters m_parameters;
  StarWeights m_weights;
  std::vector<HeatSolution> m_exact;  // per level
  std::int64_t m_numCells;
  const VarLabel* m_u;
  const VarLabel* m_delT;
  const VarLabel* m_squaredError;
  const VarLabel* m_maxError;
};

}  // namespace tessera::stencil
