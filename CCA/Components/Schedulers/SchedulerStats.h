#pragma once
// What a scheduler counts while it runs graphs; summed over a run. The
// difference of two snapshots gives one timestep's numbers.

#include <cstdint>

namespace tessera {

struct SchedulerStats {
  std::int64_t tasksRun = 0;
  std::int64_t reductions = 0;
  std::int64_t messagesSent = 0;
  std::int64_t bytesSent = 0;
  std::int64_t messagesReceived = 0;
  std::int64_t bytesReceived = 0;
  std::int64_t kernels = 0;
  std::int64_t tiles = 0;
  std::int64_t groupRefinements = 0;  // coarse-fine ghost cells refined a patch group at a time
  std::int64_t sweptAverages = 0;     // averages onto a coarser level made in the fine sweep
  double taskSeconds = 0.0;         // inside task callbacks (kernels included)
  double waitSeconds = 0.0;         // control thread blocked or spinning on MPI
  double packSeconds = 0.0;         // packing, unpacking and local ghost copies
  double reduceSeconds = 0.0;       // combining reductions
  double deviceBusySeconds = 0.0;   // the device running tasks
  double commWorkSeconds = 0.0;     // control thread posting, testing, packing, unpacking
  double commOverlapSeconds = 0.0;  // ... of which while the device was busy

  // Share of communication work done while the device computed.
  double overlapFraction() const {
    return commWorkSeconds > 0.0 ? commOverlapSeconds / commWorkSeconds : 0.0;
  }

  SchedulerStats& operator+=(const SchedulerStats& o) { return combine(o, 1); }
  SchedulerStats& operator-=(const SchedulerStats& o) { return combine(o, -1); }

 private:
  SchedulerStats& combine(const SchedulerStats& o, int sign) {
    tasksRun += sign * o.tasksRun;
    reductions += sign * o.reductions;
    messagesSent += sign * o.messagesSent;
    bytesSent += sign * o.bytesSent;
    messagesReceived += sign * o.messagesReceived;
    bytesReceived += sign * o.bytesReceived;
    kernels += sign * o.kernels;
    tiles += sign * o.tiles;
    groupRefinements += sign * o.groupRefinements;
    sweptAverages += sign * o.sweptAverages;
    taskSeconds += sign * o.taskSeconds;
    waitSeconds += sign * o.waitSeconds;
    packSeconds += sign * o.packSeconds;
    reduceSeconds += sign * o.reduceSeconds;
    deviceBusySeconds += sign * o.deviceBusySeconds;
    commWorkSeconds += sign * o.commWorkSeconds;
    commOverlapSeconds += sign * o.commOverlapSeconds;
    return *this;
  }
};

}  // namespace tessera
