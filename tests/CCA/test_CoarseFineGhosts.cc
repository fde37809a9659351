// The ghost cells of a finer level's patches, on 1 to 3 ranks in every
// scheduler mode, with and without patch groups: those its level holds come
// from its patches (across periodic boundaries too), the rest (its
// coarse-fine boundary) are refined from the level below with the label's
// operator, gathered from coarse patches on any rank, the coarse level's
// extra cells at a wall and its last plane beyond a wall without them: bit
// for bit what the operator gives on the coarse field. A level not nested
// deeply enough for the ghost layers is a compile error that says so.
// Subcycling's ghost cells between two times of the level below are the
// operator on the two times' values interpolated linearly.
#include <gtest/gtest.h>

#include "LevelTestFields.h"
#include "LevelTestRuns.h"
#include "TestHelpers.h"

#include "CCA/Components/Schedulers/GraphScheduler.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Ports/Application.h"
#include "CCA/Ports/DataWarehouse.h"
#include "CCA/Ports/ExecutionContext.h"
#include "Core/Grid/Grid.h"
#include "Core/Grid/Variables/CCVariable.h"
#include "Core/Grid/Variables/LevelOperators.h"
#include "Core/Grid/Variables/ReductionVariable.h"
#include "Core/Parallel/Communicator.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace tessera {
namespace {

const char* const kModes[] = {"host", "sync", "async"};

using testing::addAveragingTask;
using testing::addFieldTask;
using testing::averagedValue;
using testing::coarseValue;
using testing::coarseValueSeen;
using testing::executeStep;
using testing::faceAveragedValue;
using testing::fineValue;
using testing::refinedValue;
using testing::sameBits;

// Level 0: 16 x 16 x 8 cells in 2 x 2 x 2 patches, periodic along x, one
// extra cell beyond the y walls and none beyond the z walls. Level 1 (ratio
// 2): one region across the periodic boundary's low side, one at the y and
// z walls and the periodic boundary's high side.
Grid twoLevels() {
  Grid grid;
  grid.addLevel(testing::makeLevelSpec({16, 16, 8}, {2, 2, 2}, {0, 1, 0}, {true, false, false}));
  grid.addRefinedLevel({2, 2, 2}, {LevelRegion{Box{{0, 8, 4}, {16, 24, 12}}, {2, 2, 1}},
                                   LevelRegion{Box{{20, 0, 0}, {32, 12, 8}}, {1, 2, 2}}});
  return grid;
}

// The pieces of the graph's received messages that have `flag` set (coarse
// cells for staging, a later time, averages): on several ranks, those that
// come by message.
std::int64_t receivedPieces(const CompiledGraph& graph, bool GhostPiece::*flag) {
  std::int64_t count = 0;
  for (const Message& m : graph.receives)
    for (const GhostPiece& piece : m.pieces)
      count += piece.*flag;
  return count;
}

class CoarseFineGhostsTest : public testing::LevelTest<const char*> {};

TEST_P(CoarseFineGhostsTest, FineGhostsComeFromTheirLevelOrAreRefinedFromTheLevelBelow) {
  const Grid grid = twoLevels();
  const Level& coarse = grid.level(0);
  const Level& fine = grid.level(1);
  const std::vector<int> ranks = testing::roundRobin(grid.numPatches(), m_world.size());
  const int depth = 2;
  // The coarse field as the runtime sees it: held cells (the interior and
  // the y extra cells), wrapped along x, the last held plane beyond the z walls.
  const Box held = coarse.extendedCellBox();
  const auto coarseAt = [&](const IntVector& c) { return coarseValueSeen(c, held, 16); };
  for (const RefineOp op : {RefineOp::LimitedLinear, RefineOp::Linear, RefineOp::Constant}) {
    // Patch groups change where the ghost cells live, not the operator:
    // both ways for the default operator, grouped for the others (CI time).
    for (const bool groups : {true, false}) {
      if (!groups && op != RefineOp::LimitedLinear) continue;
      SCOPED_TRACE(std::string(refineOpName(op)) + (groups ? " groups" : " no groups"));
      const VarLabel* u = m_labels.create<CCVariable<double>>(std::string("u_") + refineOpName(op),
                                                              LevelTransfer{op});
      // The expected coarse-fine values: the operator on the whole coarse field.
      CCVariable<double> reference(Box({-4, -4, -4}, {20, 20, 12}), "reference");
      reference.box().forEachCell([&](const IntVector& c) { reference(c) = coarseAt(c); });

      std::atomic<std::int64_t> wrong{0}, fromCoarse{0}, fromFine{0};
      SchedulerOptions options;
      options.patchGroups = groups;
      const auto sched = makeScheduler(GetParam(), m_world, options);
      sched->beginGraph("levels");
      const auto put = [&](const char* name, const Level& level,
                           double (*value)(const IntVector&)) {
        addFieldTask(*sched, name, u, level, value);
      };
      put("coarse", coarse, coarseValue);
      put("fine", fine, fineValue);
      sched->addTask(
          std::move(Task(
                        "read",
                        [&](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                            ExecutionContext&) {
                          const ConstCCVariable<double> var =
                              dw.get<double>(u, patch, Ghost::AroundCells, depth);
                          fine.ghostedBox(patch, depth).forEachCell([&](const IntVector& c) {
                            if (patch.extendedBox().contains(c)) {
                              wrong += !sameBits(var(c), fineValue(c));
                              return;
                            }
                            IntVector wrapped = c;
                            wrapped.x = ((c.x % 32) + 32) % 32;
                            bool heldByFine = false;
                            for (const Patch& other : fine.patches())
                              heldByFine = heldByFine || other.extendedBox().contains(wrapped);
                            if (heldByFine) {
                              ++fromFine;
                              wrong += !sameBits(var(c), fineValue(wrapped));
                              return;
                            }
                            ++fromCoarse;
                            wrong += !sameBits(var(c), refinedValue(reference, c, op));
                          });
                        },
                        Task::Kind::Host)
                        .requiresVar(Task::NewDW, u, Ghost::AroundCells, depth)),
          fine.eachPatch());
      const CompiledGraph graph = sched->compile(grid, ranks);
      // On several ranks some coarse cells come by message.
      if (m_world.size() > 1) {
        EXPECT_GT(m_world.allreduceSum(receivedPieces(graph, &GhostPiece::toStaging)), 0);
      }
      executeStep(*sched, graph);
      EXPECT_EQ(m_world.allreduceSum(wrong.load()), 0);
      EXPECT_GT(m_world.allreduceSum(fromCoarse.load()), 1000);
      EXPECT_GT(m_world.allreduceSum(fromFine.load()), 100);
    }
  }
}

// Subcycling's coarse-fine ghost cells (Task::CoarseTimeSource): the level
// below's values of two times, each gathered from its patches on any rank,
// interpolated linearly, then refined: bit for bit the operator on
// (1 - w) early + w late.
double lateValue(const IntVector& c) {
  return 2.0 * coarseValue(c) + 1.0;
}

TEST_P(CoarseFineGhostsTest, GhostsBetweenTwoTimesOfTheLevelBelowAreInterpolated) {
  const Grid grid = twoLevels();
  const Level& coarse = grid.level(0);
  const Level& fine = grid.level(1);
  const std::vector<int> ranks = testing::roundRobin(grid.numPatches(), m_world.size());
  const int depth = 2;
  const double weight = 0.25;
  const Box held = coarse.extendedCellBox();
  CCVariable<double> reference(Box({-4, -4, -4}, {20, 20, 12}), "reference");
  reference.box().forEachCell([&](const IntVector& c) {
    IntVector seen = c;
    seen.x = ((c.x % 16) + 16) % 16;
    for (int axis = 1; axis < 3; ++axis)
      seen[axis] = std::clamp(seen[axis], held.lo()[axis], held.hi()[axis] - 1);
    reference(c) = (1 - weight) * coarseValue(seen) + weight * lateValue(seen);
  });
  const VarLabel* early = m_labels.create<CCVariable<double>>("early");
  const VarLabel* late = m_labels.create<CCVariable<double>>("late");
  const VarLabel* u = m_labels.create<CCVariable<double>>("u_between");
  std::atomic<std::int64_t> wrong{0}, fromCoarse{0};
  const auto sched = makeScheduler(GetParam(), m_world, SchedulerOptions{});
  sched->beginGraph("times");
  addFieldTask(*sched, "early", early, coarse, coarseValue);
  addFieldTask(*sched, "late", late, coarse, lateValue);
  addFieldTask(*sched, "fine", u, fine, fineValue);
  Task read(
      "read",
      [&](const Patch& patch, const DataWarehouse&, DataWarehouse& dw, ExecutionContext&) {
        const ConstCCVariable<double> var = dw.get<double>(u, patch, Ghost::AroundCells, depth);
        for (const Box& box : fine.coarseFineGhosts(patch, depth)) {
          box.forEachCell([&](const IntVector& c) {
            ++fromCoarse;
            wrong += !sameBits(var(c), refinedValue(reference, c, RefineOp::LimitedLinear));
          });
        }
      },
      Task::Kind::Host);
  read.requiresVar(Task::NewDW, u, Ghost::AroundCells, depth);
  read.setCoarseTimeSource(0, {early, Task::NewDW, late, Task::NewDW, weight});
  sched->addTask(std::move(read), fine.eachPatch());
  const CompiledGraph graph = sched->compile(grid, ranks);
  if (m_world.size() > 1) {
    EXPECT_GT(m_world.allreduceSum(receivedPieces(graph, &GhostPiece::laterTime)), 0);
  }
  executeStep(*sched, graph);
  EXPECT_EQ(m_world.allreduceSum(wrong.load()), 0);
  EXPECT_GT(m_world.allreduceSum(fromCoarse.load()), 1000);
}

// One variable computed on every level by a task per level, and one
// reduction with contributions from both: every patch counted once, the
// reduction made once after both.
TEST_P(CoarseFineGhostsTest, EachLevelComputesTheSameLabelAndContributesToOneReduction) {
  const Grid grid = twoLevels();
  const std::vector<int> ranks = testing::roundRobin(grid.numPatches(), m_world.size());
  const VarLabel* u = m_labels.create<CCVariable<double>>("u");
  const VarLabel* cells = m_labels.create<SumVariable<double>>("cells");
  const auto sched = makeScheduler(GetParam(), m_world, SchedulerOptions{});
  sched->beginGraph("levels");
  for (int l = 0; l < 2; ++l) {
    sched->addTask(
        std::move(Task(
                      "level " + std::to_string(l),
                      [u, cells](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                                 ExecutionContext&) {
                        CCVariable<double> var = dw.allocateAndPut<double>(u, patch);
                        patch.extendedBox().forEachCell([&](const IntVector& c) { var(c) = 1.0; });
                        dw.put(SumVariable<double>(static_cast<double>(patch.numCells())), cells,
                               patch);
                      },
                      Task::Kind::Host)
                      .computesVar(u)
                      .computesVar(cells)),
        grid.level(l).eachPatch());
  }
  std::atomic<int> wrong{0};
  const double expected = static_cast<double>(grid.level(0).numCells() + grid.level(1).numCells());
  sched->addTask(
      std::move(Task(
                    "read",
                    [&](const Patch&, const DataWarehouse&, DataWarehouse& dw, ExecutionContext&) {
                      wrong += dw.getReduction<SumVariable<double>>(cells).get() != expected;
                    },
                    Task::Kind::Host)
                    .requiresVar(Task::NewDW, cells)),
      grid.level(0).eachPatch());
  const CompiledGraph graph = sched->compile(grid, ranks);
  EXPECT_EQ(
      std::count_if(graph.detailedTasks.begin(), graph.detailedTasks.end(),
                    [](const DetailedTask& n) { return n.kind == DetailedTask::Kind::Reduction; }),
      1);
  executeStep(*sched, graph);
  EXPECT_EQ(m_world.allreduceSum(std::int64_t{wrong.load()}), 0);
  // Two tasks computing one label on the same patches remain an error.
  sched->beginGraph("twice");
  for (int k = 0; k < 2; ++k)
    sched->addTask(
        std::move(Task("put " + std::to_string(k),
                       [](const Patch&, const DataWarehouse&, DataWarehouse&, ExecutionContext&) {})
                      .computesVar(u)),
        grid.level(1).eachPatch());
  const std::string error = testing::errorOf([&] { sched->compile(grid, ranks); });
  EXPECT_NE(error.find("'u' in NewDW is computed by two tasks: 'put 0' and 'put 1' on patch 8"),
            std::string::npos)
      << error;
}

// Restriction: a task on the coarse level that requires a variable from the
// finer level (and modifies it) finds the cells the finer level covers
// replaced by the mean of their fine cells, averaged where the fine cells
// are (on another rank: before they travel), the rest untouched.
TEST_P(CoarseFineGhostsTest, CoarseCellsUnderAFinerLevelBecomeTheMeanOfItsCells) {
  const Grid grid = twoLevels();
  const Level& coarse = grid.level(0);
  const Level& fine = grid.level(1);
  const std::vector<int> ranks = testing::roundRobin(grid.numPatches(), m_world.size());
  const VarLabel* u = m_labels.create<CCVariable<double>>("u");
  const auto sched = makeScheduler(GetParam(), m_world, SchedulerOptions{});
  sched->beginGraph("restrict");
  const auto put = [&](const char* name, const Level& level, double (*value)(const IntVector&)) {
    addFieldTask(*sched, name, u, level, value);
  };
  std::atomic<std::int64_t> wrong{0}, averaged{0}, kept{0};
  sched->addTask(
      std::move(
          Task(
              "check",
              [&](const Patch& patch, const DataWarehouse&, DataWarehouse& dw, ExecutionContext&) {
                const ConstCCVariable<double> var = dw.get<double>(u, patch);
                patch.interior().forEachCell([&](const IntVector& c) {
                  const Box children = refine(Box(c, c + IntVector::uniform(1)), {2, 2, 2});
                  bool covered = false;
                  for (const Patch& f : fine.patches())
                    covered = covered || f.interior().contains(children);
                  if (!covered) {
                    ++kept;
                    wrong += !sameBits(var(c), coarseValue(c));
                    return;
                  }
                  ++averaged;
                  wrong += !sameBits(var(c), averagedValue(c, fineValue));
                });
              },
              Task::Kind::Host)
              .requiresVar(Task::NewDW, u)),
      coarse.eachPatch());
  addAveragingTask(*sched, u, coarse);
  put("fine", fine, fineValue);
  put("coarse", coarse, coarseValue);
  const CompiledGraph graph = sched->compile(grid, ranks);
  if (m_world.size() > 1) {
    EXPECT_GT(m_world.allreduceSum(receivedPieces(graph, &GhostPiece::averaged)), 0);
  }
  for (int run = 0; run < 2; ++run)
    executeStep(*sched, graph, run);
  EXPECT_EQ(m_world.allreduceSum(wrong.load()), 0);
  // Level 1 covers 8 x 8 x 4 + 6 x 6 x 4 coarse cells, checked twice.
  EXPECT_EQ(m_world.allreduceSum(averaged.load()), 2 * (8 * 8 * 4 + 6 * 6 * 4));
  EXPECT_EQ(m_world.allreduceSum(kept.load()), 2 * (16 * 16 * 8 - 8 * 8 * 4 - 6 * 6 * 4));
}

// Refluxing's face operators (fluxTransfer): a coarse cell's face under the
// finer level takes the mean of the fine faces on it only where the finer
// level ends, its neighbour across the face not covered (across the
// periodic boundary too); a face between two finer patches, which
// refluxing never reads, keeps the coarse value. (The rows beside the y
// walls, where no coarse cell is corrected across the wall, are not checked.)
TEST_P(CoarseFineGhostsTest, FaceOperatorsAverageOnlyWhereTheFinerLevelEnds) {
  const Grid grid = twoLevels();
  const Level& coarse = grid.level(0);
  const Level& fine = grid.level(1);
  const std::vector<int> ranks = testing::roundRobin(grid.numPatches(), m_world.size());
  const auto sched = makeScheduler(GetParam(), m_world, SchedulerOptions{});
  sched->beginGraph("restrict faces");
  const IntVector cells = coarse.cellBox().size();
  const auto covered = [&](IntVector c) {
    c.x = (c.x + cells.x) % cells.x;  // periodic along x
    const Box children = refine(Box(c, c + IntVector::uniform(1)), {2, 2, 2});
    return std::any_of(fine.patches().begin(), fine.patches().end(),
                       [&](const Patch& f) { return f.interior().contains(children); });
  };
  std::atomic<std::int64_t> wrong{0}, averaged{0}, kept{0};
  for (int axis : {0, 1}) {
    for (bool high : {false, true}) {
      const std::string name = std::string("flux.") + "xy"[axis] + (high ? ".high" : ".low");
      const VarLabel* flux = m_labels.create<CCVariable<double>>(name, fluxTransfer(axis, high));
      addFieldTask(*sched, "fine", flux, fine, fineValue);
      addFieldTask(*sched, "coarse", flux, coarse, coarseValue);
      addAveragingTask(*sched, flux, coarse);
      const IntVector across = IntVector::axisVector(axis, high ? 1 : -1);
      const auto check = [&, flux, axis, high, across](const Patch& patch, const DataWarehouse&,
                                                       DataWarehouse& dw, ExecutionContext&) {
        const ConstCCVariable<double> var = dw.get<double>(flux, patch);
        patch.interior().forEachCell([&](const IntVector& c) {
          const IntVector beside = c + across;
          if (axis == 1 && (beside.y < 0 || beside.y >= cells.y)) return;
          if (covered(c) && !covered(beside)) {
            ++averaged;
            wrong += !sameBits(var(c), faceAveragedValue(c, axis, high, fineValue));
          } else {
            ++kept;
            wrong += !sameBits(var(c), coarseValue(c));
          }
        });
      };
      sched->addTask(
          std::move(Task("check " + name, check, Task::Kind::Host).requiresVar(Task::NewDW, flux)),
          coarse.eachPatch());
    }
  }
  const CompiledGraph graph = sched->compile(grid, ranks);
  executeStep(*sched, graph);
  EXPECT_EQ(m_world.allreduceSum(wrong.load()), 0);
  // Level 1's regions cover the coarse boxes x [0, 8) y [4, 12) z [2, 6)
  // and x [10, 16) y [0, 6) z [0, 4); across the periodic boundary the
  // first's low x face meets the second's high x face in 2 x 2 cells.
  // Averaged: x faces 8 x 4 - 4 + 6 x 4 (low) and 8 x 4 + 6 x 4 - 4 (high),
  // y faces 8 x 4 (low; the second's is at the wall) and 8 x 4 + 6 x 4
  // (high); every other checked face keeps its coarse value (the y faces'
  // are checked but in the rows beside the two y walls).
  const std::int64_t faces = (28 + 24) + (32 + 20) + 32 + (32 + 24);
  const std::int64_t checked = 4 * coarse.numCells() - 2 * cells.x * cells.z;
  EXPECT_EQ(m_world.allreduceSum(averaged.load()), faces);
  EXPECT_EQ(m_world.allreduceSum(kept.load()), checked - faces);
}

TEST_P(CoarseFineGhostsTest, ALevelNestedTooShallowForTheGhostsIsAnError) {
  Grid grid;
  grid.addLevel(testing::makeLevelSpec({16, 16, 16}, {1, 1, 1}));
  grid.addRefinedLevel({2, 2, 2}, {LevelRegion{Box{{8, 8, 8}, {24, 24, 24}}, {1, 1, 1}}});
  // Level 2 fills level 1's region: no coarse cell of level 1 around it.
  grid.addRefinedLevel({2, 2, 2}, {LevelRegion{Box{{16, 16, 16}, {48, 48, 48}}, {1, 1, 1}}});
  const VarLabel* u = m_labels.create<CCVariable<double>>("u");
  const auto sched = makeScheduler(GetParam(), m_world, SchedulerOptions{});
  sched->beginGraph("nested");
  for (int l = 0; l < 3; ++l)
    sched->addTask(std::move(Task("put", [](const Patch&, const DataWarehouse&, DataWarehouse&,
                                            ExecutionContext&) {})
                                 .computesVar(u)),
                   grid.level(l).eachPatch());
  sched->addTask(std::move(Task("read", [](const Patch&, const DataWarehouse&, DataWarehouse&,
                                           ExecutionContext&) {})
                               .requiresVar(Task::NewDW, u, Ghost::AroundCells, 1)),
                 grid.level(2).eachPatch());
  const std::string error = testing::errorOf([&] {
    sched->compile(grid, std::vector<int>(static_cast<std::size_t>(grid.numPatches()), 0));
  });
  // Rank 0 holds every patch: it finds the fill (the others compile nothing).
  if (m_world.rank() == 0) {
    EXPECT_NE(error.find("not nested deeply enough"), std::string::npos) << error;
    EXPECT_NE(error.find("of level 1"), std::string::npos) << error;
    EXPECT_NE(error.find("amr.nesting_buffer"), std::string::npos) << error;
  } else {
    EXPECT_EQ(error, "");
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, CoarseFineGhostsTest, ::testing::ValuesIn(kModes),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace tessera
