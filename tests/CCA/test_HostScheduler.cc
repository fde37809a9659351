// HostScheduler on 1-4 ranks: ghost cells from the old and the new warehouse
// (periodic or with extra cells) arrive with the right values in every cell,
// and reductions give the same bits as a serial loop in patch-id order;
// what other ranks wait for (a reduction's contributions) runs first.
// Every rank checks its own patches; counts are summed over ranks so that
// rank 0 reports a failure seen anywhere.
#include <gtest/gtest.h>

#include "CCA/Components/Schedulers/HostScheduler.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Ports/DataWarehouse.h"
#include "CCA/Ports/ExecutionContext.h"
#include "CCA/Ports/LoadBalancer.h"
#include "Core/Grid/Grid.h"
#include "Core/Parallel/Communicator.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace tessera {
namespace {

// A value no two cells share, exact in double.
double f(const IntVector& c) {
  return c.x + 100.0 * c.y + 10000.0 * c.z + 0.5;
}

// Where a cell of the (possibly periodic) index space lives in the level.
IntVector wrap(const Level& level, IntVector c) {
  for (int axis = 0; axis < 3; ++axis) {
    const int n = level.resolution()[axis];
    if (level.periodic(axis)) c[axis] = ((c[axis] % n) + n) % n;
  }
  return c;
}

std::vector<int> roundRobin(int numPatches, int numRanks) {
  std::vector<int> ranks;
  for (int p = 0; p < numPatches; ++p)
    ranks.push_back(p % numRanks);
  return ranks;
}

Task::Callback noCallback() {
  return [](const Patch&, const DataWarehouse&, DataWarehouse&, ExecutionContext&) {};
}

struct GridCase {
  const char* name;
  bool periodic;
  IntVector patches;
};

LevelSpec specFor(const GridCase& c) {
  LevelSpec spec;
  spec.resolution = {12, 10, 8};
  spec.patches = c.patches;
  if (c.periodic) {
    spec.periodic = {true, true, true};
  } else {
    spec.extraCells = {1, 1, 1};
  }
  return spec;
}

class HostSchedulerTest : public ::testing::TestWithParam<GridCase> {
 protected:
  HostSchedulerTest() {
    m_grid.addLevel(specFor(GetParam()));
    m_ranks = roundRobin(m_grid.numPatches(), m_world.size());
  }

  const Level& level() const { return m_grid.level(0); }
  std::int64_t globalSum(std::int64_t local) const { return m_world.allreduceSum(local); }

  // Runs a graph that computes `label` = f over every patch's extended box
  // into `newDW`.
  void initialise(const VarLabel* label, OnDemandDataWarehouse& newDW) {
    HostScheduler scheduler(m_world);
    scheduler.beginGraph("init");
    scheduler.addTask(
        std::move(Task(
                      "init",
                      [label](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                              ExecutionContext&) {
                        CCVariable<double> var = dw.allocateAndPut<double>(label, patch);
                        patch.extendedBox().forEachCell([&](const IntVector& c) { var(c) = f(c); });
                      },
                      Task::Kind::Host)
                      .computesVar(label)),
        level().eachPatch());
    OnDemandDataWarehouse empty("OldDW", -1, 0.0, 0.0);
    scheduler.execute(scheduler.compile(m_grid, m_ranks), empty, newDW);
  }

  Communicator m_world = Communicator::borrow(MPI_COMM_WORLD);
  Grid m_grid;
  std::vector<int> m_ranks;  // round robin
};

TEST_P(HostSchedulerTest, EveryOldDWGhostCellHoldsItsNeighboursValue) {
  constexpr int numGhost = 2;
  VarLabelRegistry labels;
  const VarLabel* u = labels.create<CCVariable<double>>("u");
  OnDemandDataWarehouse oldDW("NewDW", 0, 0.0, 0.0);
  initialise(u, oldDW);
  oldDW.setRole("OldDW");

  std::int64_t wrong = 0, ghostCells = 0, tasksRun = 0;
  HostScheduler scheduler(m_world);
  scheduler.beginGraph("step");
  scheduler.addTask(
      std::move(
          Task(
              "check",
              [&](const Patch& patch, const DataWarehouse& old, DataWarehouse&, ExecutionContext&) {
                const ConstCCVariable<double> var =
                    old.get<double>(u, patch, Ghost::AroundCells, numGhost);
                level().ghostedBox(patch, numGhost).forEachCell([&](const IntVector& c) {
                  if (!patch.extendedBox().contains(c)) ++ghostCells;
                  if (var(c) != f(wrap(level(), c))) ++wrong;
                });
                ++tasksRun;
              },
              Task::Kind::Host)
              .requiresVar(Task::OldDW, u, Ghost::AroundCells, numGhost)),
      level().eachPatch());
  const CompiledGraph graph = scheduler.compile(m_grid, m_ranks);

  std::int64_t expectedGhostCells = 0;
  for (const Patch& patch : level().patches()) {
    expectedGhostCells +=
        level().ghostedBox(patch, numGhost).volume() - patch.extendedBox().volume();
  }
  // The compiled graph is reused: a second run must move the same data again.
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    wrong = ghostCells = tasksRun = 0;
    OnDemandDataWarehouse newDW("NewDW", 1, 0.0, 0.0);
    scheduler.execute(graph, oldDW, newDW);
    EXPECT_EQ(globalSum(wrong), 0);
    EXPECT_EQ(globalSum(tasksRun), level().numPatches());
    EXPECT_EQ(globalSum(ghostCells), expectedGhostCells);
  }
  const SchedulerStats& stats = scheduler.stats();
  EXPECT_EQ(globalSum(stats.bytesSent), globalSum(stats.bytesReceived));
  EXPECT_EQ(globalSum(stats.messagesSent), globalSum(stats.messagesReceived));
  if (m_world.size() > 1) {
    EXPECT_GT(globalSum(stats.messagesSent), 0);
  } else {
    EXPECT_EQ(stats.messagesSent, 0);
  }
}

// A computes X, M modifies it, B reads X with ghosts and computes Y, C reads Y
// with ghosts; added in reverse so only the declared data orders them.
TEST_P(HostSchedulerTest, NewDWChainSeesTheFinalVersionInEveryGhostCell) {
  VarLabelRegistry labels;
  const VarLabel* x = labels.create<CCVariable<double>>("X");
  const VarLabel* y = labels.create<CCVariable<double>>("Y");
  std::int64_t wrongX = 0, wrongY = 0, ranC = 0;
  const auto eachExtendedCell = [](const Patch& patch, auto&& body) {
    patch.extendedBox().forEachCell(body);
  };

  HostScheduler scheduler(m_world);
  scheduler.beginGraph("chain");
  scheduler.addTask(
      std::move(
          Task(
              "C",
              [&](const Patch& patch, const DataWarehouse&, DataWarehouse& dw, ExecutionContext&) {
                const ConstCCVariable<double> var = dw.get<double>(y, patch, Ghost::AroundCells, 1);
                level().ghostedBox(patch, 1).forEachCell([&](const IntVector& c) {
                  if (var(c) != 2.0 * (f(wrap(level(), c)) + 1.0)) ++wrongY;
                });
                ++ranC;
              },
              Task::Kind::Host)
              .requiresVar(Task::NewDW, y, Ghost::AroundCells, 1)),
      level().eachPatch());
  scheduler.addTask(
      std::move(
          Task(
              "B",
              [&](const Patch& patch, const DataWarehouse&, DataWarehouse& dw, ExecutionContext&) {
                const ConstCCVariable<double> in = dw.get<double>(x, patch, Ghost::AroundCells, 1);
                level().ghostedBox(patch, 1).forEachCell([&](const IntVector& c) {
                  if (in(c) != f(wrap(level(), c)) + 1.0) ++wrongX;
                });
                CCVariable<double> out = dw.allocateAndPut<double>(y, patch);
                eachExtendedCell(patch, [&](const IntVector& c) { out(c) = 2.0 * in(c); });
              },
              Task::Kind::Host)
              .requiresVar(Task::NewDW, x, Ghost::AroundCells, 1)
              .computesVar(y)),
      level().eachPatch());
  scheduler.addTask(
      std::move(
          Task(
              "M",
              [&](const Patch& patch, const DataWarehouse&, DataWarehouse& dw, ExecutionContext&) {
                CCVariable<double> var = dw.getModifiable<double>(x, patch);
                eachExtendedCell(patch, [&](const IntVector& c) { var(c) += 1.0; });
              },
              Task::Kind::Host)
              .modifiesVar(x)),
      level().eachPatch());
  scheduler.addTask(
      std::move(
          Task(
              "A",
              [&](const Patch& patch, const DataWarehouse&, DataWarehouse& dw, ExecutionContext&) {
                CCVariable<double> var = dw.allocateAndPut<double>(x, patch);
                eachExtendedCell(patch, [&](const IntVector& c) { var(c) = f(c); });
              },
              Task::Kind::Host)
              .computesVar(x)),
      level().eachPatch());
  const CompiledGraph graph = scheduler.compile(m_grid, m_ranks);
  ASSERT_EQ(graph.tasks.size(), 4U);
  EXPECT_EQ(graph.tasks[0].name(), "A");
  EXPECT_EQ(graph.tasks[1].name(), "M");
  EXPECT_EQ(graph.tasks[2].name(), "B");
  EXPECT_EQ(graph.tasks[3].name(), "C");

  OnDemandDataWarehouse oldDW("OldDW", 0, 0.0, 0.0);
  OnDemandDataWarehouse newDW("NewDW", 1, 0.0, 0.0);
  scheduler.execute(graph, oldDW, newDW);
  EXPECT_EQ(globalSum(wrongX), 0);
  EXPECT_EQ(globalSum(wrongY), 0);
  EXPECT_EQ(globalSum(ranC), level().numPatches());
  if (m_world.size() > 1) {
    // Ghosts of X travel after M (phase 2), ghosts of Y after B (phase 3).
    for (const Message& m : graph.sends) {
      EXPECT_TRUE(m.phase == 2 || m.phase == 3) << m.phase;
      EXPECT_FALSE(m.producers.empty());
    }
  }
}

// Contributions whose sum depends on the order of the additions.
double sumContribution(int patchId) {
  return (patchId % 3 == 0 ? 1e16 : 1.0) * (patchId % 2 == 0 ? 1.0 : -1.0) + 0.1 * patchId;
}
double minContribution(int patchId) {
  return patchId == 5 ? 0.25 : 1.0 + 0.1 * patchId;
}

bool sameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

// Sums are exact (ExactSum): the contributions below cancel 1e16s, so any
// rounded order of additions gives another answer, and only the exact sum
// rounded once is right on every rank, layout and rank count.
TEST_P(HostSchedulerTest, SumsAreExactAndMinimaMatchOnEveryRank) {
  VarLabelRegistry labels;
  const VarLabel* total = labels.create<SumVariable<double>>("total");
  const VarLabel* smallest = labels.create<MinVariable<double>>("smallest");
  const int numPatches = level().numPatches();
  double forward = 0.0;
  double reversed = 0.0;
  ExactSum exact;
  for (int id = 0; id < numPatches; ++id) {
    forward += sumContribution(id);
    exact.add(sumContribution(id));
  }
  for (int id = numPatches - 1; id >= 0; --id)
    reversed += sumContribution(id);
  const double serial = exact.value();
  ASSERT_FALSE(sameBits(forward, reversed)) << "the contributions do not test the order";
  ASSERT_FALSE(sameBits(forward, serial)) << "the contributions do not test exactness";

  // The last rank owns no patch (with more than one rank) but still reduces.
  const int busyRanks = std::max(1, m_world.size() - 1);
  const std::vector<int> ranks = roundRobin(numPatches, busyRanks);
  std::int64_t readersWrong = 0, readersRun = 0;

  HostScheduler scheduler(m_world);
  scheduler.beginGraph("reduce");
  scheduler.addTask(
      std::move(Task(
                    "read",
                    [&](const Patch&, const DataWarehouse&, DataWarehouse& dw, ExecutionContext&) {
                      const double sum = dw.getReduction<SumVariable<double>>(total).get();
                      const double min = dw.getReduction<MinVariable<double>>(smallest).get();
                      readersWrong += !sameBits(sum, serial) || min != 0.25;
                      ++readersRun;
                    },
                    Task::Kind::Host)
                    .requiresVar(Task::NewDW, total)
                    .requiresVar(Task::NewDW, smallest)),
      level().eachPatch());
  scheduler.addTask(
      std::move(
          Task(
              "contribute",
              [&](const Patch& patch, const DataWarehouse&, DataWarehouse& dw, ExecutionContext&) {
                dw.put(SumVariable<double>(sumContribution(patch.id())), total, patch);
                dw.put(MinVariable<double>(minContribution(patch.id())), smallest, patch);
              },
              Task::Kind::Host)
              .computesVar(total)
              .computesVar(smallest)),
      level().eachPatch());
  const CompiledGraph graph = scheduler.compile(m_grid, ranks);
  OnDemandDataWarehouse oldDW("OldDW", 0, 0.0, 0.0);
  OnDemandDataWarehouse newDW("NewDW", 1, 0.0, 0.0);
  scheduler.execute(graph, oldDW, newDW);

  const double sum = newDW.getReduction<SumVariable<double>>(total).get();
  const double min = newDW.getReduction<MinVariable<double>>(smallest).get();
  EXPECT_EQ(globalSum(sameBits(sum, serial) ? 0 : 1), 0)
      << "rank " << m_world.rank() << " has " << sum << ", serially " << serial;
  EXPECT_EQ(globalSum(min == 0.25 ? 0 : 1), 0) << "rank " << m_world.rank() << " has " << min;
  EXPECT_EQ(globalSum(readersWrong), 0);
  EXPECT_EQ(globalSum(readersRun), numPatches);
  EXPECT_EQ(globalSum(scheduler.stats().reductions), 2 * m_world.size());
}

// What other ranks wait for runs first, when it can without waiting: a
// task contributing to a reduction declared after an independent one runs
// before it (its reduction is posted, not waited for, before the other
// task), and the reduction still comes out right.
TEST_P(HostSchedulerTest, ReductionContributorsRunBeforeIndependentWork) {
  VarLabelRegistry labels;
  const VarLabel* x = labels.create<CCVariable<double>>("X");
  const VarLabel* total = labels.create<SumVariable<double>>("total");
  std::vector<std::string> ran;
  HostScheduler scheduler(m_world);
  scheduler.beginGraph("order");
  scheduler.addTask(
      std::move(Task(
                    "work",
                    [&](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                        ExecutionContext&) {
                      dw.allocateAndPut<double>(x, patch).fill(1.0);
                      ran.push_back("work");
                    },
                    Task::Kind::Host)
                    .computesVar(x)),
      level().eachPatch());
  scheduler.addTask(
      std::move(
          Task(
              "contribute",
              [&](const Patch& patch, const DataWarehouse&, DataWarehouse& dw, ExecutionContext&) {
                dw.put(SumVariable<double>(patch.id() + 1.0), total, patch);
                ran.push_back("contribute");
              },
              Task::Kind::Host)
              .computesVar(total)),
      level().eachPatch());
  const CompiledGraph graph = scheduler.compile(m_grid, m_ranks);
  OnDemandDataWarehouse oldDW("OldDW", 0, 0.0, 0.0);
  OnDemandDataWarehouse newDW("NewDW", 1, 0.0, 0.0);
  scheduler.execute(graph, oldDW, newDW);

  const auto firstWork = std::find(ran.begin(), ran.end(), "work");
  const auto lastContribution = std::find(ran.rbegin(), ran.rend(), "contribute");
  const bool contributionsFirst =
      lastContribution == ran.rend() || firstWork == ran.end() ||
      lastContribution.base() - 1 < firstWork;
  EXPECT_EQ(globalSum(contributionsFirst ? 0 : 1), 0) << "rank " << m_world.rank();
  const int n = level().numPatches();
  EXPECT_EQ(newDW.getReduction<SumVariable<double>>(total).get(), n * (n + 1) / 2.0);
}

TEST_P(HostSchedulerTest, GraphCompiledForAnotherRankIsRejected) {
  HostScheduler scheduler(m_world);
  scheduler.beginGraph("other");
  VarLabelRegistry labels;
  const VarLabel* x = labels.create<CCVariable<double>>("X");
  scheduler.addTask(std::move(Task("noop", noCallback()).computesVar(x)), level().eachPatch());
  const int other = (m_world.rank() + 1) % std::max(2, m_world.size());
  const CompiledGraph graph = scheduler.recordedGraph().compile(m_grid, m_ranks, other);
  OnDemandDataWarehouse oldDW("OldDW", 0, 0.0, 0.0);
  OnDemandDataWarehouse newDW("NewDW", 1, 0.0, 0.0);
  EXPECT_THROW(scheduler.execute(graph, oldDW, newDW), Error);
}

// A timestep graph run on the warehouse it fills, as the controller does:
// from the second step on, the local ghost copies were made ahead, at the
// end of the previous step (EagerCopy), and every ghost cell must still hold
// its neighbour's value of that step, for both ghost kinds.
TEST_P(HostSchedulerTest, GhostsCopiedAheadHoldTheNeighboursLatestValues) {
  for (const Ghost::Type type : {Ghost::AroundFaces, Ghost::AroundCells}) {
    SCOPED_TRACE(ghostTypeName(type));
    constexpr int numGhost = 2;
    VarLabelRegistry labels;
    const VarLabel* u = labels.create<CCVariable<double>>("u");
    // The value of cell c after `step` steps; exact in double.
    const auto value = [](int step, const IntVector& c) { return f(c) + 1.0e6 * step; };
    std::int64_t wrong = 0, copiedAhead = 0;
    int step = 0;
    HostScheduler scheduler(m_world);
    scheduler.beginGraph("timestep");
    scheduler.addTask(
        std::move(Task(
                      "advance",
                      [&](const Patch& patch, const DataWarehouse& old, DataWarehouse& dw,
                          ExecutionContext&) {
                        const ConstCCVariable<double> before =
                            old.get<double>(u, patch, type, numGhost);
                        const Box interior = patch.interior();
                        level().ghostedBox(patch, numGhost).forEachCell([&](const IntVector& c) {
                          int outside = 0;
                          for (int axis = 0; axis < 3; ++axis)
                            outside +=
                                c[axis] < interior.lo()[axis] || c[axis] >= interior.hi()[axis];
                          const bool filled = type == Ghost::AroundCells || outside <= 1 ||
                                              patch.extendedBox().contains(c);
                          if (filled && before(c) != value(step - 1, wrap(level(), c))) ++wrong;
                        });
                        CCVariable<double> next = dw.allocateAndPut<double>(u, patch);
                        patch.extendedBox().forEachCell(
                            [&](const IntVector& c) { next(c) = value(step, c); });
                      },
                      Task::Kind::Host)
                      .requiresVar(Task::OldDW, u, type, numGhost)
                      .computesVar(u)),
        level().eachPatch());
    const CompiledGraph graph = scheduler.compile(m_grid, m_ranks);
    std::size_t localCopies = 0;
    for (const GhostFill& fill : graph.fills)
      localCopies += fill.localCopies.size();
    EXPECT_EQ(graph.eagerCopies.size(), localCopies) << "every local copy can be made ahead";

    auto oldDW = std::make_unique<OnDemandDataWarehouse>("NewDW", 0, 0.0, 0.0);
    initialise(u, *oldDW);
    // initialise() wrote f, the value of step 0.
    for (step = 1; step <= 3; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      oldDW->setRole("OldDW");
      copiedAhead = 0;
      for (const Patch* patch : patchesOwnedBy(level(), m_ranks, m_world.rank()))
        copiedAhead += oldDW->localGhostsFilled(u, *patch, numGhost, type);
      auto newDW = std::make_unique<OnDemandDataWarehouse>("NewDW", step, 0.0, 0.0);
      wrong = 0;
      scheduler.execute(graph, *oldDW, *newDW);
      EXPECT_EQ(globalSum(wrong), 0);
      // The initial warehouse came from another graph; later ones from this one.
      std::int64_t withLocalCopies = 0;
      for (const GhostFill& fill : graph.fills)
        withLocalCopies += !fill.localCopies.empty();
      EXPECT_EQ(copiedAhead, step == 1 ? 0 : withLocalCopies);
      oldDW = std::move(newDW);
    }
  }
}

TEST_P(HostSchedulerTest, NoCopyAheadForALabelReadWithGhostsFromTheNewWarehouse) {
  VarLabelRegistry labels;
  const VarLabel* u = labels.create<CCVariable<double>>("u");
  const VarLabel* v = labels.create<CCVariable<double>>("v");
  HostScheduler scheduler(m_world);
  scheduler.beginGraph("timestep");
  scheduler.addTask(std::move(Task("advance", noCallback())
                                  .requiresVar(Task::OldDW, u, Ghost::AroundFaces, 1)
                                  .computesVar(u)),
                    level().eachPatch());
  scheduler.addTask(std::move(Task("smooth", noCallback())
                                  .requiresVar(Task::NewDW, u, Ghost::AroundFaces, 1)
                                  .computesVar(v)),
                    level().eachPatch());
  EXPECT_TRUE(scheduler.compile(m_grid, m_ranks).eagerCopies.empty());
}

INSTANTIATE_TEST_SUITE_P(Grids, HostSchedulerTest,
                         // One patch along y: periodic ghosts there are the patch's own cells.
                         ::testing::Values(GridCase{"ExtraCells", false, {3, 2, 2}},
                                           GridCase{"Periodic", true, {3, 2, 2}},
                                           GridCase{"PeriodicSelfImage", true, {3, 1, 2}}),
                         [](const ::testing::TestParamInfo<GridCase>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace tessera
