#pragma once
// What a scheduler counts while it runs graphs; summed over a run.

#include <cstdint>

namespace tessera {

struct SchedulerStats {
  std::int64_t tasksRun = 0;
  std::int64_t reductions = 0;
  std::int64_t messagesSent = 0;
  std::int64_t bytesSent = 0;
  std::int64_t messagesReceived = 0;
  std::int64_t bytesReceived = 0;
  double taskSeconds = 0.0;    // inside task callbacks (kernels included)
  double waitSeconds = 0.0;    // blocked on MPI
  double packSeconds = 0.0;    // packing, unpacking and local ghost copies
  double reduceSeconds = 0.0;  // in reductions

  SchedulerStats& operator+=(const SchedulerStats& o) {
    tasksRun += o.tasksRun;
    reductions += o.reductions;
    messagesSent += o.messagesSent;
    bytesSent += o.bytesSent;
    messagesReceived += o.messagesReceived;
    bytesReceived += o.bytesReceived;
    taskSeconds += o.taskSeconds;
    waitSeconds += o.waitSeconds;
    packSeconds += o.packSeconds;
    reduceSeconds += o.reduceSeconds;
    return *this;
  }
};

}  // namespace tessera
