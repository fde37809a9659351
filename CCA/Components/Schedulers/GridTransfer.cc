#include "CCA/Components/Schedulers/GridTransfer.h"

#include "CCA/Components/Schedulers/CommTimer.h"
#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Components/Schedulers/GhostFills.h"
#include "CCA/Components/Schedulers/MessageBuffers.h"
#include "CCA/Components/Schedulers/MessageExchange.h"
#include "Core/Grid/PatchGroup.h"
#include "Core/Grid/Variables/GridVariableFactory.h"
#include "Core/Grid/Variables/LevelOperators.h"
#include "Core/Parallel/Communicator.h"
#include "Core/Util/Error.h"
#include "Core/Util/Trace.h"

#include <map>
#include <memory>
#include <utility>

namespace tessera {

namespace {

// The coarse cells one finer patch's label is refined from (GhostFill's
// staging): where they lie and which part of them the level below holds.
struct Staging {
  Box box;
  Box held;
  std::vector<Box> fineBoxes;  // the destination's cells refined from it
  std::unique_ptr<GridVariableBase> cells;
};

// The pieces of one phase (the copies of one level, or the coarse cells of
// its refinement), as every rank enumerates them in the same order: those
// with both ends here, and one message per peer each way.
class Phase {
 public:
  Phase(const Grid& sourceGrid, Task::WhichDW sourceDW, int rank)
      : m_sourceDW(sourceDW), m_rank(rank) {
    m_graph.name = "grid transfer";
    m_graph.grid = &sourceGrid;
    m_graph.rank = rank;
  }

  void add(GhostPiece piece, int sourceRank, int destinationRank) {
    piece.dw = m_sourceDW;
    if (sourceRank == m_rank && destinationRank == m_rank) {
      m_local.push_back(piece);
      return;
    }
    if (sourceRank == m_rank) append(m_sends, destinationRank, piece);
    if (destinationRank == m_rank) append(m_receives, sourceRank, piece);
  }

  const std::vector<GhostPiece>& local() const { return m_local; }

  // Sends this rank's pieces and receives the others'; `arrived(piece,
  // data)` is called for every piece that came by message, once all did.
  template <class Arrived>
  void exchange(const GridSide& from, const GridSide& to, const Communicator& comm, int tagBase,
                SchedulerStats& stats, TraceTrack* trace, GridTransferCounts& counts,
                const Arrived& arrived) {
    for (auto& [peer, message] : m_sends)
      m_graph.sends.push_back(std::move(message));
    for (auto& [peer, message] : m_receives)
      m_graph.receives.push_back(std::move(message));
    MessageBuffers buffers;
    CommContext context{stats, {}, trace};
    MessageExchange messages(m_graph, from.dw, to.dw, comm, context, 0, tagBase, buffers);
    messages.start(false);
    while (messages.receivesOutstanding())
      messages.progress();
    messages.checkComplete();
    for (const Message& send : m_graph.sends) {
      ++counts.messages;
      counts.bytesSent += static_cast<std::int64_t>(send.bytes);
    }
    for (std::size_t r = 0; r < m_graph.receives.size(); ++r) {
      const std::byte* data = messages.receiveBuffer(static_cast<int>(r));
      for (const GhostPiece& piece : m_graph.receives[r].pieces)
        arrived(piece, data + piece.byteOffset);
    }
  }

 private:
  static void append(std::map<int, Message>& messages, int peer, GhostPiece piece) {
    Message& message = messages[peer];
    message.peer = peer;
    piece.byteOffset = message.bytes;
    message.bytes += piece.bytes();
    message.pieces.push_back(piece);
  }

  Task::WhichDW m_sourceDW;
  int m_rank;
  CompiledGraph m_graph;
  std::vector<GhostPiece> m_local;
  std::map<int, Message> m_sends, m_receives;
};

GridVariableBase& variableOf(OnDemandDataWarehouse& dw, const VarLabel* label, const Patch& patch) {
  const auto var = dw.findGridVariable(label, patch);
  TESSERA_REQUIRE_THROWS(var != nullptr, "grid transfer: '" << label->name() << "' is not on "
                                                            << patch << " in " << dw.name());
  return *var;
}

// Where the label's cells of `patch` outside `held` are refined from.
Staging stagingFor(const Patch& patch, const std::vector<Box>& held, const VarLabel* label) {
  Staging staging;
  staging.fineBoxes = {patch.extendedBox()};
  for (const Box& box : held)
    staging.fineBoxes = difference(staging.fineBoxes, box);
  if (staging.fineBoxes.empty()) return staging;
  const Level& level = patch.level();
  const Level& coarse = *level.coarser();
  for (const Box& box : staging.fineBoxes) {
    const Box footprint =
        refineFootprint(box, level.refinementRatio(), label->levelTransfer().refine);
    staging.box = staging.box.empty() ? footprint
                                      : Box{min(staging.box.lo(), footprint.lo()),
                                            max(staging.box.hi(), footprint.hi())};
  }
  staging.held = heldPart(coarse, staging.box);
  return staging;
}

}  // namespace

GridTransferCounts transferGrid(const GridSide& from, const GridSide& to,
                                const std::vector<const VarLabel*>& labels,
                                const Communicator& comm, SchedulerStats& stats,
                                TraceTrack* trace) {
  const TraceScope traced(trace, "grid transfer", "comm");
  const int rank = comm.rank();
  GridTransferCounts counts;
  const auto ownerFrom = [&](int id) { return from.patchRanks.at(static_cast<std::size_t>(id)); };
  const auto ownerTo = [&](int id) { return to.patchRanks.at(static_cast<std::size_t>(id)); };

  for (int l = 0; l < to.grid.numLevels(); ++l) {
    const Level& level = to.grid.level(l);
    const Level* old = l < from.grid.numLevels() ? &from.grid.level(l) : nullptr;
    // One allocation per patch group, as the timestep graph's tasks will
    // want them: a variable per patch would be gathered into one at its
    // group's first read (another copy of every cell).
    std::vector<const Patch*> local;
    for (const Patch& patch : level.patches())
      if (ownerTo(patch.id()) == rank) local.push_back(&patch);
    for (const PatchGroup& group : formPatchGroups(local, to.patchGroups)) {
      for (const VarLabel* label : labels) {
        to.dw.putGroupVariable(
            label, group,
            makeGridVariable(label, group.ghostedBox(to.dw.ghostLayersToAllocate(label))));
      }
    }

    // What the old grid's level held: copied (or sent) as it is. `held`
    // keeps, per patch of the level, the cells that came so.
    Phase copies(from.grid, Task::OldDW, rank);
    std::vector<std::vector<Box>> held(level.patches().size());
    if (old != nullptr) {
      for (const Patch& patch : level.patches()) {
        for (const Patch* source : old->patchesIntersecting(patch.extendedBox())) {
          const Box box = source->extendedBox().intersection(patch.extendedBox());
          held[static_cast<std::size_t>(patch.id() - level.firstPatchId())].push_back(box);
          for (const VarLabel* label : labels) {
            copies.add({label, Task::OldDW, source->id(), patch.id(), box, IntVector{}, 0},
                       ownerFrom(source->id()), ownerTo(patch.id()));
          }
        }
      }
    }
    for (const GhostPiece& piece : copies.local()) {
      variableOf(to.dw, piece.label, to.grid.patchById(piece.destPatch))
          .copyFrom(variableOf(from.dw, piece.label, from.grid.patchById(piece.sourcePatch)),
                    piece.sourceBox, IntVector{});
      counts.copiedCells += piece.sourceBox.volume();
    }
    copies.exchange(from, to, comm, 2 * l, stats, trace, counts,
                    [&](const GhostPiece& piece, const std::byte* data) {
                      variableOf(to.dw, piece.label, to.grid.patchById(piece.destPatch))
                          .unpack(piece.sourceBox, data);
                      counts.copiedCells += piece.sourceBox.volume();
                    });
    if (l == 0) continue;

    // The rest refined from the new grid's level below, filled just before.
    const Level& coarse = *level.coarser();
    Phase coarseCells(to.grid, Task::NewDW, rank);
    std::map<std::pair<int, const VarLabel*>, Staging> stagings;
    for (const Patch& patch : level.patches()) {
      const std::vector<Box>& cameBefore =
          held[static_cast<std::size_t>(patch.id() - level.firstPatchId())];
      for (const VarLabel* label : labels) {
        Staging staging = stagingFor(patch, cameBefore, label);
        if (staging.fineBoxes.empty()) continue;
        const std::vector<GhostRegion> sources = coarse.sourcesOf(staging.held);
        std::vector<Box> missing{staging.held};
        for (const GhostRegion& source : sources)
          missing = difference(missing, source.destinationBox());
        TESSERA_REQUIRE_THROWS(missing.empty(), "regridding '"
                                                    << label->name() << "' onto " << patch
                                                    << " (level " << l << ") needs cells "
                                                    << missing.front() << " of level " << l - 1
                                                    << ", which it does not hold: the new level is "
                                                       "not nested deeply enough (raise "
                                                       "amr.nesting_buffer)");
        for (const GhostRegion& source : sources) {
          GhostPiece piece{label,      Task::NewDW,      source.source->id(),
                           patch.id(), source.sourceBox, source.offset,
                           0};
          piece.toStaging = true;
          coarseCells.add(piece, ownerTo(source.source->id()), ownerTo(patch.id()));
        }
        if (ownerTo(patch.id()) == rank) {
          const GridVariableBase& prototype = variableOf(to.dw, label, patch);
          staging.cells = prototype.cloneEmpty(staging.box);
          stagings.emplace(std::make_pair(patch.id(), label), std::move(staging));
        }
      }
    }
    const auto stagingOf = [&](const GhostPiece& piece) -> GridVariableBase& {
      return *stagings.at({piece.destPatch, piece.label}).cells;
    };
    for (const GhostPiece& piece : coarseCells.local()) {
      stagingOf(piece).copyFrom(
          variableOf(to.dw, piece.label, to.grid.patchById(piece.sourcePatch)), piece.sourceBox,
          piece.offset);
    }
    coarseCells.exchange(from, to, comm, 2 * l + 1, stats, trace, counts,
                         [&](const GhostPiece& piece, const std::byte* data) {
                           stagingOf(piece).unpack(piece.sourceBox.shift(piece.offset), data);
                         });
    for (auto& [key, staging] : stagings) {
      repeatPastHeld(*staging.cells, staging.held);
      GridVariableBase& destination = variableOf(to.dw, key.second, to.grid.patchById(key.first));
      for (const Box& box : staging.fineBoxes) {
        destination.refineFrom(*staging.cells, box, level.refinementRatio(),
                               key.second->levelTransfer().refine);
        counts.refinedCells += box.volume();
      }
    }
  }
  return counts;
}

}  // namespace tessera
