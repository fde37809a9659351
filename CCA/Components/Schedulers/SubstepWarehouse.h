#pragma once
// The warehouse a task of one substep of a subcycled level sees (docs/amr.md,
// "Subcycling"): its time and step are the level's, and the labels the
// level computes at every substep lead to that substep's copy of them (an
// alias in the new warehouse). A component's code is the same for every
// substep and for lockstep; the view does the renaming.

#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"

#include <map>
#include <string>

namespace tessera {

class SubstepWarehouse final : public DataWarehouse {
 public:
  struct Renaming {
    // label -> the alias it reads or writes, held in `aliases`' warehouse.
    std::map<const VarLabel*, const VarLabel*> labels;
    // Contributions to this reduction (a MinVariable<double>) are multiplied
    // by `scale`: a level's stable step counted in coarse steps.
    const VarLabel* scaled = nullptr;
    double scale = 1.0;
  };

  // `name`: what errors call the view (kept by the caller), or null for
  // the primary warehouse's name.
  SubstepWarehouse(OnDemandDataWarehouse& primary, OnDemandDataWarehouse& aliases,
                   const Renaming& renaming, const std::string* name, double time, double delT)
      : m_primary(primary),
        m_aliases(aliases),
        m_renaming(renaming),
        m_name(name),
        m_time(time),
        m_delT(delT) {}

  std::string name() const override { return m_name ? *m_name : m_primary.name(); }
  double time() const override { return m_time; }
  double delT() const override { return m_delT; }
  int timestep() const override { return m_primary.timestep(); }

 protected:
  std::shared_ptr<GridVariableBase> findGridVariable(const VarLabel* label,
                                                     const Patch& patch) const override {
    const auto [dw, l] = target(label);
    return dw.findGridVariable(l, patch);
  }
  void putGridVariable(const VarLabel* label, const Patch& patch,
                       std::shared_ptr<GridVariableBase> var) override {
    const auto [dw, l] = target(label);
    dw.putGridVariable(l, patch, std::move(var));
  }
  std::shared_ptr<GridVariableBase> findGroupVariable(const VarLabel* label,
                                                      const PatchGroup& group) const override {
    const auto [dw, l] = target(label);
    return dw.findGroupVariable(l, group);
  }
  void putGroupVariable(const VarLabel* label, const PatchGroup& group,
                        std::shared_ptr<GridVariableBase> var) override {
    const auto [dw, l] = target(label);
    dw.putGroupVariable(l, group, std::move(var));
  }
  int ghostLayersToAllocate(const VarLabel* label) const override {
    const auto [dw, l] = target(label);
    return dw.ghostLayersToAllocate(l);
  }
  void putReductionContribution(const VarLabel* label, int patchId,
                                const std::byte* value) override;
  bool reducedValue(const VarLabel* label, std::byte* out) const override {
    const auto [dw, l] = target(label);
    return dw.reducedValue(l, out);
  }
  void putPerPatchValue(const VarLabel* label, const Patch& patch, std::any value) override {
    const auto [dw, l] = target(label);
    dw.putPerPatchValue(l, patch, std::move(value));
  }
  const std::any* findPerPatchValue(const VarLabel* label, const Patch& patch) const override {
    const auto [dw, l] = target(label);
    return dw.findPerPatchValue(l, patch);
  }
  std::shared_ptr<GridVariableBase> recycledGridVariable(const VarLabel* label, int key,
                                                         const Box& box) override {
    const auto [dw, l] = target(label);
    return dw.recycledGridVariable(l, key, box);
  }
  std::any takeRecycledPerPatch(const VarLabel* label, const Patch& patch) override {
    const auto [dw, l] = target(label);
    return dw.takeRecycledPerPatch(l, patch);
  }
  // Block variables live on no level: they are never renamed.
  const BlockLayout* findBlockLayout(const VarLabel* label) const override {
    return m_primary.findBlockLayout(label);
  }
  std::shared_ptr<BlockData> findBlock(const VarLabel* label, int block) const override {
    return m_primary.findBlock(label, block);
  }
  void putBlock(const VarLabel* label, int block, std::shared_ptr<BlockData> data) override {
    m_primary.putBlock(label, block, std::move(data));
  }
  std::shared_ptr<BlockData> findArrivedBlock(const VarLabel* label,
                                              const BlockRef& ref) const override {
    return m_primary.findArrivedBlock(label, ref);
  }
  std::shared_ptr<BlockData> findBlockSum(const VarLabel* label, int index) const override {
    return m_primary.findBlockSum(label, index);
  }
  std::shared_ptr<BlockData> recycledBlock(const VarLabel* label, int block,
                                           const BlockExtent& extent,
                                           std::size_t elementBytes) override {
    return m_primary.recycledBlock(label, block, extent, elementBytes);
  }

 private:
  std::pair<OnDemandDataWarehouse&, const VarLabel*> target(const VarLabel* label) const {
    const auto found = m_renaming.labels.find(label);
    if (found == m_renaming.labels.end()) return {m_primary, label};
    return {m_aliases, found->second};
  }

  OnDemandDataWarehouse& m_primary;
  OnDemandDataWarehouse& m_aliases;
  const Renaming& m_renaming;
  const std::string* m_name;
  double m_time;
  double m_delT;
};

}  // namespace tessera
