#pragma once
// The scheduler as a component sees it: somewhere to add tasks. Everything
// else (compiling, running, moving data) belongs to the runtime.

#include "CCA/Ports/Task.h"

#include <vector>

namespace tessera {

class Patch;

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Runs `task` once on each of `patches` (usually level.eachPatch()).
  virtual void addTask(Task task, const std::vector<const Patch*>& patches) = 0;
};

}  // namespace tessera
