#pragma once
// The data warehouse of one rank: variables keyed by (label, patch), created
// on demand by the tasks that compute them. Thread-safe: tasks on several
// threads may put and get at once.

#include "CCA/Components/Schedulers/FlatLabelMap.h"
#include "CCA/Components/Schedulers/LabelKey.h"
#include "CCA/Components/Schedulers/VariablePool.h"
#include "CCA/Ports/DataWarehouse.h"
#include "Core/Util/ExactSum.h"

#include <array>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace tessera {

class OnDemandDataWarehouse final : public DataWarehouse {
 public:
  // With a pool, the warehouse allocates from it and returns its variables
  // to it when it is destroyed or drops them (retainOnly).
  OnDemandDataWarehouse(std::string role, int timestep, double time, double delT,
                        std::shared_ptr<VariablePool> pool = nullptr);
  ~OnDemandDataWarehouse() override;
  OnDemandDataWarehouse(const OnDemandDataWarehouse&) = delete;
  OnDemandDataWarehouse& operator=(const OnDemandDataWarehouse&) = delete;

  std::string name() const override;
  double time() const override { return m_time; }
  double delT() const override { return m_delT; }
  int timestep() const override { return m_timestep; }
  // Renames the warehouse when it turns from new into old.
  void setRole(std::string role) { m_role = std::move(role); }

  std::shared_ptr<GridVariableBase> findGridVariable(const VarLabel* label,
                                                     const Patch& patch) const override;
  void putGridVariable(const VarLabel* label, const Patch& patch,
                       std::shared_ptr<GridVariableBase> var) override;
  int ghostLayersToAllocate(const VarLabel* label) const override;
  void putReductionContribution(const VarLabel* label, int patchId,
                                const std::byte* value) override;
  bool reducedValue(const VarLabel* label, std::byte* out) const override;
  void putPerPatchValue(const VarLabel* label, const Patch& patch, std::any value) override;
  const std::any* findPerPatchValue(const VarLabel* label, const Patch& patch) const override;
  std::shared_ptr<GridVariableBase> findGroupVariable(const VarLabel* label,
                                                      const PatchGroup& group) const override;
  void putGroupVariable(const VarLabel* label, const PatchGroup& group,
                        std::shared_ptr<GridVariableBase> var) override;
  std::shared_ptr<GridVariableBase> recycledGridVariable(const VarLabel* label, int key,
                                                         const Box& box) override;
  std::any takeRecycledPerPatch(const VarLabel* label, const Patch& patch) override;
  const BlockLayout* findBlockLayout(const VarLabel* label) const override;
  std::shared_ptr<BlockData> findBlock(const VarLabel* label, int block) const override;
  void putBlock(const VarLabel* label, int block, std::shared_ptr<BlockData> data) override;
  std::shared_ptr<BlockData> findArrivedBlock(const VarLabel* label,
                                              const BlockRef& ref) const override;
  std::shared_ptr<BlockData> findBlockSum(const VarLabel* label, int index) const override;
  std::shared_ptr<BlockData> recycledBlock(const VarLabel* label, int block,
                                           const BlockExtent& extent,
                                           std::size_t elementBytes) override;

  // ---- runtime side ----
  using BlockLayouts = std::map<const VarLabel*, BlockLayout>;
  void setBlockLayouts(std::shared_ptr<const BlockLayouts> layouts);
  // Blocks and sums the runtime brought for this execution's tasks: windows
  // on its buffers, removed (dropBorrowedBlocks) before the buffers are reused.
  void putArrivedBlock(const VarLabel* label, const BlockRef& resolved,
                       std::shared_ptr<BlockData> data);
  void dropArrivedBlock(const VarLabel* label, const BlockRef& resolved);
  void putBlockSum(const VarLabel* label, int index, std::shared_ptr<BlockData> data);
  void dropBorrowedBlocks();
  std::size_t numBlocks() const;
  void setGhostLayers(const std::map<const VarLabel*, int>& layers);
  // True when `var` is a window on the storage of `label` kept under a patch
  // group's storage key. A group's patches are windows on its storage all
  // together or not at all, so then they all share their cells.
  bool inGroupStorage(const VarLabel* label, int storageKey, const GridVariableBase& var) const;
  // The variable kept under a patch group's storage key (its allocation),
  // or null; unlike findGroupVariable it never gathers the patches' cells.
  std::shared_ptr<GridVariableBase> findGroupStorage(const VarLabel* label, int storageKey) const;
  // Grows the allocation of (label, patch) so `numGhost` layers fit, keeping its data.
  void ensureGhostRoom(const VarLabel* label, const Patch& patch, int numGhost);
  // Records that the ghost cells of (label, patch) that come from this
  // rank's patches hold their values, `numGhost` deep, of kind `type` (a
  // graph made those copies ahead: see EagerCopy).
  void markLocalGhostsFilled(const VarLabel* label, const Patch& patch, int numGhost,
                             Ghost::Type type);
  // True when such a record covers `numGhost` layers of kind `type`.
  bool localGhostsFilled(const VarLabel* label, const Patch& patch, int numGhost,
                         Ghost::Type type) const;
  // Carries `label` on `group` (or `patch`) forward from `from` into this
  // warehouse (Task::modifiesVar(OldDW, label)). In place, `from` gives up
  // its variable, which this warehouse then holds; else this warehouse gets
  // a copy of the cells the patches own (ghost cells are filled by readers).
  void carryForward(OnDemandDataWarehouse& from, const VarLabel* label, const PatchGroup& group,
                    bool inPlace);
  void carryForward(OnDemandDataWarehouse& from, const VarLabel* label, const Patch& patch,
                    bool inPlace);
  // Task::computesVarInPlace: offers the storage of `label` on `group` (or
  // `patch`) in `from` to the task's allocateAndPut here, which takes it
  // instead of a recycled or new allocation (same box). Returns the offer's
  // key, if there was storage to offer. settleOffer, once the task is over:
  // `from` forgets the storage if it was taken; else the offer is withdrawn.
  std::optional<LabelKey> offerStorage(const OnDemandDataWarehouse& from, const VarLabel* label,
                                       const PatchGroup& group);
  std::optional<LabelKey> offerStorage(const OnDemandDataWarehouse& from, const VarLabel* label,
                                       const Patch& patch);
  void settleOffer(OnDemandDataWarehouse& from, const LabelKey& key);
  // This rank's contributions to a reduction, by patch id.
  std::map<int, std::vector<std::byte>> reductionContributions(const VarLabel* label) const;
  // Appends them to `records` as (int64 patch id, value) records in patch-id
  // order, without copying them elsewhere first; returns how many.
  std::size_t appendReductionRecords(const VarLabel* label, std::vector<std::byte>& records) const;
  void setReducedValue(const VarLabel* label, const std::byte* value);
  // Takes over the reduced values of `older` (the warehouse this one follows:
  // the last step's, or the grid's before a regrid) that no task has put
  // here: reductions nothing computes again, such as a component's total at
  // the start, go on from step to step as the state does.
  void keepReductionsOf(const OnDemandDataWarehouse& older);
  void setPool(std::shared_ptr<VariablePool> pool) { m_pool = std::move(pool); }
  // Drops every variable whose label is not in `keep`.
  void retainOnly(const std::set<const VarLabel*>& keep);
  // The labels of the grid variables held, in label (pointer) order.
  std::vector<const VarLabel*> gridLabels() const;
  std::size_t numGridVariables() const;

 private:
  // Drops the blocks whose label `drop` selects, handing them to the pool,
  // and the borrowed ones (arrived parts, sums). Call with m_mutex held.
  template <class Drop>
  void handBackBlocks(const Drop& drop);
  // offerStorage's common part: nothing when there is no storage.
  std::optional<LabelKey> addOffer(const LabelKey& key, std::shared_ptr<GridVariableBase> storage,
                                   std::vector<int> patchIds);
  // (label, patch id), or (label, group storage key) for a group's storage.
  using Key = LabelKey;
  std::string m_role;
  int m_timestep;
  double m_time;
  double m_delT;
  mutable std::mutex m_mutex;
  // Mutable: gathering a group's patches into one allocation (findGroupVariable)
  // changes where the values live, not what they are.
  mutable FlatLabelMap<std::shared_ptr<GridVariableBase>> m_grid;
  std::map<const VarLabel*, int> m_ghostLayers;
  // A reduction value lives in the map node (no allocation of its own).
  struct Contribution {
    std::array<std::byte, sizeof(ExactSum)> bytes{};  // the largest contribution
  };
  std::map<const VarLabel*, std::map<int, Contribution>> m_contributions;
  std::map<const VarLabel*, std::vector<std::byte>> m_reduced;
  LabelKeyMap<std::any> m_perPatch;
  FlatLabelMap<std::pair<int, Ghost::Type>> m_localGhostsFilled;
  std::shared_ptr<VariablePool> m_pool;
  struct StorageOffer {
    std::shared_ptr<GridVariableBase> storage;
    std::vector<int> patchIds;  // whose entries in the offering warehouse go with it
    bool taken = false;
  };
  LabelKeyMap<StorageOffer> m_offers;
  std::shared_ptr<const BlockLayouts> m_blockLayouts;
  std::map<Key, std::shared_ptr<BlockData>> m_blocks;  // (label, block id)
  using PartKey = std::tuple<const VarLabel*, int, std::int64_t, std::int64_t>;
  std::map<PartKey, std::shared_ptr<BlockData>> m_arrived;
  std::map<Key, std::shared_ptr<BlockData>> m_blockSums;  // (label, task index)
};

}  // namespace tessera
