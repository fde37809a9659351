#pragma once
// The data warehouse: where a timestep's variables live, keyed by (label,
// patch). Each step has an old warehouse (last step's results, read-only) and
// a new one (this step's results). Tasks reach both through this port; the
// typed calls below sit on a small type-erased core that warehouses implement.

#include "Core/Grid/Ghost.h"
#include "Core/Grid/Level.h"
#include "Core/Grid/Patch.h"
#include "Core/Grid/PatchGroup.h"
#include "Core/Grid/VarLabel.h"
#include "Core/Grid/Variables/BlockVariable.h"
#include "Core/Grid/Variables/CCVariable.h"
#include "Core/Grid/Variables/PerPatch.h"
#include "Core/Grid/Variables/ReductionVariable.h"
#include "Core/Util/Error.h"

#include <any>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <typeinfo>

namespace tessera {

class DataWarehouse {
 public:
  virtual ~DataWarehouse() = default;

  // "OldDW (timestep 3)" and the like, for error messages.
  virtual std::string name() const = 0;
  // The simulation time of the data held here.
  virtual double time() const = 0;
  // The step that leads from the previous warehouse to this one (0 initially).
  virtual double delT() const = 0;
  virtual int timestep() const = 0;

  // ---- cell-centred variables ----
  // Read access; with ghosts, the ghost cells have been filled by the runtime.
  template <class T>
  ConstCCVariable<T> get(const VarLabel* label, const Patch& patch, Ghost::Type ghost = Ghost::None,
                         int numGhost = 0) const {
    const auto var = typedGridVariable<T>(label, patch, "get");
    const Box needed = patch.level().ghostedBox(patch, ghost == Ghost::None ? 0 : numGhost);
    TESSERA_REQUIRE_THROWS(var->box().contains(needed),
                           "'" << label->name() << "' on " << patch << " in " << name() << " holds "
                               << var->box() << " but " << numGhost << " ghost layers need "
                               << needed
                               << " (did the task declare the ghost cells in requiresVar?)");
    return ConstCCVariable<T>(*var);
  }

  // Creates the variable on `patch` (interior plus extra cells, plus ghost
  // room for later readers) and returns it for writing. Its values are
  // undefined until written: the storage may be recycled from a warehouse
  // the runtime has retired.
  template <class T>
  CCVariable<T> allocateAndPut(const VarLabel* label, const Patch& patch) {
    checkType<CCVariable<T>>(label, "allocateAndPut");
    const Box box = patch.level().ghostedBox(patch, ghostLayersToAllocate(label));
    auto var =
        std::dynamic_pointer_cast<CCVariable<T>>(recycledGridVariable(label, patch.id(), box));
    if (!var) var = std::make_shared<CCVariable<T>>(box, label->name());
    putGridVariable(label, patch, var);
    return *var;
  }

  // Write access to a variable computed earlier in this warehouse.
  template <class T>
  CCVariable<T> getModifiable(const VarLabel* label, const Patch& patch) {
    return *typedGridVariable<T>(label, patch, "getModifiable");
  }

  // ---- cell-centred variables of a patch group (see PatchGroup.h) ----
  // One variable over the group's box, whose cells are those of the
  // group's patches: each patch's variable is a window on it. A group whose
  // patches' variables were made one by one is gathered into one first.
  template <class T>
  ConstCCVariable<T> get(const VarLabel* label, const PatchGroup& group,
                         Ghost::Type ghost = Ghost::None, int numGhost = 0) const {
    const auto var = typedGroupVariable<T>(label, group, "get");
    const Box needed = group.ghostedBox(ghost == Ghost::None ? 0 : numGhost);
    TESSERA_REQUIRE_THROWS(var->box().contains(needed),
                           "'" << label->name() << "' on " << group << " in " << name() << " holds "
                               << var->box() << " but " << numGhost << " ghost layers need "
                               << needed
                               << " (did the task declare the ghost cells in requiresVar?)");
    return ConstCCVariable<T>(*var);
  }

  // Creates the variable on every patch of `group` in one allocation.
  template <class T>
  CCVariable<T> allocateAndPut(const VarLabel* label, const PatchGroup& group) {
    checkType<CCVariable<T>>(label, "allocateAndPut");
    const Box box = group.ghostedBox(ghostLayersToAllocate(label));
    auto var = std::dynamic_pointer_cast<CCVariable<T>>(
        recycledGridVariable(label, group.storageKey(), box));
    if (!var) var = std::make_shared<CCVariable<T>>(box, label->name());
    putGroupVariable(label, group, var);
    return *var;
  }

  template <class T>
  CCVariable<T> getModifiable(const VarLabel* label, const PatchGroup& group) {
    return *typedGroupVariable<T>(label, group, "getModifiable");
  }

  bool exists(const VarLabel* label, const Patch& patch) const {
    return findGridVariable(label, patch) != nullptr;
  }

  // ---- reduction variables ----
  // This patch's contribution; the runtime combines all of them.
  template <class T, template <class> class Op>
  void put(const ReductionVariable<T, Op>& contribution, const VarLabel* label,
           const Patch& patch) {
    put(contribution, label, patch.id());
  }
  // Whether the combined value is here (a warehouse restored from a
  // checkpoint holds only the reductions the checkpoint saved).
  bool hasReduction(const VarLabel* label) const {
    std::vector<std::byte> value(label->elementBytes());
    return reducedValue(label, value.data());
  }
  // The combined value over all patches and ranks.
  template <class V>
  V getReduction(const VarLabel* label) const {
    checkType<V>(label, "getReduction");
    typename V::value_type value{};
    TESSERA_REQUIRE_THROWS(
        reducedValue(label, reinterpret_cast<std::byte*>(&value)),
        "reduction '" << label->name() << "' has not been reduced in " << name());
    return V(value);
  }

  // The contribution of the task at `index` of an index task space (see
  // TaskSpace.h); contributions combine in index order.
  template <class T, template <class> class Op>
  void put(const ReductionVariable<T, Op>& contribution, const VarLabel* label, int index) {
    checkType<ReductionVariable<T, Op>>(label, "put");
    const auto value = contribution.contribution();
    putReductionContribution(label, index, reinterpret_cast<const std::byte*>(&value));
  }

  // ---- block variables (see BlockVariable.h and BlockLayout.h) ----
  // Creates `block` of `label`, shaped by the label's layout, on a rank
  // that holds it. Its values are undefined until written.
  template <class T>
  BlockView<T> allocateBlock(const VarLabel* label, int block) {
    checkType<BlockVariable<T>>(label, "allocateBlock");
    const BlockLayout& layout = blockLayout(label);
    auto data = recycledBlock(label, block, layout.extent(block), sizeof(T));
    if (!data) data = std::make_shared<BlockData>(layout.extent(block), sizeof(T));
    putBlock(label, block, data);
    return viewOf<T>(*data, layout.resolve(block));
  }
  // Write access to a block this warehouse holds.
  template <class T>
  BlockView<T> getModifiableBlock(const VarLabel* label, int block) {
    checkType<BlockVariable<T>>(label, "getModifiableBlock");
    const auto data = findBlock(label, block);
    TESSERA_REQUIRE_THROWS(data != nullptr, "getModifiableBlock: block " << block << " of '"
                                                                         << label->name()
                                                                         << "' is not in "
                                                                         << name());
    return viewOf<T>(*data, blockLayout(label).resolve(block));
  }
  // A block, or rows of one: held on this rank, or brought from its owner
  // by the runtime because the task declared it in requiresBlocks.
  template <class T>
  ConstBlockView<T> getBlock(const VarLabel* label, const BlockRef& ref) const {
    checkType<BlockVariable<T>>(label, "getBlock");
    const BlockRef resolved = blockLayout(label).resolve(ref);
    if (const auto held = findBlock(label, resolved.block))
      return viewOf<const T>(*held, resolved);
    const auto arrived = findArrivedBlock(label, resolved);
    TESSERA_REQUIRE_THROWS(arrived != nullptr,
                           "getBlock: " << resolved << " of '" << label->name()
                                        << "' is neither held nor brought to this rank in "
                                        << name() << " (did the task declare it in requiresBlocks?)");
    return readView<T>(*arrived);  // an arrived part's extent is the part's own
  }
  // The sum of the parts the task at `index` listed in requiresBlockSum,
  // combined by the runtime in the order listed (the same bits whatever
  // order they arrived in).
  template <class T>
  ConstBlockView<T> getBlockSum(const VarLabel* label, int index) const {
    checkType<BlockVariable<T>>(label, "getBlockSum");
    const auto sum = findBlockSum(label, index);
    TESSERA_REQUIRE_THROWS(sum != nullptr, "getBlockSum: no sum of '"
                                               << label->name() << "' for index " << index
                                               << " in " << name()
                                               << " (did the task declare requiresBlockSum?)");
    return readView<T>(*sum);
  }
  // Puts the storage `from` holds for `block` into this warehouse, without
  // copying: state a step reads but does not change (a GEMM's A and B).
  void transferBlock(const DataWarehouse& from, const VarLabel* label, int block) {
    const auto data = from.findBlock(label, block);
    TESSERA_REQUIRE_THROWS(data != nullptr, "transferBlock: block " << block << " of '"
                                                                    << label->name()
                                                                    << "' is not in "
                                                                    << from.name());
    putBlock(label, block, data);
  }
  const BlockLayout& blockLayout(const VarLabel* label) const {
    const BlockLayout* layout = findBlockLayout(label);
    TESSERA_REQUIRE_THROWS(layout != nullptr, "block variable '"
                                                  << label->name()
                                                  << "' has no layout (Scheduler::setBlockLayout)");
    return *layout;
  }

  // ---- per-patch variables ----
  template <class T>
  void put(const PerPatch<T>& value, const VarLabel* label, const Patch& patch) {
    checkType<PerPatch<T>>(label, "put");
    putPerPatchValue(label, patch, std::any(value.get()));
  }
  template <class T>
  PerPatch<T> getPerPatch(const VarLabel* label, const Patch& patch) const {
    checkType<PerPatch<T>>(label, "getPerPatch");
    const std::any* value = findPerPatchValue(label, patch);
    TESSERA_REQUIRE_THROWS(value != nullptr, "per-patch '" << label->name() << "' on " << patch
                                                           << " is not in " << name());
    return PerPatch<T>(std::any_cast<const T&>(*value));
  }

  // A value `label` had on `patch` in a warehouse the runtime has retired,
  // or nullopt: lets a task reuse the storage a per-patch value owns (a
  // table, a buffer) from step to step instead of allocating it anew. Each
  // retired value is handed out once.
  template <class T>
  std::optional<T> recycledPerPatch(const VarLabel* label, const Patch& patch) {
    checkType<PerPatch<T>>(label, "recycledPerPatch");
    std::any value = takeRecycledPerPatch(label, patch);
    if (!value.has_value()) return std::nullopt;
    return std::any_cast<T>(std::move(value));
  }

 protected:
  // ---- the type-erased core: what the typed calls above are made of, and
  // what the runtime's warehouse (OnDemandDataWarehouse) implements and
  // calls; not part of a component's view ----
  // nullptr when absent.
  virtual std::shared_ptr<GridVariableBase> findGridVariable(const VarLabel* label,
                                                             const Patch& patch) const = 0;
  virtual void putGridVariable(const VarLabel* label, const Patch& patch,
                               std::shared_ptr<GridVariableBase> var) = 0;
  // The group's variable, its patches' variables being windows on it;
  // nullptr when a patch of the group has none.
  virtual std::shared_ptr<GridVariableBase> findGroupVariable(const VarLabel* label,
                                                              const PatchGroup& group) const = 0;
  // Puts `var` (over the group's ghosted box) and a window on it for each patch.
  virtual void putGroupVariable(const VarLabel* label, const PatchGroup& group,
                                std::shared_ptr<GridVariableBase> var) = 0;
  // How many ghost layers the scheduled readers of `label` need.
  virtual int ghostLayersToAllocate(const VarLabel* label) const = 0;
  virtual void putReductionContribution(const VarLabel* label, int patchId,
                                        const std::byte* value) = 0;
  // False until the runtime has combined the contributions.
  virtual bool reducedValue(const VarLabel* label, std::byte* out) const = 0;
  virtual void putPerPatchValue(const VarLabel* label, const Patch& patch, std::any value) = 0;
  // The value, or nullptr; valid until the warehouse drops the variable
  // (never while a graph runs on it).
  virtual const std::any* findPerPatchValue(const VarLabel* label, const Patch& patch) const = 0;
  // Retired storage of exactly `box` for (label, storage key: a patch id,
  // or a group's storageKey()), or nullptr.
  virtual std::shared_ptr<GridVariableBase> recycledGridVariable(const VarLabel* label, int key,
                                                                 const Box& box) {
    (void)label;
    (void)key;
    (void)box;
    return nullptr;
  }
  virtual const BlockLayout* findBlockLayout(const VarLabel* label) const = 0;
  // A block held on this rank, or nullptr.
  virtual std::shared_ptr<BlockData> findBlock(const VarLabel* label, int block) const = 0;
  virtual void putBlock(const VarLabel* label, int block, std::shared_ptr<BlockData> data) = 0;
  // A part brought from another rank (exactly the resolved `ref`), or nullptr.
  virtual std::shared_ptr<BlockData> findArrivedBlock(const VarLabel* label,
                                                      const BlockRef& ref) const = 0;
  virtual std::shared_ptr<BlockData> findBlockSum(const VarLabel* label, int index) const = 0;
  // Retired storage of (label, block) with exactly `extent`, or nullptr.
  virtual std::shared_ptr<BlockData> recycledBlock(const VarLabel* label, int block,
                                                   const BlockExtent& extent,
                                                   std::size_t elementBytes) {
    (void)label;
    (void)block;
    (void)extent;
    (void)elementBytes;
    return nullptr;
  }
  // A retired per-patch value of (label, patch), or an empty any.
  virtual std::any takeRecycledPerPatch(const VarLabel* label, const Patch& patch) {
    (void)label;
    (void)patch;
    return {};
  }

 private:
  // The rows of `ref` (resolved) in `data`, which holds the whole block.
  template <class T>
  static BlockView<T> viewOf(const BlockData& data, const BlockRef& ref) {
    const BlockExtent& e = data.extent();
    auto* base = reinterpret_cast<T*>(const_cast<std::byte*>(data.data()));
    return {base + ref.rowBegin * e.cols, ref.rowEnd - ref.rowBegin, e.cols, e.row0 + ref.rowBegin,
            e.col0};
  }
  template <class V>
  void checkType(const VarLabel* label, const char* call) const {
    TESSERA_REQUIRE_THROWS(label != nullptr, call << " with a null label in " << name());
    TESSERA_REQUIRE_THROWS(label->type() == typeid(V), call << " of '" << label->name() << "' as "
                                                            << V::typeName() << " but it is a "
                                                            << label->typeName());
  }
  template <class T>
  std::shared_ptr<CCVariable<T>> typedGridVariable(const VarLabel* label, const Patch& patch,
                                                   const char* call) const {
    checkType<CCVariable<T>>(label, call);
    auto var = std::dynamic_pointer_cast<CCVariable<T>>(findGridVariable(label, patch));
    TESSERA_REQUIRE_THROWS(var != nullptr, call << ": '" << label->name() << "' on " << patch
                                                << " is not in " << name());
    return var;
  }
  template <class T>
  std::shared_ptr<CCVariable<T>> typedGroupVariable(const VarLabel* label, const PatchGroup& group,
                                                    const char* call) const {
    checkType<CCVariable<T>>(label, call);
    auto var = std::dynamic_pointer_cast<CCVariable<T>>(findGroupVariable(label, group));
    TESSERA_REQUIRE_THROWS(var != nullptr, call << ": '" << label->name() << "' on " << group
                                                << " is not in " << name());
    return var;
  }
};

}  // namespace tessera
