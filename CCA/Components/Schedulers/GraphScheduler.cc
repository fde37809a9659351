#include "CCA/Components/Schedulers/GraphScheduler.h"

#include "CCA/Components/Schedulers/DeviceScheduler.h"
#include "CCA/Components/Schedulers/HostScheduler.h"
#include "Core/Grid/Grid.h"
#include "Core/Util/Timer.h"

#include <algorithm>
#include <sstream>

namespace tessera {

GraphScheduler::GraphScheduler(const Communicator& world, SchedulerOptions options)
    : m_comm(Communicator::duplicate(world.get())),
      m_options(options),
      m_tags(TagWindows::of(m_comm)),
      m_blockLayouts(std::make_shared<TaskGraph::BlockLayouts>()) {}

ExecutionTags GraphScheduler::nextExecution(const CompiledGraph& graph) {
  ExecutionTags tags;
  tags.execution = m_executions++;
  // Ghost cells are tagged by phase (0 .. tasks), block parts after them.
  tags.tagBase = m_tags.take(graph.tagsPerExecution, "graph '" + graph.name + "'");
  return tags;
}

void GraphScheduler::beginGraph(const std::string& name) {
  m_recording = std::make_unique<TaskGraph>(name);
}

void GraphScheduler::addTask(Task task, const std::vector<const Patch*>& patches) {
  TESSERA_REQUIRE_THROWS(m_recording != nullptr,
                         "addTask('" << task.name() << "') outside of a graph being recorded");
  m_recording->addTask(std::move(task), patches);
}

void GraphScheduler::addTask(Task task, const TaskSpace& space) {
  TESSERA_REQUIRE_THROWS(m_recording != nullptr,
                         "addTask('" << task.name() << "') outside of a graph being recorded");
  // An index on a rank that does not exist would never run: its reduction
  // would complete short of it and its blocks' readers wait for ever.
  for (int index = 0; index < space.size(); ++index) {
    const int rank = space.ranks[static_cast<std::size_t>(index)];
    TESSERA_REQUIRE_THROWS(rank >= 0 && rank < m_comm.size(),
                           "task '" << task.name() << "' places index " << index
                                    << " of task space '" << space.name << "' on rank " << rank
                                    << ", but the run has ranks 0 to " << m_comm.size() - 1);
  }
  m_recording->addTask(std::move(task), space);
}

void GraphScheduler::setBlockLayout(const VarLabel* label, BlockLayout layout) {
  TESSERA_REQUIRE_THROWS(
      label != nullptr && label->kind() == VarKind::Block,
      "setBlockLayout of " << (label ? "'" + label->name() + "', which is not a block variable"
                                     : std::string("a null label")));
  for (int block = 0; block < layout.numBlocks(); ++block) {
    for (int rank : layout.holders(block)) {
      TESSERA_REQUIRE_THROWS(rank < m_comm.size(), "the layout of '"
                                                       << label->name() << "' places block "
                                                       << block << " on rank " << rank
                                                       << ", but the run has ranks 0 to "
                                                       << m_comm.size() - 1);
    }
  }
  auto layouts = std::make_shared<TaskGraph::BlockLayouts>(*m_blockLayouts);
  (*layouts)[label] = std::move(layout);
  m_blockLayouts = std::move(layouts);
}

const TaskGraph& GraphScheduler::recordedGraph() const {
  TESSERA_REQUIRE_THROWS(m_recording != nullptr, "no graph is being recorded");
  return *m_recording;
}

CompiledGraph GraphScheduler::compile(const Grid& grid, const std::vector<int>& patchRanks,
                                      int rank) const {
  return recordedGraph().compile(grid, patchRanks, rank < 0 ? m_comm.rank() : rank,
                                 m_options.patchGroups, m_blockLayouts);
}

namespace {

// Task::computesVarInPlace: the old storage offered to a task's
// allocateAndPut, and, once the task is over (also when it throws), taken
// from the old warehouse if the task took it.
class StorageOffers {
 public:
  StorageOffers(OnDemandDataWarehouse& oldDW, OnDemandDataWarehouse& newDW)
      : m_oldDW(oldDW), m_newDW(newDW) {}
  StorageOffers(const StorageOffers&) = delete;
  StorageOffers& operator=(const StorageOffers&) = delete;
  ~StorageOffers() {
    for (const LabelKey& key : m_keys)
      m_newDW.settleOffer(m_oldDW, key);
  }
  template <class Where>
  void offer(const VarLabel* label, const Where& where) {
    if (const auto key = m_newDW.offerStorage(m_oldDW, label, where)) m_keys.push_back(*key);
  }

 private:
  OnDemandDataWarehouse& m_oldDW;
  OnDemandDataWarehouse& m_newDW;
  std::vector<LabelKey> m_keys;
};

}  // namespace

double GraphScheduler::runTask(const CompiledGraph& graph, const DetailedTask& node,
                             OnDemandDataWarehouse& oldDW, OnDemandDataWarehouse& newDW,
                             const TilingOptions& tiling, SchedulerStats& stats,
                             TraceTrack* track, SweepFollower* follower) {
  const Timer timer;
  const Task& task = graph.tasks[static_cast<std::size_t>(node.taskIndex)];
  const TraceScope traced(track, task.name(), "task", node.id);
  const bool onHost = task.kind() == Task::Kind::Host;
  ExecutionContext exec(task.name(),
                        onHost ? ExecutionContext::Space::Host : ExecutionContext::Space::Device,
                        tiling);
  exec.setTrace(track);
  exec.setSweepFollower(follower);
  for (const Task::Dependency& dep : task.dependencies()) {
    if (!dep.carriesForward()) continue;
    const bool inPlace = graph.carriedInPlace.count(dep.label) > 0;
    if (node.group >= 0) {
      newDW.carryForward(oldDW, dep.label, graph.groups[static_cast<std::size_t>(node.group)],
                         inPlace);
    } else {
      newDW.carryForward(oldDW, dep.label, *node.patch, inPlace);
    }
  }
  StorageOffers offers(oldDW, newDW);
  for (const VarLabel* label : node.reusedStorage) {
    if (node.group >= 0) {
      offers.offer(label, graph.groups[static_cast<std::size_t>(node.group)]);
    } else {
      offers.offer(label, *node.patch);
    }
  }
  if (node.kind == DetailedTask::Kind::IndexTask) {
    task.indexCallback()(node.index, oldDW, newDW, exec);
  } else if (node.group >= 0) {
    task.groupCallback()(graph.groups[static_cast<std::size_t>(node.group)], oldDW, newDW, exec);
  } else {
    task.callback()(*node.patch, oldDW, newDW, exec);
  }
  exec.fence();
  const double seconds = timer.seconds();
  stats.taskSeconds += seconds;
  stats.kernels += exec.kernelsLaunched();
  stats.tiles += exec.tilesExecuted();
  ++stats.tasksRun;
  return seconds;
}

void GraphScheduler::recordPatchSeconds(const ExecutionState& state) {
  const CompiledGraph& graph = state.graph();
  if (!m_measurePatchSeconds || graph.name != "timestep") return;
  for (const DetailedTask& node : graph.detailedTasks) {
    if (node.kind != DetailedTask::Kind::PatchTask) continue;
    const double seconds = state.taskSeconds()[static_cast<std::size_t>(node.id)];
    if (node.group < 0) {
      m_patchSeconds[node.patch->id()] += seconds;
      continue;
    }
    const PatchGroup& group = graph.groups[static_cast<std::size_t>(node.group)];
    // A group is a box of whole patches: its interior is their cells.
    const double perCell = seconds / static_cast<double>(group.interior().volume());
    for (const Patch* patch : group.patches())
      m_patchSeconds[patch->id()] += perCell * static_cast<double>(patch->numCells());
  }
}

std::map<int, double> GraphScheduler::takePatchSeconds() {
  std::map<int, double> taken;
  taken.swap(m_patchSeconds);
  return taken;
}

std::vector<std::string> splitSchedulerModes(const std::string& modes) {
  std::vector<std::string> names;
  std::stringstream in(modes);
  std::string name;
  while (std::getline(in, name, ',')) {
    if (name != "host" && name != "sync" && name != "async")
      throw InputError("'" + name + "' is not a scheduler mode (host, sync or async)");
    names.push_back(name);
  }
  if (names.empty() || modes.back() == ',') throw InputError("a mode is missing");
  return names;
}

std::unique_ptr<GraphScheduler> makeScheduler(const std::string& type, const Communicator& world,
                                              const SchedulerOptions& options) {
  if (type == "host") return std::make_unique<HostScheduler>(world, options);
  if (type == "sync")
    return std::make_unique<DeviceScheduler>(world, options, DeviceScheduler::Mode::Sync);
  if (type == "async")
    return std::make_unique<DeviceScheduler>(world, options, DeviceScheduler::Mode::Async);
  throw InputError("unknown scheduler type '" + type + "' (choose host, sync or async)");
}

}  // namespace tessera
