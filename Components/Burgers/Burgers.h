#pragma once
// Burgers' equation in 3D, the model problem of Uintah's Sunway port:
//   du/dt = -phi(x,t) du/dx - phi(y,t) du/dy - phi(z,t) du/dz + nu laplacian(u)
// Cell-centred, first-order upwind advection, second-order central
// diffusion, forward Euler; Dirichlet values from the exact solution in the
// extra cells. See docs/burgers-walkthrough.md.

#include "CCA/Ports/Application.h"
#include "Components/Burgers/PhiTables.h"

#include <Kokkos_Core.hpp>

#include <initializer_list>
#include <optional>

namespace tessera {

class Burgers final : public Application {
 public:
  explicit Burgers(ApplicationContext& context);

  Schema deckSchema() const override;
  void problemSetup(const ProblemSpec& deck, Grid& grid) override;

  void scheduleInitialize(const Level& level, Scheduler& sched) override;
  void scheduleRestartInitialize(const Level& level, Scheduler& sched) override;
  void scheduleComputeStableTimestep(const Level& level, Scheduler& sched) override;
  void scheduleTimeAdvance(const Level& level, Scheduler& sched) override;
  void scheduleAnalysis(const Level& level, Scheduler& sched) override;
  void scheduleErrorEstimate(const Level& level, Scheduler& sched,
                             const VarLabel* refineFlag) override;

  const VarLabel* stableTimestepLabel() const override { return m_delT; }
  std::vector<const VarLabel*> stateLabels() const override { return {m_u}; }
  std::vector<std::pair<std::string, double>> analysisResults(
      const DataWarehouse& dw) const override;

  double viscosity() const { return m_viscosity; }

 private:
  void initialize(const PatchGroup& group, const DataWarehouse& oldDW, DataWarehouse& newDW,
                  ExecutionContext& exec) const;
  void tabulatePhi(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                   ExecutionContext& exec) const;
  void computeStableTimestep(const PatchGroup& group, const DataWarehouse& oldDW,
                             DataWarehouse& newDW, ExecutionContext& exec) const;
  void timeAdvance(const PatchGroup& group, const DataWarehouse& oldDW, DataWarehouse& newDW,
                   ExecutionContext& exec) const;
  void computeErrors(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                     ExecutionContext& exec) const;
  // phi at time t over `box`, in `recycled`'s storage when it has that box.
  PhiTables tabulate(const Box& box, double t, std::optional<PhiTables> recycled,
                     const Level& level) const;
  // phi at the new warehouse's time over the group's extended box, in the
  // storage of a retired warehouse's tables when there is one.
  PhiTables phiTables(const PatchGroup& group, DataWarehouse& newDW) const;
  // phi at the old warehouse's time over the group: the tables the last
  // step left, or (after a restart) new ones.
  PhiTables phiTablesAtStart(const PatchGroup& group, const DataWarehouse& oldDW) const;
  // Puts each patch's window on the group's tables.
  void putPhiTables(const PatchGroup& group, const PhiTables& tables, DataWarehouse& newDW) const;
  // Sets the extra cells beyond the faces `which` of `u` to the exact
  // solution at the tables' time.
  void applyBoundaryConditions(const PatchGroup& group, const CellArray<double>& u,
                               const PhiTables& phi, ExecutionContext& exec,
                               std::initializer_list<Face> which) const;

  const VarLabel* m_u;
  const VarLabel* m_phi;  // PerPatch<PhiTables>
  const VarLabel* m_delT;
  const VarLabel* m_squaredError;
  const VarLabel* m_maxError;
  double m_viscosity = 0.01;
  double m_refineThreshold = 0.05;  // tagging: the jump of u to a face neighbour
  std::int64_t m_numCells = 0;
};

}  // namespace tessera
