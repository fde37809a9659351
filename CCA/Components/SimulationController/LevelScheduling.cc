#include "CCA/Components/SimulationController/LevelScheduling.h"

#include "Core/Grid/Box.h"

#include <algorithm>
#include <string>

namespace tessera {

void forEachLevel(const Grid& grid, const std::function<void(const Level&)>& perLevel) {
  for (int l = 0; l < grid.numLevels(); ++l)
    perLevel(grid.level(l));
}

void scheduleAveragingFrom(const Level& fine, const std::vector<const VarLabel*>& labels,
                           Scheduler& sched) {
  const Level& coarse = *fine.coarser();
  // The coarser patches under the finer level, in id order.
  std::vector<const Patch*> covered;
  for (const Patch& patch : fine.patches())
    for (const Patch* under :
         coarse.patchesIntersecting(coarsen(patch.interior(), fine.refinementRatio())))
      covered.push_back(under);
  std::sort(covered.begin(), covered.end(),
            [](const Patch* a, const Patch* b) { return a->id() < b->id(); });
  covered.erase(std::unique(covered.begin(), covered.end()), covered.end());
  for (const VarLabel* label : labels) {
    if (label->kind() != VarKind::CellCentered) continue;
    // The averages are made before the task runs (the runtime's fill): it
    // has nothing left to do.
    Task task("average " + label->name() + " onto level " + std::to_string(coarse.index()),
              [](const Patch&, const DataWarehouse&, DataWarehouse&, ExecutionContext&) {},
              Task::Kind::Host);
    task.modifiesVar(label).requiresVar(Task::NewDW, label, Task::LevelDomain::FinerLevel);
    sched.addTask(std::move(task), covered);
  }
}

void scheduleAveragingDown(const Grid& grid, const std::vector<const VarLabel*>& labels,
                           Scheduler& sched) {
  for (int l = grid.numLevels() - 1; l >= 1; --l)
    scheduleAveragingFrom(grid.level(l), labels, sched);
}

void scheduleStateInPlace(const Grid& grid, const std::vector<const VarLabel*>& labels,
                          Scheduler& sched) {
  for (int l = 0; l < grid.numLevels(); ++l) {
    for (const VarLabel* label : labels) {
      if (label->kind() != VarKind::CellCentered) continue;
      // Once per patch group, not per patch: a task per patch of a finer
      // level's many patches cost more than the tagging itself.
      Task task("state " + label->name() + " in place",
                [](const PatchGroup&, const DataWarehouse&, DataWarehouse&, ExecutionContext&) {},
                Task::Kind::Host);
      task.computesVar(label);
      sched.addTask(std::move(task), grid.level(l).eachPatch());
    }
  }
}

}  // namespace tessera
