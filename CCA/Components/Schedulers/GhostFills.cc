#include "CCA/Components/Schedulers/GhostFills.h"

#include "Core/Grid/Grid.h"
#include "Core/Util/Error.h"

#include <algorithm>
#include <map>

namespace tessera {

GhostFills::GhostFills(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                       OnDemandDataWarehouse& newDW, CommContext& context,
                       const MessageExchange& messages, MessageBuffers& buffers)
    : m_graph(graph),
      m_oldDW(oldDW),
      m_newDW(newDW),
      m_context(context),
      m_messages(messages),
      m_buffers(buffers) {
  m_fillDone.assign(graph.fills.size(), false);
  m_coarsenDone.assign(graph.coarsenFills.size(), false);
  m_sweepAveragers.resize(graph.detailedTasks.size());
  m_sweptPieces.assign(graph.coarsenFills.size(), 0);
  m_pendingEagerProducers.resize(graph.eagerCopies.size());
  for (std::size_t e = 0; e < graph.eagerCopies.size(); ++e)
    m_pendingEagerProducers[e] = static_cast<int>(graph.eagerCopies[e].producers.size());
  m_eagerCopiesLeft.resize(graph.fills.size());
  for (std::size_t f = 0; f < graph.fills.size(); ++f)
    m_eagerCopiesLeft[f] = graph.fills[f].eagerCopies;
}

const Patch& GhostFills::patch(int id) const {
  return m_graph.grid->patchById(id);
}

const GridVariableBase& GhostFills::sourceOf(const GhostPiece& piece,
                                             const OnDemandDataWarehouse& dw,
                                             const char* what) const {
  const auto source = dw.findGridVariable(piece.label, patch(piece.sourcePatch));
  TESSERA_REQUIRE_THROWS(source != nullptr, what << " of '" << piece.label->name()
                                                 << "' need patch " << piece.sourcePatch
                                                 << ", which is not in " << dw.name());
  return *source;
}

void GhostFills::start(bool deferEagerCopies) {
  m_deferEagerCopies = deferEagerCopies;
  m_eagerQueue.assign(m_graph.eagerCopies.size(), -1);  // see EagerBatch
  m_eagerReleased = 0;
  m_eagerDone = 0;
}

void GhostFills::taskFinished(const DetailedTask& task) {
  if (auto& averager = m_sweepAveragers[static_cast<std::size_t>(task.id)]) {
    if (averager->complete()) {
      m_context.stats.sweptAverages += static_cast<std::int64_t>(averager->entries().size());
      for (int e : averager->entries()) {
        const SweepAverage& entry = m_graph.sweepAverages[static_cast<std::size_t>(e)];
        m_sweptPieces[static_cast<std::size_t>(entry.coarsenFill)] += entry.pieces.size();
      }
    }
    averager.reset();
  }
  if (task.eagerCopiesToRelease.empty()) return;
  for (int copy : task.eagerCopiesToRelease) {
    if (--m_pendingEagerProducers[static_cast<std::size_t>(copy)] == 0)
      m_eagerQueue[m_eagerReleased++] = copy;
  }
  if (!m_deferEagerCopies) performPendingEagerCopies();
}

void GhostFills::performPendingEagerCopies() {
  if (!eagerCopiesPending()) return;
  const CommTimer timer(m_context, &m_context.stats.packSeconds);
  const TraceScope traced(m_context.trace, "eager ghost copies", "comm");
  const EagerBatch batch = takePendingEagerCopies();
  makeEagerCopies(batch);
  recordEagerCopies(batch);
}

GhostFills::EagerBatch GhostFills::takePendingEagerCopies() {
  const EagerBatch batch{m_eagerDone, m_eagerReleased};
  m_eagerDone = batch.last;
  return batch;
}

void GhostFills::makeEagerCopies(EagerBatch batch) const {
  for (std::size_t k = batch.first; k < batch.last; ++k)
    makeEagerCopy(m_eagerQueue[k]);
}

void GhostFills::makeEagerCopy(int index) const {
  const EagerCopy& eager = m_graph.eagerCopies[static_cast<std::size_t>(index)];
  const GhostFill& fill = m_graph.fills[static_cast<std::size_t>(eager.fill)];
  const GhostPiece& piece = fill.localCopies[static_cast<std::size_t>(eager.piece)];
  const auto destination = m_newDW.findGridVariable(fill.label, patch(fill.patchId));
  const auto source = m_newDW.findGridVariable(fill.label, patch(piece.sourcePatch));
  TESSERA_REQUIRE_THROWS(destination != nullptr && source != nullptr,
                         "eager ghost copy of '" << fill.label->name() << "' from patch "
                                                 << piece.sourcePatch << " to patch "
                                                 << fill.patchId << ": not in " << m_newDW.name());
  destination->copyFrom(*source, piece.sourceBox, piece.offset);
}

void GhostFills::eagerCopiesMade(EagerBatch batch, double seconds, bool overlapped) {
  m_context.charge(seconds, overlapped, &m_context.stats.packSeconds);
  recordEagerCopies(batch);
}

void GhostFills::recordEagerCopies(EagerBatch batch) {
  for (std::size_t k = batch.first; k < batch.last; ++k) {
    const auto f = static_cast<std::size_t>(
        m_graph.eagerCopies[static_cast<std::size_t>(m_eagerQueue[k])].fill);
    const GhostFill& fill = m_graph.fills[f];
    if (--m_eagerCopiesLeft[f] == 0)
      m_newDW.markLocalGhostsFilled(fill.label, patch(fill.patchId), fill.numGhost, fill.type);
  }
}

void GhostFills::performFills(const DetailedTask& task) {
  TESSERA_REQUIRE_THROWS(m_messages.inputsArrived(task), "ghost fill of " << task.describe(m_graph.tasks)
                                                               << " before its messages arrived");
  if (!task.coarsenFills.empty()) averageFromFiner(task);
  if (task.fills.empty()) return;
  const CommTimer timer(m_context, &m_context.stats.packSeconds);
  const TraceScope traced(m_context.trace, "ghost fill", "comm", task.id);
  // A group refinement stands for its fills' coarse-fine cells when none
  // of them is made yet (another task reading them may have made some).
  struct GroupRun {
    const void* fineStorage = nullptr;
    bool usable = true;
    std::vector<std::pair<int, std::shared_ptr<GridVariableBase>>> fills;
  };
  std::vector<GroupRun> runs(task.groupRefinements.size());
  std::vector<std::pair<int, int>> runOfFill;  // (fill, run), sorted
  for (std::size_t g = 0; g < runs.size(); ++g) {
    const GroupRefinement& group =
        m_graph.groupRefinements[static_cast<std::size_t>(task.groupRefinements[g])];
    runs[g].usable = std::none_of(group.fills.begin(), group.fills.end(), [&](int f) {
      return m_fillDone[static_cast<std::size_t>(f)];
    });
    if (!runs[g].usable) continue;
    for (int f : group.fills)
      runOfFill.emplace_back(f, static_cast<int>(g));
  }
  std::sort(runOfFill.begin(), runOfFill.end());
  const auto runOf = [&](int fill) {
    const auto at = std::lower_bound(runOfFill.begin(), runOfFill.end(), std::pair{fill, -1});
    return at != runOfFill.end() && at->first == fill ? at->second : -1;
  };
  for (int index : task.fills) {
    if (m_fillDone[static_cast<std::size_t>(index)]) continue;
    const GhostFill& fill = m_graph.fills[static_cast<std::size_t>(index)];
    OnDemandDataWarehouse& dw = warehouse(fill.dw);
    const Patch& target = patch(fill.patchId);
    dw.ensureGhostRoom(fill.label, target, fill.numGhost);
    const auto destination = dw.findGridVariable(fill.label, target);
    // The previous step may have made the local copies already, while their
    // data was in cache.
    const bool copiedAhead = fill.dw == Task::OldDW &&
                             dw.localGhostsFilled(fill.label, target, fill.numGhost, fill.type);
    const auto copy = [&](const GhostPiece& piece) {
      destination->copyFrom(sourceOf(piece, dw, "ghost cells"), piece.sourceBox, piece.offset);
    };
    if (!copiedAhead) std::for_each(fill.localCopies.begin(), fill.localCopies.end(), copy);
    if (!fill.groupCopies.empty() &&
        !dw.inGroupStorage(fill.label, fill.groupStorageKey, *destination))
      std::for_each(fill.groupCopies.begin(), fill.groupCopies.end(), copy);
    for (const auto& [message, pieceIndex] : fill.remotePieces) {
      const GhostPiece& piece = m_graph.receives[static_cast<std::size_t>(message)]
                                    .pieces[static_cast<std::size_t>(pieceIndex)];
      destination->unpack(piece.sourceBox.shift(piece.offset),
                          m_messages.receiveBuffer(message) + piece.byteOffset,
                          piece.layoutExtent());
    }
    if (const int g = runOf(index); g >= 0) {
      // Refined with the group's other fills below: coarse-fine cells are
      // cells no patch of the level holds, which nothing above writes.
      GroupRun& run = runs[static_cast<std::size_t>(g)];
      if (run.fineStorage == nullptr) run.fineStorage = destination->storage();
      run.usable = run.usable && destination->storage() == run.fineStorage;
      run.fills.emplace_back(index, destination);
    } else if (!fill.coarseFineBoxes.empty()) {
      fillFromCoarser(index, task.id, *destination);
    }
    m_fillDone[static_cast<std::size_t>(index)] = true;
  }
  for (std::size_t g = 0; g < runs.size(); ++g) {
    const GroupRefinement& group =
        m_graph.groupRefinements[static_cast<std::size_t>(task.groupRefinements[g])];
    GroupRun& run = runs[g];
    if (run.fills.empty()) continue;
    if (run.usable && run.fills.size() == group.fills.size() &&
        refineForGroup(group, run.fineStorage, task.id))
      continue;
    for (const auto& [index, destination] : run.fills)
      fillFromCoarser(index, task.id, *destination);
  }
}

bool GhostFills::refineForGroup(const GroupRefinement& group, const void* fineStorage,
                                int taskId) {
  const auto destination = warehouse(group.dw).findGroupStorage(group.label, group.groupStorageKey);
  if (destination == nullptr || destination->storage() != fineStorage) return false;
  const bool inside = std::all_of(group.boxes.begin(), group.boxes.end(), [&](const Box& box) {
    return destination->box().contains(box);
  });
  if (!inside) return false;
  const GridVariableBase* const holder = oneAllocationOf(group.sources);
  if (holder == nullptr) return false;
  // The pieces cover every coarse cell the refinements read (as for one
  // fill: coarseWhereItLies), and the allocation holds their cells.
  const auto coarse = holder->viewOfStorage(group.coarseCells);
  if (coarse == nullptr) return false;
  const TraceScope traced(m_context.trace, "refine from coarser level", "comm", taskId);
  for (const Box& box : group.boxes)
    destination->refineFrom(*coarse, box, group.ratio, group.refine);
  ++m_context.stats.groupRefinements;
  return true;
}

void GhostFills::prepareSweepAverages(const DetailedTask& task,
                                      const TaskDependencies& dependencies) {
  if (task.sweepAverages.empty()) return;
  const VarLabel* label = nullptr;
  IntVector ratio;
  // The coarse cells by allocation: those in one are averaged as few boxes.
  std::map<const void*, std::pair<std::shared_ptr<GridVariableBase>, std::vector<Box>>> cells;
  std::vector<int> entries;
  for (int e : task.sweepAverages) {
    const SweepAverage& entry = m_graph.sweepAverages[static_cast<std::size_t>(e)];
    const CoarsenFill& fill = m_graph.coarsenFills[static_cast<std::size_t>(entry.coarsenFill)];
    // One variable per sweep: a task's other variables' averages wait for their reader.
    if (label != nullptr && fill.label != label) continue;
    const bool ready = std::all_of(entry.waitFor.begin(), entry.waitFor.end(),
                                   [&](int id) { return dependencies.finished(id); });
    if (!ready) continue;
    auto destination = warehouse(fill.dw).findGridVariable(fill.label, patch(fill.patchId));
    if (destination == nullptr) continue;
    label = fill.label;
    ratio = fill.ratio;
    auto& [holder, boxes] = cells[destination->storage()];
    if (holder == nullptr) holder = destination;
    for (int k : entry.pieces)
      boxes.push_back(fill.localAverages[static_cast<std::size_t>(k)].sourceBox);
    entries.push_back(e);
  }
  if (entries.empty()) return;
  std::vector<SweepAverager::Target> targets;
  for (auto& [storage, found] : cells) {
    auto& [holder, boxes] = found;
    for (const Box& box : mergeAdjacent(std::move(boxes))) {
      auto view = holder->viewOfStorage(box);  // the pieces' allocation holds their union
      if (view == nullptr) return;
      targets.push_back({std::move(view), box});
    }
  }
  auto& averager = m_sweepAveragers[static_cast<std::size_t>(task.id)];
  averager = std::make_unique<SweepAverager>(
      m_newDW, label, m_graph.groups[static_cast<std::size_t>(task.group)].storageKey(), ratio,
      label->levelTransfer().coarsen, std::move(targets), std::move(entries));
}

Box heldPart(const Level& coarse, const Box& staging) {
  const Box domain = coarse.extendedCellBox();
  IntVector lo = staging.lo(), hi = staging.hi();
  for (int axis = 0; axis < 3; ++axis) {
    if (coarse.periodic(axis)) continue;
    lo[axis] = std::max(lo[axis], domain.lo()[axis]);
    hi[axis] = std::min(hi[axis], domain.hi()[axis]);
  }
  return {lo, hi};
}

void repeatPastHeld(GridVariableBase& staging, const Box& held) {
  const Box stagingBox = staging.box();
  Box done = held;
  for (int axis = 0; axis < 3; ++axis) {
    for (int side = 0; side < 2; ++side) {
      const int edge = side == 0 ? done.lo()[axis] : done.hi()[axis] - 1;
      const int first = side == 0 ? stagingBox.lo()[axis] : done.hi()[axis];
      const int last = side == 0 ? done.lo()[axis] : stagingBox.hi()[axis];
      IntVector planeLo = done.lo(), planeHi = done.hi();
      planeLo[axis] = edge;
      planeHi[axis] = edge + 1;
      const Box plane{planeLo, planeHi};
      for (int layer = first; layer < last; ++layer)
        staging.copyFrom(staging, plane, IntVector::axisVector(axis, layer - edge));
    }
    IntVector lo = done.lo(), hi = done.hi();
    lo[axis] = stagingBox.lo()[axis];
    hi[axis] = stagingBox.hi()[axis];
    done = {lo, hi};
  }
}

// The coarse cells of `fill` where they lie, when this rank holds them all
// in one allocation (a patch group's), of one time and inside the domain:
// refined from there, they need no staging array (copying them into one
// cost as much as the refinement: docs/benchmarks.md). Null otherwise.
const GridVariableBase* GhostFills::oneAllocationOf(const std::vector<GhostPiece>& pieces) {
  const GridVariableBase* holder = nullptr;
  for (const GhostPiece& piece : pieces) {
    const GridVariableBase& source =
        sourceOf(piece, warehouse(piece.dw), "coarse-fine ghost cells");
    if (holder != nullptr && source.storage() != holder->storage()) return nullptr;
    holder = &source;
  }
  return holder;
}

std::shared_ptr<const GridVariableBase> GhostFills::coarseWhereItLies(const GhostFill& fill) {
  if (!fill.readsCoarseCellsInPlace()) return nullptr;
  const GridVariableBase* const holder = oneAllocationOf(fill.coarseCopies);
  // The pieces cover every cell the refinement reads (TaskGraph's plan
  // checks): those cells of the allocation are the pieces' cells.
  return holder == nullptr ? nullptr : holder->viewOfStorage(fill.staging);
}

void GhostFills::fillFromCoarser(int index, int taskId, GridVariableBase& destination) {
  // Its own span in a trace: the cross-level part of a fill.
  const TraceScope traced(m_context.trace, "refine from coarser level", "comm", taskId);
  const GhostFill& fill = m_graph.fills[static_cast<std::size_t>(index)];
  if (const auto coarse = coarseWhereItLies(fill)) {
    for (const Box& box : fill.coarseFineBoxes)
      destination.refineFrom(*coarse, box, fill.ratio, fill.refine);
    return;
  }
  const auto stagingOf = [&](std::vector<std::unique_ptr<GridVariableBase>>& buffers) {
    std::unique_ptr<GridVariableBase>& kept = buffers[static_cast<std::size_t>(index)];
    if (!kept || kept->box() != fill.staging) kept = destination.cloneEmpty(fill.staging);
    return kept.get();
  };
  GridVariableBase* const staging = stagingOf(m_buffers.staging);
  GridVariableBase* const later =
      fill.timeWeight > 0.0 ? stagingOf(m_buffers.laterStaging) : nullptr;
  for (const GhostPiece& piece : fill.coarseCopies) {
    GridVariableBase* const into = piece.laterTime ? later : staging;
    into->copyFrom(sourceOf(piece, warehouse(piece.dw),
                            "coarse-fine ghost cells"),
                   piece.sourceBox, piece.offset);
  }
  for (const auto& [message, pieceIndex] : fill.coarseRemotePieces) {
    const GhostPiece& piece = m_graph.receives[static_cast<std::size_t>(message)]
                                  .pieces[static_cast<std::size_t>(pieceIndex)];
    (piece.laterTime ? later : staging)
        ->unpack(piece.sourceBox.shift(piece.offset),
                 m_messages.receiveBuffer(message) + piece.byteOffset, piece.layoutExtent());
  }
  if (later != nullptr) staging->interpolateInTime(*later, fill.stagingHeld, fill.timeWeight);
  repeatPastHeld(*staging, fill.stagingHeld);
  for (const Box& box : fill.coarseFineBoxes)
    destination.refineFrom(*staging, box, fill.ratio, fill.refine);
}

void GhostFills::averageFromFiner(const DetailedTask& task) {
  const CommTimer timer(m_context, &m_context.stats.packSeconds);
  const TraceScope traced(m_context.trace, "average from finer level", "comm", task.id);
  for (int index : task.coarsenFills) {
    if (m_coarsenDone[static_cast<std::size_t>(index)]) continue;
    const CoarsenFill& fill = m_graph.coarsenFills[static_cast<std::size_t>(index)];
    OnDemandDataWarehouse& dw = warehouse(fill.dw);
    const auto destination = dw.findGridVariable(fill.label, patch(fill.patchId));
    TESSERA_REQUIRE_THROWS(destination != nullptr,
                           "averaging '" << fill.label->name() << "' from the finer level onto "
                                         << patch(fill.patchId) << ": it is not in " << dw.name());
    // Made already where the fine task's sweep made them all (SweepAverager).
    if (m_sweptPieces[static_cast<std::size_t>(index)] != fill.localAverages.size()) {
      for (const GhostPiece& piece : fill.localAverages) {
        destination->coarsenFrom(sourceOf(piece, dw, "averages"), piece.sourceBox, fill.ratio,
                                 piece.label->levelTransfer().coarsen);
      }
    }
    for (const auto& [message, pieceIndex] : fill.remotePieces) {
      const GhostPiece& piece = m_graph.receives[static_cast<std::size_t>(message)]
                                    .pieces[static_cast<std::size_t>(pieceIndex)];
      destination->unpack(piece.sourceBox, m_messages.receiveBuffer(message) + piece.byteOffset);
    }
    m_coarsenDone[static_cast<std::size_t>(index)] = true;
  }
}

}  // namespace tessera
