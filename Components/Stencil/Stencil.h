#pragma once
// The stencil component (`component.name: stencil`, deck section `stencil`):
// star stencils of radius 1 to 4 on a patch grid, the workloads task
// runtimes are compared on. `kernel` picks one of
//   heat    u_t = alpha Laplacian(u), explicit Euler, central differences of
//           order 2r, checked against an exact solution (HeatKernel.h);
//   jacobi  Laplace's equation by Jacobi sweeps until the update falls
//           below `tolerance` (JacobiKernel.h);
//   prk     the Parallel Research Kernels' Stencil, validated as the PRK
//           does and timed with its figure of merit (PrkKernel.h).
// See docs/stencil.md.

#include "CCA/Ports/Application.h"
#include "Components/Stencil/StencilKernel.h"

#include <memory>

namespace tessera {

class Stencil final : public Application {
 public:
  explicit Stencil(ApplicationContext& context);
  ~Stencil() override;

  Schema deckSchema() const override;
  void problemSetup(const ProblemSpec& deck, Grid& grid) override;

  void scheduleInitialize(const Level& level, Scheduler& sched) override;
  void scheduleRestartInitialize(const Level& level, Scheduler& sched) override;
  void scheduleComputeStableTimestep(const Level& level, Scheduler& sched) override;
  void scheduleTimeAdvance(const Level& level, Scheduler& sched) override;
  void scheduleAnalysis(const Level& level, Scheduler& sched) override;

  const VarLabel* stableTimestepLabel() const override;
  std::vector<const VarLabel*> stateLabels() const override;
  std::vector<std::pair<std::string, double>> analysisResults(
      const DataWarehouse& dw) const override;
  std::vector<std::string> analysisReport(const DataWarehouse& dw,
                                          const RunTiming& timing) const override;
  bool converged(const DataWarehouse& newDW) const override;

  const stencil::StencilParameters& parameters() const { return m_parameters; }

 private:
  stencil::StencilKernel& kernel() const;

  stencil::StencilParameters m_parameters;
  std::unique_ptr<stencil::StencilKernel> m_kernel;
};

}  // namespace tessera
