// TaskGraph: ordering tasks by their data, the errors that name what is
// missing, and the detailed graph (tasks, ghost fills, batched messages) one
// rank compiles. Single process: compile() works out any rank's share.
#include <gtest/gtest.h>

#include "GraphTestHelpers.h"
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
using tessera::testing::expectSamePieces;
using tessera::testing::findMessage;
using tessera::testing::makeGrid;
using tessera::testing::makeTask;
using tessera::testing::roundRobin;

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

// What docs/runtime.md promises: a bad declaration fails at once, naming
// the task (and the variable, where there is one).
TEST_F(TaskGraphTest, BadDeclarationsFailAtOnceNamingTheTask) {
  const VarLabel* block = m_labels.create<BlockVariable<double>>("B");
  expectMentions(errorOf([&] { makeTask("t").requiresVar(Task::OldDW, nullptr); }),
                 {"'t'", "null label"});
  expectMentions(errorOf([&] { makeTask("t").computesVar(nullptr); }), {"'t'", "null label"});
  expectMentions(errorOf([&] { makeTask("t").modifiesVar(nullptr); }), {"'t'", "null label"});
  expectMentions(
      errorOf([&] { makeTask("t").requiresVar(Task::OldDW, m_u, Ghost::AroundCells, -1); }),
      {"'t'", "-1 ghost layers", "'u'"});
  expectMentions(errorOf([&] { makeTask("t").requiresVar(Task::OldDW, m_u, Ghost::None, 1); }),
                 {"'t'", "'u'", "Ghost::None"});
  expectMentions(
      errorOf([&] { makeTask("t").requiresVar(Task::NewDW, m_delT, Ghost::AroundCells, 1); }),
      {"'t'", "only cell variables have ghost cells", "'delT'"});
  expectMentions(errorOf([&] { makeTask("t").modifiesVar(m_delT); }),
                 {"'t'", "'delT'", "only cell variables can be modified"});
  expectMentions(errorOf([&] { makeTask("t").requiresVar(Task::OldDW, block); }),
                 {"'t'", "'B'", "requiresBlocks"});
  expectMentions(errorOf([&] { makeTask("t").computesVar(block); }),
                 {"'t'", "'B'", "computesBlocks"});
  expectMentions(errorOf([&] { makeTask("t").requiresBlocks(Task::OldDW, m_u, {}); }),
                 {"'t'", "'u'", "not a block variable"});
  expectMentions(errorOf([&] { makeTask("t").computesBlocks(block, {}); }),
                 {"'t'", "'B'", "without saying which blocks"});
  expectMentions(errorOf([&] { makeTask(""); }), {"a task needs a name"});
  expectMentions(errorOf([&] { Task("t", Task::Callback{}); }), {"'t'", "has no callback"});
  // A good declaration of the same kinds goes through.
  EXPECT_NO_THROW(makeTask("t")
                      .requiresVar(Task::OldDW, m_u, Ghost::AroundCells, 1)
                      .requiresVar(Task::NewDW, m_delT)
                      .computesVar(m_x)
                      .modifiesVar(m_y));
}

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
// (every layout, brute-force checked: test_GhostMessages.cc)

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
  // Patches 0 and 2 each take a 1 x 5 x 8 column of ghost cells from x = 4:
  // a 1 x 4 x 8 face from the patch beside it and a 1 x 1 x 8 corner from
  // the other. Each corner lies inside the face its patch sends to the other
  // patch of the rank, so it travels there (shareContainedPieces).
  EXPECT_EQ(rank0.receives[0].pieces.size(), 4U);
  EXPECT_EQ(rank0.receives[0].bytes, 2U * 4 * 8 * sizeof(double));
  EXPECT_EQ(rank0.sends[0].bytes, 2U * 4 * 8 * sizeof(double));
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
    graph.addTask(
        std::move(makeTask("advance").requiresVar(Task::OldDW, m_u, type, 1).computesVar(m_x)),
        grid.level(0).eachPatch());
    const CompiledGraph rank0 = graph.compile(grid, ranks, 0);
    bytes[type == Ghost::AroundFaces] = rank0.bytesReceived();
    for (const GhostFill& fill : rank0.fills)
      EXPECT_EQ(fill.type, type);
  }
  // Patches 0, 2, 4, 6 on rank 0 take from 1, 3, 5, 7: one 1 x 3 x 3 face
  // each. Their edges and corners (1 x 4 x 4 in all) lie inside the faces
  // the same source patches send to the rank's other patches: the same bytes.
  EXPECT_EQ(bytes[1], 4U * 3 * 3 * sizeof(double));
  EXPECT_EQ(bytes[0], 4U * 3 * 3 * sizeof(double));
}

TEST_F(TaskGraphTest, ReadersOfBothGhostKindsGetAllTheCells) {
  const Grid grid = makeGrid({6, 6, 6}, {2, 2, 2});
  TaskGraph graph("step");
  graph.addTask(
      std::move(
          makeTask("faces").requiresVar(Task::OldDW, m_u, Ghost::AroundFaces, 1).computesVar(m_x)),
      grid.level(0).eachPatch());
  graph.addTask(
      std::move(
          makeTask("cells").requiresVar(Task::OldDW, m_u, Ghost::AroundCells, 1).computesVar(m_y)),
      grid.level(0).eachPatch());
  const CompiledGraph rank0 = graph.compile(grid, roundRobin(8, 2), 0);
  ASSERT_FALSE(rank0.fills.empty());
  for (const GhostFill& fill : rank0.fills)
    EXPECT_EQ(fill.type, Ghost::AroundCells);
  // The faces' cells (edges and corners travel inside them: see above).
  EXPECT_EQ(rank0.bytesReceived(), 4U * 3 * 3 * sizeof(double));
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

// A task run per patch group reads its group's cells in place: the ghost
// pieces between its patches are group copies (skipped when the patches
// share storage), the others local copies or messages as before.
TEST_F(TaskGraphTest, GhostPiecesInsideAPatchGroupAreGroupCopies) {
  TaskGraph graph("step");
  graph.addTask(std::move(Task("advance",
                               [](const PatchGroup&, const DataWarehouse&, DataWarehouse&,
                                  ExecutionContext&) {})
                              .requiresVar(Task::OldDW, m_u, Ghost::AroundFaces, 1)
                              .computesVar(m_u)),
                eachPatch());
  // Rank 0 owns the column x < 4 (patches 0 and 2): one group of two.
  const CompiledGraph grouped = graph.compile(m_grid, m_columns, 0, true);
  ASSERT_EQ(grouped.groups.size(), 1u);
  ASSERT_EQ(grouped.fills.size(), 2u);
  for (const GhostFill& fill : grouped.fills) {
    EXPECT_EQ(fill.groupStorageKey, grouped.groups[0].storageKey());
    EXPECT_TRUE(fill.localCopies.empty());
    ASSERT_EQ(fill.groupCopies.size(), 1u);
    EXPECT_EQ(fill.groupCopies[0].sourcePatch, fill.patchId == 0 ? 2 : 0);
    EXPECT_EQ(fill.remotePieces.size(), 1u);  // the face from rank 1's column
  }
  // Eager copies are planned for local copies only.
  EXPECT_TRUE(grouped.eagerCopies.empty());
  // Without groups the same pieces are local copies.
  const CompiledGraph single = graph.compile(m_grid, m_columns, 0, false);
  ASSERT_EQ(single.fills.size(), 2u);
  for (const GhostFill& fill : single.fills) {
    EXPECT_TRUE(fill.groupCopies.empty());
    ASSERT_EQ(fill.localCopies.size(), 1u);
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
  // OldDW ghosts leave from the sender's warehouse, NewDW ghosts from A's
  // tasks; a label says what a message carries, per variable.
  const std::string oldBytes = std::to_string(perRank[0].receives[0].bytes);
  EXPECT_NE(dot.find("r1_oldDW -> r0_t" + std::to_string(nodeOf(perRank[0], "A", 0)) +
                     " [style=dashed, label=\"" + m_u->name() + " ghosts " + oldBytes + " B\"]"),
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
