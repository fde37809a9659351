#pragma once
// The averages of a finer level onto the level below made inside the fine
// task's stencil sweep (CompiledGraph's SweepAverage): which ones a graph
// may make so, and the runtime's SweepFollower that makes them.

#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Ports/ExecutionContext.h"
#include "Core/Grid/Variables/GridVariableBase.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace tessera {

class OnDemandDataWarehouse;

// For each CoarsenFill of a NewDW version read by one task alone, which
// modifies it, its local pieces grouped by the task that writes their fine
// cells, where that task runs on a patch group with kernels
// (Task::Kind::Device: it reaches its variables through its
// ExecutionContext only). Call once the graph is linked.
void planSweepAverages(CompiledGraph& graph);

// One writer task's averages, followed through its stencil sweeps: each
// slab of planes a sweep writes into the fine variable is averaged at once
// onto the coarse cells above it. They are all made (complete()) when the
// last sweep of the fine variable covered every fine cell they read and no
// kernel reached those cells after it; otherwise the reader of the coarse
// cells makes them as usual.
class SweepAverager final : public SweepFollower {
 public:
  // Coarse cells `cells` of `coarse` (a view of a coarse allocation).
  struct Target {
    std::shared_ptr<GridVariableBase> coarse;
    Box cells;
  };
  // The fine variable is (label, storage key of the writer's group) in
  // `fineDW`, looked up when a sweep starts: the task makes it.
  SweepAverager(const OnDemandDataWarehouse& fineDW, const VarLabel* label, int fineStorageKey,
                const IntVector& ratio, CoarsenOp op, std::vector<Target> targets,
                std::vector<int> entries);

  int slabPlanes(const void* output, const Box& box, int threads) override;
  void swept(const Box& slab) override;
  void kernelOver(const Box* box) override;

  bool complete() const;
  // The SweepAverage entries (indices into the graph's) it makes.
  const std::vector<int>& entries() const { return m_entries; }

 private:
  // Asks the cache for the coarse cells above the slab of the sweep from plane `z`.
  void prefetchTargets(int z) const;

  const OnDemandDataWarehouse& m_fineDW;
  const VarLabel* m_label;
  int m_fineStorageKey;
  IntVector m_ratio;
  CoarsenOp m_op;
  std::vector<Target> m_targets;
  std::vector<int> m_entries;
  std::shared_ptr<GridVariableBase> m_fine;  // the variable the current sweep writes, or null
  // The last followed sweep's box, while no later kernel reached its cells,
  // its planes per slab, and how many of its cells its slabs handed over.
  Box m_sweep;
  int m_slabPlanes = 0;
  std::atomic<std::int64_t> m_sweptCells{0};
};

}  // namespace tessera
