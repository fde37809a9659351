#include "CCA/Components/SimulationController/RunReports.h"

#include "CCA/Components/Schedulers/GraphvizWriter.h"
#include "Core/Util/Error.h"

#include <fstream>
#include <iomanip>
#include <sstream>

namespace tessera {

void writeTaskGraph(const std::string& file, const GraphScheduler& sched, const Grid& grid,
                    const std::vector<int>& patchRanks, int numRanks) {
  std::vector<CompiledGraph> perRank;
  for (int r = 0; r < numRanks; ++r)
    perRank.push_back(sched.compile(grid, patchRanks, r));
  std::ofstream out(file);
  if (!out) throw InputError("cannot write the task graph to '" + file + "'");
  writeGraphviz(out, perRank);
}

nlohmann::json describeForTrace(const CompiledGraph& graph) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const DetailedTask& node : graph.detailedTasks) {
    const bool reduction = node.kind == DetailedTask::Kind::Reduction;
    tasks.push_back(
        {{"id", node.id},
         {"name", reduction ? node.reduction->name()
                            : graph.tasks[static_cast<std::size_t>(node.taskIndex)].name()},
         {"kind", reduction ? "reduction" : "task"}});
  }
  return {{"rank", graph.rank}, {"timestep_tasks", tasks}};
}

void writeStatsLine(std::ostream& out, int step, double time, double delT, double wall,
                    const std::string& scheduler, const SchedulerStats& s) {
  const nlohmann::ordered_json line = {{"timestep", step},
                                       {"time", time},
                                       {"delt", delT},
                                       {"wall_seconds", wall},
                                       {"scheduler", scheduler},
                                       {"device_busy_seconds", s.deviceBusySeconds},
                                       {"task_seconds", s.taskSeconds},
                                       {"mpi_wait_seconds", s.waitSeconds},
                                       {"pack_unpack_seconds", s.packSeconds},
                                       {"comm_work_seconds", s.commWorkSeconds},
                                       {"comm_overlapped_seconds", s.commOverlapSeconds},
                                       {"overlap_fraction", s.overlapFraction()},
                                       {"tasks", s.tasksRun},
                                       {"tiles", s.tiles},
                                       {"kernels", s.kernels},
                                       {"messages_sent", s.messagesSent},
                                       {"bytes_sent", s.bytesSent},
                                       {"group_refinements", s.groupRefinements},
                                       {"swept_averages", s.sweptAverages}};
  out << line.dump() << '\n';
}

std::string ms(double seconds) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << seconds * 1e3;
  return out.str();
}

std::string percent(double fraction) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << fraction * 100.0;
  return out.str();
}

}  // namespace tessera
