#pragma once
// The GEMM component (`component.name: gemm`, deck section `gemm`):
// C = alpha A B + beta C for distributed dense matrices, communication-
// optimal after COSMA (GemmPlan.h), on the runtime's block variables: the
// runtime moves every block (requiresBlocks) and reduces the partial
// products (requiresBlockSum); no task calls MPI. Each timestep is one
// multiplication, so a run of T steps computes
// C_T = alpha A B (1 + beta + ... + beta^(T-1)) + beta^T C_0.
// See docs/gemm.md.

#include "CCA/Ports/Application.h"
#include "Components/Gemm/GemmEntries.h"
#include "Components/Gemm/GemmLayout.h"
#include "Components/Gemm/GemmPlan.h"
#include "Components/Gemm/LocalMultiply.h"

#include <optional>

namespace tessera {

class Gemm final : public Application {
 public:
  explicit Gemm(ApplicationContext& context);

  Schema deckSchema() const override;
  bool usesGrid() const override { return false; }
  void problemSetup(const ProblemSpec& deck, Grid& grid) override;

  void scheduleInitialize(const Level& level, Scheduler& sched) override;
  void scheduleTimeAdvance(const Level& level, Scheduler& sched) override;
  void scheduleAnalysis(const Level& level, Scheduler& sched) override;

  // No stable timestep: one multiplication per unit of simulated time.
  // What a checkpoint holds and a restart restores: A and B are carried
  // from step to step, C is what each step updates.
  std::vector<const VarLabel*> stateLabels() const override { return {m_a, m_b, m_c}; }
  std::vector<std::pair<std::string, double>> analysisResults(
      const DataWarehouse& dw) const override;
  std::vector<std::string> analysisReport(const DataWarehouse& dw,
                                          const RunTiming& timing) const override;

  const gemm::Plan& plan() const { return layout().plan(); }

 private:
  const gemm::GemmLayout& layout() const;
  void declareLayouts(Scheduler& sched) const;
  // Logs the grid, the predicted words and the lower bound.
  void reportPlan() const;
  TaskSpace gridSpace() const;

  void initialize(int q, const DataWarehouse& oldDW, DataWarehouse& newDW,
                  ExecutionContext& exec) const;
  void multiplyProduct(int round, int product, int q, const DataWarehouse& oldDW,
                       DataWarehouse& newDW, ExecutionContext& exec) const;
  // pk = 1: each rank owns its whole C_ij, so the products go straight
  // into C (no partial product, no reduction).
  bool direct() const { return plan().grid.pk == 1; }
  void reduce(int q, const DataWarehouse& oldDW, DataWarehouse& newDW,
              ExecutionContext& exec) const;
  void carry(int q, const DataWarehouse& oldDW, DataWarehouse& newDW, ExecutionContext& exec) const;
  void check(int q, const DataWarehouse& oldDW, DataWarehouse& newDW, ExecutionContext& exec) const;

  double m_alpha = 1.0;
  double m_beta = 0.0;
  std::optional<std::int64_t> m_memoryWords;
  gemm::LocalKernel m_local = gemm::LocalKernel::Blas;
  gemm::GemmEntries m_entries;
  bool m_verify = true;
  std::optional<gemm::GemmLayout> m_layout;

  const VarLabel* m_a;
  const VarLabel* m_b;
  const VarLabel* m_c;
  const VarLabel* m_partial;
  const VarLabel* m_maxError;
  const VarLabel* m_relativeError;
};

}  // namespace tessera
