// The data between levels where a rank's patches form groups on one
// allocation, on 1 to 3 ranks in every scheduler mode: the coarse-fine
// ghost cells of a group's patches refined in one pass (GroupRefinement)
// are bit for bit the operator's, and the averages a fine task's stencil
// sweep makes as it goes (SweepAverage) are those of the final fine values:
// when the task may change its cells after the sweep (a kernel over them,
// its own kernel, row ends reaching them), the averages are left to the
// coarse reader, which then sees the changed values.
#include <gtest/gtest.h>

#include "LevelTestFields.h"
#include "LevelTestRuns.h"
#include "TestHelpers.h"

#include "CCA/Components/Schedulers/GraphScheduler.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Ports/DataWarehouse.h"
#include "CCA/Ports/ExecutionContext.h"
#include "Core/Grid/Grid.h"
#include "Core/Grid/Variables/CCVariable.h"
#include "Core/Grid/Variables/LevelOperators.h"
#include "Core/Parallel/Communicator.h"

#include <atomic>
#include <string>
#include <vector>

namespace tessera {
namespace {

using testing::addAveragingTask;
using testing::addFieldTask;
using testing::averagedValue;
using testing::coarseValue;
using testing::executeStep;
using testing::fineValue;
using testing::refinedValue;
using testing::sameBits;

const char* const kModes[] = {"host", "sync", "async"};

// Level 0: 16^3 cells in 2^3 patches; level 1 (ratio 2) over its middle,
// 16^3 fine cells in 2^3 patches, nested away from every wall, so that its
// coarse-fine ghost cells lie inside the coarse level.
Grid middleLevels() {
  Grid grid;
  grid.addLevel(testing::makeLevelSpec({16, 16, 16}, {2, 2, 2}));
  grid.addRefinedLevel({2, 2, 2}, {LevelRegion{Box{{8, 8, 8}, {24, 24, 24}}, {2, 2, 2}}});
  return grid;
}

class GroupLevelTransfersTest : public testing::LevelTest<const char*> {};

TEST_P(GroupLevelTransfersTest, AGroupsCoarseFineGhostsAreRefinedInOnePass) {
  const Grid grid = middleLevels();
  const Level& coarse = grid.level(0);
  const Level& fine = grid.level(1);
  // Contiguous blocks of patches per rank, so that ranks hold groups.
  std::vector<int> ranks;
  for (int id = 0; id < grid.numPatches(); ++id)
    ranks.push_back(id * m_world.size() / grid.numPatches());
  for (const auto& [type, depth] : {std::pair{Ghost::AroundFaces, 1}, {Ghost::AroundCells, 2}}) {
    SCOPED_TRACE(std::to_string(depth) + " ghost layers");
    const VarLabel* u = m_labels.create<CCVariable<double>>("u" + std::to_string(depth));
    CCVariable<double> reference(Box({-4, -4, -4}, {20, 20, 20}), "reference");
    reference.box().forEachCell([&](const IntVector& c) { reference(c) = coarseValue(c); });
    std::atomic<std::int64_t> wrong{0}, fromCoarse{0};
    const auto sched = makeScheduler(GetParam(), m_world, SchedulerOptions{});
    sched->beginGraph("levels");
    addFieldTask(*sched, "coarse", u, coarse, coarseValue, true);
    addFieldTask(*sched, "fine", u, fine, fineValue, true);
    Task read(
        "read",
        [&, u, type = type, depth = depth](const PatchGroup& group, const DataWarehouse&,
                                           DataWarehouse& dw, ExecutionContext&) {
          const ConstCCVariable<double> var = dw.get<double>(u, group, type, depth);
          for (const Patch* patch : group.patches()) {
            const std::vector<Box> boxes = fine.coarseFineGhosts(*patch, depth, type);
            for (const Box& box : boxes) {
              box.forEachCell([&](const IntVector& c) {
                ++fromCoarse;
                wrong += !sameBits(var(c), refinedValue(reference, c, RefineOp::LimitedLinear));
              });
            }
          }
        },
        Task::Kind::Host);
    read.requiresVar(Task::NewDW, u, type, depth);
    sched->addTask(std::move(read), fine.eachPatch());
    const CompiledGraph graph = sched->compile(grid, ranks);
    executeStep(*sched, graph);
    EXPECT_EQ(m_world.allreduceSum(wrong.load()), 0);
    // Six faces of 16^2 fine cells per layer (and edges and corners).
    EXPECT_GE(m_world.allreduceSum(fromCoarse.load()), 6 * 16 * 16 * depth);
    // On one rank the eight patches are one group: one pass, not eight.
    if (m_world.size() == 1) {
      EXPECT_EQ(graph.groupRefinements.size(), 1U);
      EXPECT_EQ(sched->stats().groupRefinements, 1);
    }
  }
}

// What the fine task does after its stencil sweep.
enum class After { Nothing, KernelOverTheCells, KernelItLaunchedItself, RowEndsIntoTheCells };

struct SweepCase {
  const char* mode;
  After after;
};

class SweepAveragesTest : public testing::LevelTest<SweepCase> {};

// The coarse cells under level 1 hold the mean of the final fine values
// (2 fineValue + 1 from the sweep, one more where the task adds it after);
// the sweep makes the averages only when nothing may change its cells after.
TEST_P(SweepAveragesTest, CoarseCellsHoldTheMeanOfTheFinalFineValues) {
  const After after = GetParam().after;
  const Grid grid = middleLevels();
  const Level& coarse = grid.level(0);
  const Level& fine = grid.level(1);
  // Fine patch 8 + k lies over coarse patch k: the same rank holds both,
  // and some averages are local on every rank.
  std::vector<int> ranks;
  for (int id = 0; id < grid.numPatches(); ++id)
    ranks.push_back(id % 8 % m_world.size());
  const VarLabel* v = m_labels.create<CCVariable<double>>("v");
  const VarLabel* u = m_labels.create<CCVariable<double>>("u");
  const auto sched = makeScheduler(GetParam().mode, m_world, SchedulerOptions{});
  sched->beginGraph("averages");
  addFieldTask(*sched, "coarse u", u, coarse, coarseValue, true);
  addFieldTask(*sched, "fine v", v, fine, fineValue, true);
  Task sweep(
      "sweep",
      [v, u, after](const PatchGroup& group, const DataWarehouse&, DataWarehouse& dw,
                    ExecutionContext& exec) {
        const CellArray<const double> in = dw.get<double>(v, group).array();
        const CellArray<double> out = dw.allocateAndPut<double>(u, group).array();
        exec.stencilFor(
            group.interior(), 0, StencilInputs<double, 1>{{in}}, StencilOutputs<double, 1>{{out}},
            KOKKOS_LAMBDA(int i, int j, int k, const StencilInputs<double, 1>& a,
                          const StencilOutputs<double, 1>& b) {
              b[0](i, j, k) = 2.0 * a[0](i, j, k) + 1.0;
            });
        if (after == After::KernelOverTheCells) {
          exec.parallelFor(
              group.interior(), KOKKOS_LAMBDA(int i, int j, int k) { out(i, j, k) += 1.0; });
        } else if (after == After::KernelItLaunchedItself) {
          exec.countKernel();  // a library's kernel, say
          group.interior().forEachCell([&](const IntVector& c) { out(c) += 1.0; });
        } else if (after == After::RowEndsIntoTheCells) {
          // A kernel over the column before the cells, whose row ends add 1
          // to the fine cells of x = 8 (where the group begins there).
          const Box cells = group.interior();
          const Box column(cells.lo() - IntVector{1, 0, 0},
                           {cells.lo().x, cells.hi().y, cells.hi().z});
          const int first = cells.lo().x;
          exec.parallelFor(
              column, KOKKOS_LAMBDA(int, int, int){}, KOKKOS_LAMBDA(int j, int k) {
                if (first == 8) out(first, j, k) += 1.0;
              });
        }
      },
      Task::Kind::Device);
  sweep.requiresVar(Task::NewDW, v).computesVar(u);
  sched->addTask(std::move(sweep), fine.eachPatch());
  addAveragingTask(*sched, u, coarse);
  const bool addsOne = after == After::KernelOverTheCells || after == After::KernelItLaunchedItself;
  std::atomic<std::int64_t> wrong{0}, averaged{0};
  sched->addTask(
      std::move(
          Task(
              "check",
              [&](const Patch& patch, const DataWarehouse&, DataWarehouse& dw, ExecutionContext&) {
                const ConstCCVariable<double> var = dw.get<double>(u, patch);
                patch.interior().forEachCell([&](const IntVector& c) {
                  const Box children = refine(Box(c, c + IntVector::uniform(1)), {2, 2, 2});
                  if (!Box({8, 8, 8}, {24, 24, 24}).contains(children)) {
                    wrong += !sameBits(var(c), coarseValue(c));
                    return;
                  }
                  ++averaged;
                  const auto finalValue = [&](const IntVector& f) {
                    const bool rowEnd = after == After::RowEndsIntoTheCells && f.x == 8;
                    return 2.0 * fineValue(f) + 1.0 + (addsOne || rowEnd ? 1.0 : 0.0);
                  };
                  wrong += !sameBits(var(c), averagedValue(c, finalValue));
                });
              },
              Task::Kind::Host)
              .requiresVar(Task::NewDW, u)),
      coarse.eachPatch());
  const CompiledGraph graph = sched->compile(grid, ranks);
  for (int run = 0; run < 2; ++run)
    executeStep(*sched, graph, run);
  EXPECT_EQ(m_world.allreduceSum(wrong.load()), 0);
  EXPECT_EQ(m_world.allreduceSum(averaged.load()), 2 * 8 * 8 * 8);
  const std::int64_t swept = m_world.allreduceSum(sched->stats().sweptAverages);
  if (after == After::Nothing) {
    EXPECT_GT(swept, 0);
  } else {
    EXPECT_EQ(swept, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, GroupLevelTransfersTest, ::testing::ValuesIn(kModes),
                         [](const auto& info) { return std::string(info.param); });

std::vector<SweepCase> sweepCases() {
  std::vector<SweepCase> cases;
  for (const char* mode : kModes)
    for (const After after : {After::Nothing, After::KernelOverTheCells,
                              After::KernelItLaunchedItself, After::RowEndsIntoTheCells})
      cases.push_back({mode, after});
  return cases;
}

std::string sweepCaseName(const ::testing::TestParamInfo<SweepCase>& info) {
  const char* const after[] = {"Nothing", "Kernel", "OwnKernel", "RowEnds"};
  return std::string(info.param.mode) + "_after" + after[static_cast<int>(info.param.after)];
}

INSTANTIATE_TEST_SUITE_P(Modes, SweepAveragesTest, ::testing::ValuesIn(sweepCases()),
                         sweepCaseName);

}  // namespace
}  // namespace tessera
