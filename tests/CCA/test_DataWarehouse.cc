// OnDemandDataWarehouse through the DataWarehouse port: typed access, the
// errors that name label, patch and warehouse, ghost room, reductions,
// per-patch values, and allocation from several threads.
#include <gtest/gtest.h>

#include "TestHelpers.h"

#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Ports/DataWarehouse.h"
#include "Core/Grid/Grid.h"
#include "Core/Util/Error.h"

#include <atomic>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <thread>
#include <vector>

namespace tessera {
namespace {

using tessera::testing::errorOf;
using tessera::testing::expectMentions;

double valueAt(const IntVector& c) {
  return c.x + 100.0 * c.y + 10000.0 * c.z + 0.25;
}

class DataWarehouseTest : public ::testing::Test {
 protected:
  DataWarehouseTest() {
    LevelSpec spec;
    spec.resolution = {8, 8, 8};
    spec.patches = {2, 2, 2};
    spec.extraCells = {1, 1, 1};
    m_grid.addLevel(spec);
  }
  const Level& level() const { return m_grid.level(0); }
  const Patch& patch(int id) const { return m_grid.patchById(id); }

  // Writes valueAt over the patch's extended box through a host loop.
  void writeInterior(CCVariable<double>& var, const Patch& p) const {
    p.extendedBox().forEachCell([&](const IntVector& c) { var(c) = valueAt(c); });
  }
  int countWrong(const ConstCCVariable<double>& var, const Box& box) const {
    int wrong = 0;
    box.forEachCell([&](const IntVector& c) { wrong += var(c) != valueAt(c); });
    return wrong;
  }

  Grid m_grid;
  VarLabelRegistry m_labels;
  const VarLabel* m_u = m_labels.create<CCVariable<double>>("u");
  const VarLabel* m_v = m_labels.create<CCVariable<double>>("v");
  const VarLabel* m_sum = m_labels.create<SumVariable<double>>("total");
  const VarLabel* m_min = m_labels.create<MinVariable<double>>("delT");
  const VarLabel* m_flag = m_labels.create<PerPatch<int>>("flag");
  OnDemandDataWarehouse m_dw{"NewDW", 3, 0.5, 0.1};
};

TEST_F(DataWarehouseTest, DescribesItself) {
  EXPECT_EQ(m_dw.name(), "NewDW (timestep 3)");
  EXPECT_EQ(m_dw.timestep(), 3);
  EXPECT_EQ(m_dw.time(), 0.5);
  EXPECT_EQ(m_dw.delT(), 0.1);
  m_dw.setRole("OldDW");
  EXPECT_EQ(m_dw.name(), "OldDW (timestep 3)");
}

TEST_F(DataWarehouseTest, AllocateAndPutThenGet) {
  const Patch& p = patch(5);
  CCVariable<double> var = m_dw.allocateAndPut<double>(m_u, p);
  // Without ghost readers the allocation is the interior plus extra cells.
  EXPECT_EQ(var.box(), p.extendedBox());
  writeInterior(var, p);
  EXPECT_TRUE(m_dw.exists(m_u, p));
  EXPECT_FALSE(m_dw.exists(m_u, patch(4)));
  EXPECT_FALSE(m_dw.exists(m_v, p));
  const ConstCCVariable<double> read = m_dw.get<double>(m_u, p);
  EXPECT_EQ(read.box(), p.extendedBox());
  EXPECT_EQ(countWrong(read, p.extendedBox()), 0);
  EXPECT_EQ(m_dw.numGridVariables(), 1U);
  EXPECT_EQ(m_dw.gridLabels(), std::vector<const VarLabel*>{m_u});
}

TEST_F(DataWarehouseTest, GetOfMissingVariableNamesLabelPatchAndWarehouse) {
  m_dw.allocateAndPut<double>(m_u, patch(1));
  expectMentions(errorOf([&] { m_dw.get<double>(m_u, patch(6)); }),
                 {"'u'", "patch 6", "NewDW (timestep 3)"});
  expectMentions(errorOf([&] { m_dw.getModifiable<double>(m_v, patch(1)); }),
                 {"'v'", "patch 1", "NewDW (timestep 3)"});
}

TEST_F(DataWarehouseTest, PutTwiceIsAnError) {
  m_dw.allocateAndPut<double>(m_u, patch(2));
  expectMentions(errorOf([&] { m_dw.allocateAndPut<double>(m_u, patch(2)); }),
                 {"'u'", "patch 2", "already in", "NewDW"});
  // Another patch or another label is fine.
  EXPECT_NO_THROW(m_dw.allocateAndPut<double>(m_u, patch(3)));
  EXPECT_NO_THROW(m_dw.allocateAndPut<double>(m_v, patch(2)));
}

TEST_F(DataWarehouseTest, GetModifiableSharesMemory) {
  const Patch& p = patch(0);
  CCVariable<double> var = m_dw.allocateAndPut<double>(m_u, p);
  writeInterior(var, p);
  CCVariable<double> modifiable = m_dw.getModifiable<double>(m_u, p);
  const IntVector cell{1, 2, 3};
  modifiable(cell) = -7.5;
  EXPECT_EQ(var(cell), -7.5);
  EXPECT_EQ(m_dw.get<double>(m_u, p)(cell), -7.5);
  EXPECT_EQ(&modifiable(cell), &var(cell));
}

TEST_F(DataWarehouseTest, TypeMismatchIsAnError) {
  m_dw.allocateAndPut<double>(m_u, patch(0));
  expectMentions(errorOf([&] { m_dw.get<float>(m_u, patch(0)); }),
                 {"'u'", "CCVariable<float>", "CCVariable<double>"});
  expectMentions(errorOf([&] { m_dw.allocateAndPut<float>(m_v, patch(0)); }),
                 {"'v'", "CCVariable<float>"});
  expectMentions(errorOf([&] { m_dw.getReduction<MaxVariable<double>>(m_min); }),
                 {"'delT'", "ReductionVariable<double, max>"});
  EXPECT_THROW(m_dw.put(SumVariable<double>(1.0), m_u, patch(0)), Error);
}

TEST_F(DataWarehouseTest, AllocateAndPutLeavesRoomForTheGhostLayersReadersNeed) {
  m_dw.setGhostLayers({{m_u, 2}});
  m_dw.setGhostLayers({{m_u, 1}, {m_v, 1}});  // keeps the larger hint
  EXPECT_EQ(m_dw.ghostLayersToAllocate(m_u), 2);
  EXPECT_EQ(m_dw.ghostLayersToAllocate(m_v), 1);
  EXPECT_EQ(m_dw.ghostLayersToAllocate(m_flag), 0);
  for (int id : {0, 7}) {
    const Patch& p = patch(id);
    const CCVariable<double> var = m_dw.allocateAndPut<double>(m_u, p);
    EXPECT_EQ(var.box(), level().ghostedBox(p, 2)) << p;
    EXPECT_NO_THROW(m_dw.get<double>(m_u, p, Ghost::AroundCells, 2));
  }
  // Patch 0's low faces carry boundary conditions: extra cells, no ghosts.
  const Box box = m_dw.get<double>(m_u, patch(0)).box();
  EXPECT_EQ(box.lo(), IntVector(-1, -1, -1));
  EXPECT_EQ(box.hi(), IntVector(6, 6, 6));
}

TEST_F(DataWarehouseTest, EnsureGhostRoomGrowsAndKeepsInteriorData) {
  const Patch& p = patch(3);
  CCVariable<double> var = m_dw.allocateAndPut<double>(m_u, p);
  writeInterior(var, p);
  ASSERT_EQ(var.box(), p.extendedBox());
  m_dw.ensureGhostRoom(m_u, p, 2);
  const ConstCCVariable<double> grown = m_dw.get<double>(m_u, p, Ghost::AroundCells, 2);
  EXPECT_EQ(grown.box(), level().ghostedBox(p, 2));
  EXPECT_EQ(countWrong(grown, p.extendedBox()), 0);
  // Already big enough: nothing changes.
  const auto before = m_dw.findGridVariable(m_u, p);
  m_dw.ensureGhostRoom(m_u, p, 1);
  EXPECT_EQ(m_dw.findGridVariable(m_u, p), before);
  expectMentions(errorOf([&] { m_dw.ensureGhostRoom(m_v, p, 1); }), {"'v'", "patch 3", "NewDW"});
}

TEST_F(DataWarehouseTest, GetWithMoreGhostsThanAllocatedIsAnError) {
  m_dw.setGhostLayers({{m_u, 1}});
  m_dw.allocateAndPut<double>(m_u, patch(7));
  EXPECT_NO_THROW(m_dw.get<double>(m_u, patch(7), Ghost::AroundCells, 1));
  expectMentions(errorOf([&] { m_dw.get<double>(m_u, patch(7), Ghost::AroundCells, 2); }),
                 {"'u'", "patch 7", "2 ghost layers", "requiresVar"});
}

TEST_F(DataWarehouseTest, ReductionContributionsAndReducedValue) {
  for (int id = 0; id < 3; ++id)
    m_dw.put(SumVariable<double>(0.5 * id), m_sum, patch(id));
  const auto contributions = m_dw.reductionContributions(m_sum);
  ASSERT_EQ(contributions.size(), 3U);
  for (int id = 0; id < 3; ++id) {
    // A sum's contribution is the patch's exact sum (ExactSum).
    ASSERT_EQ(contributions.at(id).size(), sizeof(ExactSum));
    ExactSum value;
    std::memcpy(static_cast<void*>(&value), contributions.at(id).data(), sizeof(ExactSum));
    EXPECT_EQ(value.value(), 0.5 * id);
  }
  EXPECT_TRUE(m_dw.reductionContributions(m_min).empty());
  expectMentions(errorOf([&] { m_dw.put(SumVariable<double>(9.0), m_sum, patch(1)); }),
                 {"patch 1", "'total'", "twice"});
  // Not readable until the runtime has combined the contributions.
  expectMentions(errorOf([&] { m_dw.getReduction<SumVariable<double>>(m_sum); }),
                 {"'total'", "NewDW (timestep 3)"});
  const double reduced = 1.5;
  m_dw.setReducedValue(m_sum, reinterpret_cast<const std::byte*>(&reduced));
  EXPECT_EQ(m_dw.getReduction<SumVariable<double>>(m_sum).get(), 1.5);
}

TEST_F(DataWarehouseTest, PerPatchPutAndGet) {
  m_dw.put(PerPatch<int>(42), m_flag, patch(4));
  m_dw.put(PerPatch<int>(-1), m_flag, patch(5));
  EXPECT_EQ(m_dw.getPerPatch<int>(m_flag, patch(4)).get(), 42);
  EXPECT_EQ(m_dw.getPerPatch<int>(m_flag, patch(5)).get(), -1);
  expectMentions(errorOf([&] { m_dw.getPerPatch<int>(m_flag, patch(6)); }),
                 {"'flag'", "patch 6", "NewDW"});
  EXPECT_THROW(m_dw.getPerPatch<double>(m_flag, patch(4)), Error);
}

TEST_F(DataWarehouseTest, RetainOnlyDropsOtherLabels) {
  const double reduced = 0.25;
  for (int id = 0; id < 2; ++id) {
    m_dw.allocateAndPut<double>(m_u, patch(id));
    m_dw.allocateAndPut<double>(m_v, patch(id));
    m_dw.put(PerPatch<int>(id), m_flag, patch(id));
    m_dw.put(MinVariable<double>(1.0), m_min, patch(id));
  }
  m_dw.setReducedValue(m_min, reinterpret_cast<const std::byte*>(&reduced));
  m_dw.retainOnly({m_u});
  EXPECT_EQ(m_dw.numGridVariables(), 2U);
  EXPECT_EQ(m_dw.gridLabels(), std::vector<const VarLabel*>{m_u});
  EXPECT_TRUE(m_dw.exists(m_u, patch(1)));
  EXPECT_FALSE(m_dw.exists(m_v, patch(0)));
  EXPECT_THROW(m_dw.getPerPatch<int>(m_flag, patch(0)), Error);
  EXPECT_TRUE(m_dw.reductionContributions(m_min).empty());
}

TEST_F(DataWarehouseTest, ConcurrentAllocateAndPutOnDifferentPatches) {
  m_dw.setGhostLayers({{m_u, 1}});
  const int numPatches = m_grid.numPatches();
  const int numThreads = 4;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < numThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int id = t; id < numPatches; id += numThreads) {
          // Host writes only: no kernels off the thread that owns Kokkos.
          CCVariable<double> var = m_dw.allocateAndPut<double>(m_u, patch(id));
          writeInterior(var, patch(id));
          m_dw.put(PerPatch<int>(id), m_flag, patch(id));
        }
      } catch (...) {
        ++failures;
      }
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(m_dw.numGridVariables(), static_cast<std::size_t>(numPatches));
  for (int id = 0; id < numPatches; ++id) {
    const ConstCCVariable<double> var = m_dw.get<double>(m_u, patch(id), Ghost::AroundCells, 1);
    EXPECT_EQ(var.box(), level().ghostedBox(patch(id), 1));
    EXPECT_EQ(countWrong(var, patch(id).extendedBox()), 0) << "patch " << id;
    EXPECT_EQ(m_dw.getPerPatch<int>(m_flag, patch(id)).get(), id);
  }
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// ---------------------------------------------------------------- recycled storage

TEST_F(DataWarehouseTest, RetiredStorageIsReusedForTheSameLabelPatchAndBox) {
  const auto pool = std::make_shared<VariablePool>();
  const double* first = nullptr;
  {
    OnDemandDataWarehouse old("NewDW", 1, 0.1, 0.1, pool);
    first = old.allocateAndPut<double>(m_u, patch(0)).array().data();
    old.allocateAndPut<double>(m_v, patch(1));
  }
  EXPECT_EQ(pool->size(), 2u);
  OnDemandDataWarehouse next("NewDW", 2, 0.2, 0.1, pool);
  EXPECT_EQ(next.allocateAndPut<double>(m_u, patch(0)).array().data(), first);
  // Another patch, or another box, gets fresh storage.
  EXPECT_NE(next.allocateAndPut<double>(m_u, patch(1)).array().data(), first);
  next.setGhostLayers({{m_v, 2}});
  const auto grown = next.allocateAndPut<double>(m_v, patch(1));
  EXPECT_EQ(grown.box(), level().ghostedBox(patch(1), 2));
  EXPECT_EQ(pool->size(), 0u);
}

TEST_F(DataWarehouseTest, StorageSomebodyStillHoldsIsNotRecycled) {
  const auto pool = std::make_shared<VariablePool>();
  std::shared_ptr<GridVariableBase> held;
  {
    OnDemandDataWarehouse old("NewDW", 1, 0.1, 0.1, pool);
    old.allocateAndPut<double>(m_u, patch(0));
    held = old.findGridVariable(m_u, patch(0));
  }
  EXPECT_EQ(pool->size(), 0u);
  OnDemandDataWarehouse next("NewDW", 2, 0.2, 0.1, pool);
  EXPECT_NE(next.allocateAndPut<double>(m_u, patch(0)).array().data(),
            static_cast<const CCVariable<double>&>(*held).array().data());
}

TEST_F(DataWarehouseTest, RetainOnlyHandsDroppedVariablesToThePool) {
  const auto pool = std::make_shared<VariablePool>();
  OnDemandDataWarehouse dw("OldDW", 1, 0.1, 0.1, pool);
  dw.allocateAndPut<double>(m_u, patch(0));
  dw.allocateAndPut<double>(m_v, patch(0));
  dw.put(PerPatch<int>(7), m_flag, patch(0));
  dw.retainOnly({m_u});
  EXPECT_EQ(pool->size(), 2u);
  EXPECT_TRUE(dw.exists(m_u, patch(0)));
  EXPECT_FALSE(dw.exists(m_v, patch(0)));
}

TEST_F(DataWarehouseTest, RecycledPerPatchValuesAreHandedOutOnce) {
  const auto pool = std::make_shared<VariablePool>();
  {
    OnDemandDataWarehouse old("NewDW", 1, 0.1, 0.1, pool);
    old.put(PerPatch<int>(42), m_flag, patch(3));
  }
  OnDemandDataWarehouse next("NewDW", 2, 0.2, 0.1, pool);
  EXPECT_FALSE(next.recycledPerPatch<int>(m_flag, patch(2)).has_value());
  const std::optional<int> recycled = next.recycledPerPatch<int>(m_flag, patch(3));
  ASSERT_TRUE(recycled.has_value());
  EXPECT_EQ(*recycled, 42);
  EXPECT_FALSE(next.recycledPerPatch<int>(m_flag, patch(3)).has_value());
  // Without a pool there is nothing to recycle, and the type is still checked.
  EXPECT_FALSE(m_dw.recycledPerPatch<int>(m_flag, patch(3)).has_value());
  EXPECT_THROW(next.recycledPerPatch<double>(m_flag, patch(3)), Error);
}

TEST_F(DataWarehouseTest, AReleasedPoolKeepsNothingToHandOut) {
  const auto pool = std::make_shared<VariablePool>();
  {
    OnDemandDataWarehouse old("NewDW", 1, 0.1, 0.1, pool);
    old.allocateAndPut<double>(m_u, patch(0));
    old.put(PerPatch<int>(42), m_flag, patch(3));
  }
  ASSERT_EQ(pool->size(), 2u);
  pool->release();  // a regrid, before its transfer allocates
  EXPECT_EQ(pool->size(), 0u);
  OnDemandDataWarehouse next("NewDW", 2, 0.2, 0.1, pool);
  EXPECT_FALSE(next.recycledPerPatch<int>(m_flag, patch(3)).has_value());
}

TEST_F(DataWarehouseTest, ReservedStorageIsZeroedAndTakenByTheFirstAllocation) {
  const auto pool = std::make_shared<VariablePool>();
  OnDemandDataWarehouse dw("NewDW", 1, 0.1, 0.1, pool);
  const CCVariable<double> prototype(level().ghostedBox(patch(0), 0), "u");
  const Box box = level().ghostedBox(patch(0), 1);
  pool->reserve(m_u, 0, prototype, box);
  dw.setGhostLayers({{m_u, 1}});
  const auto var = dw.allocateAndPut<double>(m_u, patch(0));
  EXPECT_EQ(var.box(), box);
  int nonZero = 0;
  box.forEachCell([&](const IntVector& c) { nonZero += var(c) != 0.0; });
  EXPECT_EQ(nonZero, 0);
  EXPECT_EQ(pool->size(), 0u);
}

TEST_F(DataWarehouseTest, GroupAllocationPutsAWindowOnEveryPatch) {
  const auto groups = formPatchGroups(level().eachPatch());
  ASSERT_EQ(groups.size(), 1u);
  const PatchGroup& group = groups[0];
  m_dw.setGhostLayers({{m_u, 1}});
  CCVariable<double> whole = m_dw.allocateAndPut<double>(m_u, group);
  EXPECT_EQ(whole.box(), group.ghostedBox(1));
  whole.box().forEachCell([&](const IntVector& c) { whole(c) = valueAt(c); });
  for (const Patch* p : group.patches()) {
    const auto part = m_dw.findGridVariable(m_u, *p);
    ASSERT_TRUE(part);
    EXPECT_TRUE(part->isWindow());
    EXPECT_EQ(part->storage(), m_dw.findGroupVariable(m_u, group)->storage());
    EXPECT_EQ(part->box(), level().ghostedBox(*p, 1));
    // A patch's ghost cells are its neighbours' cells: no copy needed.
    EXPECT_EQ(countWrong(m_dw.get<double>(m_u, *p, Ghost::AroundCells, 1), part->box()), 0);
  }
  EXPECT_EQ(m_dw.get<double>(m_u, group, Ghost::AroundFaces, 1).box(), whole.box());
  EXPECT_THROW(m_dw.allocateAndPut<double>(m_u, group), Error);
  expectMentions(errorOf([&] { m_dw.get<double>(m_v, group); }),
                 {"'v'", "patch group", "NewDW (timestep 3)"});
}

// A restart puts each patch's variable on its own; a task per group then
// reads them as one. Where the patches' boxes overlap, a patch's own cells
// win over a neighbour's ghost copy, and a face ghost (always filled) over
// an edge ghost (filled only for Ghost::AroundCells).
TEST_F(DataWarehouseTest, PatchesAllocatedOneByOneAreGatheredForAGroup) {
  m_dw.setGhostLayers({{m_u, 1}});
  const std::vector<const Patch*> members{&patch(0), &patch(1), &patch(2), &patch(3)};
  const PatchGroup group(members);
  for (const Patch* p : members) {
    CCVariable<double> var = m_dw.allocateAndPut<double>(m_u, *p);
    var.box().forEachCell([&](const IntVector& c) { var(c) = -1.0; });  // unfilled ghosts
    writeInterior(var, *p);
    // The face slabs of the ghost layer hold the right values.
    for (const GhostRegion& region : level().ghostRegions(*p, 1, Ghost::AroundFaces))
      region.sourceBox.shift(region.offset).forEachCell([&](const IntVector& c) {
        var(c) = valueAt(c);
      });
  }
  const ConstCCVariable<double> whole = m_dw.get<double>(m_u, group, Ghost::AroundFaces, 1);
  EXPECT_EQ(whole.box(), group.ghostedBox(1));
  EXPECT_EQ(countWrong(whole, group.extendedBox()), 0);
  int wrongFaces = 0;
  for (const Patch* p : members)
    for (const GhostRegion& region : level().ghostRegions(*p, 1, Ghost::AroundFaces))
      wrongFaces += countWrong(whole, region.sourceBox.shift(region.offset));
  EXPECT_EQ(wrongFaces, 0);
  // From now on the patches are windows on the gathered storage.
  for (const Patch* p : members)
    EXPECT_EQ(m_dw.findGridVariable(m_u, *p)->storage(),
              m_dw.findGroupVariable(m_u, group)->storage());
}

// What lets the runtime skip the ghost copies between a group's patches:
// it asks once per fill whether the destination is a window on the group's
// storage, and copies when the patches' variables are separate.
TEST_F(DataWarehouseTest, InGroupStorageTellsGroupWindowsFromSeparateVariables) {
  m_dw.setGhostLayers({{m_u, 1}});
  const std::vector<const Patch*> members{&patch(0), &patch(1)};
  const PatchGroup group(members);
  const PatchGroup other({&patch(2), &patch(3)});
  m_dw.allocateAndPut<double>(m_u, group);
  for (const Patch* p : members) {
    const auto part = m_dw.findGridVariable(m_u, *p);
    EXPECT_TRUE(m_dw.inGroupStorage(m_u, group.storageKey(), *part));
    EXPECT_FALSE(m_dw.inGroupStorage(m_u, other.storageKey(), *part));
    EXPECT_FALSE(m_dw.inGroupStorage(m_v, group.storageKey(), *part));
  }
  // Patches allocated one by one are separate until a group task gathers them.
  for (const Patch* p : other.patches())
    m_dw.allocateAndPut<double>(m_u, *p);
  for (const Patch* p : other.patches())
    EXPECT_FALSE(m_dw.inGroupStorage(m_u, other.storageKey(), *m_dw.findGridVariable(m_u, *p)));
  m_dw.get<double>(m_u, other, Ghost::AroundFaces, 1);
  for (const Patch* p : other.patches())
    EXPECT_TRUE(m_dw.inGroupStorage(m_u, other.storageKey(), *m_dw.findGridVariable(m_u, *p)));
}

TEST_F(DataWarehouseTest, GroupStorageIsRecycledWindowsAreNot) {
  const auto pool = std::make_shared<VariablePool>();
  const PatchGroup group(level().eachPatch());
  const double* first = nullptr;
  {
    OnDemandDataWarehouse old("NewDW", 1, 0.1, 0.1, pool);
    first = old.allocateAndPut<double>(m_u, group).array().data();
  }
  EXPECT_EQ(pool->size(), 1u);  // the group's storage, not its 8 windows
  OnDemandDataWarehouse next("NewDW", 2, 0.2, 0.1, pool);
  EXPECT_EQ(next.allocateAndPut<double>(m_u, group).array().data(), first);
}

}  // namespace
}  // namespace tessera
