// Moving a run's cell variables from one grid to another (a regrid or a
// rebalance), on 1 and 3 ranks, the patches on other ranks after the move
// than before: level 0 and the cells the old finer level held arrive bit
// for bit; the cells a finer level gains are refined from the new level
// below with the label's operator, bit for bit what that operator gives on
// the coarse field (wrapped across a periodic axis, the last held plane
// beyond a wall). A new level not nested deeply enough for the refinement's
// stencil is an error on every rank.
#include <gtest/gtest.h>

#include "LevelTestFields.h"
#include "TestHelpers.h"

#include "CCA/Components/Schedulers/GridTransfer.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "Core/Grid/Grid.h"
#include "Core/Grid/PatchGroup.h"
#include "Core/Grid/Variables/CCVariable.h"
#include "Core/Grid/Variables/LevelOperators.h"
#include "Core/Parallel/Communicator.h"
#include "Core/Util/Error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

namespace tessera {
namespace {

using testing::coarseValue;
using testing::coarseValueSeen;
using testing::fineValue;
using testing::sameBits;

// Level 0: 16 x 16 x 8 cells in 2 x 2 x 2 patches, periodic along x, one
// extra cell beyond the y walls and none beyond the z walls.
LevelSpec levelZero() {
  return testing::makeLevelSpec({16, 16, 8}, {2, 2, 2}, {0, 1, 0}, {true, false, false});
}

// Before: level 1 over one box. After: a box that keeps part of it, moves
// across the periodic boundary and reaches the y wall and the z walls.
Grid before() {
  Grid grid;
  grid.addLevel(levelZero());
  grid.addRefinedLevel({2, 2, 2}, {LevelRegion{Box{{4, 4, 4}, {16, 16, 12}}, {2, 2, 1}}});
  return grid;
}
Grid after() {
  Grid grid;
  grid.addLevel(levelZero());
  grid.addRefinedLevel({2, 2, 2}, {LevelRegion{Box{{8, 0, 0}, {20, 12, 16}}, {2, 1, 2}},
                                   LevelRegion{Box{{28, 20, 4}, {32, 32, 12}}, {1, 2, 1}}});
  return grid;
}

// Patch p on rank (p + shift) % ranks.
std::vector<int> shifted(int patches, int ranks, int shift) {
  std::vector<int> owner;
  for (int p = 0; p < patches; ++p)
    owner.push_back((p + shift) % ranks);
  return owner;
}

class GridTransferTest : public ::testing::Test {
 protected:
  Communicator m_world = Communicator::borrow(MPI_COMM_WORLD);
  VarLabelRegistry m_labels;

  // `value(level, cell)` on every extended cell of this rank's patches.
  void fill(const Grid& grid, const std::vector<int>& ranks, OnDemandDataWarehouse& dw,
            const VarLabel* u) const {
    for (int l = 0; l < grid.numLevels(); ++l) {
      const Level& level = grid.level(l);
      for (const Patch& patch : level.patches()) {
        if (ranks[static_cast<std::size_t>(patch.id())] != m_world.rank()) continue;
        auto var = std::make_shared<CCVariable<double>>(level.ghostedBox(patch, 1), "u");
        patch.extendedBox().forEachCell(
            [&](const IntVector& c) { (*var)(c) = l == 0 ? coarseValue(c) : fineValue(c); });
        dw.putGridVariable(u, patch, var);
      }
    }
  }
};

TEST_F(GridTransferTest, HeldCellsArriveAsTheyWereAndNewOnesAreRefinedFromTheLevelBelow) {
  const Grid from = before();
  const Grid to = after();
  const Level& coarse = from.level(0);
  const Level& oldFine = from.level(1);
  const int ranks = m_world.size();
  const std::vector<int> fromRanks = shifted(from.numPatches(), ranks, 0);
  const std::vector<int> toRanks = shifted(to.numPatches(), ranks, 1);
  // The coarse field as a refinement sees it: wrapped along x, the y extra
  // cells held, the last held plane beyond the z walls.
  const Box held = coarse.extendedCellBox();
  CCVariable<double> coarseField(held.grow(2), "coarse");
  coarseField.box().forEachCell(
      [&](const IntVector& cell) { coarseField(cell) = coarseValueSeen(cell, held, 16); });

  for (const RefineOp op : {RefineOp::LimitedLinear, RefineOp::Linear, RefineOp::Constant}) {
    const VarLabel* u = m_labels.create<CCVariable<double>>(
        "u" + std::to_string(static_cast<int>(op)), LevelTransfer{op, CoarsenOp::Average});
    OnDemandDataWarehouse source("OldDW", 3, 0.0, 0.0);
    OnDemandDataWarehouse destination("NewDW", 3, 0.0, 0.0);
    destination.setGhostLayers({{u, 2}});
    fill(from, fromRanks, source, u);
    SchedulerStats stats;
    const GridTransferCounts counts =
        transferGrid({from, fromRanks, source}, {to, toRanks, destination}, {u}, m_world, stats);

    std::int64_t mine = 0;
    int copied = 0, refined = 0;
    for (int l = 0; l < to.numLevels(); ++l) {
      const Level& level = to.level(l);
      for (const Patch& patch : level.patches()) {
        if (toRanks[static_cast<std::size_t>(patch.id())] != m_world.rank()) continue;
        const auto var =
            std::dynamic_pointer_cast<CCVariable<double>>(destination.findGridVariable(u, patch));
        ASSERT_NE(var, nullptr) << patch;
        EXPECT_TRUE(var->box().contains(level.ghostedBox(patch, 2))) << "room for the ghost layers";
        mine += patch.extendedBox().volume();
        patch.extendedBox().forEachCell([&](const IntVector& c) {
          double expected = 0.0;
          if (l == 0) {
            expected = coarseValue(c);
          } else if (!oldFine.patchesIntersecting(Box{c, c + IntVector::uniform(1)}).empty()) {
            expected = fineValue(c);
            ++copied;
          } else {
            CCVariable<double> one(Box{c, c + IntVector::uniform(1)}, "one");
            one.refineFrom(coarseField, one.box(), {2, 2, 2}, op);
            expected = one(c);
            ++refined;
          }
          EXPECT_TRUE(sameBits((*var)(c), expected))
              << "level " << l << " cell " << c << ": " << (*var)(c) << " against " << expected;
        });
      }
    }
    EXPECT_EQ(counts.copiedCells + counts.refinedCells, mine);
    EXPECT_EQ(counts.refinedCells, refined);
    // Every level-1 cell either way, over all ranks; some of each kind.
    EXPECT_GT(m_world.allreduceSum(std::int64_t{copied}), 0);
    EXPECT_GT(m_world.allreduceSum(std::int64_t{refined}), 0);
    if (ranks > 1) {
      EXPECT_GT(m_world.allreduceSum(counts.messages), 0) << "patches changed ranks";
    }
  }
}

// The moved variables are allocated as the timestep graph's group tasks
// read them: a patch group's patches windows on one allocation (or, with
// patch groups off, each patch its own), so that no task gathers them again.
TEST_F(GridTransferTest, MovedVariablesShareTheirPatchGroupsAllocation) {
  const Grid from = before();
  const Grid to = after();
  const std::vector<int> fromRanks = shifted(from.numPatches(), m_world.size(), 0);
  // Contiguous runs of patch ids per rank, so that ranks hold groups.
  std::vector<int> toRanks;
  for (int id = 0; id < to.numPatches(); ++id)
    toRanks.push_back(id * m_world.size() / to.numPatches());
  const VarLabel* u = m_labels.create<CCVariable<double>>("grouped u");
  for (const bool groups : {true, false}) {
    OnDemandDataWarehouse source("OldDW", 3, 0.0, 0.0);
    OnDemandDataWarehouse destination("NewDW", 3, 0.0, 0.0);
    destination.setGhostLayers({{u, 1}});
    fill(from, fromRanks, source, u);
    SchedulerStats stats;
    transferGrid({from, fromRanks, source}, {to, toRanks, destination, groups}, {u}, m_world,
                 stats);
    std::int64_t shared = 0;
    for (int l = 0; l < to.numLevels(); ++l) {
      std::vector<const Patch*> local;
      for (const Patch& patch : to.level(l).patches())
        if (toRanks[static_cast<std::size_t>(patch.id())] == m_world.rank()) local.push_back(&patch);
      std::set<const void*> storages;
      for (const PatchGroup& group : formPatchGroups(local, groups)) {
        for (const Patch* patch : group.patches()) {
          const auto var = destination.findGridVariable(u, *patch);
          ASSERT_NE(var, nullptr) << *patch;
          EXPECT_TRUE(destination.inGroupStorage(u, group.storageKey(), *var)) << *patch;
          storages.insert(var->storage());
        }
        shared += static_cast<std::int64_t>(group.patches().size()) - 1;
      }
      EXPECT_EQ(storages.size(), groups ? formPatchGroups(local, true).size() : local.size());
    }
    if (groups) {
      EXPECT_GT(m_world.allreduceSum(shared), 0) << "some groups of several patches";
    } else {
      EXPECT_EQ(shared, 0);
    }
  }
}

TEST_F(GridTransferTest, ANewLevelNotNestedForTheRefinementIsAnErrorOnEveryRank) {
  const Grid from = before();
  Grid to;
  to.addLevel(levelZero());
  to.addRefinedLevel({2, 2, 2}, {LevelRegion{Box{{8, 8, 4}, {16, 16, 8}}, {1, 1, 1}}});
  // Level 2 reaches the edge of level 1: its slopes need level-1 cells
  // beyond it.
  to.addRefinedLevel({2, 2, 2}, {LevelRegion{Box{{16, 16, 8}, {24, 24, 12}}, {1, 1, 1}}});
  const VarLabel* u = m_labels.create<CCVariable<double>>("u");
  const std::vector<int> fromRanks = shifted(from.numPatches(), m_world.size(), 0);
  const std::vector<int> toRanks = shifted(to.numPatches(), m_world.size(), 0);
  OnDemandDataWarehouse source("OldDW", 0, 0.0, 0.0);
  OnDemandDataWarehouse destination("NewDW", 0, 0.0, 0.0);
  fill(from, fromRanks, source, u);
  SchedulerStats stats;
  EXPECT_THROW(
      {
        try {
          transferGrid({from, fromRanks, source}, {to, toRanks, destination}, {u}, m_world, stats);
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("nesting_buffer"), std::string::npos) << e.what();
          throw;
        }
      },
      Error);
}

}  // namespace
}  // namespace tessera
