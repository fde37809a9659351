#include "CCA/Components/Schedulers/TaskGraph.h"

#include "CCA/Components/Schedulers/TaskOrder.h"
#include "Core/Util/Error.h"
#include "Core/Util/Timer.h"

#include <algorithm>
#include <sstream>
#include <tuple>

namespace tessera {

namespace {

using FillKey = std::tuple<const VarLabel*, int /*dw*/, int /*patch*/>;
using MessageKey = std::tuple<int /*from*/, int /*to*/, int /*phase*/>;

// Everything compile() works out for all ranks before it keeps its own part.
class GraphBuilder {
 public:
  GraphBuilder(const Grid& grid, const std::vector<int>& patchRanks, int rank, CompiledGraph& graph,
               const std::vector<std::vector<const Patch*>>& patchSets,
               const std::map<const VarLabel*, std::vector<int>>& chains)
      : m_grid(grid), m_ranks(patchRanks), m_rank(rank), m_graph(graph), m_patchSets(patchSets) {
    for (const auto& [label, chain] : chains) {
      for (int task : chain) {
        for (const Patch* patch : patchSets[static_cast<std::size_t>(task)]) {
          m_writersOnPatch[{label, patch->id()}].push_back(task);
        }
      }
    }
  }

  void build() {
    collectGhostDepths();
    createLocalTasks();
    linkLocalTasks();
    buildMessages();
  }

 private:
  int owner(int patchId) const { return m_ranks[static_cast<std::size_t>(patchId)]; }

  // The task that leaves `label` on `patchId` in the state task `reader` sees.
  int writerFor(const VarLabel* label, int patchId, int reader, const Task& readerTask) const {
    auto found = m_writersOnPatch.find({label, patchId});
    if (found == m_writersOnPatch.end() || found->second.empty()) {
      TESSERA_FAIL("task '" << readerTask.name() << "' needs '" << label->name()
                            << "' from NewDW on patch " << patchId
                            << ", but no task computes it there");
    }
    const auto& chain = found->second;
    auto self = std::find(chain.begin(), chain.end(), reader);
    if (self != chain.end()) {
      TESSERA_REQUIRE_THROWS(self != chain.begin(), "task '" << readerTask.name() << "' reads '"
                                                             << label->name()
                                                             << "' before computing it");
      return *(self - 1);
    }
    return chain.back();
  }

  void collectGhostDepths() {
    for (const Task& task : m_graph.tasks) {
      for (const Task::Dependency& dep : task.dependencies()) {
        if (dep.access != Task::Access::Requires) continue;
        int& layers = m_graph.ghostLayers[dep.label];
        layers = std::max(layers, dep.numGhost);
        int& perDW = m_ghostDepth[{dep.label, dep.dw}];
        perDW = std::max(perDW, dep.numGhost);
        if (dep.dw == Task::OldDW) m_graph.oldDWReads.insert(dep.label);
      }
    }
  }

  void createLocalTasks() {
    for (std::size_t t = 0; t < m_graph.tasks.size(); ++t) {
      for (const Patch* patch : m_patchSets[t]) {
        if (owner(patch->id()) != m_rank) continue;
        DetailedTask node;
        node.id = static_cast<int>(m_graph.detailedTasks.size());
        node.taskIndex = static_cast<int>(t);
        node.patch = patch;
        m_nodeOf[{static_cast<int>(t), patch->id()}] = node.id;
        m_graph.detailedTasks.push_back(node);
      }
      // Every rank takes part in every reduction, patches or not.
      for (const Task::Dependency& dep : m_graph.tasks[t].dependencies()) {
        if (dep.access != Task::Access::Computes || dep.label->kind() != VarKind::Reduction)
          continue;
        DetailedTask node;
        node.kind = DetailedTask::Kind::Reduction;
        node.id = static_cast<int>(m_graph.detailedTasks.size());
        node.taskIndex = static_cast<int>(t);
        node.reduction = dep.label;
        node.contributionsPerRank.assign(
            static_cast<std::size_t>(*std::max_element(m_ranks.begin(), m_ranks.end()) + 1), 0);
        for (const Patch* patch : m_patchSets[t]) {
          const auto owner = static_cast<std::size_t>(this->owner(patch->id()));
          if (owner >= node.contributionsPerRank.size())
            node.contributionsPerRank.resize(owner + 1, 0);
          ++node.contributionsPerRank[owner];
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

  int localNode(int task, int patchId) const { return m_nodeOf.at({task, patchId}); }

  void linkLocalTasks() {
    for (DetailedTask& node : m_graph.detailedTasks) {
      if (node.kind != DetailedTask::Kind::PatchTask) continue;
      const Task& task = m_graph.tasks[static_cast<std::size_t>(node.taskIndex)];
      const int patchId = node.patch->id();
      for (const Task::Dependency& dep : task.dependencies()) {
        const bool reduction = dep.label->kind() == VarKind::Reduction;
        if (dep.access == Task::Access::Computes) {
          if (reduction) {
            DetailedTask& reducer =
                m_graph.detailedTasks[static_cast<std::size_t>(m_reductionNode.at(dep.label))];
            reducer.contributors.push_back(node.id);
            addPredecessor(reducer, node.id);
          }
          continue;
        }
        if (dep.dw == Task::OldDW) {
          if (dep.numGhost > 0) node.fills.push_back(fillFor(dep.label, dep.dw, *node.patch, node));
          continue;
        }
        if (reduction) {
          auto found = m_reductionNode.find(dep.label);
          TESSERA_REQUIRE_THROWS(found != m_reductionNode.end(),
                                 "task '" << task.name() << "' requires reduction '"
                                          << dep.label->name()
                                          << "' from NewDW, but no task computes it");
          addPredecessor(node, found->second);
          continue;
        }
        addPredecessor(node,
                       localNode(writerFor(dep.label, patchId, node.taskIndex, task), patchId));
        if (dep.numGhost > 0) node.fills.push_back(fillFor(dep.label, dep.dw, *node.patch, node));
      }
    }
  }

  // The ghost fill of (label, dw) on `patch`, created on first use; local
  // source patches become predecessors of `reader`.
  int fillFor(const VarLabel* label, Task::WhichDW dw, const Patch& patch, DetailedTask& reader) {
    const FillKey key{label, dw, patch.id()};
    auto found = m_fillOf.find(key);
    int index;
    if (found == m_fillOf.end()) {
      GhostFill fill;
      fill.label = label;
      fill.dw = dw;
      fill.patchId = patch.id();
      fill.numGhost = m_ghostDepth.at({label, dw});
      for (const GhostRegion& region : patch.level().ghostRegions(patch, fill.numGhost)) {
        if (owner(region.source->id()) != m_rank) continue;
        fill.localCopies.push_back(
            {label, dw, region.source->id(), patch.id(), region.sourceBox, region.offset, 0});
      }
      index = static_cast<int>(m_graph.fills.size());
      m_fillOf[key] = index;
      m_graph.fills.push_back(std::move(fill));
    } else {
      index = found->second;
    }
    if (dw == Task::NewDW) {
      const Task& task = m_graph.tasks[static_cast<std::size_t>(reader.taskIndex)];
      for (const GhostPiece& copy : m_graph.fills[static_cast<std::size_t>(index)].localCopies) {
        addPredecessor(reader, localNode(writerFor(label, copy.sourcePatch, reader.taskIndex, task),
                                         copy.sourcePatch));
      }
    }
    return index;
  }

  // Walks every ghost fill of every rank in one canonical order so that the
  // sender and the receiver of a message list its pieces identically.
  void buildMessages() {
    std::map<MessageKey, Message> messages;
    std::set<FillKey> visited;
    for (std::size_t t = 0; t < m_graph.tasks.size(); ++t) {
      const Task& task = m_graph.tasks[t];
      for (const Patch* patch : m_patchSets[t]) {
        for (const Task::Dependency& dep : task.dependencies()) {
          if (dep.access != Task::Access::Requires || dep.numGhost == 0) continue;
          if (!visited.insert({dep.label, dep.dw, patch->id()}).second) continue;
          const int receiver = owner(patch->id());
          const int depth = m_ghostDepth.at({dep.label, dep.dw});
          for (const GhostRegion& region : patch->level().ghostRegions(*patch, depth)) {
            const int sender = owner(region.source->id());
            if (sender == receiver || (sender != m_rank && receiver != m_rank)) continue;
            int phase = 0;
            int writer = -1;
            if (dep.dw == Task::NewDW) {
              writer = writerFor(dep.label, region.source->id(), static_cast<int>(t), task);
              phase = 1 + writer;
            }
            Message& message = messages[{sender, receiver, phase}];
            message.phase = phase;
            message.tag = phase;
            message.peer = sender == m_rank ? receiver : sender;
            GhostPiece piece{dep.label,        dep.dw,        region.source->id(), patch->id(),
                             region.sourceBox, region.offset, message.bytes};
            message.bytes += piece.bytes();
            message.pieces.push_back(piece);
            if (sender == m_rank && writer >= 0) {
              const int producer = localNode(writer, region.source->id());
              if (std::find(message.producers.begin(), message.producers.end(), producer) ==
                  message.producers.end())
                message.producers.push_back(producer);
            }
          }
        }
      }
    }
    for (auto& [key, message] : messages) {
      const bool sending = std::get<0>(key) == m_rank;
      auto& list = sending ? m_graph.sends : m_graph.receives;
      const int index = static_cast<int>(list.size());
      if (sending) {
        for (int producer : message.producers)
          m_graph.detailedTasks[static_cast<std::size_t>(producer)].sendsToRelease.push_back(index);
      } else {
        for (std::size_t k = 0; k < message.pieces.size(); ++k) {
          const GhostPiece& piece = message.pieces[k];
          auto fill = m_fillOf.find({piece.label, piece.dw, piece.destPatch});
          TESSERA_REQUIRE_THROWS(fill != m_fillOf.end(), "received ghost data of '"
                                                             << piece.label->name()
                                                             << "' that no local task reads");
          m_graph.fills[static_cast<std::size_t>(fill->second)].remotePieces.emplace_back(
              index, static_cast<int>(k));
        }
      }
      list.push_back(std::move(message));
    }
  }

  const Grid& m_grid;
  const std::vector<int>& m_ranks;
  int m_rank;
  CompiledGraph& m_graph;
  const std::vector<std::vector<const Patch*>>& m_patchSets;
  std::map<std::pair<const VarLabel*, int>, std::vector<int>> m_writersOnPatch;
  std::map<std::pair<const VarLabel*, int>, int> m_ghostDepth;
  std::map<std::pair<int, int>, int> m_nodeOf;
  std::map<const VarLabel*, int> m_reductionNode;
  std::map<FillKey, int> m_fillOf;
};

}  // namespace

void TaskGraph::addTask(Task task, std::vector<const Patch*> patches) {
  std::sort(patches.begin(), patches.end(),
            [](const Patch* a, const Patch* b) { return a->id() < b->id(); });
  m_entries.push_back({std::move(task), std::move(patches)});
}

CompiledGraph TaskGraph::compile(const Grid& grid, const std::vector<int>& patchRanks,
                                 int rank) const {
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
  std::vector<std::vector<const Patch*>> patchSets;
  for (int original : order.order) {
    position[static_cast<std::size_t>(original)] = static_cast<int>(graph.tasks.size());
    graph.tasks.push_back(m_entries[static_cast<std::size_t>(original)].task);
    patchSets.push_back(m_entries[static_cast<std::size_t>(original)].patches);
  }
  std::map<const VarLabel*, std::vector<int>> chains;
  for (const auto& [label, chain] : order.writerChains) {
    for (int task : chain)
      chains[label].push_back(position[static_cast<std::size_t>(task)]);
  }
  GraphBuilder(grid, patchRanks, rank, graph, patchSets, chains).build();
  graph.compileSeconds = timer.seconds();
  return graph;
}

}  // namespace tessera
