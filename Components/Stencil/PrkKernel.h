#pragma once
// The Parallel Research Kernels' Stencil, as the PRK defines it: a star of
// radius r with weights +-1/(2 j r) at distance +-j along each axis; the
// input starts as i + j (+ k in 3D) in global indices and the output as 0.
// Each timestep is one PRK sweep: the output gains the weighted input at
// every point at least r cells from the domain's boundary, then every input
// value gains 1. A run of iterations + 1 timesteps is the PRK's run (its
// first sweep is an untimed warm-up). The check is the PRK's: the mean
// absolute output over the active points equals sweeps x axes within 1e-8.
// A level one cell thick in z is the PRK's 2D stencil.

#include "Components/Stencil/StencilKernel.h"

namespace tessera::stencil {

// The PRK's check: |norm - reference| <= 1e-8, false for a NaN norm.
bool prkNormValidates(double norm, double reference);

class PrkKernel final : public StencilKernel {
 public:
  PrkKernel(ApplicationContext& context, const StencilParameters& parameters, const Level& level);

  void scheduleInitialize(const Level& level, Scheduler& sched) override;
  void scheduleComputeStableTimestep(const Level& level, Scheduler& sched) override;
  void scheduleTimeAdvance(const Level& level, Scheduler& sched) override;
  void scheduleAnalysis(const Level& level, Scheduler& sched) override;
  const VarLabel* stableTimestepLabel() const override { return m_delT; }
  std::vector<const VarLabel*> stateLabels() const override { return {m_in, m_out}; }
  std::vector<std::pair<std::string, double>> analysisResults(
      const DataWarehouse& dw) const override;
  std::vector<std::string> analysisReport(const DataWarehouse& dw,
                                          const RunTiming& timing) const override;

  int axes() const { return m_axes; }
  // The points the stencil updates: at least r cells from every boundary.
  const Box& active() const { return m_active; }
  // The PRK's flop count per active point and sweep: 2 stencil_size + 1
  // (a multiply and an add per point of the star, and the input's + 1),
  // stencil_size = 2 axes r + 1.
  int flopsPerPoint() const { return 2 * (2 * m_axes * m_parameters.radius + 1) + 1; }

 private:
  void initialize(const PatchGroup& group, const DataWarehouse& oldDW, DataWarehouse& newDW,
                  ExecutionContext& exec) const;
  void computeStableTimestep(const Patch& patch, const DataWarehouse& oldDW,
                             DataWarehouse& newDW, ExecutionContext& exec) const;
  void sweep(const PatchGroup& group, const DataWarehouse& oldDW, DataWarehouse& newDW,
             ExecutionContext& exec) const;
  void sumOutput(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                 ExecutionContext& exec) const;
  double meanAbsoluteOutput(const DataWarehouse& dw) const;

  StencilParameters m_parameters;
  StarWeights m_weights;
  int m_axes;
  Box m_active;
  const VarLabel* m_in;
  const VarLabel* m_out;
  const VarLabel* m_delT;
  const VarLabel* m_absoluteSum;
};

}  // namespace tessera::stencil
