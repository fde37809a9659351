// Block variables and index tasks on 1-4 ranks, in every scheduler mode: a
// toy component moves blocks between ranks (an all-gather with two readers
// per rank: one message per block and rank), reduces partial blocks onto
// their owners in the listed order (bits independent of arrival order),
// reuses one receive buffer round after round (the graph orders the reuse),
// reads a replicated block where it is held, cuts block messages into
// chunks, and moves ghost cells and blocks in one graph as messages of one
// kind. Compile errors name the task, the variable and the block.
#include <gtest/gtest.h>

#include "TestHelpers.h"

#include "CCA/Components/Schedulers/GraphScheduler.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Components/Schedulers/TaskGraph.h"
#include "CCA/Ports/DataWarehouse.h"
#include "CCA/Ports/ExecutionContext.h"
#include "Core/Grid/Grid.h"
#include "Core/Grid/Variables/CCVariable.h"
#include "Core/Parallel/Communicator.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tessera {
namespace {

const char* const kModes[] = {"host", "sync", "async"};

// Values no two (block row, column) pairs share, and that are not integers.
double valueAt(std::int64_t row, std::int64_t col, int version) {
  return 1000.0 * static_cast<double>(row) + static_cast<double>(col) + 0.25 * version;
}

bool sameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

std::vector<int> everyRank(int ranks, int perRank = 1) {
  std::vector<int> placement;
  for (int r = 0; r < ranks; ++r)
    for (int k = 0; k < perRank; ++k)
      placement.push_back(r);
  return placement;
}

class BlockVariablesTest : public ::testing::TestWithParam<const char*> {
 protected:
  BlockVariablesTest() : m_grid(testing::makeGrid({4, 4, 4}, {1, 1, 1})) {}

  int rank() const { return m_world.rank(); }
  int size() const { return m_world.size(); }
  std::int64_t globalSum(std::int64_t local) const { return m_world.allreduceSum(local); }
  std::unique_ptr<GraphScheduler> scheduler(SchedulerOptions options = {}) const {
    return makeScheduler(GetParam(), m_world, options);
  }
  CompiledGraph compile(GraphScheduler& sched) const { return sched.compile(m_grid, m_patchRanks); }

  // A layout of one block per rank, `rows(b)` x cols, stacked by rows.
  template <class Rows>
  static BlockLayout onePerRank(int ranks, const Rows& rows, std::int64_t cols) {
    BlockLayout layout;
    std::int64_t row0 = 0;
    for (int b = 0; b < ranks; ++b) {
      layout.add({row0, 0, rows(b), cols}, {b});
      row0 += rows(b);
    }
    return layout;
  }

  // A task over every rank's index that fills its block of `label` with valueAt.
  Task fillTask(const VarLabel* label, int version = 0) const {
    Task task("fill " + label->name(),
              Task::IndexCallback([label, version](int q, const DataWarehouse&,
                                                   DataWarehouse& newDW, ExecutionContext&) {
                const BlockView<double> v = newDW.allocateBlock<double>(label, q);
                for (std::int64_t i = 0; i < v.rows; ++i)
                  for (std::int64_t j = 0; j < v.cols; ++j)
                    v(i, j) = valueAt(v.row0 + i, v.col0 + j, version + q);
              }));
    task.computesBlocks(label, [](int q) { return std::vector<BlockRef>{q}; });
    return task;
  }

  Communicator m_world = Communicator::borrow(MPI_COMM_WORLD);
  Grid m_grid;
  std::vector<int> m_patchRanks{0};
  VarLabelRegistry m_labels;
};

// Every index reads every block; two indices per rank read the same remote
// blocks, which arrive once each (one message per block and rank), whole
// even when cut into 1001-byte chunks.
TEST_P(BlockVariablesTest, AllGatherBringsEachBlockOncePerRank) {
  const VarLabel* x = m_labels.create<BlockVariable<double>>("X");
  const auto rows = [](int b) { return std::int64_t{3 + b}; };
  const std::int64_t cols = 40;
  for (const std::size_t chunk : {kMaxMessageChunkBytes, std::size_t{1001}}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    SchedulerOptions options;
    options.messageChunkBytes = chunk;
    const auto sched = scheduler(options);
    sched->setBlockLayout(x, onePerRank(size(), rows, cols));
    const TaskSpace fillSpace{"fill", everyRank(size())};
    sched->beginGraph("init");
    sched->addTask(fillTask(x), fillSpace);
    OnDemandDataWarehouse empty("OldDW", -1, 0.0, 0.0);
    OnDemandDataWarehouse oldDW("NewDW", 0, 0.0, 0.0);
    sched->execute(compile(*sched), empty, oldDW);

    std::atomic<std::int64_t> wrong{0};
    std::atomic<std::int64_t> checked{0};
    const int blocks = size();
    Task gather("gather", Task::IndexCallback([&, x, blocks](int, const DataWarehouse& old,
                                                             DataWarehouse&, ExecutionContext&) {
                  for (int b = 0; b < blocks; ++b) {
                    const ConstBlockView<double> v = old.getBlock<double>(x, b);
                    for (std::int64_t i = 0; i < v.rows; ++i)
                      for (std::int64_t j = 0; j < v.cols; ++j) {
                        wrong += !sameBits(v(i, j), valueAt(v.row0 + i, v.col0 + j, b));
                        ++checked;
                      }
                  }
                }));
    gather.requiresBlocks(Task::OldDW, x, [blocks](int) {
      std::vector<BlockRef> all;
      for (int b = 0; b < blocks; ++b)
        all.emplace_back(b);
      return all;
    });
    sched->beginGraph("gather");
    sched->addTask(std::move(gather), TaskSpace{"gather", everyRank(size(), 2)});
    const CompiledGraph graph = compile(*sched);
    EXPECT_EQ(graph.receives.size(), static_cast<std::size_t>(size() - 1));
    EXPECT_EQ(graph.sends.size(), static_cast<std::size_t>(size() - 1));
    for (const Message& send : graph.sends) {
      EXPECT_EQ(send.kind, Message::Kind::Block);
      EXPECT_FALSE(send.block.copy);
    }
    std::int64_t expectedBytes = 0;
    for (int b = 0; b < size(); ++b)
      if (b != rank()) expectedBytes += rows(b) * cols * 8;
    for (int run = 0; run < 2; ++run) {
      OnDemandDataWarehouse newDW("NewDW", 1, 0.0, 0.0);
      const std::int64_t before = sched->stats().bytesReceived;
      sched->execute(graph, oldDW, newDW);
      EXPECT_EQ(sched->stats().bytesReceived - before, expectedBytes);
    }
    EXPECT_EQ(globalSum(wrong), 0);
    std::int64_t perIndex = 0;
    for (int b = 0; b < size(); ++b)
      perIndex += rows(b) * cols;
    EXPECT_EQ(globalSum(checked), 2 * 2 * size() * perIndex);
  }
}

// Each rank computes a partial block; index q reads the sum of rows
// [2q, 2q + 2) of every partial, in rank order. The values make the order
// matter ((1e16 + 1) - 1e16 is 0, not 1), so equal bits in every mode mean
// the runtime combined them in the listed order, not in arrival order.
TEST_P(BlockVariablesTest, ReduceScatterSumsInTheListedOrder) {
  const VarLabel* part = m_labels.create<BlockVariable<double>>("partial");
  const std::int64_t rows = 2 * size(), cols = 3;
  const auto partialValue = [](int owner, std::int64_t i, std::int64_t j) {
    const double big = (owner % 3 == 0) ? 1e16 : (owner % 3 == 2 ? -1e16 : 1.0);
    return big + static_cast<double>(i * 10 + j);
  };
  const auto sched = scheduler();
  BlockLayout layout;
  for (int b = 0; b < size(); ++b)
    layout.add({0, 0, rows, cols}, {b});
  sched->setBlockLayout(part, layout);
  std::atomic<std::int64_t> wrong{0};
  Task partials("partials", Task::IndexCallback([&](int q, const DataWarehouse&,
                                                    DataWarehouse& newDW, ExecutionContext&) {
                  const BlockView<double> v = newDW.allocateBlock<double>(part, q);
                  for (std::int64_t i = 0; i < v.rows; ++i)
                    for (std::int64_t j = 0; j < v.cols; ++j)
                      v(i, j) = partialValue(q, i, j);
                }));
  partials.computesBlocks(part, [](int q) { return std::vector<BlockRef>{q}; });
  const int ranks = size();
  Task sum("sum", Task::IndexCallback([&, ranks](int q, const DataWarehouse&, DataWarehouse& newDW,
                                                 ExecutionContext&) {
             const ConstBlockView<double> s = newDW.getBlockSum<double>(part, q);
             EXPECT_EQ(s.rows, 2);
             for (std::int64_t i = 0; i < 2; ++i)
               for (std::int64_t j = 0; j < cols; ++j) {
                 double expected = partialValue(0, 2 * q + i, j);
                 for (int l = 1; l < ranks; ++l)
                   expected += partialValue(l, 2 * q + i, j);
                 wrong += !sameBits(s(i, j), expected);
               }
           }));
  sum.requiresBlockSum(Task::NewDW, part, [ranks](int q) {
    std::vector<BlockRef> parts;
    for (int l = 0; l < ranks; ++l)
      parts.emplace_back(l, 2 * q, 2 * q + 2);
    return parts;
  });
  sched->beginGraph("reduce-scatter");
  sched->addTask(std::move(sum), TaskSpace{"sum", everyRank(size())});  // added first on purpose
  sched->addTask(std::move(partials), TaskSpace{"partials", everyRank(size())});
  const CompiledGraph graph = compile(*sched);
  for (int run = 0; run < 3; ++run) {
    OnDemandDataWarehouse oldDW("OldDW", 0, 0.0, 0.0);
    OnDemandDataWarehouse newDW("NewDW", 1, 0.0, 0.0);
    const std::int64_t before = sched->stats().bytesReceived;
    sched->execute(graph, oldDW, newDW);
    EXPECT_EQ(sched->stats().bytesReceived - before, (size() - 1) * 2 * cols * 8);
  }
  EXPECT_EQ(globalSum(wrong), 0);
}

// Round r reads block r of the next rank into the label's single receive
// buffer and adds it to an accumulator. Round r + 1's receive may land
// only after round r's task is done with the buffer: the graph holds it
// back, so every round sees its own block.
TEST_P(BlockVariablesTest, OneReceiveBufferServesEveryRoundInTurn) {
  const VarLabel* input = m_labels.create<BlockVariable<double>>("input");
  const VarLabel* acc = m_labels.create<BlockVariable<double>>("accumulator");
  const int rounds = 5;
  const std::int64_t n = 6;
  const auto sched = scheduler();
  BlockLayout inputs;
  for (int s = 0; s < size(); ++s)
    for (int r = 0; r < rounds; ++r)
      inputs.add({r * n, 0, n, n}, {s});
  inputs.setReceiveBuffers(1);
  sched->setBlockLayout(input, inputs);
  BlockLayout sums;
  for (int s = 0; s < size(); ++s)
    sums.add({0, 0, n, n}, {s});
  sched->setBlockLayout(acc, sums);
  const int ranks = size();
  sched->beginGraph("init");
  Task fill("fill inputs", Task::IndexCallback([&](int q, const DataWarehouse&,
                                                   DataWarehouse& newDW, ExecutionContext&) {
              for (int r = 0; r < rounds; ++r) {
                const BlockView<double> v = newDW.allocateBlock<double>(input, q * rounds + r);
                for (std::int64_t i = 0; i < n; ++i)
                  for (std::int64_t j = 0; j < n; ++j)
                    v(i, j) = valueAt(v.row0 + i, j, q);
              }
            }));
  fill.computesBlocks(input, [rounds](int q) {
    std::vector<BlockRef> mine;
    for (int r = 0; r < rounds; ++r)
      mine.emplace_back(q * rounds + r);
    return mine;
  });
  sched->addTask(std::move(fill), TaskSpace{"fill", everyRank(size())});
  OnDemandDataWarehouse empty("OldDW", -1, 0.0, 0.0);
  OnDemandDataWarehouse oldDW("NewDW", 0, 0.0, 0.0);
  sched->execute(compile(*sched), empty, oldDW);

  sched->beginGraph("rounds");
  for (int r = 0; r < rounds; ++r) {
    Task round("round " + std::to_string(r),
               Task::IndexCallback([&, r, ranks](int q, const DataWarehouse& old,
                                                 DataWarehouse& newDW, ExecutionContext&) {
                 const int source = (q + 1) % ranks;
                 const ConstBlockView<double> in = old.getBlock<double>(input, source * rounds + r);
                 const BlockView<double> sum = r == 0 ? newDW.allocateBlock<double>(acc, q)
                                                      : newDW.getModifiableBlock<double>(acc, q);
                 for (std::int64_t i = 0; i < n; ++i)
                   for (std::int64_t j = 0; j < n; ++j)
                     sum(i, j) = (r == 0 ? 0.0 : sum(i, j)) + in(i, j);
               }));
    round.requiresBlocks(Task::OldDW, input, [r, ranks](int q) {
      return std::vector<BlockRef>{((q + 1) % ranks) * rounds + r};
    });
    if (r == 0) {
      round.computesBlocks(acc, [](int q) { return std::vector<BlockRef>{q}; });
    } else {
      round.modifiesBlocks(acc, [](int q) { return std::vector<BlockRef>{q}; });
    }
    sched->addTask(std::move(round), TaskSpace{"ring", everyRank(size())});
  }
  const CompiledGraph graph = compile(*sched);
  // Every rank leaves together if the graph is not what the rest expects
  // (an ASSERT on one rank would leave the others in execute()).
  const bool shaped = size() == 1 || graph.receives.size() == static_cast<std::size_t>(rounds);
  ASSERT_EQ(globalSum(shaped ? 0 : 1), 0) << graph.receives.size() << " block receives";
  if (size() > 1) {
    EXPECT_EQ(graph.blockSlotBytes.size(), 1U);
    EXPECT_TRUE(graph.receives[0].gate.empty());
    for (int r = 1; r < rounds; ++r)
      EXPECT_EQ(graph.receives[static_cast<std::size_t>(r)].gate,
                graph.receives[static_cast<std::size_t>(r - 1)].consumers);
  }
  for (int run = 0; run < 2; ++run) {
    OnDemandDataWarehouse newDW("NewDW", 1, 0.0, 0.0);
    sched->execute(graph, oldDW, newDW);
    const ConstBlockView<double> sum = newDW.getBlock<double>(acc, rank());
    std::int64_t wrong = 0;
    const int source = (rank() + 1) % size();
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double expected = 0.0;
        for (int r = 0; r < rounds; ++r)
          expected = expected + valueAt(r * n + i, j, source);
        wrong += !sameBits(sum(i, j), expected);
      }
    EXPECT_EQ(globalSum(wrong), 0);
  }
}

// A block held by ranks 0 and 1 (each computes its copy) is read where it
// is held; the other ranks receive it from its owner, rank 0.
TEST_P(BlockVariablesTest, ReplicatedBlockIsReadWhereItIsHeld) {
  const VarLabel* y = m_labels.create<BlockVariable<double>>("Y");
  const auto sched = scheduler();
  const std::vector<int> holders = size() > 1 ? std::vector<int>{0, 1} : std::vector<int>{0};
  BlockLayout layout;
  layout.add({0, 0, 4, 4}, holders);
  sched->setBlockLayout(y, layout);
  Task make("make Y", Task::IndexCallback(
                          [y](int, const DataWarehouse&, DataWarehouse& newDW, ExecutionContext&) {
                            const BlockView<double> v = newDW.allocateBlock<double>(y, 0);
                            for (std::int64_t i = 0; i < 4; ++i)
                              for (std::int64_t j = 0; j < 4; ++j)
                                v(i, j) = valueAt(i, j, 7);
                          }));
  make.computesBlocks(y, [](int) { return std::vector<BlockRef>{0}; });
  std::atomic<std::int64_t> wrong{0};
  Task read("read Y", Task::IndexCallback([&, y](int, const DataWarehouse&, DataWarehouse& newDW,
                                                 ExecutionContext&) {
              const ConstBlockView<double> v = newDW.getBlock<double>(y, 0);
              for (std::int64_t i = 0; i < 4; ++i)
                for (std::int64_t j = 0; j < 4; ++j)
                  wrong += !sameBits(v(i, j), valueAt(i, j, 7));
            }));
  read.requiresBlocks(Task::NewDW, y, [](int) { return std::vector<BlockRef>{0}; });
  sched->beginGraph("replicated");
  sched->addTask(std::move(make), TaskSpace{"holders", holders});
  sched->addTask(std::move(read), TaskSpace{"readers", everyRank(size())});
  const CompiledGraph graph = compile(*sched);
  const bool holds = rank() < static_cast<int>(holders.size());
  EXPECT_EQ(graph.receives.size(), holds ? 0U : 1U);
  EXPECT_EQ(graph.sends.size(),
            rank() == 0 ? static_cast<std::size_t>(size() - holders.size()) : 0U);
  OnDemandDataWarehouse oldDW("OldDW", 0, 0.0, 0.0);
  OnDemandDataWarehouse newDW("NewDW", 1, 0.0, 0.0);
  sched->execute(graph, oldDW, newDW);
  EXPECT_EQ(globalSum(wrong), 0);
}

// Ghost cells and block parts are messages of one kind of thing: one graph
// with both sends and receives each of both kinds on every rank (patches in
// a periodic ring, one per rank, and an all-gather of blocks), their tags in
// one window per execution (cells by phase, blocks after every phase), all
// distinct between two ranks, and both arriving whole, execution after
// execution.
TEST_P(BlockVariablesTest, GhostCellsAndBlocksTravelAsOneKindOfMessage) {
  const Grid ring = testing::makeGrid({4 * size(), 4, 4}, {size(), 1, 1}, {}, {true, false, false});
  std::vector<int> patchRanks(static_cast<std::size_t>(size()));
  for (int p = 0; p < size(); ++p)
    patchRanks[static_cast<std::size_t>(p)] = p;
  const Level& level = ring.level(0);
  const VarLabel* u = m_labels.create<CCVariable<double>>("U");
  const VarLabel* x = m_labels.create<BlockVariable<double>>("X");
  const auto valueOf = [](const IntVector& c) { return 0.5 + c.x + 10.0 * c.y + 100.0 * c.z; };
  const auto sched = scheduler();
  sched->setBlockLayout(x, onePerRank(size(), [](int b) { return std::int64_t{2 + b}; }, 8));
  std::atomic<std::int64_t> wrong{0};
  std::atomic<std::int64_t> checked{0};
  sched->beginGraph("mixed");
  sched->addTask(std::move(Task("cells",
                                [&](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                                    ExecutionContext&) {
                                  CCVariable<double> var = dw.allocateAndPut<double>(u, patch);
                                  patch.extendedBox().forEachCell(
                                      [&](const IntVector& c) { var(c) = valueOf(c); });
                                },
                                Task::Kind::Host)
                               .computesVar(u)),
                 level.eachPatch());
  sched->addTask(
      std::move(Task("read cells",
                     [&](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                         ExecutionContext&) {
                       const ConstCCVariable<double> var =
                           dw.get<double>(u, patch, Ghost::AroundCells, 1);
                       level.ghostedBox(patch, 1).forEachCell([&](const IntVector& c) {
                         IntVector inside = c;
                         inside.x = (c.x + level.resolution().x) % level.resolution().x;
                         wrong += !sameBits(var(c), valueOf(inside));
                         ++checked;
                       });
                     },
                     Task::Kind::Host)
                    .requiresVar(Task::NewDW, u, Ghost::AroundCells, 1)),
      level.eachPatch());
  sched->addTask(fillTask(x), TaskSpace{"fill", everyRank(size())});
  const int blocks = size();
  Task gather("gather", Task::IndexCallback([&, x, blocks](int, const DataWarehouse&,
                                                           DataWarehouse& dw, ExecutionContext&) {
                for (int b = 0; b < blocks; ++b) {
                  const ConstBlockView<double> v = dw.getBlock<double>(x, b);
                  for (std::int64_t i = 0; i < v.rows; ++i)
                    for (std::int64_t j = 0; j < v.cols; ++j) {
                      wrong += !sameBits(v(i, j), valueAt(v.row0 + i, v.col0 + j, b));
                      ++checked;
                    }
                }
              }));
  gather.requiresBlocks(Task::NewDW, x, [blocks](int) {
    std::vector<BlockRef> all;
    for (int b = 0; b < blocks; ++b)
      all.emplace_back(b);
    return all;
  });
  sched->addTask(std::move(gather), TaskSpace{"gather", everyRank(size())});
  const CompiledGraph graph = sched->compile(ring, patchRanks);

  const int phases = static_cast<int>(graph.tasks.size()) + 1;
  EXPECT_GE(graph.tagsPerExecution, phases);
  for (const auto* list : {&graph.sends, &graph.receives}) {
    std::set<std::pair<int, int>> peerTags;
    for (const Message& m : *list) {
      EXPECT_TRUE(peerTags.insert({m.peer, m.tag}).second) << "tag " << m.tag << " twice";
      EXPECT_LT(m.tag, graph.tagsPerExecution);
      if (m.kind == Message::Kind::Cells) {
        EXPECT_EQ(m.tag, m.phase);
      } else {
        EXPECT_EQ(m.tag, phases + m.block.sequence);
      }
    }
  }
  if (size() > 1) {
    for (const auto* list : {&graph.sends, &graph.receives}) {
      const auto cells = std::count_if(list->begin(), list->end(), [](const Message& m) {
        return m.kind == Message::Kind::Cells;
      });
      EXPECT_EQ(cells, size() == 2 ? 1 : 2);  // one phase, one or two neighbours
      EXPECT_EQ(static_cast<int>(list->size()) - cells, size() - 1);  // a block each way
    }
  }
  for (int run = 0; run < 2; ++run) {
    OnDemandDataWarehouse oldDW("OldDW", run, 0.0, 0.0);
    OnDemandDataWarehouse newDW("NewDW", run + 1, 0.0, 0.0);
    sched->execute(graph, oldDW, newDW);
  }
  EXPECT_EQ(wrong.load(), 0);
  const std::int64_t ghosted = 6 * 4 * 4;  // ghost layers across x only (y and z are walls)
  std::int64_t blockValues = 0;
  for (int b = 0; b < size(); ++b)
    blockValues += (2 + b) * 8;
  EXPECT_EQ(checked.load(), 2 * (ghosted + blockValues));
}

INSTANTIATE_TEST_SUITE_P(Modes, BlockVariablesTest, ::testing::ValuesIn(kModes),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

// Compiling is local: these graphs name ranks 0-2 whatever the run's size.
class BlockGraphErrors : public ::testing::Test {
 protected:
  BlockGraphErrors() : m_grid(testing::makeGrid({4, 4, 4}, {1, 1, 1})) {}

  std::string compileError(TaskGraph& graph, const VarLabel* label, const BlockLayout& layout,
                           int rank = 0) const {
    auto layouts = std::make_shared<TaskGraph::BlockLayouts>();
    (*layouts)[label] = layout;
    return testing::errorOf([&] { graph.compile(m_grid, {0}, rank, true, layouts); });
  }
  static Task nothing(const std::string& name) {
    return Task(name, Task::IndexCallback(
                          [](int, const DataWarehouse&, DataWarehouse&, ExecutionContext&) {}));
  }

  Grid m_grid;
  VarLabelRegistry m_labels;
};

TEST_F(BlockGraphErrors, ABlockNoTaskComputesIsNamed) {
  const VarLabel* z = m_labels.create<BlockVariable<double>>("Z");
  BlockLayout layout;
  layout.add({0, 0, 2, 2}, {0});
  layout.add({2, 0, 2, 2}, {1});
  TaskGraph graph("g");
  Task make = nothing("make");
  make.computesBlocks(z, [](int q) { return std::vector<BlockRef>{q}; });
  graph.addTask(std::move(make), TaskSpace{"one", {0}});  // only block 0
  Task read = nothing("read");
  read.requiresBlocks(Task::NewDW, z, [](int) { return std::vector<BlockRef>{1}; });
  graph.addTask(std::move(read), TaskSpace{"readers", {0}});
  const std::string message = compileError(graph, z, layout);
  EXPECT_TRUE(testing::contains(message, "'read'")) << message;
  EXPECT_TRUE(testing::contains(message, "block 1 of 'Z'")) << message;
  EXPECT_TRUE(testing::contains(message, "no task computes it on rank 1")) << message;
}

TEST_F(BlockGraphErrors, WritingABlockWhereItIsNotHeldIsNamed) {
  const VarLabel* z = m_labels.create<BlockVariable<double>>("Z");
  BlockLayout layout;
  layout.add({0, 0, 2, 2}, {1});
  TaskGraph graph("g");
  Task make = nothing("make");
  make.computesBlocks(z, [](int) { return std::vector<BlockRef>{0}; });
  graph.addTask(std::move(make), TaskSpace{"wrong rank", {2}});
  const std::string message = compileError(graph, z, layout);
  EXPECT_TRUE(testing::contains(message, "'make' at index 0 writes block 0 of 'Z' on rank 2"))
      << message;
  EXPECT_TRUE(testing::contains(message, "does not hold it")) << message;
}

TEST_F(BlockGraphErrors, AReaderNeedingMoreBuffersThanTheRingHoldsIsNamed) {
  const VarLabel* z = m_labels.create<BlockVariable<double>>("Z");
  BlockLayout layout;
  for (int b = 0; b < 3; ++b)
    layout.add({2 * b, 0, 2, 2}, {b});
  layout.setReceiveBuffers(1);
  TaskGraph graph("g");
  Task make = nothing("make");
  make.computesBlocks(z, [](int q) { return std::vector<BlockRef>{q}; });
  graph.addTask(std::move(make), TaskSpace{"owners", {0, 1, 2}});
  Task read = nothing("read both");
  read.requiresBlocks(Task::NewDW, z, [](int) { return std::vector<BlockRef>{1, 2}; });
  graph.addTask(std::move(read), TaskSpace{"reader", {0}});
  const std::string message = compileError(graph, z, layout);
  EXPECT_TRUE(testing::contains(message, "read both")) << message;
  EXPECT_TRUE(testing::contains(message, "receive buffers")) << message;
}

// An index or a block on a rank the run does not have would never run or
// never be sent: refused where it is declared, naming the task (or the
// variable), the index (or the block) and the rank.
TEST_F(BlockGraphErrors, ARankTheRunDoesNotHaveIsRefusedWhereItIsDeclared) {
  const Communicator world = Communicator::borrow(MPI_COMM_WORLD);
  const int n = world.size();
  const auto sched = makeScheduler("host", world, SchedulerOptions{});
  sched->beginGraph("g");
  std::string message =
      testing::errorOf([&] { sched->addTask(nothing("far"), TaskSpace{"space", {0, n}}); });
  for (const std::string& part : {std::string("'far'"), std::string("index 1"),
                                  "'space' on rank " + std::to_string(n),
                                  "ranks 0 to " + std::to_string(n - 1)})
    EXPECT_TRUE(testing::contains(message, part)) << message;
  message = testing::errorOf([&] { sched->addTask(nothing("negative"), TaskSpace{"s", {-1}}); });
  EXPECT_TRUE(testing::contains(message, "index 0 of task space 's' on rank -1")) << message;
  EXPECT_NO_THROW(sched->addTask(nothing("near"), TaskSpace{"space", {0, n - 1}}));
  const VarLabel* z = m_labels.create<BlockVariable<double>>("Z");
  BlockLayout layout;
  layout.add({0, 0, 2, 2}, {0});
  layout.add({2, 0, 2, 2}, {0, n});
  message = testing::errorOf([&] { sched->setBlockLayout(z, layout); });
  EXPECT_TRUE(testing::contains(message, "'Z' places block 1 on rank " + std::to_string(n)))
      << message;
  BlockLayout good;
  good.add({0, 0, 2, 2}, {n - 1});
  EXPECT_NO_THROW(sched->setBlockLayout(z, good));
}

TEST_F(BlockGraphErrors, IndexTasksRejectCellVariables) {
  const VarLabel* u = m_labels.create<CCVariable<double>>("u");
  TaskGraph graph("g");
  Task read = nothing("read cells");
  read.requiresVar(Task::OldDW, u);
  const std::string message = testing::errorOf([&] {
    graph.addTask(std::move(read), TaskSpace{"s", {0}});
  });
  EXPECT_TRUE(testing::contains(message, "index tasks use block and reduction variables"))
      << message;
}

}  // namespace
}  // namespace tessera
