#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"

#include <cstring>
#include <sstream>

namespace tessera {

namespace {
// Removes the entries of `map` (keyed by (label, patch)) that `drop` selects,
// handing their values to `pool` when there is one.
template <class Map, class Drop>
void handBack(Map& map, VariablePool* pool, const Drop& drop) {
  for (auto it = map.begin(); it != map.end();) {
    if (!drop(it->first.first)) {
      ++it;
      continue;
    }
    if (pool) pool->give(it->first.first, it->first.second, std::move(it->second));
    it = map.erase(it);
  }
}
}  // namespace

OnDemandDataWarehouse::OnDemandDataWarehouse(std::string role, int timestep, double time,
                                             double delT, std::shared_ptr<VariablePool> pool)
    : m_role(std::move(role)),
      m_timestep(timestep),
      m_time(time),
      m_delT(delT),
      m_pool(std::move(pool)) {}

OnDemandDataWarehouse::~OnDemandDataWarehouse() {
  const auto all = [](const VarLabel*) { return true; };
  handBack(m_grid, m_pool.get(), all);
  handBack(m_perPatch, m_pool.get(), all);
  handBackBlocks(all);
}

template <class Drop>
void OnDemandDataWarehouse::handBackBlocks(const Drop& drop) {
  m_arrived.clear();
  m_blockSums.clear();
  for (auto it = m_blocks.begin(); it != m_blocks.end();) {
    if (!drop(it->first.first)) {
      ++it;
      continue;
    }
    if (m_pool) m_pool->giveBlock(it->first.first, it->first.second, std::move(it->second));
    it = m_blocks.erase(it);
  }
}

std::shared_ptr<BlockData> OnDemandDataWarehouse::recycledBlock(const VarLabel* label, int block,
                                                                const BlockExtent& extent,
                                                                std::size_t elementBytes) {
  return m_pool ? m_pool->takeBlock(label, block, extent, elementBytes) : nullptr;
}

std::shared_ptr<GridVariableBase> OnDemandDataWarehouse::recycledGridVariable(const VarLabel* label,
                                                                              int key,
                                                                              const Box& box) {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto offer = m_offers.find({label, key});
    if (offer != m_offers.end() && !offer->second.taken && offer->second.storage->box() == box) {
      offer->second.taken = true;
      return offer->second.storage;
    }
  }
  return m_pool ? m_pool->takeGrid(label, key, box) : nullptr;
}

std::optional<LabelKey> OnDemandDataWarehouse::offerStorage(const OnDemandDataWarehouse& from,
                                                            const VarLabel* label,
                                                            const PatchGroup& group) {
  std::vector<int> patchIds;
  for (const Patch* patch : group.patches())
    patchIds.push_back(patch->id());
  return addOffer({label, group.storageKey()}, from.findGroupVariable(label, group),
                  std::move(patchIds));
}

std::optional<LabelKey> OnDemandDataWarehouse::offerStorage(const OnDemandDataWarehouse& from,
                                                            const VarLabel* label,
                                                            const Patch& patch) {
  std::shared_ptr<GridVariableBase> storage = from.findGridVariable(label, patch);
  // A window on a group's storage stays (as in carryForward).
  if (storage && storage->isWindow()) storage = nullptr;
  return addOffer({label, patch.id()}, std::move(storage), {});
}

std::optional<LabelKey> OnDemandDataWarehouse::addOffer(const LabelKey& key,
                                                        std::shared_ptr<GridVariableBase> storage,
                                                        std::vector<int> patchIds) {
  if (!storage) return std::nullopt;
  std::lock_guard<std::mutex> lock(m_mutex);
  m_offers[key] = {std::move(storage), std::move(patchIds), false};
  return key;
}

void OnDemandDataWarehouse::settleOffer(OnDemandDataWarehouse& from, const LabelKey& key) {
  StorageOffer offer;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto found = m_offers.find(key);
    if (found == m_offers.end()) return;
    offer = std::move(found->second);
    m_offers.erase(found);
  }
  if (!offer.taken) return;
  // The storage is this warehouse's now: `from` must not hand it to the pool.
  std::lock_guard<std::mutex> lock(from.m_mutex);
  from.m_grid.erase(key);
  from.m_localGhostsFilled.erase(key);
  for (int patchId : offer.patchIds) {
    from.m_grid.erase({key.first, patchId});
    from.m_localGhostsFilled.erase({key.first, patchId});
  }
}

std::any OnDemandDataWarehouse::takeRecycledPerPatch(const VarLabel* label, const Patch& patch) {
  return m_pool ? m_pool->takePerPatch(label, patch.id()) : std::any{};
}

std::string OnDemandDataWarehouse::name() const {
  std::ostringstream out;
  out << m_role << " (timestep " << m_timestep << ")";
  return out.str();
}

std::shared_ptr<GridVariableBase> OnDemandDataWarehouse::findGridVariable(
    const VarLabel* label, const Patch& patch) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto found = m_grid.find({label, patch.id()});
  return found == m_grid.end() ? nullptr : found->second;
}

void OnDemandDataWarehouse::putGridVariable(const VarLabel* label, const Patch& patch,
                                            std::shared_ptr<GridVariableBase> var) {
  std::lock_guard<std::mutex> lock(m_mutex);
  const bool fresh = m_grid.emplace(Key{label, patch.id()}, std::move(var)).second;
  TESSERA_REQUIRE_THROWS(fresh, "'" << label->name() << "' on " << patch << " is already in "
                                    << m_role << " (timestep " << m_timestep
                                    << "); use getModifiable to change it");
}

std::shared_ptr<GridVariableBase> OnDemandDataWarehouse::findGroupVariable(
    const VarLabel* label, const PatchGroup& group) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto whole = m_grid.find({label, group.storageKey()});
  bool shared = whole != m_grid.end();
  std::vector<std::shared_ptr<GridVariableBase>> parts;
  for (const Patch* patch : group.patches()) {
    auto part = m_grid.find({label, patch->id()});
    if (part == m_grid.end()) return nullptr;
    shared = shared && part->second->storage() == whole->second->storage();
    parts.push_back(part->second);
  }
  if (shared) return whole->second;
  // The patches' variables were made one by one (a restart, a task per
  // patch): gather them into one allocation. Where their boxes overlap,
  // the most trustworthy copy of a cell is written last: any ghost cell
  // first (edges and corners are filled only for Ghost::AroundCells), then
  // the ghost slabs across each face (filled for every kind of ghost),
  // then the cells each patch owns.
  Box box = parts.front()->box();
  for (const auto& part : parts)
    box = {min(box.lo(), part->box().lo()), max(box.hi(), part->box().hi())};
  std::shared_ptr<GridVariableBase> gathered = parts.front()->cloneEmpty(box);
  for (const auto& part : parts)
    gathered->copyFrom(*part, part->box(), IntVector{});
  for (std::size_t n = 0; n < parts.size(); ++n) {
    const Patch& patch = *group.patches()[n];
    for (const Face face : allFaces()) {
      if (patch.hasBoundaryCondition(face)) continue;
      // As deep as the patch's variable reaches beyond the face.
      const Box beyond = beyondFace(patch.interior(), parts[n]->box(), face);
      const Box slab =
          faceSlab(patch.interior(), face, beyond.size()[faceAxis(face)]).intersection(beyond);
      if (!slab.empty()) gathered->copyFrom(*parts[n], slab, IntVector{});
    }
  }
  for (std::size_t n = 0; n < parts.size(); ++n)
    gathered->copyFrom(*parts[n], group.patches()[n]->extendedBox(), IntVector{});
  for (std::size_t n = 0; n < parts.size(); ++n)
    m_grid[{label, group.patches()[n]->id()}] = gathered->window(parts[n]->box());
  m_grid[{label, group.storageKey()}] = gathered;
  return gathered;
}

void OnDemandDataWarehouse::putGroupVariable(const VarLabel* label, const PatchGroup& group,
                                             std::shared_ptr<GridVariableBase> var) {
  std::lock_guard<std::mutex> lock(m_mutex);
  const auto layers = m_ghostLayers.find(label);
  const int ghost = layers == m_ghostLayers.end() ? 0 : layers->second;
  for (const Patch* patch : group.patches()) {
    const bool fresh =
        m_grid
            .emplace(Key{label, patch->id()}, var->window(group.level().ghostedBox(*patch, ghost)))
            .second;
    TESSERA_REQUIRE_THROWS(fresh, "'" << label->name() << "' on " << *patch << " is already in "
                                      << m_role << " (timestep " << m_timestep
                                      << "); use getModifiable to change it");
  }
  m_grid[{label, group.storageKey()}] = std::move(var);
}

bool OnDemandDataWarehouse::inGroupStorage(const VarLabel* label, int storageKey,
                                           const GridVariableBase& var) const {
  if (!var.isWindow()) return false;
  std::lock_guard<std::mutex> lock(m_mutex);
  auto found = m_grid.find({label, storageKey});
  return found != m_grid.end() && found->second->storage() == var.storage();
}

std::shared_ptr<GridVariableBase> OnDemandDataWarehouse::findGroupStorage(const VarLabel* label,
                                                                        int storageKey) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto found = m_grid.find({label, storageKey});
  return found == m_grid.end() ? nullptr : found->second;
}

int OnDemandDataWarehouse::ghostLayersToAllocate(const VarLabel* label) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto found = m_ghostLayers.find(label);
  return found == m_ghostLayers.end() ? 0 : found->second;
}

void OnDemandDataWarehouse::setGhostLayers(const std::map<const VarLabel*, int>& layers) {
  std::lock_guard<std::mutex> lock(m_mutex);
  for (const auto& [label, n] : layers)
    m_ghostLayers[label] = std::max(m_ghostLayers[label], n);
}

void OnDemandDataWarehouse::ensureGhostRoom(const VarLabel* label, const Patch& patch,
                                            int numGhost) {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto found = m_grid.find({label, patch.id()});
  TESSERA_REQUIRE_THROWS(found != m_grid.end(), "'" << label->name() << "' on " << patch
                                                    << " is not in " << m_role << " (timestep "
                                                    << m_timestep << ")");
  const Box needed = patch.level().ghostedBox(patch, numGhost);
  const auto& old = found->second;
  if (old->box().contains(needed)) return;
  auto grown = old->cloneEmpty(needed);
  const Box keep = old->box().intersection(needed);
  grown->copyFrom(*old, keep, IntVector{});
  found->second = std::shared_ptr<GridVariableBase>(std::move(grown));
  m_localGhostsFilled.erase({label, patch.id()});
}

void OnDemandDataWarehouse::markLocalGhostsFilled(const VarLabel* label, const Patch& patch,
                                                  int numGhost, Ghost::Type type) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_localGhostsFilled[{label, patch.id()}] = {numGhost, type};
}

bool OnDemandDataWarehouse::localGhostsFilled(const VarLabel* label, const Patch& patch,
                                              int numGhost, Ghost::Type type) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto found = m_localGhostsFilled.find({label, patch.id()});
  if (found == m_localGhostsFilled.end()) return false;
  const auto [depth, filled] = found->second;
  return depth >= numGhost && widerGhost(filled, type) == filled;
}

namespace {
[[noreturn]] void missingCarried(const VarLabel* label, const std::string& where,
                                 const std::string& from) {
  TESSERA_FAIL("'" << label->name() << "' on " << where << " is not in " << from
                   << " to carry forward (modifiesVar(OldDW)): no task left it there");
}
}  // namespace

void OnDemandDataWarehouse::carryForward(OnDemandDataWarehouse& from, const VarLabel* label,
                                         const PatchGroup& group, bool inPlace) {
  std::ostringstream where;
  where << group;
  // Gathers the patches' variables into one allocation if they are apart.
  const std::shared_ptr<GridVariableBase> whole = from.findGroupVariable(label, group);
  if (!whole) missingCarried(label, where.str(), from.name());
  std::vector<std::shared_ptr<GridVariableBase>> windows;
  {
    std::lock_guard<std::mutex> lock(from.m_mutex);
    for (const Patch* patch : group.patches())
      windows.push_back(from.m_grid.at({label, patch->id()}));
    if (inPlace) {
      for (const Patch* patch : group.patches()) {
        from.m_grid.erase({label, patch->id()});
        from.m_localGhostsFilled.erase({label, patch->id()});
      }
      from.m_grid.erase({label, group.storageKey()});
    }
  }
  std::shared_ptr<GridVariableBase> storage = whole;
  if (!inPlace) {
    storage = recycledGridVariable(label, group.storageKey(), whole->box());
    if (!storage) storage = whole->cloneEmpty(whole->box());
    storage->copyFrom(*whole, group.extendedBox(), IntVector{});
    for (auto& window : windows)
      window = storage->window(window->box());
  }
  std::lock_guard<std::mutex> lock(m_mutex);
  for (std::size_t n = 0; n < windows.size(); ++n) {
    const Patch& patch = *group.patches()[n];
    const bool fresh = m_grid.emplace(Key{label, patch.id()}, std::move(windows[n])).second;
    TESSERA_REQUIRE_THROWS(fresh, "'" << label->name() << "' on " << patch << " is already in "
                                      << m_role << " (timestep " << m_timestep
                                      << "): a task carries it forward from " << from.name());
  }
  m_grid[{label, group.storageKey()}] = std::move(storage);
}

void OnDemandDataWarehouse::carryForward(OnDemandDataWarehouse& from, const VarLabel* label,
                                         const Patch& patch, bool inPlace) {
  std::shared_ptr<GridVariableBase> var;
  {
    std::lock_guard<std::mutex> lock(from.m_mutex);
    auto found = from.m_grid.find({label, patch.id()});
    if (found == from.m_grid.end()) {
      std::ostringstream where;
      where << patch;
      missingCarried(label, where.str(), from.m_role);
    }
    var = found->second;
    // A window on a group's storage stays (the storage would go back to
    // the pool with the old warehouse while this one still used it).
    inPlace = inPlace && !var->isWindow();
    if (inPlace) {
      from.m_grid.erase(found);
      from.m_localGhostsFilled.erase({label, patch.id()});
    }
  }
  if (!inPlace) {
    std::shared_ptr<GridVariableBase> copy = recycledGridVariable(label, patch.id(), var->box());
    if (!copy) copy = var->cloneEmpty(var->box());
    copy->copyFrom(*var, patch.extendedBox(), IntVector{});
    var = std::move(copy);
  }
  putGridVariable(label, patch, std::move(var));
}

void OnDemandDataWarehouse::putReductionContribution(const VarLabel* label, int patchId,
                                                     const std::byte* value) {
  const std::size_t bytes = label->reductionOps().bytes;
  TESSERA_REQUIRE_THROWS(bytes <= sizeof(Contribution::bytes),
                         "reduction '" << label->name() << "' has contributions of " << bytes
                                       << " bytes; at most " << sizeof(Contribution::bytes)
                                       << " are supported");
  std::lock_guard<std::mutex> lock(m_mutex);
  Contribution contribution;
  std::memcpy(contribution.bytes.data(), value, bytes);
  const bool fresh = m_contributions[label].emplace(patchId, contribution).second;
  TESSERA_REQUIRE_THROWS(fresh,
                         "patch " << patchId << " contributed twice to '" << label->name() << "'");
}

bool OnDemandDataWarehouse::reducedValue(const VarLabel* label, std::byte* out) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto found = m_reduced.find(label);
  if (found == m_reduced.end()) return false;
  std::copy(found->second.begin(), found->second.end(), out);
  return true;
}

std::map<int, std::vector<std::byte>> OnDemandDataWarehouse::reductionContributions(
    const VarLabel* label) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  std::map<int, std::vector<std::byte>> copy;
  auto found = m_contributions.find(label);
  if (found == m_contributions.end()) return copy;
  for (const auto& [patchId, contribution] : found->second)
    copy[patchId].assign(contribution.bytes.begin(),
                         contribution.bytes.begin() +
                             static_cast<long>(label->reductionOps().bytes));
  return copy;
}

std::size_t OnDemandDataWarehouse::appendReductionRecords(const VarLabel* label,
                                                          std::vector<std::byte>& records) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto found = m_contributions.find(label);
  if (found == m_contributions.end()) return 0;
  const std::size_t bytes = label->reductionOps().bytes;
  const std::size_t record = sizeof(std::int64_t) + bytes;
  std::size_t at = records.size();
  records.resize(at + found->second.size() * record);
  for (const auto& [patchId, contribution] : found->second) {
    const std::int64_t id = patchId;
    std::memcpy(records.data() + at, &id, sizeof(id));
    std::memcpy(records.data() + at + sizeof(id), contribution.bytes.data(), bytes);
    at += record;
  }
  return found->second.size();
}

void OnDemandDataWarehouse::setReducedValue(const VarLabel* label, const std::byte* value) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_reduced[label].assign(value, value + label->elementBytes());
}

void OnDemandDataWarehouse::keepReductionsOf(const OnDemandDataWarehouse& older) {
  std::scoped_lock lock(m_mutex, older.m_mutex);
  for (const auto& [label, value] : older.m_reduced)
    if (m_reduced.count(label) == 0 && m_contributions.count(label) == 0)
      m_reduced.emplace(label, value);
}

void OnDemandDataWarehouse::putPerPatchValue(const VarLabel* label, const Patch& patch,
                                             std::any value) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_perPatch[{label, patch.id()}] = std::move(value);
}

const std::any* OnDemandDataWarehouse::findPerPatchValue(const VarLabel* label,
                                                         const Patch& patch) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto found = m_perPatch.find({label, patch.id()});
  return found == m_perPatch.end() ? nullptr : &found->second;
}

void OnDemandDataWarehouse::retainOnly(const std::set<const VarLabel*>& keep) {
  std::lock_guard<std::mutex> lock(m_mutex);
  const auto dropped = [&](const VarLabel* label) { return keep.count(label) == 0; };
  handBack(m_grid, m_pool.get(), dropped);
  handBack(m_perPatch, m_pool.get(), dropped);
  for (auto it = m_localGhostsFilled.begin(); it != m_localGhostsFilled.end();)
    it = dropped(it->first.first) ? m_localGhostsFilled.erase(it) : std::next(it);
  m_contributions.clear();
  handBackBlocks(dropped);
}

void OnDemandDataWarehouse::setBlockLayouts(std::shared_ptr<const BlockLayouts> layouts) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_blockLayouts = std::move(layouts);
}

const BlockLayout* OnDemandDataWarehouse::findBlockLayout(const VarLabel* label) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (!m_blockLayouts) return nullptr;
  const auto found = m_blockLayouts->find(label);
  return found == m_blockLayouts->end() ? nullptr : &found->second;
}

std::shared_ptr<BlockData> OnDemandDataWarehouse::findBlock(const VarLabel* label,
                                                            int block) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  const auto found = m_blocks.find({label, block});
  return found == m_blocks.end() ? nullptr : found->second;
}

void OnDemandDataWarehouse::putBlock(const VarLabel* label, int block,
                                     std::shared_ptr<BlockData> data) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_blocks[{label, block}] = std::move(data);
}

std::shared_ptr<BlockData> OnDemandDataWarehouse::findArrivedBlock(const VarLabel* label,
                                                                   const BlockRef& ref) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  const auto found = m_arrived.find({label, ref.block, ref.rowBegin, ref.rowEnd});
  return found == m_arrived.end() ? nullptr : found->second;
}

std::shared_ptr<BlockData> OnDemandDataWarehouse::findBlockSum(const VarLabel* label,
                                                               int index) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  const auto found = m_blockSums.find({label, index});
  return found == m_blockSums.end() ? nullptr : found->second;
}

void OnDemandDataWarehouse::putArrivedBlock(const VarLabel* label, const BlockRef& resolved,
                                            std::shared_ptr<BlockData> data) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_arrived[{label, resolved.block, resolved.rowBegin, resolved.rowEnd}] = std::move(data);
}

void OnDemandDataWarehouse::dropArrivedBlock(const VarLabel* label, const BlockRef& resolved) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_arrived.erase({label, resolved.block, resolved.rowBegin, resolved.rowEnd});
}

void OnDemandDataWarehouse::putBlockSum(const VarLabel* label, int index,
                                        std::shared_ptr<BlockData> data) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_blockSums[{label, index}] = std::move(data);
}

void OnDemandDataWarehouse::dropBorrowedBlocks() {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_arrived.clear();
  m_blockSums.clear();
}

std::size_t OnDemandDataWarehouse::numBlocks() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_blocks.size();
}

std::vector<const VarLabel*> OnDemandDataWarehouse::gridLabels() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  std::set<const VarLabel*> labels;
  for (const auto& entry : m_grid)
    labels.insert(entry.first.first);
  return {labels.begin(), labels.end()};
}

std::size_t OnDemandDataWarehouse::numGridVariables() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_grid.size();
}

}  // namespace tessera
