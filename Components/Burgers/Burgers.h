#pragma once
// Burgers' equation in 3D, the model problem of Uintah's Sunway port:
//   du/dt = -phi(x,t) du/dx - phi(y,t) du/dy - phi(z,t) du/dz + nu laplacian(u)
// Cell-centred, first-order upwind advection, second-order central
// diffusion, forward Euler; Dirichlet values from the exact solution in the
// extra cells. See docs/burgers-walkthrough.md.

#include "CCA/Ports/Application.h"

#include <Kokkos_Core.hpp>

namespace tessera {

// phi(x, t), phi(y, t) and phi(z, t) tabulated at cell centres: phi depends on
// one coordinate only, so a line of evaluations serves a whole box of cells.
struct PhiProfiles {
  Kokkos::View<double*> x, y, z;
  IntVector lo;

  KOKKOS_INLINE_FUNCTION double atX(int i) const { return x(i - lo.x); }
  KOKKOS_INLINE_FUNCTION double atY(int j) const { return y(j - lo.y); }
  KOKKOS_INLINE_FUNCTION double atZ(int k) const { return z(k - lo.z); }
};

class Burgers final : public Application {
 public:
  explicit Burgers(ApplicationContext& context);

  Schema deckSchema() const override;
  void problemSetup(const ProblemSpec& deck, Grid& grid) override;

  void scheduleInitialize(const Level& level, Scheduler& sched) override;
  void scheduleComputeStableTimestep(const Level& level, Scheduler& sched) override;
  void scheduleTimeAdvance(const Level& level, Scheduler& sched) override;
  void scheduleAnalysis(const Level& level, Scheduler& sched) override;

  const VarLabel* stableTimestepLabel() const override { return m_delT; }
  std::vector<const VarLabel*> stateLabels() const override { return {m_u}; }
  std::vector<std::pair<std::string, double>> analysisResults(
      const DataWarehouse& dw) const override;

  double viscosity() const { return m_viscosity; }

 private:
  void initialize(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                  ExecutionContext& exec) const;
  void computeStableTimestep(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                             ExecutionContext& exec) const;
  void timeAdvance(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                   ExecutionContext& exec) const;
  void computeErrors(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                     ExecutionContext& exec) const;
  // phi at time t at the cell centres of `box`, one table per axis.
  PhiProfiles phiProfiles(const Patch& patch, const Box& box, double t,
                          ExecutionContext& exec) const;
  // Sets the extra cells of `u` to the exact solution at time t.
  void applyBoundaryConditions(const Patch& patch, const CCVariable<double>& u, double t,
                               ExecutionContext& exec) const;

  const VarLabel* m_u;
  const VarLabel* m_delT;
  const VarLabel* m_squaredError;
  const VarLabel* m_maxError;
  double m_viscosity = 0.01;
  std::int64_t m_numCells = 0;
};

}  // namespace tessera
