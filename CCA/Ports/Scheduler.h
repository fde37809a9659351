#pragma once
// The scheduler as a component sees it: somewhere to add tasks. Everything
// else (compiling, running, moving data) belongs to the runtime.

#include "CCA/Ports/Task.h"
#include "CCA/Ports/TaskSpace.h"
#include "Core/Grid/BlockLayout.h"

#include <vector>

namespace tessera {

class Patch;

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Runs `task` once on each of `patches` (usually level.eachPatch()).
  virtual void addTask(Task task, const std::vector<const Patch*>& patches) = 0;
  // Runs `task` once per index of `space`, each on the rank the space gives it.
  virtual void addTask(Task task, const TaskSpace& space) = 0;
  // Places the blocks of block variable `label` (see BlockLayout.h), for
  // the graphs compiled from now on.
  virtual void setBlockLayout(const VarLabel* label, BlockLayout layout) = 0;
};

}  // namespace tessera
