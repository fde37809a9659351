#pragma once
// What every Tessera scheduler shares: recording tasks into a graph,
// compiling it for this rank, and running compiled graphs on a pair of data
// warehouses. The subclasses differ in how they run one: host (synchronous,
// on the calling thread), sync and async (a control thread owns MPI while
// the device runs kernels).

#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Components/Schedulers/ExecutionState.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Components/Schedulers/SchedulerStats.h"
#include "CCA/Components/Schedulers/TaskGraph.h"
#include "CCA/Ports/ExecutionContext.h"
#include "CCA/Ports/Scheduler.h"
#include "Core/Parallel/ChunkedMessages.h"
#include "Core/Parallel/Communicator.h"
#include "Core/Parallel/TagWindows.h"
#include "Core/Util/Trace.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tessera {

class Grid;

struct SchedulerOptions {
  // tiling.enabled is the mode's (sync and async tile, host does not);
  // tileStencils false turns tiling off in the device modes too.
  TilingOptions tiling;
  bool tileStencils = true;
  // Fail with a report after this long without progress (0: never).
  double watchdogSeconds = 300.0;
  // Cut each rank's patches into box-shaped groups (see PatchGroup.h); the
  // controller's default depends on the mode (scheduler.patch_groups).
  bool patchGroups = true;
  // The largest piece one MPI call moves: MPI counts are ints, so a ghost
  // message of 2 GiB or more travels as several (same peer and tag, so they
  // arrive in order). Tests force a small size to exercise the cutting.
  std::size_t messageChunkBytes = kMaxMessageChunkBytes;
  // Whether async's control thread works while kernels run (see
  // DeviceRunner.h): Auto only when it has a core of its own, so that it
  // never takes the kernels' core (scheduler.control_thread).
  enum class ControlThread { Auto, Always, Never };
  ControlThread controlThread = ControlThread::Auto;
};

class GraphScheduler : public Scheduler {
 public:
  GraphScheduler(const Communicator& world, SchedulerOptions options);

  virtual std::string modeName() const = 0;

  // Starts recording a new graph; addTask adds to it.
  void beginGraph(const std::string& name);
  void addTask(Task task, const std::vector<const Patch*>& patches) override;
  void addTask(Task task, const TaskSpace& space) override;
  void setBlockLayout(const VarLabel* label, BlockLayout layout) override;
  const TaskGraph& recordedGraph() const;
  // For this rank, or for `rank` (what --emit-taskgraph draws for every rank).
  CompiledGraph compile(const Grid& grid, const std::vector<int>& patchRanks, int rank = -1) const;

  virtual void execute(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                       OnDemandDataWarehouse& newDW) = 0;

  const Communicator& comm() const { return m_comm; }
  const SchedulerStats& stats() const { return m_stats; }
  const SchedulerOptions& options() const { return m_options; }
  // For the executions that follow (0: never fire).
  void setWatchdogSeconds(double seconds) { m_options.watchdogSeconds = seconds; }
  // Records later executions on `trace` (owned by the caller; null: off).
  void setTrace(Trace* trace) { m_trace = trace; }

  // With `on`, the executions of graphs named "timestep" charge their tasks'
  // times to their patches (a task on a patch group shares its time among
  // the group's patches by cells): what a dynamic load balancer forecasts
  // patch costs from. Off by default: a run that balances statically pays
  // nothing for it.
  void measurePatchSeconds(bool on) { m_measurePatchSeconds = on; }
  // The seconds charged to this rank's patches since the last call, by patch id.
  std::map<int, double> takePatchSeconds();

  // Runs one patch task of `graph` (on a patch or a patch group) on the
  // calling thread, counting it in `stats` and tracing it on `track`, its
  // stencil sweeps followed by `follower` (ExecutionState::sweepFollower);
  // returns the seconds it took.
  static double runTask(const CompiledGraph& graph, const DetailedTask& node,
                        OnDemandDataWarehouse& oldDW, OnDemandDataWarehouse& newDW,
                        const TilingOptions& tiling, SchedulerStats& stats, TraceTrack* track,
                        SweepFollower* follower = nullptr);

 protected:
  TraceTrack* mainTrack() const { return m_trace ? &m_trace->main() : nullptr; }
  TraceTrack* controlTrack() const { return m_trace ? &m_trace->control() : nullptr; }

  // The next execution's number and tag window (every rank takes them in
  // the same order: executions are collective).
  ExecutionTags nextExecution(const CompiledGraph& graph);
  // After an execution that completed: adds its tasks' times to the
  // patches' (takePatchSeconds).
  void recordPatchSeconds(const ExecutionState& state);

  Communicator m_comm;
  SchedulerOptions m_options;
  SchedulerStats m_stats;
  // Kept from one execution to the next (the timestep graph runs every step).
  MessageBuffers m_buffers;
  Trace* m_trace = nullptr;

 private:
  // Executions started, failed ones included.
  int m_executions = 0;
  TagWindows m_tags;  // on m_comm
  std::unique_ptr<TaskGraph> m_recording;
  // Replaced, never changed in place: compiled graphs share the version they used.
  std::shared_ptr<const TaskGraph::BlockLayouts> m_blockLayouts;
  bool m_measurePatchSeconds = false;
  std::map<int, double> m_patchSeconds;
};

// "host,sync,async" -> {"host", "sync", "async"}; one mode -> itself. Throws
// InputError naming the problem for an empty list, an empty item or a name
// that is not a mode (sus --scheduler: the modes take turns by timestep).
std::vector<std::string> splitSchedulerModes(const std::string& modes);

// "host", "sync" or "async"; throws InputError naming the choices otherwise.
std::unique_ptr<GraphScheduler> makeScheduler(const std::string& type, const Communicator& world,
                                              const SchedulerOptions& options);

}  // namespace tessera
