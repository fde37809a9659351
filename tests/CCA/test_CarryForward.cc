// modifiesVar(Task::OldDW, label): a task carries a variable forward from the
// old warehouse into the new one and updates it there. In place when the
// graph can prove it safe (the storage moves, readers of the old version run
// first), as a copy otherwise (ghost readers, an order that would need a
// cycle); the same values either way, in every scheduler mode, per patch and
// per patch group, on 1 and 2 ranks. computesVarInPlace: a stencil computes
// a variable into its old storage where no other local task reads that
// storage's cells (a group whose neighbours are its own or another rank's),
// into fresh storage where neighbours on this rank copy ghost cells from it.
#include <gtest/gtest.h>

#include "TestHelpers.h"

#include "CCA/Components/Schedulers/GraphScheduler.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Components/Schedulers/TaskGraph.h"
#include "CCA/Ports/DataWarehouse.h"
#include "CCA/Ports/ExecutionContext.h"
#include "CCA/Ports/LoadBalancer.h"
#include "Core/Grid/Grid.h"
#include "Core/Parallel/Communicator.h"
#include "Core/Parallel/StencilLoops.h"
#include "Core/Util/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tessera {
namespace {

using tessera::testing::errorOf;

// A value no two cells share, exact in double.
double f(const IntVector& c) {
  return c.x + 100.0 * c.y + 10000.0 * c.z + 0.5;
}

struct Case {
  const char* mode;  // host, sync or async
  bool perGroup;     // the tasks run per patch group (else per patch)
};

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.mode) + (info.param.perGroup ? "_groups" : "_patches");
}

class CarryForwardTest : public ::testing::TestWithParam<Case> {
 protected:
  CarryForwardTest() {
    LevelSpec spec;
    spec.resolution = {12, 10, 8};
    spec.patches = {2, 2, 2};
    spec.extraCells = {1, 1, 1};
    m_grid.addLevel(spec);
    for (int p = 0; p < m_grid.numPatches(); ++p)
      m_ranks.push_back(p * m_world.size() / m_grid.numPatches());
  }

  const Level& level() const { return m_grid.level(0); }
  std::int64_t globalSum(std::int64_t local) const { return m_world.allreduceSum(local); }
  std::vector<const Patch*> myPatches() const {
    std::vector<const Patch*> mine;
    for (const Patch& patch : level().patches())
      if (m_ranks[static_cast<std::size_t>(patch.id())] == m_world.rank()) mine.push_back(&patch);
    return mine;
  }

  std::unique_ptr<GraphScheduler> scheduler() const {
    return makeScheduler(GetParam().mode, m_world, SchedulerOptions{});
  }

  // A task named `name` whose body `perPatch` runs on each patch it covers,
  // as one call per patch or one per patch group.
  using PatchBody = std::function<void(const Patch&, const DataWarehouse&, DataWarehouse&)>;
  Task makeTask(const std::string& name, PatchBody perPatch) const {
    if (GetParam().perGroup) {
      return Task(
          name,
          Task::GroupCallback([perPatch](const PatchGroup& group, const DataWarehouse& oldDW,
                                         DataWarehouse& newDW, ExecutionContext&) {
            for (const Patch* patch : group.patches())
              perPatch(*patch, oldDW, newDW);
          }),
          Task::Kind::Host);
    }
    return Task(
        name,
        [perPatch](const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                   ExecutionContext&) { perPatch(patch, oldDW, newDW); },
        Task::Kind::Host);
  }

  // X = f over every patch's extended box, in `dw` (allocated per group
  // when the tasks run per group, so that a carry can move it whole).
  void initialise(OnDemandDataWarehouse& dw) {
    auto sched = scheduler();
    sched->beginGraph("init");
    const VarLabel* x = m_x;
    Task task = GetParam().perGroup
                    ? Task("init",
                           Task::GroupCallback([x](const PatchGroup& group, const DataWarehouse&,
                                                   DataWarehouse& newDW, ExecutionContext&) {
                             CCVariable<double> var = newDW.allocateAndPut<double>(x, group);
                             group.extendedBox().forEachCell(
                                 [&](const IntVector& c) { var(c) = f(c); });
                           }),
                           Task::Kind::Host)
                    : Task(
                          "init",
                          [x](const Patch& patch, const DataWarehouse&, DataWarehouse& newDW,
                              ExecutionContext&) {
                            CCVariable<double> var = newDW.allocateAndPut<double>(x, patch);
                            patch.extendedBox().forEachCell(
                                [&](const IntVector& c) { var(c) = f(c); });
                          },
                          Task::Kind::Host);
    task.computesVar(m_x);
    sched->addTask(std::move(task), level().eachPatch());
    OnDemandDataWarehouse empty("OldDW", -1, 0.0, 0.0);
    dw.setGhostLayers({{m_x, 1}});  // room for the ghost readers, as the controller gives
    sched->execute(sched->compile(m_grid, m_ranks), empty, dw);
    dw.setRole("OldDW");
  }

  // The carrier: X += 1 over each patch's interior, from OldDW into NewDW.
  Task carrier() const {
    const VarLabel* x = m_x;
    Task task = makeTask("carrier", [x](const Patch& patch, const DataWarehouse&, DataWarehouse& newDW) {
      CCVariable<double> var = newDW.getModifiable<double>(x, patch);
      patch.interior().forEachCell([&](const IntVector& c) { var(c) += 1.0; });
    });
    task.modifiesVar(Task::OldDW, m_x);
    return task;
  }

  // Cells of X's interior in `dw` that differ from f + `shift`, summed over ranks.
  std::int64_t wrongCells(const OnDemandDataWarehouse& dw, double shift) const {
    std::int64_t wrong = 0;
    for (const Patch* patch : myPatches()) {
      const auto var = std::dynamic_pointer_cast<CCVariable<double>>(dw.findGridVariable(m_x, *patch));
      if (!var) {
        wrong += patch->interior().volume();
        continue;
      }
      patch->interior().forEachCell([&](const IntVector& c) { wrong += (*var)(c) != f(c) + shift; });
    }
    return globalSum(wrong);
  }

  std::map<int, const void*> storages(const OnDemandDataWarehouse& dw) const {
    std::map<int, const void*> found;
    for (const Patch* patch : myPatches()) {
      const auto var = dw.findGridVariable(m_x, *patch);
      found[patch->id()] = var ? var->storage() : nullptr;
    }
    return found;
  }

  Communicator m_world = Communicator::borrow(MPI_COMM_WORLD);
  Grid m_grid;
  std::vector<int> m_ranks;
  VarLabelRegistry m_labels;
  const VarLabel* m_x = m_labels.create<CCVariable<double>>("X");
  const VarLabel* m_y = m_labels.create<CCVariable<double>>("Y");
  const VarLabel* m_z = m_labels.create<CCVariable<double>>("Z");
};

TEST_P(CarryForwardTest, InPlaceMovesTheStorageAfterEveryReaderOfTheOldVersion) {
  OnDemandDataWarehouse oldDW("NewDW", 0, 0.0, 0.0);
  initialise(oldDW);
  const auto before = storages(oldDW);

  auto sched = scheduler();
  sched->beginGraph("step");
  sched->addTask(carrier(), level().eachPatch());
  // Added after the carrier, yet it must see the old values: Y = X_old.
  const VarLabel* x = m_x;
  const VarLabel* y = m_y;
  Task reader = makeTask("reader", [x, y](const Patch& patch, const DataWarehouse& oldDW,
                                          DataWarehouse& newDW) {
    const ConstCCVariable<double> old = oldDW.get<double>(x, patch);
    CCVariable<double> copy = newDW.allocateAndPut<double>(y, patch);
    patch.interior().forEachCell([&](const IntVector& c) { copy(c) = old(c); });
  });
  reader.requiresVar(Task::OldDW, m_x).computesVar(m_y);
  sched->addTask(std::move(reader), level().eachPatch());
  const CompiledGraph graph = sched->compile(m_grid, m_ranks);
  EXPECT_EQ(graph.carriedInPlace.count(m_x), 1U);
  ASSERT_EQ(graph.tasks.size(), 2U);
  EXPECT_EQ(graph.tasks[0].name(), "reader");
  EXPECT_EQ(graph.oldDWReads.count(m_x), 1U);

  OnDemandDataWarehouse newDW("NewDW", 1, 1.0, 1.0);
  sched->execute(graph, oldDW, newDW);
  EXPECT_EQ(wrongCells(newDW, 1.0), 0);
  // The old warehouse gave its variables away; the new one holds the same storage.
  for (const Patch* patch : myPatches())
    EXPECT_EQ(oldDW.findGridVariable(m_x, *patch), nullptr) << *patch;
  EXPECT_EQ(storages(newDW), before);
  std::int64_t wrongY = 0;
  for (const Patch* patch : myPatches()) {
    const ConstCCVariable<double> copy = newDW.get<double>(m_y, *patch);
    patch->interior().forEachCell([&](const IntVector& c) { wrongY += copy(c) != f(c); });
  }
  EXPECT_EQ(globalSum(wrongY), 0);
}

TEST_P(CarryForwardTest, ComputesInPlaceInTheOldStorageWhereNoLocalNeighbourReadsIt) {
  OnDemandDataWarehouse oldDW("NewDW", 0, 0.0, 0.0);
  initialise(oldDW);
  const auto before = storages(oldDW);

  // X_new = the sum of X_old's six face neighbours: 6 f, since f is linear
  // and the extra cells hold f too. A cell that read an updated neighbour
  // would be off by 5 f of it.
  const VarLabel* x = m_x;
  const auto sweep = [x](const Box& box, const DataWarehouse& oldDW, CCVariable<double> next,
                         ConstCCVariable<double> old, ExecutionContext& exec) {
    (void)oldDW;
    exec.stencilFor(
        box, 1, StencilInputs<double, 1>{{old.array()}}, StencilOutputs<double, 1>{{next.array()}},
        KOKKOS_LAMBDA(int i, int j, int k, const StencilInputs<double, 1>& in,
                      const StencilOutputs<double, 1>& out) {
          const CellArray<const double>& u = in[0];
          out[0](i, j, k) = u(i - 1, j, k) + u(i + 1, j, k) + u(i, j - 1, k) + u(i, j + 1, k) +
                            u(i, j, k - 1) + u(i, j, k + 1);
        });
  };
  Task task = GetParam().perGroup
                  ? Task("neighbours",
                         Task::GroupCallback([x, sweep](const PatchGroup& group,
                                                        const DataWarehouse& oldDW,
                                                        DataWarehouse& newDW, ExecutionContext& exec) {
                           const ConstCCVariable<double> old =
                               oldDW.get<double>(x, group, Ghost::AroundFaces, 1);
                           sweep(group.interior(), oldDW, newDW.allocateAndPut<double>(x, group),
                                 old, exec);
                         }))
                  : Task("neighbours", [x, sweep](const Patch& patch, const DataWarehouse& oldDW,
                                                  DataWarehouse& newDW, ExecutionContext& exec) {
                      const ConstCCVariable<double> old =
                          oldDW.get<double>(x, patch, Ghost::AroundFaces, 1);
                      sweep(patch.interior(), oldDW, newDW.allocateAndPut<double>(x, patch), old,
                            exec);
                    });
  task.requiresVar(Task::OldDW, m_x, Ghost::AroundFaces, 1).computesVarInPlace(m_x);
  auto sched = scheduler();
  sched->beginGraph("step");
  sched->addTask(std::move(task), level().eachPatch());
  const CompiledGraph graph = sched->compile(m_grid, m_ranks);
  EXPECT_EQ(graph.carriedInPlace.count(m_x), 1U);
  std::size_t reusing = 0;
  for (const DetailedTask& node : graph.detailedTasks)
    reusing += node.reusedStorage.size();
  // Per patch, every patch has a neighbour on its rank that copies its
  // ghost cells; a rank's one group has none.
  const bool inPlace = GetParam().perGroup;
  EXPECT_EQ(reusing > 0, inPlace);

  OnDemandDataWarehouse newDW("NewDW", 1, 1.0, 1.0);
  newDW.setGhostLayers({{m_x, 1}});
  sched->execute(graph, oldDW, newDW);
  std::int64_t wrong = 0;
  for (const Patch* patch : myPatches()) {
    const ConstCCVariable<double> next = newDW.get<double>(m_x, *patch);
    patch->interior().forEachCell([&](const IntVector& c) { wrong += next(c) != 6.0 * f(c); });
  }
  EXPECT_EQ(globalSum(wrong), 0);
  for (const auto& [patch, storage] : storages(newDW)) {
    if (inPlace) {
      EXPECT_EQ(storage, before.at(patch)) << "patch " << patch;
    } else {
      EXPECT_NE(storage, before.at(patch)) << "patch " << patch;
    }
  }
  if (inPlace) {
    // The storage is the new warehouse's alone: the old one must not recycle it.
    for (const Patch* patch : myPatches())
      EXPECT_EQ(oldDW.findGridVariable(m_x, *patch), nullptr) << *patch;
  } else {
    EXPECT_EQ(wrongCells(oldDW, 0.0), 0) << "the old version stays";
  }
}

TEST_P(CarryForwardTest, AGhostReaderMakesItACopyAndTheOldVersionStays) {
  OnDemandDataWarehouse oldDW("NewDW", 0, 0.0, 0.0);
  initialise(oldDW);
  const auto before = storages(oldDW);

  auto sched = scheduler();
  sched->beginGraph("step");
  sched->addTask(carrier(), level().eachPatch());
  // Reads X_old with a layer of ghost cells: neighbours (and other ranks)
  // copy from X_old whenever they run, so it cannot move.
  const VarLabel* x = m_x;
  const VarLabel* z = m_z;
  Task ghostReader = makeTask("ghostReader", [x, z](const Patch& patch, const DataWarehouse& oldDW,
                                                    DataWarehouse& newDW) {
    const ConstCCVariable<double> old = oldDW.get<double>(x, patch, Ghost::AroundFaces, 1);
    CCVariable<double> step = newDW.allocateAndPut<double>(z, patch);
    // f rises by 1 along x (the extra cells beyond the domain hold f too).
    patch.interior().forEachCell(
        [&](const IntVector& c) { step(c) = old(c) - old(c - IntVector{1, 0, 0}) - 1.0; });
  });
  ghostReader.requiresVar(Task::OldDW, m_x, Ghost::AroundFaces, 1).computesVar(m_z);
  sched->addTask(std::move(ghostReader), level().eachPatch());
  const CompiledGraph graph = sched->compile(m_grid, m_ranks);
  EXPECT_EQ(graph.carriedInPlace.count(m_x), 0U);

  OnDemandDataWarehouse newDW("NewDW", 1, 1.0, 1.0);
  sched->execute(graph, oldDW, newDW);
  EXPECT_EQ(wrongCells(newDW, 1.0), 0);
  EXPECT_EQ(wrongCells(oldDW, 0.0), 0);
  for (const auto& [patch, storage] : storages(newDW)) {
    EXPECT_NE(storage, nullptr);
    EXPECT_NE(storage, before.at(patch)) << "patch " << patch;
  }
  // Every ghost reader saw the old values.
  std::int64_t wrongZ = 0;
  for (const Patch* patch : myPatches()) {
    const ConstCCVariable<double> step = newDW.get<double>(m_z, *patch);
    patch->interior().forEachCell([&](const IntVector& c) { wrongZ += step(c) != 0.0; });
  }
  EXPECT_EQ(globalSum(wrongZ), 0);
}

TEST_P(CarryForwardTest, AReaderOfBothVersionsMakesItACopyInsteadOfACycle) {
  OnDemandDataWarehouse oldDW("NewDW", 0, 0.0, 0.0);
  initialise(oldDW);

  auto sched = scheduler();
  sched->beginGraph("step");
  const VarLabel* x = m_x;
  const VarLabel* y = m_y;
  // Y = X_new - X_old: after the carrier (for X_new), and before it (for
  // X_old) were the carry in place.
  Task difference = makeTask("difference", [x, y](const Patch& patch, const DataWarehouse& oldDW,
                                                  DataWarehouse& newDW) {
    const ConstCCVariable<double> before = oldDW.get<double>(x, patch);
    const ConstCCVariable<double> after = newDW.get<double>(x, patch);
    CCVariable<double> change = newDW.allocateAndPut<double>(y, patch);
    patch.interior().forEachCell([&](const IntVector& c) { change(c) = after(c) - before(c); });
  });
  difference.requiresVar(Task::OldDW, m_x).requiresVar(Task::NewDW, m_x).computesVar(m_y);
  sched->addTask(std::move(difference), level().eachPatch());
  sched->addTask(carrier(), level().eachPatch());
  const CompiledGraph graph = sched->compile(m_grid, m_ranks);
  EXPECT_EQ(graph.carriedInPlace.count(m_x), 0U);
  ASSERT_EQ(graph.tasks.size(), 2U);
  EXPECT_EQ(graph.tasks[0].name(), "carrier");

  OnDemandDataWarehouse newDW("NewDW", 1, 1.0, 1.0);
  sched->execute(graph, oldDW, newDW);
  EXPECT_EQ(wrongCells(newDW, 1.0), 0);
  EXPECT_EQ(wrongCells(oldDW, 0.0), 0);
  std::int64_t wrongY = 0;
  for (const Patch* patch : myPatches()) {
    const ConstCCVariable<double> change = newDW.get<double>(m_y, *patch);
    patch->interior().forEachCell([&](const IntVector& c) { wrongY += change(c) != 1.0; });
  }
  EXPECT_EQ(globalSum(wrongY), 0);
}

TEST_P(CarryForwardTest, ANewDWReaderWaitsForTheCarrier) {
  OnDemandDataWarehouse oldDW("NewDW", 0, 0.0, 0.0);
  initialise(oldDW);
  auto sched = scheduler();
  sched->beginGraph("step");
  const VarLabel* x = m_x;
  const VarLabel* y = m_y;
  Task reader = makeTask("newReader", [x, y](const Patch& patch, const DataWarehouse&,
                                             DataWarehouse& newDW) {
    const ConstCCVariable<double> now = newDW.get<double>(x, patch);
    CCVariable<double> copy = newDW.allocateAndPut<double>(y, patch);
    patch.interior().forEachCell([&](const IntVector& c) { copy(c) = now(c); });
  });
  reader.requiresVar(Task::NewDW, m_x).computesVar(m_y);
  sched->addTask(std::move(reader), level().eachPatch());
  sched->addTask(carrier(), level().eachPatch());
  const CompiledGraph graph = sched->compile(m_grid, m_ranks);
  EXPECT_EQ(graph.carriedInPlace.count(m_x), 1U);
  OnDemandDataWarehouse newDW("NewDW", 1, 1.0, 1.0);
  sched->execute(graph, oldDW, newDW);
  std::int64_t wrongY = 0;
  for (const Patch* patch : myPatches()) {
    const ConstCCVariable<double> copy = newDW.get<double>(m_y, *patch);
    patch->interior().forEachCell([&](const IntVector& c) { wrongY += copy(c) != f(c) + 1.0; });
  }
  EXPECT_EQ(globalSum(wrongY), 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, CarryForwardTest,
                         ::testing::Values(Case{"host", false}, Case{"host", true},
                                           Case{"sync", false}, Case{"sync", true},
                                           Case{"async", false}, Case{"async", true}),
                         caseName);

// ---------------------------------------------------------------- declarations

TEST(CarryForwardDeclarations, ConflictingDeclarationsNameTheTaskAndTheVariable) {
  VarLabelRegistry labels;
  const VarLabel* x = labels.create<CCVariable<double>>("X");
  const auto body = [](const Patch&, const DataWarehouse&, DataWarehouse&, ExecutionContext&) {};
  std::string error = errorOf([&] {
    Task("t", body).requiresVar(Task::OldDW, x).modifiesVar(Task::OldDW, x);
  });
  EXPECT_NE(error.find("'t' modifies 'X' from OldDW and also requires it from OldDW"),
            std::string::npos)
      << error;
  error = errorOf([&] {
    Task("t", body).modifiesVar(Task::OldDW, x).requiresVar(Task::OldDW, x, Ghost::AroundFaces, 1);
  });
  EXPECT_NE(error.find("also requires it from OldDW"), std::string::npos) << error;
  error = errorOf([&] { Task("t", body).computesVar(x).modifiesVar(Task::OldDW, x); });
  EXPECT_NE(error.find("'t' modifies 'X' from OldDW"), std::string::npos) << error;
  EXPECT_NE(error.find("also computes it there"), std::string::npos) << error;
  error = errorOf([&] { Task("t", body).modifiesVar(Task::OldDW, x).computesVar(x); });
  EXPECT_NE(error.find("also computes it there"), std::string::npos) << error;
  // Reading the new version is fine (it is what the task leaves there).
  EXPECT_EQ(errorOf([&] { Task("t", body).modifiesVar(Task::OldDW, x).requiresVar(Task::NewDW, x); }),
            "");

  // A carrier computes the label in NewDW: a second producer is an error.
  Grid grid;
  LevelSpec spec;
  spec.resolution = {4, 4, 4};
  grid.addLevel(spec);
  TaskGraph graph("step");
  graph.addTask(std::move(Task("carrier", body).modifiesVar(Task::OldDW, x)),
                grid.level(0).eachPatch());
  graph.addTask(std::move(Task("computer", body).computesVar(x)), grid.level(0).eachPatch());
  error = errorOf([&] { graph.compile(grid, {0}, 0); });
  EXPECT_NE(error.find("'X' in NewDW is computed by two tasks"), std::string::npos) << error;
}

}  // namespace
}  // namespace tessera
