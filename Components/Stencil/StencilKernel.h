#pragma once
// One of the stencil component's kernels (heat, jacobi, prk): the tasks it
// schedules and what it reports. The Stencil application picks one from
// the deck and forwards the runtime's calls to it.

#include "CCA/Ports/Application.h"
#include "Components/Stencil/StarWeights.h"

#include <string>
#include <utility>
#include <vector>

namespace tessera::stencil {

// The deck's `stencil` section, checked.
struct StencilParameters {
  std::string kernel = "heat";
  int radius = 1;
  double alpha = 1.0;       // heat: the diffusivity
  int wavenumber = 1;       // heat, jacobi: k of the exact solution
  double tolerance = 1e-8;  // jacobi: stop when the update's RMS falls below
};

class StencilKernel {
 public:
  virtual ~StencilKernel() = default;
  virtual void scheduleInitialize(const Level& level, Scheduler& sched) = 0;
  virtual void scheduleRestartInitialize(const Level&, Scheduler&) {}
  virtual void scheduleComputeStableTimestep(const Level& level, Scheduler& sched) = 0;
  virtual void scheduleTimeAdvance(const Level& level, Scheduler& sched) = 0;
  virtual void scheduleAnalysis(const Level& level, Scheduler& sched) = 0;
  virtual const VarLabel* stableTimestepLabel() const = 0;
  virtual std::vector<const VarLabel*> stateLabels() const = 0;
  virtual std::vector<std::pair<std::string, double>> analysisResults(
      const DataWarehouse& dw) const = 0;
  virtual std::vector<std::string> analysisReport(const DataWarehouse&, const RunTiming&) const {
    return {};
  }
  virtual bool converged(const DataWarehouse&) const { return false; }
};

}  // namespace tessera::stencil
