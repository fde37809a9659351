// TaskGraph: ordering tasks by their data, the errors that name what is
// missing, and the detailed graph (tasks, ghost fills, batched messages) one
// rank compiles. Single process: compile() works out any rank's share.
#include <gtest/gtest.h>

#include "TestHelpers.h"

#include "CCA/Components/Schedulers/GraphvizWriter.h"
#include "CCA/Components/Schedulers/TaskGraph.h"
#include "CCA/Components/Schedulers/TaskOrder.h"
#include "CCA/Ports/DataWarehouse.h"
#include "CCA/Ports/ExecutionContext.h"
#include "Core/Grid/Grid.h"
#include "Core/Util/Error.h"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace tessera {
namespace {

using tessera::testing::errorOf;
using tessera::testing::expectMentions;
using tessera::testing::makeGrid;
using tessera::testing::roundRobin;

Task makeTask(const std::string& name) {
  return Task(name, [](const Patch&, const DataWarehouse&, DataWarehouse&, ExecutionContext&) {});
}

int positionOf(const CompiledGraph& graph, const std::string& name) {
  for (std::size_t t = 0; t < graph.tasks.size(); ++t)
    if (graph.tasks[t].name() == name) return static_cast<int>(t);
  return -1;
}

// The detailed task of task `name` on patch `patchId`, or -1.
int nodeOf(const CompiledGraph& graph, const std::string& name, int patchId) {
  const int task = positionOf(graph, name);
  for (const DetailedTask& node : graph.detailedTasks) {
    if (node.taskIndex == task && node.kind == DetailedTask::Kind::PatchTask &&
        node.patch->id() == patchId)
      return node.id;
  }
  return -1;
}

bool hasPredecessor(const DetailedTask& node, int predecessor) {
  return std::find(node.predecessors.begin(), node.predecessors.end(), predecessor) !=
         node.predecessors.end();
}

const Message* findMessage(const std::vector<Message>& list, int peer, int phase) {
  const Message* found = nullptr;
  for (const Message& m : list) {
    if (m.peer != peer || m.phase != phase) continue;
    EXPECT_EQ(found, nullptr) << "two messages for peer " << peer << " phase " << phase;
    found = &m;
  }
  return found;
}

class TaskGraphTest : public ::testing::Test {
 protected:
  VarLabelRegistry m_labels;
  const VarLabel* m_u = m_labels.create<CCVariable<double>>("u");
  const VarLabel* m_x = m_labels.create<CCVariable<double>>("X");
  const VarLabel* m_y = m_labels.create<CCVariable<double>>("Y");
  const VarLabel* m_z = m_labels.create<CCVariable<double>>("Z");
  const VarLabel* m_delT = m_labels.create<MinVariable<double>>("delT");
  Grid m_grid = makeGrid({8, 8, 8}, {2, 2, 1});
  std::vector<int> m_allOnZero = std::vector<int>(4, 0);
  std::vector<int> m_columns = {0, 1, 0, 1};  // rank 0 owns x < 4, rank 1 x >= 4
  std::vector<const Patch*> eachPatch() const { return m_grid.level(0).eachPatch(); }
};

// ---------------------------------------------------------------- ordering

TEST_F(TaskGraphTest, ProducerRunsFirstWhenAddedAfterItsConsumer) {
  TaskGraph graph("step");
  graph.addTask(std::move(makeTask("consumer").requiresVar(Task::NewDW, m_x).computesVar(m_y)),
                eachPatch());
  graph.addTask(std::move(makeTask("producer").computesVar(m_x)), eachPatch());
  const CompiledGraph compiled = graph.compile(m_grid, m_allOnZero, 0);
  ASSERT_EQ(compiled.tasks.size(), 2U);
  EXPECT_EQ(compiled.tasks[0].name(), "producer");
  EXPECT_EQ(compiled.tasks[1].name(), "consumer");
  ASSERT_EQ(compiled.detailedTasks.size(), 8U);
  for (int p = 0; p < 4; ++p) {
    const int producer = nodeOf(compiled, "producer", p);
    const int consumer = nodeOf(compiled, "consumer", p);
    ASSERT_GE(producer, 0);
    ASSERT_GT(consumer, producer);
    EXPECT_TRUE(
        hasPredecessor(compiled.detailedTasks[static_cast<std::size_t>(consumer)], producer));
    EXPECT_EQ(compiled.detailedTasks[static_cast<std::size_t>(consumer)].predecessors.size(), 1U);
  }
}

TEST_F(TaskGraphTest, ModifierRunsAfterComputerAndBeforeReaders) {
  TaskGraph graph("step");
  graph.addTask(std::move(makeTask("reader").requiresVar(Task::NewDW, m_x).computesVar(m_y)),
                eachPatch());
  graph.addTask(std::move(makeTask("modifier").modifiesVar(m_x)), eachPatch());
  graph.addTask(std::move(makeTask("computer").computesVar(m_x)), eachPatch());
  const CompiledGraph compiled = graph.compile(m_grid, m_allOnZero, 0);
  ASSERT_EQ(compiled.tasks.size(), 3U);
  EXPECT_EQ(compiled.tasks[0].name(), "computer");
  EXPECT_EQ(compiled.tasks[1].name(), "modifier");
  EXPECT_EQ(compiled.tasks[2].name(), "reader");
  const DetailedTask& modifier =
      compiled.detailedTasks[static_cast<std::size_t>(nodeOf(compiled, "modifier", 2))];
  const DetailedTask& reader =
      compiled.detailedTasks[static_cast<std::size_t>(nodeOf(compiled, "reader", 2))];
  EXPECT_TRUE(hasPredecessor(modifier, nodeOf(compiled, "computer", 2)));
  EXPECT_TRUE(hasPredecessor(reader, modifier.id));
}

TEST_F(TaskGraphTest, IndependentTasksKeepTheirAddOrder) {
  std::vector<Task> tasks;
  tasks.push_back(std::move(makeTask("c").requiresVar(Task::NewDW, m_x).computesVar(m_z)));
  tasks.push_back(std::move(makeTask("b").computesVar(m_y)));
  tasks.push_back(std::move(makeTask("a").computesVar(m_x)));
  const TaskOrder order = orderTasks({&tasks[0], &tasks[1], &tasks[2]});
  EXPECT_EQ(order.order, (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(order.writerChains.at(m_x), (std::vector<int>{2}));
}

// ---------------------------------------------------------------- errors

TEST_F(TaskGraphTest, MissingProducerNamesTaskVariableAndWarehouse) {
  TaskGraph graph("step");
  graph.addTask(std::move(makeTask("consumer").requiresVar(Task::NewDW, m_x).computesVar(m_y)),
                eachPatch());
  expectMentions(errorOf([&] { graph.compile(m_grid, m_allOnZero, 0); }),
                 {"'consumer'", "'X'", "NewDW"});
}

TEST_F(TaskGraphTest, TwoComputingTasksIsAnError) {
  TaskGraph graph("step");
  graph.addTask(std::move(makeTask("first").computesVar(m_x)), eachPatch());
  graph.addTask(std::move(makeTask("second").computesVar(m_x)), eachPatch());
  expectMentions(errorOf([&] { graph.compile(m_grid, m_allOnZero, 0); }),
                 {"'first'", "'second'", "'X'", "NewDW"});
}

TEST_F(TaskGraphTest, CycleOfTwoTasksNamesBothAndTheirVariables) {
  TaskGraph graph("step");
  graph.addTask(std::move(makeTask("A").requiresVar(Task::NewDW, m_x).computesVar(m_y)),
                eachPatch());
  graph.addTask(std::move(makeTask("B").requiresVar(Task::NewDW, m_y).computesVar(m_x)),
                eachPatch());
  const std::string message = errorOf([&] { graph.compile(m_grid, m_allOnZero, 0); });
  expectMentions(message, {"cycle", "'A'", "'B'", "'X'", "'Y'", "NewDW"});
}

TEST_F(TaskGraphTest, CycleReportSkipsTasksMerelyWaitingOnIt) {
  std::vector<Task> tasks;
  tasks.push_back(std::move(makeTask("waiter").requiresVar(Task::NewDW, m_x).computesVar(m_z)));
  tasks.push_back(std::move(makeTask("A").requiresVar(Task::NewDW, m_x).computesVar(m_y)));
  tasks.push_back(std::move(makeTask("B").requiresVar(Task::NewDW, m_y).computesVar(m_x)));
  const std::string message = errorOf([&] { orderTasks({&tasks[0], &tasks[1], &tasks[2]}); });
  expectMentions(message, {"'A'", "'B'"});
  EXPECT_EQ(message.find("waiter"), std::string::npos) << message;
}

TEST_F(TaskGraphTest, ModifyWithoutComputingTaskIsAnError) {
  TaskGraph graph("step");
  graph.addTask(std::move(makeTask("modifier").modifiesVar(m_x)), eachPatch());
  expectMentions(errorOf([&] { graph.compile(m_grid, m_allOnZero, 0); }),
                 {"'modifier'", "'X'", "NewDW"});
}

TEST_F(TaskGraphTest, ReadingWhatItComputesIsAnError) {
  TaskGraph graph("step");
  graph.addTask(std::move(makeTask("selfish").requiresVar(Task::NewDW, m_x).computesVar(m_x)),
                eachPatch());
  expectMentions(errorOf([&] { graph.compile(m_grid, m_allOnZero, 0); }),
                 {"'selfish'", "'X'", "NewDW"});
}

TEST_F(TaskGraphTest, LoadBalanceOfWrongSizeIsAnError) {
  TaskGraph graph("step");
  graph.addTask(std::move(makeTask("producer").computesVar(m_x)), eachPatch());
  EXPECT_THROW(graph.compile(m_grid, {0, 0, 0}, 0), Error);
}

// ---------------------------------------------------------------- OldDW ghost messages

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
          outside += cell[axis] < dest.interior().lo()[axis] || cell[axis] >= dest.interior().hi()[axis];
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

void expectSamePieces(const Message& sent, const Message& received) {
  EXPECT_EQ(sent.bytes, received.bytes);
  EXPECT_EQ(sent.tag, received.tag);
  ASSERT_EQ(sent.pieces.size(), received.pieces.size());
  for (std::size_t k = 0; k < sent.pieces.size(); ++k) {
    SCOPED_TRACE("piece " + std::to_string(k));
    const GhostPiece& a = sent.pieces[k];
    const GhostPiece& b = received.pieces[k];
    EXPECT_EQ(a.label, b.label);
    EXPECT_EQ(a.dw, b.dw);
    EXPECT_EQ(a.sourcePatch, b.sourcePatch);
    EXPECT_EQ(a.destPatch, b.destPatch);
    EXPECT_EQ(a.sourceBox, b.sourceBox);
    EXPECT_EQ(a.offset, b.offset);
    EXPECT_EQ(a.byteOffset, b.byteOffset);
  }
}

void expectContiguous(const Message& message) {
  std::size_t at = 0;
  for (const GhostPiece& piece : message.pieces) {
    EXPECT_EQ(piece.byteOffset, at);
    at += piece.bytes();
  }
  EXPECT_EQ(message.bytes, at);
}

class GhostMessageTest : public ::testing::TestWithParam<LayoutCase> {};

TEST_P(GhostMessageTest, OneBatchedMessagePerPeerCarryingExactlyTheRemoteGhostCells) {
  const LayoutCase& c = GetParam();
  const Grid grid = makeGrid(c.resolution, c.patches, c.extra, c.periodic);
  const Level& level = grid.level(0);
  const std::vector<int> ranks =
      c.patchRanks.empty() ? roundRobin(grid.numPatches(), c.numRanks) : c.patchRanks;
  VarLabelRegistry labels;
  const VarLabel* u = labels.create<CCVariable<double>>("u");
  const VarLabel* v = labels.create<CCVariable<double>>("v");
  TaskGraph graph("step");
  graph.addTask(std::move(makeTask("advance")
                              .requiresVar(Task::OldDW, u, c.ghost, c.numGhost)
                              .computesVar(v)),
                level.eachPatch());

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
      EXPECT_EQ(received->bytes, in->second.size() * sizeof(double));
      expectContiguous(*received);
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

TEST_F(TaskGraphTest, KnownLayoutMessageSizes) {
  TaskGraph graph("step");
  graph.addTask(std::move(makeTask("advance")
                              .requiresVar(Task::OldDW, m_u, Ghost::AroundCells, 1)
                              .computesVar(m_x)),
                eachPatch());
  const CompiledGraph rank0 = graph.compile(m_grid, m_columns, 0);
  EXPECT_EQ(rank0.detailedTasks.size(), 2U);
  ASSERT_EQ(rank0.sends.size(), 1U);
  ASSERT_EQ(rank0.receives.size(), 1U);
  // Patches 0 and 2 each take a 1 x 5 x 8 column of ghost cells from x = 4.
  EXPECT_EQ(rank0.receives[0].bytes, 2U * 5 * 8 * sizeof(double));
  EXPECT_EQ(rank0.sends[0].bytes, 2U * 5 * 8 * sizeof(double));
  EXPECT_EQ(rank0.bytesReceived(), rank0.receives[0].bytes);
  EXPECT_EQ(rank0.ghostLayers.at(m_u), 1);
  EXPECT_EQ(rank0.oldDWReads.count(m_u), 1U);
  // Compiling again gives the same messages (tags and pieces are deterministic).
  const CompiledGraph again = graph.compile(m_grid, m_columns, 0);
  expectSamePieces(again.receives[0], rank0.receives[0]);
  expectSamePieces(again.sends[0], rank0.sends[0]);
}

TEST_F(TaskGraphTest, FaceGhostsSendOnlyTheFaces) {
  const Grid grid = makeGrid({6, 6, 6}, {2, 2, 2});
  const std::vector<int> ranks = roundRobin(8, 2);
  std::size_t bytes[2] = {0, 0};
  for (const Ghost::Type type : {Ghost::AroundCells, Ghost::AroundFaces}) {
    TaskGraph graph("step");
    graph.addTask(std::move(makeTask("advance").requiresVar(Task::OldDW, m_u, type, 1).computesVar(m_x)),
                  grid.level(0).eachPatch());
    const CompiledGraph rank0 = graph.compile(grid, ranks, 0);
    bytes[type == Ghost::AroundFaces] = rank0.bytesReceived();
    for (const GhostFill& fill : rank0.fills) EXPECT_EQ(fill.type, type);
  }
  // Patches 0, 2, 4, 6 on rank 0 take from 1, 3, 5, 7: one 1 x 3 x 3 face
  // each; with edges and corners 1 x 4 x 4.
  EXPECT_EQ(bytes[1], 4U * 3 * 3 * sizeof(double));
  EXPECT_EQ(bytes[0], 4U * 4 * 4 * sizeof(double));
}

TEST_F(TaskGraphTest, ReadersOfBothGhostKindsGetAllTheCells) {
  const Grid grid = makeGrid({6, 6, 6}, {2, 2, 2});
  TaskGraph graph("step");
  graph.addTask(std::move(makeTask("faces").requiresVar(Task::OldDW, m_u, Ghost::AroundFaces, 1).computesVar(m_x)),
                grid.level(0).eachPatch());
  graph.addTask(std::move(makeTask("cells").requiresVar(Task::OldDW, m_u, Ghost::AroundCells, 1).computesVar(m_y)),
                grid.level(0).eachPatch());
  const CompiledGraph rank0 = graph.compile(grid, roundRobin(8, 2), 0);
  ASSERT_FALSE(rank0.fills.empty());
  for (const GhostFill& fill : rank0.fills) EXPECT_EQ(fill.type, Ghost::AroundCells);
  EXPECT_EQ(rank0.bytesReceived(), 4U * 4 * 4 * sizeof(double));
}

// ---------------------------------------------------------------- NewDW ghost dependencies

TEST_F(TaskGraphTest, NewDWGhostsComeFromTheProducerOnEachNeighbour) {
  TaskGraph graph("step");
  graph.addTask(
      std::move(
          makeTask("B").requiresVar(Task::NewDW, m_x, Ghost::AroundCells, 1).computesVar(m_y)),
      eachPatch());
  graph.addTask(std::move(makeTask("A").computesVar(m_x)), eachPatch());
  for (int r = 0; r < 2; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const CompiledGraph compiled = graph.compile(m_grid, m_columns, r);
    const int a = positionOf(compiled, "A");
    ASSERT_EQ(a, 0);
    const int phase = 1 + a;
    const int peer = 1 - r;
    const int mine[2] = {r, r + 2};  // patches on this rank
    const int theirs[2] = {peer, peer + 2};
    for (int p : mine) {
      const DetailedTask& reader =
          compiled.detailedTasks[static_cast<std::size_t>(nodeOf(compiled, "B", p))];
      // Own patch and the local neighbour (patches 0 and 2 touch, as do 1 and 3).
      for (int q : mine)
        EXPECT_TRUE(hasPredecessor(reader, nodeOf(compiled, "A", q))) << q;
      ASSERT_EQ(reader.fills.size(), 1U);
      const GhostFill& fill = compiled.fills[static_cast<std::size_t>(reader.fills[0])];
      EXPECT_EQ(fill.dw, Task::NewDW);
      EXPECT_EQ(fill.label, m_x);
      ASSERT_EQ(fill.localCopies.size(), 1U);
      EXPECT_EQ(fill.localCopies[0].sourcePatch, p == mine[0] ? mine[1] : mine[0]);
      EXPECT_FALSE(fill.remotePieces.empty());
      for (const auto& [message, piece] : fill.remotePieces) {
        EXPECT_EQ(compiled.receives[static_cast<std::size_t>(message)].phase, phase);
      }
    }
    EXPECT_EQ(findMessage(compiled.receives, peer, 0), nullptr);
    EXPECT_EQ(findMessage(compiled.sends, peer, 0), nullptr);
    ASSERT_EQ(compiled.sends.size(), 1U);
    const Message& send = compiled.sends[0];
    EXPECT_EQ(send.phase, phase);
    EXPECT_EQ(send.tag, phase);
    std::vector<int> producers = send.producers;
    std::sort(producers.begin(), producers.end());
    std::vector<int> expectedProducers = {nodeOf(compiled, "A", mine[0]),
                                          nodeOf(compiled, "A", mine[1])};
    std::sort(expectedProducers.begin(), expectedProducers.end());
    EXPECT_EQ(producers, expectedProducers);
    for (int producer : producers) {
      EXPECT_EQ(compiled.detailedTasks[static_cast<std::size_t>(producer)].sendsToRelease,
                std::vector<int>{0});
    }
    for (int q : theirs)
      EXPECT_EQ(nodeOf(compiled, "B", q), -1);
  }
}

TEST_F(TaskGraphTest, GhostsOfAModifiedVariableComeFromTheLastModifier) {
  TaskGraph graph("step");
  graph.addTask(
      std::move(
          makeTask("reader").requiresVar(Task::NewDW, m_x, Ghost::AroundCells, 1).computesVar(m_y)),
      eachPatch());
  graph.addTask(std::move(makeTask("computer").computesVar(m_x)), eachPatch());
  graph.addTask(std::move(makeTask("modifier").modifiesVar(m_x)), eachPatch());
  const CompiledGraph compiled = graph.compile(m_grid, m_columns, 0);
  const int modifier = positionOf(compiled, "modifier");
  ASSERT_EQ(modifier, 1);
  ASSERT_EQ(compiled.sends.size(), 1U);
  ASSERT_EQ(compiled.receives.size(), 1U);
  EXPECT_EQ(compiled.sends[0].phase, 1 + modifier);
  EXPECT_EQ(compiled.receives[0].phase, 1 + modifier);
  std::vector<int> producers = compiled.sends[0].producers;
  std::sort(producers.begin(), producers.end());
  EXPECT_EQ(producers,
            (std::vector<int>{nodeOf(compiled, "modifier", 0), nodeOf(compiled, "modifier", 2)}));
  const DetailedTask& reader =
      compiled.detailedTasks[static_cast<std::size_t>(nodeOf(compiled, "reader", 0))];
  EXPECT_TRUE(hasPredecessor(reader, nodeOf(compiled, "modifier", 2)));
}

TEST_F(TaskGraphTest, ModifierCannotAskForGhostsOfWhatItModifies) {
  TaskGraph graph("step");
  graph.addTask(std::move(makeTask("computer").computesVar(m_x)), eachPatch());
  graph.addTask(std::move(makeTask("smoother")
                              .requiresVar(Task::NewDW, m_x, Ghost::AroundCells, 1)
                              .modifiesVar(m_x)),
                eachPatch());
  expectMentions(errorOf([&] { graph.compile(m_grid, m_columns, 0); }),
                 {"'smoother'", "'X'", "NewDW"});
}

// ---------------------------------------------------------------- reductions

TEST_F(TaskGraphTest, ReductionNodeOnEveryRankEvenWithoutPatches) {
  TaskGraph graph("step");
  graph.addTask(std::move(makeTask("useDelT").requiresVar(Task::NewDW, m_delT).computesVar(m_y)),
                eachPatch());
  graph.addTask(std::move(makeTask("stableDelT").computesVar(m_delT)), eachPatch());
  // Rank 1 owns no patch but still takes part in the reduction.
  const CompiledGraph idle = graph.compile(m_grid, m_allOnZero, 1);
  ASSERT_EQ(idle.detailedTasks.size(), 1U);
  EXPECT_EQ(idle.detailedTasks[0].kind, DetailedTask::Kind::Reduction);
  EXPECT_EQ(idle.detailedTasks[0].reduction, m_delT);
  EXPECT_TRUE(idle.detailedTasks[0].contributors.empty());
  EXPECT_TRUE(idle.sends.empty());
  EXPECT_TRUE(idle.receives.empty());

  const CompiledGraph busy = graph.compile(m_grid, m_allOnZero, 0);
  int reductionNode = -1;
  for (const DetailedTask& node : busy.detailedTasks) {
    if (node.kind != DetailedTask::Kind::Reduction) continue;
    EXPECT_EQ(reductionNode, -1) << "one reduction node per rank";
    reductionNode = node.id;
  }
  ASSERT_GE(reductionNode, 0);
  const DetailedTask& reduction = busy.detailedTasks[static_cast<std::size_t>(reductionNode)];
  EXPECT_EQ(reduction.contributors.size(), 4U);
  for (int p = 0; p < 4; ++p) {
    const int contributor = nodeOf(busy, "stableDelT", p);
    EXPECT_TRUE(hasPredecessor(reduction, contributor));
    EXPECT_LT(contributor, reductionNode);
    const int reader = nodeOf(busy, "useDelT", p);
    EXPECT_TRUE(
        hasPredecessor(busy.detailedTasks[static_cast<std::size_t>(reader)], reductionNode));
    EXPECT_GT(reader, reductionNode);
  }
}

// ---------------------------------------------------------------- Graphviz

std::size_t countOf(const std::string& text, const std::string& word) {
  std::size_t count = 0;
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1))
    ++count;
  return count;
}

TEST_F(TaskGraphTest, GraphvizHasAClusterPerRankAndDashedMessageEdges) {
  TaskGraph graph("step");
  graph.addTask(
      std::move(
          makeTask("A").requiresVar(Task::OldDW, m_u, Ghost::AroundCells, 1).computesVar(m_x)),
      eachPatch());
  graph.addTask(
      std::move(
          makeTask("B").requiresVar(Task::NewDW, m_x, Ghost::AroundCells, 1).computesVar(m_y)),
      eachPatch());
  std::vector<CompiledGraph> perRank;
  for (int r = 0; r < 2; ++r)
    perRank.push_back(graph.compile(m_grid, m_columns, r));
  std::ostringstream out;
  writeGraphviz(out, perRank);
  const std::string dot = out.str();
  EXPECT_EQ(dot.rfind("digraph", 0), 0U) << dot;
  EXPECT_EQ(countOf(dot, "subgraph cluster_"), 2U) << dot;
  EXPECT_EQ(countOf(dot, "subgraph cluster_rank0 "), 1U) << dot;
  EXPECT_EQ(countOf(dot, "subgraph cluster_rank1 "), 1U) << dot;
  // OldDW ghosts leave from the sender's warehouse, NewDW ghosts from A's tasks.
  const std::string oldBytes = std::to_string(perRank[0].receives[0].bytes);
  EXPECT_NE(dot.find("r1_oldDW -> r0_t" + std::to_string(nodeOf(perRank[0], "A", 0)) +
                     " [style=dashed, label=\"" + oldBytes + " B\"]"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("r0_t" + std::to_string(nodeOf(perRank[0], "A", 0)) + " -> r1_t" +
                     std::to_string(nodeOf(perRank[1], "B", 1)) + " [style=dashed"),
            std::string::npos)
      << dot;
  EXPECT_GT(countOf(dot, "style=dashed"), 2U);
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
}

}  // namespace
}  // namespace tessera
