#pragma once
// Storage that retired data warehouses hand back for the next step's
// variables: the old warehouse's allocations become the new one's, so a
// timestep allocates nothing once the run is under way. Keyed by (label,
// patch): a variable returns to the same patch, with the same box. Shared by
// the warehouses of one run; thread-safe (tasks allocate on the device
// thread while the control thread retires a warehouse).

#include "CCA/Components/Schedulers/FlatLabelMap.h"
#include "CCA/Components/Schedulers/LabelKey.h"
#include "Core/Grid/Box.h"
#include "Core/Grid/VarLabel.h"
#include "Core/Grid/Variables/BlockVariable.h"
#include "Core/Grid/Variables/GridVariableBase.h"

#include <any>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace tessera {

class VariablePool {
 public:
  // Keeps `var` for reuse if nothing else refers to it.
  void give(const VarLabel* label, int patchId, std::shared_ptr<GridVariableBase> var);
  void give(const VarLabel* label, int patchId, std::any value);
  // Allocates and zeroes storage like `prototype` over `box` for (label,
  // patch) ahead of use, so that the first timestep, like every later one,
  // finds its storage ready (call from the thread that owns Kokkos).
  void reserve(const VarLabel* label, int patchId, const GridVariableBase& prototype,
               const Box& box);
  // The kept variable of (label, patch) if it covers exactly `box`; else nullptr.
  std::shared_ptr<GridVariableBase> takeGrid(const VarLabel* label, int patchId, const Box& box);
  // The kept per-patch value of (label, patch), or an empty any.
  std::any takePerPatch(const VarLabel* label, int patchId);
  // Blocks, kept per (label, block id) when nothing else holds them (a
  // block passed on with transferBlock, or a send in flight, is not).
  void giveBlock(const VarLabel* label, int block, std::shared_ptr<BlockData> data);
  // The kept storage of (label, block) if it has exactly `extent`; else nullptr.
  std::shared_ptr<BlockData> takeBlock(const VarLabel* label, int block, const BlockExtent& extent,
                                       std::size_t elementBytes);
  std::size_t size() const;
  // Drops everything it keeps (the storage goes back to the allocator).
  void release();

 private:
  mutable std::mutex m_mutex;
  FlatLabelMap<std::shared_ptr<GridVariableBase>> m_grid;
  LabelKeyMap<std::any> m_perPatch;
  LabelKeyMap<std::shared_ptr<BlockData>> m_blocks;
};

}  // namespace tessera
