#pragma once
// What the tests of data between levels (test_CoarseFineGhosts,
// test_GroupLevelTransfers) share: a step with warehouses of its own, a
// fixture holding the world and the labels, and the value a refinement
// gives one fine cell.
#include <gtest/gtest.h>

#include "CCA/Components/Schedulers/GraphScheduler.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Ports/DataWarehouse.h"
#include "CCA/Ports/Scheduler.h"
#include "Core/Grid/Level.h"
#include "Core/Grid/VarLabel.h"
#include "Core/Grid/Variables/CCVariable.h"
#include "Core/Grid/Variables/LevelOperators.h"
#include "Core/Parallel/Communicator.h"

namespace tessera::testing {

// A host task that sets `label` on the patches of `level` (extra cells too)
// to value(cell): one task per patch, or with `perGroup` one per patch
// group, whose patches are then windows on one allocation.
inline void addFieldTask(Scheduler& sched, const char* name, const VarLabel* label,
                         const Level& level, double (*value)(const IntVector&),
                         bool perGroup = false) {
  const auto set = [label, value](DataWarehouse& dw, const auto& where) {
    CCVariable<double> var = dw.allocateAndPut<double>(label, where);
    where.extendedBox().forEachCell([&](const IntVector& c) { var(c) = value(c); });
  };
  Task task = perGroup ? Task(
                             name,
                             [set](const PatchGroup& group, const DataWarehouse&, DataWarehouse& dw,
                                   ExecutionContext&) { set(dw, group); },
                             Task::Kind::Host)
                       : Task(
                             name,
                             [set](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                                   ExecutionContext&) { set(dw, patch); },
                             Task::Kind::Host);
  task.computesVar(label);
  sched.addTask(std::move(task), level.eachPatch());
}

// Runs `graph` as timestep `step` with warehouses of its own.
inline void executeStep(GraphScheduler& sched, const CompiledGraph& graph, int step = 0) {
  OnDemandDataWarehouse oldDW("OldDW", step, 0.0, 0.0);
  OnDemandDataWarehouse newDW("NewDW", step + 1, 0.0, 0.0);
  sched.execute(graph, oldDW, newDW);
}

// The value `op` gives fine cell `c` (ratio 2) from the coarse cells of
// `coarse`: RefineCell, the kernels' body, writing into a scratch cell.
inline double refinedValue(const CCVariable<double>& coarse, const IntVector& c, RefineOp op) {
  double value = 0.0;
  RefineCell<double>{coarse.constArray(),
                     CellArray<double>(&value, Box(c, c + IntVector::uniform(1))),
                     {2, 2, 2},
                     op}(c.x, c.y, c.z);
  return value;
}

// Coarse cell `c`'s fine cells (ratio 2) with the values fineAt(cell), and
// the value `op` (a coarsen operator's body, CoarsenCell or CoarsenFace,
// made by makeOp(fine, coarse)) gives `c` from them, written into a scratch
// cell.
template <class FineAt, class MakeOp>
double coarsenedValue(const IntVector& c, const FineAt& fineAt, const MakeOp& makeOp) {
  const Box children = refine(Box(c, c + IntVector::uniform(1)), {2, 2, 2});
  CCVariable<double> cells(children, "children");
  children.forEachCell([&](const IntVector& f) { cells(f) = fineAt(f); });
  double value = 0.0;
  const auto op =
      makeOp(cells.constArray(), CellArray<double>(&value, Box(c, c + IntVector::uniform(1))));
  op(c.x, c.y, c.z);
  return value;
}

// The mean of coarse cell `c`'s fine cells (ratio 2) whose values are
// fineAt(cell): CoarsenCell, the kernels' body.
template <class FineAt>
double averagedValue(const IntVector& c, const FineAt& fineAt) {
  return coarsenedValue(c, fineAt, [](const auto& fine, const auto& coarse) {
    return CoarsenCell<double>{fine, coarse, {2, 2, 2}};
  });
}

// The mean of the fine faces (ratio 2) on coarse cell `c`'s low or high
// face along `axis`: CoarsenFace, the face operators' body.
template <class FineAt>
double faceAveragedValue(const IntVector& c, int axis, bool high, const FineAt& fineAt) {
  return coarsenedValue(c, fineAt, [axis, high](const auto& fine, const auto& coarse) {
    return CoarsenFace<double>{fine, coarse, {2, 2, 2}, axis, high};
  });
}

// A task on the patches of `level` that has the runtime average `label`
// from the finer level onto them (and does nothing itself).
inline void addAveragingTask(Scheduler& sched, const VarLabel* label, const Level& level) {
  sched.addTask(
      std::move(Task(
                    "coarsen",
                    [](const Patch&, const DataWarehouse&, DataWarehouse&, ExecutionContext&) {},
                    Task::Kind::Host)
                    .modifiesVar(label)
                    .requiresVar(Task::NewDW, label, Task::LevelDomain::FinerLevel)),
      level.eachPatch());
}

template <class Param>
class LevelTest : public ::testing::TestWithParam<Param> {
 protected:
  Communicator m_world = Communicator::borrow(MPI_COMM_WORLD);
  VarLabelRegistry m_labels;
};

}  // namespace tessera::testing
