// Ghost messages as the task graph compiler builds them, for many layouts:
// each rank receives, in one batched message per peer, exactly the remote
// ghost cells of its patches (found cell by cell by brute force), the sender
// lists the same pieces in the same order, and local copies fill the rest.
// Single process: compile() works out any rank's share.
#include <gtest/gtest.h>

#include "GraphTestHelpers.h"
#include "TestHelpers.h"

#include "CCA/Components/Schedulers/TaskGraph.h"
#include "Core/Grid/Grid.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

namespace tessera {
namespace {

using tessera::testing::expectSamePieces;
using tessera::testing::findMessage;
using tessera::testing::makeGrid;
using tessera::testing::makeTask;
using tessera::testing::roundRobin;

struct LayoutCase {
  const char* name;
  IntVector resolution;
  IntVector patches;
  IntVector extra;
  std::array<bool, 3> periodic;
  int numRanks;
  std::vector<int> patchRanks;  // empty: round robin
  int numGhost;
  Ghost::Type ghost = Ghost::AroundCells;
};

// A ghost cell of one patch and where its value comes from, found cell by cell.
struct GhostSource {
  int sourcePatch;
  IntVector sourceCell;
  bool operator==(const GhostSource& o) const {
    return sourcePatch == o.sourcePatch && sourceCell == o.sourceCell;
  }
};
using GhostCellKey = std::pair<int /*dest patch*/, IntVector /*cell*/>;
using GhostCellMap = std::map<GhostCellKey, GhostSource>;

// By brute force: every cell of every patch's ghosted box outside its own
// extended box, wrapped into the level and looked up among the patches.
// With Ghost::AroundFaces only the cells outside the interior along exactly
// one axis count.
std::map<std::pair<int, int>, GhostCellMap> ghostCellsByRankPair(
    const Level& level, const std::vector<int>& ranks, int numGhost,
    Ghost::Type type = Ghost::AroundCells) {
  std::map<std::pair<int, int>, GhostCellMap> byPair;
  const Box domain = level.extendedCellBox();
  for (const Patch& dest : level.patches()) {
    level.ghostedBox(dest, numGhost).forEachCell([&](const IntVector& cell) {
      if (dest.extendedBox().contains(cell)) return;
      if (type == Ghost::AroundFaces) {
        int outside = 0;
        for (int axis = 0; axis < 3; ++axis)
          outside +=
              cell[axis] < dest.interior().lo()[axis] || cell[axis] >= dest.interior().hi()[axis];
        if (outside != 1) return;
      }
      IntVector wrapped = cell;
      for (int axis = 0; axis < 3; ++axis) {
        const int n = level.resolution()[axis];
        if (level.periodic(axis)) wrapped[axis] = ((wrapped[axis] % n) + n) % n;
      }
      ASSERT_TRUE(domain.contains(wrapped)) << cell;
      int source = -1;
      for (const Patch& candidate : level.patches())
        if (candidate.extendedBox().contains(wrapped)) source = candidate.id();
      ASSERT_GE(source, 0) << cell;
      const int from = ranks[static_cast<std::size_t>(source)];
      const int to = ranks[static_cast<std::size_t>(dest.id())];
      byPair[{from, to}][{dest.id(), cell}] = {source, wrapped};
    });
  }
  return byPair;
}

// The ghost cells a list of pieces fills, checking no cell is filled twice.
GhostCellMap cellsOf(const std::vector<GhostPiece>& pieces) {
  GhostCellMap cells;
  for (const GhostPiece& piece : pieces) {
    piece.sourceBox.forEachCell([&](const IntVector& source) {
      const bool fresh =
          cells.insert({{piece.destPatch, source + piece.offset}, {piece.sourcePatch, source}})
              .second;
      EXPECT_TRUE(fresh) << "cell " << source + piece.offset << " of patch " << piece.destPatch
                         << " is filled twice";
    });
  }
  return cells;
}

// The pieces that carry their cells lie one after the other; a piece whose
// cells another of them (same variable, warehouse and source patch) holds
// points into that piece's cells instead. The bytes the message needs: the
// first kind's.
void expectLaidOut(const Message& message) {
  std::size_t at = 0;
  std::vector<const GhostPiece*> carriers;
  for (const GhostPiece& piece : message.pieces) {
    if (piece.sharesData) continue;
    EXPECT_EQ(piece.byteOffset, at);
    EXPECT_EQ(piece.packedBytes(), piece.bytes());
    at += piece.bytes();
    carriers.push_back(&piece);
  }
  EXPECT_EQ(message.bytes, at);
  for (const GhostPiece& piece : message.pieces) {
    if (!piece.sharesData) continue;
    EXPECT_EQ(piece.packedBytes(), 0u);
    const auto holder = std::find_if(carriers.begin(), carriers.end(), [&](const GhostPiece* c) {
      return c->label == piece.label && c->dw == piece.dw && c->sourcePatch == piece.sourcePatch &&
             c->sourceBox.contains(piece.sourceBox) && c->sourceBox.size() == piece.packedExtent;
    });
    ASSERT_NE(holder, carriers.end()) << "no piece of the message holds " << piece.sourceBox;
    const GhostPiece& held = **holder;
    const IntVector at3 = piece.sourceBox.lo() - held.sourceBox.lo();
    const IntVector n = held.sourceBox.size();
    EXPECT_EQ(piece.byteOffset,
              held.byteOffset +
                  static_cast<std::size_t>((at3.z * n.y + at3.y) * n.x + at3.x) * sizeof(double));
  }
}

// The graph the tests here compile: on every patch of `level`, a task
// reading u from the old warehouse with ghost cells and computing v.
struct AdvanceGraph {
  AdvanceGraph(const Level& level, Ghost::Type ghost, int depth) {
    graph.addTask(
        std::move(makeTask("advance").requiresVar(Task::OldDW, u, ghost, depth).computesVar(v)),
        level.eachPatch());
  }
  VarLabelRegistry labels;
  const VarLabel* u = labels.create<CCVariable<double>>("u");
  const VarLabel* v = labels.create<CCVariable<double>>("v");
  TaskGraph graph{"step"};
};

class GhostMessageTest : public ::testing::TestWithParam<LayoutCase> {};

TEST_P(GhostMessageTest, OneBatchedMessagePerPeerCarryingExactlyTheRemoteGhostCells) {
  const LayoutCase& c = GetParam();
  const Grid grid = makeGrid(c.resolution, c.patches, c.extra, c.periodic);
  const Level& level = grid.level(0);
  const std::vector<int> ranks =
      c.patchRanks.empty() ? roundRobin(grid.numPatches(), c.numRanks) : c.patchRanks;
  const AdvanceGraph advance(level, c.ghost, c.numGhost);
  const TaskGraph& graph = advance.graph;

  const auto expected = ghostCellsByRankPair(level, ranks, c.numGhost, c.ghost);
  std::vector<CompiledGraph> perRank;
  for (int r = 0; r < c.numRanks; ++r)
    perRank.push_back(graph.compile(grid, ranks, r));

  for (int r = 0; r < c.numRanks; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const CompiledGraph& compiled = perRank[static_cast<std::size_t>(r)];
    const auto owned = static_cast<std::size_t>(std::count(ranks.begin(), ranks.end(), r));
    EXPECT_EQ(compiled.detailedTasks.size(), owned);
    EXPECT_EQ(compiled.fills.size(), owned);
    for (const Message& m : compiled.sends) {
      EXPECT_EQ(m.phase, 0);
      EXPECT_EQ(m.tag, m.phase);
      EXPECT_TRUE(m.producers.empty()) << "OldDW data needs no producer";
    }
    for (const Message& m : compiled.receives)
      EXPECT_EQ(m.tag, m.phase);
    std::size_t peersExpected = 0;
    for (int q = 0; q < c.numRanks; ++q) {
      if (q == r) continue;
      SCOPED_TRACE("peer " + std::to_string(q));
      auto in = expected.find({q, r});
      const Message* received = findMessage(compiled.receives, q, 0);
      if (in == expected.end()) {
        EXPECT_EQ(received, nullptr);
        continue;
      }
      ++peersExpected;
      ASSERT_NE(received, nullptr);
      // Each cell once: a corner's cells inside a face sent to a patch of
      // the same rank travel once.
      EXPECT_LE(received->bytes, in->second.size() * sizeof(double));
      expectLaidOut(*received);
      EXPECT_TRUE(cellsOf(received->pieces) == in->second);
      // The sender lists the same pieces in the same order.
      const Message* sent = findMessage(perRank[static_cast<std::size_t>(q)].sends, r, 0);
      ASSERT_NE(sent, nullptr);
      expectSamePieces(*sent, *received);
    }
    EXPECT_EQ(compiled.receives.size(), peersExpected);
    EXPECT_EQ(compiled.sends.size(), static_cast<std::size_t>(std::count_if(
                                         expected.begin(), expected.end(), [&](const auto& e) {
                                           return e.first.first == r && e.first.second != r;
                                         })));
    // Local copies fill exactly the ghost cells this rank owns the source of,
    // and every received piece lands in the fill of its destination patch.
    std::vector<GhostPiece> local;
    std::size_t remotePieces = 0;
    for (const GhostFill& fill : compiled.fills) {
      EXPECT_EQ(ranks[static_cast<std::size_t>(fill.patchId)], r);
      EXPECT_EQ(fill.numGhost, c.numGhost);
      local.insert(local.end(), fill.localCopies.begin(), fill.localCopies.end());
      local.insert(local.end(), fill.groupCopies.begin(), fill.groupCopies.end());
      for (const auto& [message, piece] : fill.remotePieces) {
        EXPECT_EQ(compiled.receives[static_cast<std::size_t>(message)]
                      .pieces[static_cast<std::size_t>(piece)]
                      .destPatch,
                  fill.patchId);
        ++remotePieces;
      }
    }
    auto self = expected.find({r, r});
    EXPECT_TRUE(cellsOf(local) == (self == expected.end() ? GhostCellMap{} : self->second));
    std::size_t piecesReceived = 0;
    for (const Message& m : compiled.receives)
      piecesReceived += m.pieces.size();
    EXPECT_EQ(remotePieces, piecesReceived);
  }
}

// Patch 0 of 2 x 2 x 1 alone on rank 0: its x face goes to patch 1, its y
// face to patch 2, and its corner column to patch 3, all on rank 1. The
// corner lies inside both faces, so it travels in the first face (the
// larger, then the first listed) and the message is the two faces' bytes.
TEST(GhostMessages, APieceInsideAnotherOfTheMessageTravelsInIt) {
  const Grid grid = makeGrid({8, 8, 8}, {2, 2, 1}, {0, 0, 0}, {false, false, false});
  const std::vector<int> ranks{0, 1, 1, 1};
  const AdvanceGraph advance(grid.level(0), Ghost::AroundCells, 1);
  const TaskGraph& graph = advance.graph;
  const CompiledGraph sender = graph.compile(grid, ranks, 0);
  const CompiledGraph receiver = graph.compile(grid, ranks, 1);
  const Message* sent = findMessage(sender.sends, 1, 0);
  const Message* received = findMessage(receiver.receives, 0, 0);
  ASSERT_NE(sent, nullptr);
  ASSERT_NE(received, nullptr);
  expectSamePieces(*sent, *received);
  expectLaidOut(*received);
  const auto toPatch = [&](int id) {
    const auto found = std::find_if(received->pieces.begin(), received->pieces.end(),
                                    [&](const GhostPiece& p) { return p.destPatch == id; });
    EXPECT_NE(found, received->pieces.end()) << "no piece for patch " << id;
    return found == received->pieces.end() ? GhostPiece{} : *found;
  };
  EXPECT_EQ(received->pieces.size(), 3u);
  EXPECT_FALSE(toPatch(1).sharesData);
  EXPECT_FALSE(toPatch(2).sharesData);
  const GhostPiece corner = toPatch(3);
  EXPECT_TRUE(corner.sharesData);
  EXPECT_EQ(corner.sourceBox, Box({3, 3, 0}, {4, 4, 8}));
  EXPECT_EQ(received->bytes, (4 * 8 + 4 * 8) * sizeof(double));
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, GhostMessageTest,
    ::testing::Values(
        LayoutCase{
            "Columns", {8, 8, 8}, {2, 2, 1}, {0, 0, 0}, {false, false, false}, 2, {0, 1, 0, 1}, 1},
        LayoutCase{"ColumnsExtraCells",
                   {8, 8, 8},
                   {2, 2, 1},
                   {1, 1, 1},
                   {false, false, false},
                   2,
                   {0, 1, 0, 1},
                   1},
        LayoutCase{
            "PeriodicRoundRobin3", {8, 8, 8}, {2, 2, 2}, {0, 0, 0}, {true, true, true}, 3, {}, 2},
        LayoutCase{
            "UnevenMixed4", {10, 7, 5}, {3, 2, 1}, {2, 2, 0}, {false, false, true}, 4, {}, 3},
        LayoutCase{"FacesPeriodicRoundRobin3",
                   {8, 8, 8},
                   {2, 2, 2},
                   {0, 0, 0},
                   {true, true, true},
                   3,
                   {},
                   2,
                   Ghost::AroundFaces},
        // Many ranks with few patches each: the compiler looks only at the
        // patches near its own, and both ends must still agree on every piece.
        LayoutCase{"ManyRanksFewPatchesEach",
                   {12, 10, 8},
                   {6, 5, 4},
                   {1, 0, 1},
                   {false, true, false},
                   7,
                   {},
                   2,
                   Ghost::AroundCells},
        LayoutCase{"FacesUnevenMixed4",
                   {10, 7, 5},
                   {3, 2, 2},
                   {1, 2, 0},
                   {false, false, true},
                   4,
                   {},
                   1,
                   Ghost::AroundFaces}),
    [](const ::testing::TestParamInfo<LayoutCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tessera
