#pragma once
// The levels that follow the solution (amr.regrid_interval; docs/amr.md,
// "Regridding"): every interval's timesteps the component tags the cells to
// refine on the current levels (scheduleErrorEstimate), and the tiles
// around the tags (TagClustering.h) become the new finer levels, from the
// finest down so that each nests in the one below (AMReX's way: tiles a
// finer level needs are added to the level below it). Tags on different
// ranks combine through one gather of tile indices, so the new hierarchy
// is the same on any rank count.

#include "CCA/Components/Schedulers/GraphScheduler.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Ports/Application.h"
#include "Core/Grid/AmrSpec.h"
#include "Core/Grid/Grid.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessera {

class Communicator;
class Logger;
class TraceTrack;

struct RegridTimes {
  double tagging = 0.0;     // the component's tagging tasks, and gathering the tiles
  double clustering = 0.0;  // tiles to levels
};

class Regridder {
 public:
  // `refineFlag` is the label the tagging tasks compute.
  Regridder(AmrSpec amr, Application& app, const VarLabel* refineFlag, const Communicator& comm,
            Logger& log);

  // True when the timestep loop regrids before the timestep after `step`.
  bool due(int step) const { return step > 0 && step % m_amr.regridInterval == 0; }

  // The grid the tags on `grid` (the state in `dw`, held as `patchRanks`
  // says) ask for, or nullopt when it has the same levels, regions and
  // patches as `grid`. Runs the tagging tasks on `sched`, into `dw`.
  // `generation` changes whenever the grid or the placement does (the
  // tagging graph compiled for the last one is reused until then).
  // Collective.
  std::optional<Grid> regrid(const Grid& grid, const std::vector<int>& patchRanks, int generation,
                             OnDemandDataWarehouse& dw, GraphScheduler& sched, RegridTimes& times,
                             TraceTrack* trace);

  // A line for the log: what each level of `grid` is now.
  static std::string describeLevels(const Grid& grid);

 private:
  AmrSpec m_amr;
  Application& m_app;
  const VarLabel* m_refineFlag;
  const Communicator& m_comm;
  Logger& m_log;
  std::unique_ptr<CompiledGraph> m_tagging;
  int m_taggingGeneration = -1;
};

// True when both grids have the same levels with the same regions and patch layouts.
bool sameHierarchy(const Grid& a, const Grid& b);

}  // namespace tessera
