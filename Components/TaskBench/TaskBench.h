#pragma once
// Task Bench's stencil_1d pattern (Slaughter et al., SC'20) as a component:
// the level's patches along x are the pattern's points, one task per patch
// per timestep, each depending on its own value and its two neighbours'
// from the step before, with `taskbench.iterations` of compute-bound busy
// work. With no busy work the run measures the runtime's cost per task;
// scripts/bench/taskbench.py sweeps the work to find METG, the smallest
// task granularity at which a run keeps 50 % efficiency. See
// docs/taskbench.md.

#include "CCA/Ports/Application.h"

#include <cstdint>

namespace tessera {

class TaskBench final : public Application {
 public:
  explicit TaskBench(ApplicationContext& context);

  // Flops of one iteration of busy work (8 chains of one multiply-add).
  static constexpr int kFlopsPerIteration = 16;

  Schema deckSchema() const override;
  void problemSetup(const ProblemSpec& deck, Grid& grid) override;

  void scheduleInitialize(const Level& level, Scheduler& sched) override;
  void scheduleTimeAdvance(const Level& level, Scheduler& sched) override;
  void scheduleAnalysis(const Level& level, Scheduler& sched) override;

  // The pattern has no physics and no stable timestep: steps of 1, and no
  // reduction (no synchronisation of the ranks) per step, as in Task Bench.
  std::vector<const VarLabel*> stateLabels() const override { return {m_value}; }
  std::vector<std::pair<std::string, double>> analysisResults(
      const DataWarehouse& dw) const override;

 private:
  void initialize(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                  ExecutionContext& exec) const;
  void timeAdvance(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                   ExecutionContext& exec) const;
  void sumValues(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                 ExecutionContext& exec) const;

  const VarLabel* m_value;
  const VarLabel* m_sum;
  std::int64_t m_iterations = 0;
  // Task Bench's load imbalance, drawn once per patch: the patch's tasks do
  // iterations x (1 + imbalance x u) with u uniform in [0, 1) from the seed
  // and the patch's first point (the same on any rank count and layout).
  double m_imbalance = 0.0;
  std::int64_t m_seed = 1;
  std::int64_t iterationsOf(const Patch& patch) const;
  int m_width = 0;  // cells along x: the pattern's points are its cells
};

}  // namespace tessera
