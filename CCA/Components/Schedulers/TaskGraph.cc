#include "CCA/Components/Schedulers/TaskGraph.h"

#include "CCA/Components/Schedulers/BlockDependencies.h"
#include "CCA/Components/Schedulers/GhostFills.h"
#include "CCA/Components/Schedulers/GroupRefinements.h"
#include "CCA/Components/Schedulers/SweepAverages.h"
#include "CCA/Components/Schedulers/TaskOrder.h"
#include "Core/Grid/Variables/LevelOperators.h"
#include "Core/Util/Error.h"
#include "Core/Util/Timer.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace tessera {

namespace {

using FillKey = std::tuple<const VarLabel*, int /*dw*/, int /*patch*/>;
using MessageKey = std::tuple<int /*from*/, int /*to*/, int /*phase*/>;
using LabelDW = std::pair<const VarLabel*, int /*dw*/>;

// The hash of the compiler's lookup tables' keys (tuples and pairs), which
// it only looks up, never walks in order (a tree's pointer chase per lookup
// was a tenth of a compile).
struct TupleHash {
  template <class Key>
  std::size_t operator()(const Key& key) const {
    std::size_t h = 0;
    std::apply(
        [&h](const auto&... part) {
          ((h ^= std::hash<std::decay_t<decltype(part)>>()(part) + 0x9e3779b97f4a7c15ULL +
                 (h << 6) + (h >> 2)),
           ...);
        },
        key);
    return h;
  }
};

// The key of the (task, patch) table, the compiler's most looked-up: one
// integer hashes faster than a pair (3 % of a compile, side by side).
inline std::uint64_t taskPatchKey(int task, int patchId) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(task)) << 32) |
         static_cast<std::uint32_t>(patchId);
}

// The patches a task runs on, with a membership test that costs nothing
// for the usual case (every patch of the level) and a binary search otherwise.
class PatchSet {
 public:
  // `levelPatches` -1: an index task (no patches at all).
  PatchSet(const std::vector<const Patch*>& patches, int levelPatches)
      : m_patches(&patches),
        m_all(static_cast<int>(patches.size()) == levelPatches),
        m_level(patches.empty() ? nullptr : &patches.front()->level()) {}
  const std::vector<const Patch*>& patches() const { return *m_patches; }
  // Every patch of its level.
  bool all() const { return m_all; }
  bool contains(const Patch& patch) const {
    if (m_all) return &patch.level() == m_level;
    return std::binary_search(m_patches->begin(), m_patches->end(), &patch,
                              [](const Patch* a, const Patch* b) { return a->id() < b->id(); });
  }

 private:
  const std::vector<const Patch*>* m_patches;
  bool m_all;
  const Level* m_level;
};

// What compile() works out for one rank. Its cost follows this rank's
// patches and their neighbours: a remote patch is looked at only when it
// exchanges ghost cells with a local one.
class GraphBuilder {
 public:
  GraphBuilder(const Grid& grid, const std::vector<int>& patchRanks, int rank, CompiledGraph& graph,
               std::vector<PatchSet> patchSets,
               const std::map<const VarLabel*, std::vector<int>>& chains, bool patchGroups)
      : m_grid(grid),
        m_ranks(patchRanks),
        m_rank(rank),
        m_patchGroups(patchGroups),
        m_graph(graph),
        m_patchSets(std::move(patchSets)),
        m_chains(chains) {}

  void build() {
    collectGhostDepths();
    createLocalTasks();
    linkLocalTasks();
    decideStorageReuse();
    buildMessages();
    planGroupRefinements(m_graph);
    planEagerCopies();
    linkBlockTasks(m_graph, m_chains, m_indexNodes);
    linkReceives();
    for (const DetailedTask& node : m_graph.detailedTasks) {
      for (int p : node.predecessors)
        m_graph.detailedTasks[static_cast<std::size_t>(p)].successors.push_back(node.id);
    }
    planSweepAverages(m_graph);
  }

 private:
  int owner(int patchId) const { return m_ranks[static_cast<std::size_t>(patchId)]; }
  const PatchSet& patchSet(int task) const { return m_patchSets[static_cast<std::size_t>(task)]; }

  // The last task of the writer chain of `label` that covers `patch`, or -1;
  // when `before` is a writer there, the last one before it.
  int lastWriter(const VarLabel* label, const Patch& patch, int before = -1) const {
    auto chain = m_chains.find(label);
    if (chain == m_chains.end()) return -1;
    int last = -1;
    for (int writer : chain->second) {
      if (!patchSet(writer).contains(patch)) continue;
      if (writer == before) return last;
      last = writer;
    }
    return last;
  }

  // The task that leaves `label` on `patch` in the state task `reader` sees:
  // the writer before `reader` when it modifies the label, else the last one.
  int writerFor(const VarLabel* label, const Patch& patch, int reader,
                const Task& readerTask) const {
    const int writer = lastWriter(label, patch, reader);
    if (writer >= 0) return writer;
    const auto chain = m_chains.find(label);
    if (chain != m_chains.end() &&
        std::find(chain->second.begin(), chain->second.end(), reader) != chain->second.end()) {
      TESSERA_FAIL("task '" << readerTask.name() << "' reads '" << label->name()
                            << "' before computing it");
    }
    TESSERA_FAIL("task '" << readerTask.name() << "' needs '" << label->name()
                          << "' from NewDW on patch " << patch.id()
                          << ", but no task computes it there");
  }

  void collectGhostDepths() {
    for (const Task& task : m_graph.tasks) {
      for (const Task::Dependency& dep : task.dependencies()) {
        if (dep.carriesForward()) m_graph.oldDWReads.insert(dep.label);
        if (dep.access != Task::Access::Requires) continue;
        if (dep.domain == Task::LevelDomain::FinerLevel) m_coarsens = true;
        int& layers = m_graph.ghostLayers[dep.label];
        layers = std::max(layers, dep.numGhost);
        if (dep.dw == Task::OldDW) m_graph.oldDWReads.insert(dep.label);
        if (dep.numGhost == 0) continue;
        const LabelDW key{dep.label, dep.dw};
        int& depth = m_ghostDepth[key];
        depth = std::max(depth, dep.numGhost);
        Ghost::Type& type = m_ghostType[key];
        type = widerGhost(type, dep.ghost);
        m_maxDepth = std::max(m_maxDepth, depth);
      }
    }
  }

  // The groups a task run per group covers on this rank: the level's
  // groups for a task on every patch, else groups of its own patches.
  std::vector<int> groupsFor(int task) {
    const PatchSet& set = patchSet(task);
    std::vector<const Patch*> local;
    for (const Patch* patch : set.patches())
      if (owner(patch->id()) == m_rank) local.push_back(patch);
    if (local.empty()) return {};
    const Level* level = &local.front()->level();
    auto& levelGroups = m_levelGroups[level];
    if (set.all() && !levelGroups.empty()) return levelGroups;
    std::vector<int> indices;
    for (PatchGroup& group : formPatchGroups(local, m_patchGroups)) {
      indices.push_back(static_cast<int>(m_graph.groups.size()));
      m_graph.groups.push_back(std::move(group));
    }
    if (set.all()) levelGroups = indices;
    return indices;
  }

  void createLocalTasks() {
    for (std::size_t t = 0; t < m_graph.tasks.size(); ++t) {
      if (m_graph.tasks[t].runsPerGroup()) {
        for (int g : groupsFor(static_cast<int>(t))) {
          DetailedTask node;
          node.id = static_cast<int>(m_graph.detailedTasks.size());
          node.taskIndex = static_cast<int>(t);
          node.group = g;
          node.patch = &m_graph.groups[static_cast<std::size_t>(g)].leader();
          for (const Patch* patch : m_graph.groups[static_cast<std::size_t>(g)].patches())
            m_nodeOf[taskPatchKey(static_cast<int>(t), patch->id())] = node.id;
          m_graph.detailedTasks.push_back(node);
        }
      }
      const TaskSpace& space = m_graph.spaces[t];
      if (m_graph.tasks[t].runsPerIndex()) {
        for (int x : space.indicesOn(m_rank)) {
          DetailedTask node;
          node.kind = DetailedTask::Kind::IndexTask;
          node.id = static_cast<int>(m_graph.detailedTasks.size());
          node.taskIndex = static_cast<int>(t);
          node.index = x;
          m_indexNodes[{static_cast<int>(t), x}] = node.id;
          m_graph.detailedTasks.push_back(node);
        }
      }
      for (const Patch* patch : patchSet(static_cast<int>(t)).patches()) {
        if (m_graph.tasks[t].runsPerGroup() || owner(patch->id()) != m_rank) continue;
        DetailedTask node;
        node.id = static_cast<int>(m_graph.detailedTasks.size());
        node.taskIndex = static_cast<int>(t);
        node.patch = patch;
        m_nodeOf[taskPatchKey(static_cast<int>(t), patch->id())] = node.id;
        m_graph.detailedTasks.push_back(node);
      }
      // Every rank takes part in every reduction, patches or not: one per
      // label, after the last task that computes it (several do when they
      // run on different patches: each level's, say).
      for (const Task::Dependency& dep : m_graph.tasks[t].dependencies()) {
        if (dep.access != Task::Access::Computes || dep.label->kind() != VarKind::Reduction)
          continue;
        std::vector<int> producers;
        for (int writer : m_chains.at(dep.label)) {
          for (const Task::Dependency& d : m_graph.tasks[static_cast<std::size_t>(writer)].dependencies())
            if (d.label == dep.label && d.access == Task::Access::Computes) producers.push_back(writer);
        }
        if (*std::max_element(producers.begin(), producers.end()) != static_cast<int>(t)) continue;
        DetailedTask node;
        node.kind = DetailedTask::Kind::Reduction;
        node.id = static_cast<int>(m_graph.detailedTasks.size());
        node.taskIndex = static_cast<int>(t);
        node.reduction = dep.label;
        int ranks = *std::max_element(m_ranks.begin(), m_ranks.end()) + 1;
        for (int producer : producers)
          for (int r : m_graph.spaces[static_cast<std::size_t>(producer)].ranks)
            ranks = std::max(ranks, r + 1);
        node.contributionsPerRank.assign(static_cast<std::size_t>(ranks), 0);
        for (int producer : producers) {
          for (const Patch* patch : patchSet(producer).patches())
            ++node.contributionsPerRank[static_cast<std::size_t>(owner(patch->id()))];
          for (int r : m_graph.spaces[static_cast<std::size_t>(producer)].ranks)
            ++node.contributionsPerRank[static_cast<std::size_t>(r)];
        }
        m_reductionNode[dep.label] = node.id;
        m_graph.detailedTasks.push_back(node);
      }
    }
  }

  void addPredecessor(DetailedTask& node, int predecessor) {
    if (std::find(node.predecessors.begin(), node.predecessors.end(), predecessor) ==
        node.predecessors.end())
      node.predecessors.push_back(predecessor);
  }

  int localNode(int task, int patchId) const { return m_nodeOf.at(taskPatchKey(task, patchId)); }

  void linkLocalTasks() {
    for (DetailedTask& node : m_graph.detailedTasks) {
      if (node.kind == DetailedTask::Kind::IndexTask) linkReductions(node);
      if (node.kind != DetailedTask::Kind::PatchTask) continue;
      for (const Patch* patch : m_graph.patchesOf(node))
        linkOnPatch(node, *patch);
    }
  }

  // `node` contributes to the reduction of `label`: the reduction waits for it.
  void contributeTo(const VarLabel* label, DetailedTask& node) {
    DetailedTask& reducer =
        m_graph.detailedTasks[static_cast<std::size_t>(m_reductionNode.at(label))];
    if (std::find(reducer.contributors.begin(), reducer.contributors.end(), node.id) ==
        reducer.contributors.end())
      reducer.contributors.push_back(node.id);
    addPredecessor(reducer, node.id);
  }

  // `node` reads the reduced `label` from NewDW: it waits for the reduction.
  void afterReduction(const VarLabel* label, DetailedTask& node, const Task& task) {
    auto found = m_reductionNode.find(label);
    TESSERA_REQUIRE_THROWS(found != m_reductionNode.end(),
                           "task '" << task.name() << "' requires reduction '" << label->name()
                                    << "' from NewDW, but no task computes it");
    addPredecessor(node, found->second);
  }

  // An index task's reductions (its blocks are linkBlockTasks'): it
  // contributes to those it computes, and waits for those it reads.
  void linkReductions(DetailedTask& node) {
    const Task& task = m_graph.tasks[static_cast<std::size_t>(node.taskIndex)];
    for (const Task::Dependency& dep : task.dependencies()) {
      if (dep.label->kind() != VarKind::Reduction) continue;
      if (dep.access == Task::Access::Computes) {
        contributeTo(dep.label, node);
      } else if (dep.dw == Task::NewDW) {
        afterReduction(dep.label, node, task);
      }
    }
  }

  // Links `node` to what it reads on `patch`, one of the patches it covers.
  void linkOnPatch(DetailedTask& node, const Patch& patch) {
    const Task& task = m_graph.tasks[static_cast<std::size_t>(node.taskIndex)];
    const int patchId = patch.id();
    for (const Task::Dependency& dep : task.dependencies()) {
      const bool reduction = dep.label->kind() == VarKind::Reduction;
      if (dep.access == Task::Access::Computes) {
        if (reduction) contributeTo(dep.label, node);
        if (dep.reusesOldStorage && m_graph.carriedInPlace.count(dep.label))
          afterOldReaders(node, dep.label, patch);
        continue;
      }
      if (dep.carriesForward()) {
        if (m_graph.carriedInPlace.count(dep.label)) afterOldReaders(node, dep.label, patch);
        continue;
      }
      if (dep.domain == Task::LevelDomain::FinerLevel) {
        const int fill = coarsenFillFor(dep.label, dep.dw, patch, node);
        if (fill >= 0) node.coarsenFills.push_back(fill);
        continue;
      }
      if (dep.dw == Task::OldDW) {
        if (dep.numGhost > 0) node.fills.push_back(fillFor(dep, patch, node));
        continue;
      }
      if (reduction) {
        afterReduction(dep.label, node, task);
        continue;
      }
      addPredecessor(node, localNode(writerFor(dep.label, patch, node.taskIndex, task), patchId));
      if (dep.numGhost > 0) node.fills.push_back(fillFor(dep, patch, node));
    }
  }

  // Task::computesVarInPlace: a task takes its label's old storage where no
  // other local task fills ghost cells from it (its patches' neighbours on
  // this rank are in its group) on a grid of one level (coarse-fine fills
  // read the level below at times of their own). The other readers of the
  // old version run first (afterOldReaders); ghost cells for other ranks
  // are packed before the task starts (see DeviceRunner).
  void decideStorageReuse() {
    if (m_grid.numLevels() != 1) return;
    // The labels `node` may compute in their old storage, if proven below.
    const auto candidates = [&](const DetailedTask& node) {
      std::vector<const VarLabel*> labels;
      if (node.kind != DetailedTask::Kind::PatchTask) return labels;
      for (const Task::Dependency& dep :
           m_graph.tasks[static_cast<std::size_t>(node.taskIndex)].dependencies())
        if (dep.reusesOldStorage && m_graph.carriedInPlace.count(dep.label))
          labels.push_back(dep.label);
      return labels;
    };
    std::set<std::pair<const VarLabel*, int>> readByOthers;
    bool scanned = false;
    for (DetailedTask& node : m_graph.detailedTasks) {
      const std::vector<const VarLabel*> labels = candidates(node);
      if (labels.empty()) continue;
      if (!scanned) {  // once, and only for graphs with a candidate
        for (const DetailedTask& reader : m_graph.detailedTasks)
          for (int f : reader.fills) {
            const GhostFill& fill = m_graph.fills[static_cast<std::size_t>(f)];
            if (fill.dw != Task::OldDW) continue;
            for (const GhostPiece& piece : fill.localCopies)
              readByOthers.insert({fill.label, piece.sourcePatch});
          }
        scanned = true;
      }
      for (const VarLabel* label : labels) {
        bool alone = true;
        for (const Patch* patch : m_graph.patchesOf(node))
          alone = alone && !readByOthers.count({label, patch->id()});
        if (alone) node.reusedStorage.push_back(label);
      }
    }
  }

  // `carrier` takes the old version of `label` on `patch` away: every other
  // task reading it there (without ghosts: see orderTasks) runs first.
  void afterOldReaders(DetailedTask& carrier, const VarLabel* label, const Patch& patch) {
    for (std::size_t t = 0; t < m_graph.tasks.size(); ++t) {
      if (static_cast<int>(t) == carrier.taskIndex || !patchSet(static_cast<int>(t)).contains(patch))
        continue;
      for (const Task::Dependency& dep : m_graph.tasks[t].dependencies()) {
        if (dep.access == Task::Access::Requires && dep.dw == Task::OldDW && dep.label == label) {
          addPredecessor(carrier, localNode(static_cast<int>(t), patch.id()));
          break;
        }
      }
    }
  }

  // The same-level sources of `key`'s ghost cells on `patch`. The geometry
  // depends on the depth and shape alone, and many labels share them (a
  // subcycled level's substeps each have their own): found once per patch.
  const std::vector<GhostRegion>& regionsOf(const Patch& patch, const LabelDW& key) {
    const int depth = m_ghostDepth.at(key);
    const Ghost::Type type = m_ghostType.at(key);
    const auto geometry = std::make_tuple(patch.id(), depth, static_cast<int>(type));
    auto found = m_regions.find(geometry);
    if (found == m_regions.end())
      found = m_regions.emplace(geometry, patch.level().ghostRegions(patch, depth, type)).first;
    return found->second;
  }

  // The coarse-fine part of the ghost fill of `key` on `patch` (see
  // GhostFill::coarseFineBoxes): empty on a level that covers its domain.
  struct CoarseFinePlan {
    std::vector<Box> boxes;
    Box staging;
    Box held;
    std::vector<GhostRegion> sources;  // of the coarser level, into `held`
  };
  const CoarseFinePlan& coarseFineOf(const Patch& patch, const LabelDW& key) {
    static const CoarseFinePlan none;
    if (patch.level().coversDomain()) return none;
    // Label-independent but for the refinement's footprint: shared by the
    // labels of one depth, shape and operator (see regionsOf).
    const auto geometry =
        std::make_tuple(patch.id(), m_ghostDepth.at(key), static_cast<int>(m_ghostType.at(key)),
                        static_cast<int>(key.first->levelTransfer().refine));
    const auto found = m_coarseFine.find(geometry);
    if (found != m_coarseFine.end()) return found->second;
    CoarseFinePlan& plan = m_coarseFine[geometry];
    const Level& level = patch.level();
    plan.boxes = level.coarseFineGhosts(patch, m_ghostDepth.at(key), m_ghostType.at(key));
    if (plan.boxes.empty()) return plan;
    const Level& coarse = *level.coarser();
    const RefineOp op = key.first->levelTransfer().refine;
    std::vector<Box> footprints;
    for (const Box& box : plan.boxes) {
      footprints.push_back(refineFootprint(box, level.refinementRatio(), op));
      plan.staging = boundingBox(plan.staging, footprints.back());
    }
    plan.held = heldPart(coarse, plan.staging);
    // Only the cells the refinements read: the staging box bounds the
    // footprints of every face, edge and corner of the patch's coarse-fine
    // ghost cells, about twice their cells for a patch at an edge of its
    // level (and the coarse cells under the patch itself, which no
    // refinement reads), copied, or sent by another rank, every fill.
    // A footprint's cells beyond a wall repeat the held cells nearest them
    // (repeatPastHeld): its box clamped into the held box is what it reads.
    // (An empty held box: its cells are reported missing below.)
    std::vector<Box> read;  // disjoint
    for (const Box& footprint : footprints) {
      if (footprint.empty() || plan.held.empty()) continue;
      std::vector<Box> more{clampedInto(footprint, plan.held)};
      for (const Box& done : read)
        more = difference(more, done);
      read.insert(read.end(), more.begin(), more.end());
    }
    for (const Box& box : read) {
      const std::vector<GhostRegion> sources = coarse.sourcesOf(box);
      plan.sources.insert(plan.sources.end(), sources.begin(), sources.end());
    }
    std::vector<Box> missing;
    for (const Box& footprint : footprints)
      missing.push_back(footprint.intersection(plan.held));
    for (const GhostRegion& source : plan.sources)
      missing = difference(missing, source.destinationBox());
    TESSERA_REQUIRE_THROWS(missing.empty(),
                           "the coarse-fine ghost cells of '"
                               << key.first->name() << "' on " << patch << " (level "
                               << level.index() << ") need cells " << missing.front()
                               << " of level " << coarse.index()
                               << ", which it does not hold: the level is not nested deeply "
                                  "enough for "
                               << m_ghostDepth.at(key) << " ghost layers (raise amr.nesting_buffer)");
    return plan;
  }

  // Where the coarse-fine ghost cells of `dep` come from: the coarser
  // level's same variable, or (subcycling) one or two of another time.
  struct CoarseInput {
    const VarLabel* label;
    Task::WhichDW dw;
    bool later;
  };
  static std::vector<CoarseInput> coarseInputsOf(const Task::Dependency& dep) {
    if (!dep.coarseTime) return {{dep.label, dep.dw, false}};
    const Task::CoarseTimeSource& time = *dep.coarseTime;
    if (time.weight <= 0.0) return {{time.before, time.beforeDW, false}};
    if (time.weight >= 1.0) return {{time.after, time.afterDW, false}};
    return {{time.before, time.beforeDW, false}, {time.after, time.afterDW, true}};
  }

  // The coarse pieces of `dep`'s fill on `patch` from `source` (GhostFill::coarseCopies).
  static std::vector<GhostPiece> coarsePiecesOf(const Task::Dependency& dep, const Patch& patch,
                                                const GhostRegion& source) {
    std::vector<GhostPiece> pieces;
    for (const CoarseInput& input : coarseInputsOf(dep)) {
      GhostPiece piece{input.label,      input.dw,      source.source->id(), patch.id(),
                       source.sourceBox, source.offset, 0};
      piece.toStaging = true;
      piece.laterTime = input.later;
      piece.fillLabel = dep.label;
      piece.fillDW = dep.dw;
      pieces.push_back(piece);
    }
    return pieces;
  }

  // The ghost fill of `dep`'s (label, dw) on `patch`, created on first use;
  // local source patches become predecessors of `reader`.
  int fillFor(const Task::Dependency& dep, const Patch& patch, DetailedTask& reader) {
    const VarLabel* const label = dep.label;
    const Task::WhichDW dw = dep.dw;
    const FillKey key{label, dw, patch.id()};
    auto found = m_fillOf.find(key);
    int index;
    if (found == m_fillOf.end()) {
      GhostFill fill;
      fill.label = label;
      fill.dw = dw;
      fill.patchId = patch.id();
      fill.numGhost = m_ghostDepth.at({label, dw});
      fill.type = m_ghostType.at({label, dw});
      const PatchGroup* group =
          reader.group >= 0 ? &m_graph.groups[static_cast<std::size_t>(reader.group)] : nullptr;
      if (group != nullptr) fill.groupStorageKey = group->storageKey();
      for (const GhostRegion& region : regionsOf(patch, {label, dw})) {
        if (owner(region.source->id()) != m_rank) continue;
        const bool inGroup = group != nullptr && group->contains(*region.source) &&
                             region.offset == IntVector{};
        (inGroup ? fill.groupCopies : fill.localCopies)
            .push_back(
                {label, dw, region.source->id(), patch.id(), region.sourceBox, region.offset, 0});
      }
      const CoarseFinePlan& plan = coarseFineOf(patch, {label, dw});
      if (!plan.boxes.empty()) {
        fill.coarseFineBoxes = plan.boxes;
        fill.staging = plan.staging;
        fill.stagingHeld = plan.held;
        fill.ratio = patch.level().refinementRatio();
        fill.refine = label->levelTransfer().refine;
        if (coarseInputsOf(dep).size() == 2) fill.timeWeight = dep.coarseTime->weight;
        for (const GhostRegion& source : plan.sources) {
          if (owner(source.source->id()) != m_rank) continue;
          for (const GhostPiece& piece : coarsePiecesOf(dep, patch, source))
            fill.coarseCopies.push_back(piece);
        }
      }
      index = static_cast<int>(m_graph.fills.size());
      m_fillOf[key] = index;
      m_graph.fills.push_back(std::move(fill));
    } else {
      index = found->second;
    }
    const Task& task = m_graph.tasks[static_cast<std::size_t>(reader.taskIndex)];
    const GhostFill& fill = m_graph.fills[static_cast<std::size_t>(index)];
    if (dw == Task::NewDW) {
      for (const auto* copies : {&fill.localCopies, &fill.groupCopies}) {
        for (const GhostPiece& copy : *copies) {
          const Patch& source = m_grid.patchById(copy.sourcePatch);
          addPredecessor(reader, localNode(writerFor(label, source, reader.taskIndex, task),
                                           copy.sourcePatch));
        }
      }
    }
    // Coarse pieces name their own variable (another time's, when subcycling).
    for (const GhostPiece& copy : fill.coarseCopies) {
      if (copy.dw != Task::NewDW) continue;
      const Patch& source = m_grid.patchById(copy.sourcePatch);
      addPredecessor(reader, localNode(writerFor(copy.label, source, reader.taskIndex, task),
                                       copy.sourcePatch));
    }
    return index;
  }

  // The finer level's patches over `patch` and the coarse cells each covers.
  // With `label` (a face operator's: LevelTransfer.h), only the coarse cells
  // along that face of each finer patch whose neighbour across it the finer
  // level does not cover: the coarse-fine interface, where refluxing reads
  // them (Reflux.h). A face between two finer patches is read by no one,
  // and averaging the fluxes there cost more than the rest of the
  // averaging (the x faces' four fine rows per coarse face, cold).
  // Label-independent but for the operator: found once per patch and
  // operator (a subcycled graph averages many labels alike, each step's).
  const std::vector<std::pair<const Patch*, Box>>& finerOver(const Patch& patch,
                                                             const VarLabel* label = nullptr) {
    const CoarsenOp op = label != nullptr ? label->levelTransfer().coarsen : CoarsenOp::Average;
    const auto key = std::make_pair(patch.id(), static_cast<int>(op));
    const auto found = m_finerOver.find(key);
    if (found != m_finerOver.end()) return found->second;
    std::vector<std::pair<const Patch*, Box>>& covers = m_finerOver[key];
    const int l = patch.level().index();
    if (l + 1 >= m_grid.numLevels()) return covers;
    const Level& finer = m_grid.level(l + 1);
    const IntVector ratio = finer.refinementRatio();
    for (const Patch* fine : finer.patchesIntersecting(refine(patch.interior(), ratio))) {
      const Box under = coarsen(fine->interior(), ratio);
      if (!isFaceOp(op)) {
        const Box cells = under.intersection(patch.interior());
        if (!cells.empty()) covers.emplace_back(fine, cells);
        continue;
      }
      const int axis = faceAxis(op);
      IntVector lo = under.lo(), hi = under.hi();
      if (highFace(op)) {
        lo[axis] = hi[axis] - 1;
      } else {
        hi[axis] = lo[axis] + 1;
      }
      const Box face = Box{lo, hi}.intersection(patch.interior());
      if (face.empty()) continue;
      const IntVector across = IntVector::axisVector(axis, highFace(op) ? 1 : -1);
      std::vector<Box> open{face.shift(across)};
      for (const GhostRegion& region : finer.sourcesOf(refine(open.front(), ratio)))
        open = difference(open, coarsen(region.destinationBox(), ratio));
      for (const Box& beside : open)
        covers.emplace_back(fine, beside.shift(-across));
    }
    return covers;
  }

  // The averaging of (label, dw) from the finer level onto `patch`, created
  // on first use (-1: no finer patch covers it); local fine writers of a
  // NewDW version become predecessors of `reader`.
  int coarsenFillFor(const VarLabel* label, Task::WhichDW dw, const Patch& patch,
                     DetailedTask& reader) {
    const FillKey key{label, dw, patch.id()};
    auto found = m_coarsenOf.find(key);
    int index;
    if (found == m_coarsenOf.end()) {
      const std::vector<std::pair<const Patch*, Box>>& covers = finerOver(patch, label);
      if (covers.empty()) return -1;
      CoarsenFill fill;
      fill.label = label;
      fill.dw = dw;
      fill.patchId = patch.id();
      fill.ratio = covers.front().first->level().refinementRatio();
      for (const auto& [fine, cells] : covers) {
        if (owner(fine->id()) != m_rank) continue;
        GhostPiece piece{label, dw, fine->id(), patch.id(), cells, IntVector{}, 0};
        piece.averaged = true;
        fill.localAverages.push_back(piece);
      }
      index = static_cast<int>(m_graph.coarsenFills.size());
      m_coarsenOf[key] = index;
      m_graph.coarsenFills.push_back(std::move(fill));
    } else {
      index = found->second;
    }
    if (dw == Task::NewDW) {
      const Task& task = m_graph.tasks[static_cast<std::size_t>(reader.taskIndex)];
      CoarsenFill& fill = m_graph.coarsenFills[static_cast<std::size_t>(index)];
      const bool first = fill.localWriters.empty();
      for (const GhostPiece& piece : fill.localAverages) {
        const Patch& fine = m_grid.patchById(piece.sourcePatch);
        const int writer =
            localNode(writerFor(label, fine, reader.taskIndex, task), piece.sourcePatch);
        addPredecessor(reader, writer);
        if (first) fill.localWriters.push_back(writer);
      }
    }
    return index;
  }

  // The patches whose ghost fills (or averages) can take part in a message
  // to or from this rank, in id order: local patches with a source on
  // another rank, and other ranks' patches with a source here. A local
  // patch whose every possible source is local adds no piece to any message
  // (on one rank: none does), so the walk below skips it.
  std::vector<const Patch*> exchangePartners() const {
    std::set<int> ids;
    if (m_maxDepth == 0 && !m_coarsens) return {};
    const auto remote = [&](const Patch& patch) { return owner(patch.id()) != m_rank; };
    for (int l = 0; l < m_grid.numLevels(); ++l) {
      const Level& level = m_grid.level(l);
      const Level* coarser = level.coarser();
      const Level* finer = l + 1 < m_grid.numLevels() ? &m_grid.level(l + 1) : nullptr;
      for (const Patch& patch : level.patches()) {
        if (remote(patch)) continue;
        bool sourceElsewhere = false;
        const auto note = [&](const Patch& other) {
          if (remote(other)) {
            ids.insert(other.id());
            sourceElsewhere = true;
          }
        };
        // Same-level ghost cells, both ways.
        for (const Patch* near : level.patchesNear(patch, m_maxDepth))
          note(*near);
        if (coarser != nullptr) {
          const IntVector ratio = level.refinementRatio();
          // The coarser patches this one's cells are averaged onto.
          if (m_coarsens) {
            for (const Patch* under :
                 coarser->patchesIntersecting(coarsen(patch.interior(), ratio)))
              note(*under);
          }
          // The coarser patches its coarse-fine ghost cells are refined from
          // (the ghost depth in coarse cells, plus the refinement stencil).
          for (const GhostRegion& source :
               coarser->sourcesOf(coarsen(patch.extendedBox().grow(m_maxDepth), ratio).grow(2)))
            note(*source.source);
        }
        if (finer != nullptr) {
          const IntVector ratio = finer->refinementRatio();
          // The finer patches averaged onto this one.
          if (m_coarsens) {
            for (const Patch* over : finer->patchesIntersecting(refine(patch.interior(), ratio)))
              note(*over);
          }
          // The finer patches whose coarse-fine ghosts may read this one: within
          // the ghost depth (in fine cells) plus the refinement stencil.
          const int reach = (m_maxDepth + ratio.minComponent() - 1) / ratio.minComponent() + 1;
          for (const GhostRegion& near :
               finer->sourcesOf(refine(patch.extendedBox().grow(reach), ratio)))
            note(*near.source);
        }
        if (sourceElsewhere) ids.insert(patch.id());
      }
    }
    std::vector<const Patch*> partners;
    partners.reserve(ids.size());
    for (int id : ids)
      partners.push_back(&m_grid.patchById(id));
    return partners;
  }

  // Walks the ghost fills of the exchange partners in one canonical order
  // (task, patch id, dependency, region) so that the sender and the
  // receiver of a message list its pieces identically: both see every
  // patch that the message concerns.
  void buildMessages() {
    std::map<MessageKey, Message> messages;
    std::set<FillKey> visited;
    std::set<FillKey> averaged;
    const std::vector<const Patch*> partners = exchangePartners();
    // `piece` from `source` into the message of its
    // pair of ranks and phase, if this rank is one of them and not both.
    const auto addPiece = [&](GhostPiece piece, const Patch& source, int t) {
      const int sender = owner(source.id());
      const int receiver = owner(piece.destPatch);
      if (sender == receiver || (sender != m_rank && receiver != m_rank)) return;
      int phase = 0;
      int writer = -1;
      if (piece.dw == Task::NewDW) {
        writer = writerFor(piece.label, source, t, m_graph.tasks[static_cast<std::size_t>(t)]);
        phase = 1 + writer;
      }
      Message& message = messages[{sender, receiver, phase}];
      message.phase = phase;
      message.tag = phase;
      message.peer = sender == m_rank ? receiver : sender;
      message.pieces.push_back(piece);  // laid out by shareContainedPieces
      if (sender == m_rank && writer >= 0) {
        const int producer = localNode(writer, source.id());
        if (std::find(message.producers.begin(), message.producers.end(), producer) ==
            message.producers.end())
          message.producers.push_back(producer);
      }
    };
    for (std::size_t t = 0; t < m_graph.tasks.size(); ++t) {
      const Task& task = m_graph.tasks[t];
      const int ti = static_cast<int>(t);
      for (const Patch* patch : partners) {
        if (!patchSet(ti).contains(*patch)) continue;
        for (const Task::Dependency& dep : task.dependencies()) {
          if (dep.access != Task::Access::Requires) continue;
          if (dep.domain == Task::LevelDomain::FinerLevel) {
            if (!averaged.insert({dep.label, dep.dw, patch->id()}).second) continue;
            for (const auto& [fine, cells] : finerOver(*patch, dep.label)) {
              GhostPiece piece{dep.label, dep.dw, fine->id(), patch->id(), cells, IntVector{}, 0};
              piece.averaged = true;
              addPiece(piece, *fine, ti);
            }
            continue;
          }
          if (dep.numGhost == 0) continue;
          if (!visited.insert({dep.label, dep.dw, patch->id()}).second) continue;
          for (const GhostRegion& region : regionsOf(*patch, {dep.label, dep.dw})) {
            addPiece({dep.label, dep.dw, region.source->id(), patch->id(), region.sourceBox,
                      region.offset, 0},
                     *region.source, ti);
          }
          for (const GhostRegion& region : coarseFineOf(*patch, {dep.label, dep.dw}).sources) {
            for (const GhostPiece& piece : coarsePiecesOf(dep, *patch, region))
              addPiece(piece, *region.source, ti);
          }
        }
      }
    }
    for (auto& [key, message] : messages) {
      message.bytes = shareContainedPieces(message.pieces);
      const bool sending = std::get<0>(key) == m_rank;
      auto& list = sending ? m_graph.sends : m_graph.receives;
      const int index = static_cast<int>(list.size());
      if (!sending) {
        for (std::size_t k = 0; k < message.pieces.size(); ++k) {
          const GhostPiece& piece = message.pieces[k];
          if (piece.averaged) {
            m_graph.coarsenFills[static_cast<std::size_t>(
                                     m_coarsenOf.at({piece.label, piece.dw, piece.destPatch}))]
                .remotePieces.emplace_back(index, static_cast<int>(k));
            continue;
          }
          auto fill = piece.fillLabel != nullptr
                          ? m_fillOf.find({piece.fillLabel, piece.fillDW, piece.destPatch})
                          : m_fillOf.find({piece.label, piece.dw, piece.destPatch});
          TESSERA_REQUIRE_THROWS(fill != m_fillOf.end(), "received ghost data of '"
                                                             << piece.label->name()
                                                             << "' that no local task reads");
          GhostFill& target = m_graph.fills[static_cast<std::size_t>(fill->second)];
          (piece.toStaging ? target.coarseRemotePieces : target.remotePieces)
              .emplace_back(index, static_cast<int>(k));
        }
      }
      list.push_back(std::move(message));
    }
  }

  // Every message, of every kind, known to the tasks it concerns: the
  // producers of a send release it, the readers of a receive wait for it
  // (through their ghost fills, or directly for a block), and the gate of a
  // receive holds it back.
  void linkReceives() {
    for (const DetailedTask& node : m_graph.detailedTasks) {
      std::vector<const std::vector<std::pair<int, int>>*> read;
      for (int f : node.fills) {
        const GhostFill& fill = m_graph.fills[static_cast<std::size_t>(f)];
        read.push_back(&fill.remotePieces);
        read.push_back(&fill.coarseRemotePieces);
      }
      for (int f : node.coarsenFills)
        read.push_back(&m_graph.coarsenFills[static_cast<std::size_t>(f)].remotePieces);
      for (const auto* pieces : read) {
        for (const auto& [message, piece] : *pieces) {
          std::vector<int>& consumers =
              m_graph.receives[static_cast<std::size_t>(message)].consumers;
          if (std::find(consumers.begin(), consumers.end(), node.id) == consumers.end())
            consumers.push_back(node.id);
        }
      }
    }
    for (std::size_t s = 0; s < m_graph.sends.size(); ++s)
      for (int producer : m_graph.sends[s].producers)
        m_graph.detailedTasks[static_cast<std::size_t>(producer)].sendsToRelease.push_back(
            static_cast<int>(s));
    for (std::size_t r = 0; r < m_graph.receives.size(); ++r) {
      for (int consumer : m_graph.receives[r].consumers)
        m_graph.detailedTasks[static_cast<std::size_t>(consumer)].receivesRead.push_back(
            static_cast<int>(r));
      for (int gate : m_graph.receives[r].gate)
        m_graph.detailedTasks[static_cast<std::size_t>(gate)].receiveGates.push_back(
            static_cast<int>(r));
    }
  }

  // See EagerCopy. Only for labels no task of this graph reads from NewDW
  // with ghosts, so nothing else ever writes the ghost cells it fills.
  void planEagerCopies() {
    std::set<const VarLabel*> newGhostReads;
    for (const Task& task : m_graph.tasks)
      for (const Task::Dependency& dep : task.dependencies())
        if (dep.access == Task::Access::Requires && dep.dw == Task::NewDW && dep.numGhost > 0)
          newGhostReads.insert(dep.label);
    for (std::size_t f = 0; f < m_graph.fills.size(); ++f) {
      GhostFill& fill = m_graph.fills[f];
      if (fill.dw != Task::OldDW || fill.localCopies.empty() || newGhostReads.count(fill.label))
        continue;
      const Patch& target = m_grid.patchById(fill.patchId);
      const int targetWriter = lastWriter(fill.label, target);
      if (targetWriter < 0) continue;
      std::vector<EagerCopy> copies;
      for (std::size_t k = 0; k < fill.localCopies.size(); ++k) {
        const int sourcePatch = fill.localCopies[k].sourcePatch;
        const int sourceWriter = lastWriter(fill.label, m_grid.patchById(sourcePatch));
        if (sourceWriter < 0) break;
        EagerCopy copy;
        copy.fill = static_cast<int>(f);
        copy.piece = static_cast<int>(k);
        copy.producers.push_back(localNode(targetWriter, fill.patchId));
        const int sourceNode = localNode(sourceWriter, sourcePatch);
        if (sourceNode != copy.producers.front()) copy.producers.push_back(sourceNode);
        copies.push_back(std::move(copy));
      }
      if (copies.size() != fill.localCopies.size()) continue;  // some source is never computed
      fill.eagerCopies = static_cast<int>(copies.size());
      for (EagerCopy& copy : copies) {
        const int index = static_cast<int>(m_graph.eagerCopies.size());
        for (int producer : copy.producers)
          m_graph.detailedTasks[static_cast<std::size_t>(producer)].eagerCopiesToRelease.push_back(
              index);
        m_graph.eagerCopies.push_back(std::move(copy));
      }
    }
  }

  const Grid& m_grid;
  const std::vector<int>& m_ranks;
  int m_rank;
  bool m_patchGroups;
  std::map<const Level*, std::vector<int>> m_levelGroups;
  CompiledGraph& m_graph;
  std::vector<PatchSet> m_patchSets;
  const std::map<const VarLabel*, std::vector<int>>& m_chains;
  std::map<LabelDW, int> m_ghostDepth;
  std::map<LabelDW, Ghost::Type> m_ghostType;
  int m_maxDepth = 0;
  std::unordered_map<std::uint64_t, int> m_nodeOf;
  std::map<std::pair<int, int>, int> m_indexNodes;  // (task, index) -> local detailed task
  std::map<const VarLabel*, int> m_reductionNode;
  std::unordered_map<FillKey, int, TupleHash> m_fillOf;
  // (patch, depth, ghost type[, refine operator]) -> geometry
  std::unordered_map<std::tuple<int, int, int>, std::vector<GhostRegion>, TupleHash> m_regions;
  std::unordered_map<std::tuple<int, int, int, int>, CoarseFinePlan, TupleHash> m_coarseFine;
  // (coarse patch, coarsen operator) -> the finer patches over it and their cells
  std::unordered_map<std::pair<int, int>, std::vector<std::pair<const Patch*, Box>>, TupleHash>
      m_finerOver;
  std::unordered_map<FillKey, int, TupleHash> m_coarsenOf;
  bool m_coarsens = false;  // some task averages from a finer level
};

}  // namespace

void TaskGraph::addTask(Task task, std::vector<const Patch*> patches) {
  const auto byId = [](const Patch* a, const Patch* b) { return a->id() < b->id(); };
  if (!std::is_sorted(patches.begin(), patches.end(), byId))
    std::sort(patches.begin(), patches.end(), byId);
  TESSERA_REQUIRE_THROWS(!task.runsPerIndex(), "task '" << task.name()
                                                          << "' runs per index: add it with a TaskSpace");
  m_entries.push_back({std::move(task), std::move(patches), std::nullopt});
}

void TaskGraph::addTask(Task task, TaskSpace space) {
  TESSERA_REQUIRE_THROWS(task.runsPerIndex(), "task '" << task.name()
                                                       << "' runs per patch: add it with patches");
  for (const Task::Dependency& dep : task.dependencies()) {
    TESSERA_REQUIRE_THROWS(dep.label->kind() == VarKind::Block ||
                               dep.label->kind() == VarKind::Reduction,
                           "task '" << task.name() << "' runs per index of '" << space.name
                                    << "' but uses " << varKindName(dep.label->kind())
                                    << " variable '" << dep.label->name()
                                    << "' (index tasks use block and reduction variables)");
  }
  for (int index = 0; index < space.size(); ++index) {
    const int rank = space.ranks[static_cast<std::size_t>(index)];
    TESSERA_REQUIRE_THROWS(rank >= 0, "task '" << task.name() << "' places index " << index
                                               << " of task space '" << space.name
                                               << "' on rank " << rank);
  }
  m_entries.push_back({std::move(task), {}, std::move(space)});
}

CompiledGraph TaskGraph::compile(const Grid& grid, const std::vector<int>& patchRanks, int rank,
                                 bool patchGroups,
                                 std::shared_ptr<const BlockLayouts> blockLayouts) const {
  const Timer timer;
  TESSERA_REQUIRE_THROWS(static_cast<int>(patchRanks.size()) == grid.numPatches(),
                         "the load balance covers " << patchRanks.size()
                                                    << " patches, the grid has "
                                                    << grid.numPatches());
  std::vector<const Task*> tasks;
  for (const Entry& entry : m_entries)
    tasks.push_back(&entry.task);
  const TaskOrder order = orderTasks(tasks);

  // Renumber everything in execution order.
  std::vector<int> position(m_entries.size());
  CompiledGraph graph;
  graph.name = m_name;
  graph.grid = &grid;
  graph.rank = rank;
  graph.blockLayouts = blockLayouts ? std::move(blockLayouts) : std::make_shared<BlockLayouts>();
  graph.carriedInPlace = order.carriedInPlace;
  std::vector<PatchSet> patchSets;
  for (int original : order.order) {
    const Entry& entry = m_entries[static_cast<std::size_t>(original)];
    position[static_cast<std::size_t>(original)] = static_cast<int>(graph.tasks.size());
    graph.tasks.push_back(entry.task);
    graph.spaces.push_back(entry.space.value_or(TaskSpace{}));
    const int levelPatches =
        entry.space ? -1 : entry.patches.empty() ? 0 : entry.patches.front()->level().numPatches();
    patchSets.emplace_back(entry.patches, levelPatches);
  }
  std::map<const VarLabel*, std::vector<int>> chains;
  for (const auto& [label, chain] : order.writerChains) {
    for (int task : chain)
      chains[label].push_back(position[static_cast<std::size_t>(task)]);
    // Several producers of a label (one per level, say) cover different patches.
    const int producers = order.producers.at(label);
    std::map<int, int> producerOf;  // patch id -> producing task
    for (int k = 0; k < producers; ++k) {
      const int task = chain[static_cast<std::size_t>(k)];
      for (const Patch* patch : m_entries[static_cast<std::size_t>(task)].patches) {
        const auto [at, added] = producerOf.emplace(patch->id(), task);
        TESSERA_REQUIRE_THROWS(
            added, "variable '" << label->name() << "' in NewDW is computed by two tasks: '"
                                << m_entries[static_cast<std::size_t>(at->second)].task.name()
                                << "' and '" << m_entries[static_cast<std::size_t>(task)].task.name()
                                << "' on patch " << patch->id()
                                << " (one task computes a variable on a patch; others may "
                                   "modifiesVar it)");
      }
    }
  }
  GraphBuilder(grid, patchRanks, rank, graph, std::move(patchSets), chains, patchGroups).build();
  graph.compileSeconds = timer.seconds();
  return graph;
}

}  // namespace tessera
