#pragma once
// The heat equation on a refined grid: the component docs/amr-walkthrough.md
// writes line by line.
//   du/dt = alpha laplacian(u) on [0, 1]^3, u = sin(pi x) sin(pi y) sin(pi z) at t = 0;
// the exact solution exp(-3 pi^2 alpha t) u(t = 0) gives the extra cells' values.
// A cell is tagged for refinement where the curvature |laplacian(u)| exceeds
// refine_threshold.

#include "CCA/Ports/Application.h"

namespace tessera {

class Heat final : public Application {
 public:
  explicit Heat(ApplicationContext& context);
  Schema deckSchema() const override;
  void problemSetup(const ProblemSpec& deck, Grid& grid) override;
  void scheduleInitialize(const Level& level, Scheduler& sched) override;
  void scheduleComputeStableTimestep(const Level& level, Scheduler& sched) override;
  void scheduleTimeAdvance(const Level& level, Scheduler& sched) override;
  void scheduleErrorEstimate(const Level& level, Scheduler& sched,
                             const VarLabel* refineFlag) override;
  const VarLabel* stableTimestepLabel() const override { return m_delT; }
  std::vector<const VarLabel*> stateLabels() const override { return {m_u}; }

 private:
  const VarLabel* m_u;
  const VarLabel* m_delT;
  double m_alpha = 1.0;
  double m_threshold = 20.0;
};

}  // namespace tessera
