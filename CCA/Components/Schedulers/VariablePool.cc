#include "CCA/Components/Schedulers/VariablePool.h"

namespace tessera {

void VariablePool::give(const VarLabel* label, int patchId, std::shared_ptr<GridVariableBase> var) {
  // A variable somebody still holds (an archive writer, a test) is not
  // reused, nor a window: its storage returns with its patch group's.
  if (!var || var.use_count() != 1 || var->isWindow()) return;
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_grid[{label, patchId}] = std::move(var);
}

void VariablePool::give(const VarLabel* label, int patchId, std::any value) {
  if (!value.has_value()) return;
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_perPatch[{label, patchId}] = std::move(value);
}

void VariablePool::reserve(const VarLabel* label, int patchId, const GridVariableBase& prototype,
                           const Box& box) {
  std::shared_ptr<GridVariableBase> var = prototype.cloneEmpty(box);
  var->zero();
  give(label, patchId, std::move(var));
}

std::shared_ptr<GridVariableBase> VariablePool::takeGrid(const VarLabel* label, int patchId,
                                                         const Box& box) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  auto found = m_grid.find({label, patchId});
  if (found == m_grid.end()) return nullptr;
  std::shared_ptr<GridVariableBase> var = std::move(found->second);
  m_grid.erase(found);
  return var->box() == box ? var : nullptr;
}

std::any VariablePool::takePerPatch(const VarLabel* label, int patchId) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  auto found = m_perPatch.find({label, patchId});
  if (found == m_perPatch.end()) return {};
  std::any value = std::move(found->second);
  m_perPatch.erase(found);
  return value;
}

void VariablePool::giveBlock(const VarLabel* label, int block, std::shared_ptr<BlockData> data) {
  if (!data || data.use_count() != 1 || !data->owned()) return;
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_blocks[{label, block}] = std::move(data);
}

std::shared_ptr<BlockData> VariablePool::takeBlock(const VarLabel* label, int block,
                                                   const BlockExtent& extent,
                                                   std::size_t elementBytes) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  const auto found = m_blocks.find({label, block});
  if (found == m_blocks.end() || !(found->second->extent() == extent) ||
      found->second->elementBytes() != elementBytes)
    return nullptr;
  auto data = std::move(found->second);
  m_blocks.erase(found);
  return data;
}

void VariablePool::release() {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_grid.clear();
  m_perPatch.clear();
  m_blocks.clear();
}

std::size_t VariablePool::size() const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  return m_grid.size() + m_perPatch.size() + m_blocks.size();
}

}  // namespace tessera
