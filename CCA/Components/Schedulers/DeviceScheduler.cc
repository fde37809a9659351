#include "CCA/Components/Schedulers/DeviceScheduler.h"

#include "CCA/Components/Schedulers/DeviceThread.h"
#include "CCA/Components/Schedulers/ExecutionState.h"
#include "CCA/Components/Schedulers/SpinWait.h"
#include "CCA/Components/Schedulers/Watchdog.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

namespace tessera {

namespace {
// While the device computes, the control thread sleeps until the device
// finishes (an event: a condition variable); the watchdog's period bounds it.
constexpr auto kWaitWhileComputing = std::chrono::microseconds(20000);
}  // namespace

// acc.sync: the control thread runs the graph, one device task at a time.
class DeviceScheduler::SyncControlLoop {
 public:
  SyncControlLoop(ExecutionState& state, DeviceThread& device, const SchedulerOptions& options,
                  SchedulerStats& controlStats, SchedulerStats& deviceStats, int rank,
                  TraceTrack* deviceTrack)
      : m_state(state),
        m_device(device),
        m_options(options),
        m_stats(controlStats),
        m_deviceStats(deviceStats),
        m_rank(rank),
        m_deviceTrack(deviceTrack),
        m_watchdog(options.watchdogSeconds) {
    for (const DetailedTask& node : state.graph().detailedTasks) {
      if (node.kind == DetailedTask::Kind::Reduction) m_reductionOrder.push_back(node.id);
    }
  }

  SyncControlLoop(const SyncControlLoop&) = delete;
  SyncControlLoop& operator=(const SyncControlLoop&) = delete;
  // Whatever way the graph ended, nothing of it may still run on the device
  // once this loop (which the device's runner refers to) is gone.
  ~SyncControlLoop() {
    m_device.drain();
    m_state.setDeviceBusyProbe({});
  }

  void run() {
    m_state.setDeviceBusyProbe([this] { return m_device.busy(); });
    m_device.setRunner([this](int id) {
      DeviceScheduler::runTask(m_state.graph(), node(id), m_state.oldDW(), m_state.newDW(),
                               m_options.tiling, m_deviceStats, m_deviceTrack);
    });
    m_state.start();
    for (const DetailedTask& node : m_state.graph().detailedTasks) {
      if (m_state.isReady(node.id)) classify(node.id);
    }
    while (!m_state.allFinished()) {
      bool progressed = collectFinished();
      progressed |= pollCommunication();
      progressed |= postReadyReductions();
      progressed |= runReadyHostTasks();
      progressed |= dispatch();
      if (progressed) {
        m_watchdog.progressed();
      } else if (m_device.busy()) {
        // A running kernel is progress: sleep until it is done.
        m_watchdog.progressed();
        const TraceScope traced(m_state.trace(), "wait: device", "wait");
        m_device.waitFor(kWaitWhileComputing);
      } else {
        // Nothing to run until a message or a reduction completes. The
        // device is idle, so testing MPI costs it nothing; yielding between
        // tests lets any other thread on this core (another rank's, when
        // oversubscribed) run first. No timed nap: a sleep's wake-up comes
        // tens of microseconds to milliseconds late.
        const ScopedTimer idle(m_stats.waitSeconds);
        const TraceScope traced(m_state.trace(), "wait: messages", "wait");
        while (!pollCommunication()) {
          if (m_watchdog.expired()) watchdogFail(m_state, m_watchdog.limitSeconds(), m_rank);
          std::this_thread::yield();
        }
        m_watchdog.progressed();
      }
    }
    const ScopedTimer waiting(m_stats.waitSeconds);
    const TraceScope traced(m_state.trace(), "wait: last sends", "wait");
    m_state.complete([this] {
      if (m_watchdog.expired()) watchdogFail(m_state, m_watchdog.limitSeconds(), m_rank);
    });
  }

 private:
  const DetailedTask& node(int id) const { return m_state.node(id); }

  // Tests messages and reductions, finishing completed reductions; true if
  // anything completed.
  bool pollCommunication() {
    bool progressed = m_state.progressMessages();
    for (int id : m_state.progressReductions()) {
      finish(id);
      progressed = true;
    }
    return progressed;
  }

  void classify(int id) {
    const DetailedTask& n = node(id);
    if (n.kind == DetailedTask::Kind::Reduction) return;  // posted in graph order
    if (m_state.taskOf(n).kind() == Task::Kind::Host) {
      m_readyHost.insert(id);
    } else {
      // Tasks that feed other ranks first, then graph order.
      m_readyDevice.insert({n.sendsToRelease.empty() ? 1 : 0, id});
    }
  }

  void finish(int id) {
    for (int successor : m_state.finish(id))
      classify(successor);
  }

  // Reductions are collective: every rank posts them in the same (graph) order.
  bool postReadyReductions() {
    bool posted = false;
    while (m_nextReduction < m_reductionOrder.size() &&
           m_state.isReady(m_reductionOrder[m_nextReduction])) {
      const int id = m_reductionOrder[m_nextReduction++];
      m_state.markStarted(id);
      m_state.postReduction(node(id));
      posted = true;
    }
    return posted;
  }

  bool runReadyHostTasks() {
    bool ran = false;
    for (auto it = m_readyHost.begin(); it != m_readyHost.end();) {
      const DetailedTask& n = node(*it);
      if (!m_state.inputsArrived(n)) {
        ++it;
        continue;
      }
      m_state.markStarted(n.id);
      m_state.performFills(n);
      DeviceScheduler::runTask(m_state.graph(), n, m_state.oldDW(), m_state.newDW(),
                               m_options.tiling, m_stats, m_state.trace());
      const int id = *it;
      it = m_readyHost.erase(it);
      finish(id);
      ran = true;
    }
    return ran;
  }

  // Collects the tasks the device finished; true if there were any.
  bool collectFinished() {
    m_finished.clear();
    if (!m_device.poll(m_finished)) return false;
    for (int id : m_finished)
      finish(id);
    return true;
  }

  // Runs the first ready task in graph order: waits for its messages, then
  // for the device. True if it gave the device work.
  bool dispatch() {
    if (m_readyDevice.empty()) return false;
    const auto chosen =
        std::min_element(m_readyDevice.begin(), m_readyDevice.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    const int id = chosen->second;
    if (!m_state.inputsArrived(node(id))) {
      const ScopedTimer waiting(m_stats.waitSeconds);
      const TraceScope traced(m_state.trace(), "wait: messages", "wait", id);
      m_state.waitForInputs(node(id), [&] {
        if (m_watchdog.expired()) watchdogFail(m_state, m_watchdog.limitSeconds(), m_rank);
      });
    }
    m_readyDevice.erase(chosen);
    submit(id);
    // The control thread waits until the device is done: no overlap.
    const ScopedTimer waiting(m_stats.waitSeconds);
    const TraceScope traced(m_state.trace(), "wait: device", "wait", id);
    while (!collectFinished())
      m_device.waitFor(kWaitWhileComputing);
    return true;
  }

  void submit(int id) {
    m_state.markStarted(id);
    m_state.performFills(node(id));
    m_device.submit(id);
  }

  ExecutionState& m_state;
  DeviceThread& m_device;
  const SchedulerOptions& m_options;
  SchedulerStats& m_stats;
  SchedulerStats& m_deviceStats;
  int m_rank;
  TraceTrack* m_deviceTrack;  // the device's thread's track, or null
  Watchdog m_watchdog;
  std::set<std::pair<int, int>> m_readyDevice;  // (priority, id)
  std::set<int> m_readyHost;
  std::vector<int> m_reductionOrder;
  std::size_t m_nextReduction = 0;
  std::vector<int> m_finished;  // scratch for collectFinished
};

DeviceScheduler::DeviceScheduler(const Communicator& world, const SchedulerOptions& options,
                                 Mode mode)
    : GraphScheduler(world,
                     [&] {
                       SchedulerOptions tiled = options;
                       // The device runs stencils tile by tile unless told not to.
                       tiled.tiling.enabled = options.tileStencils;
                       return tiled;
                     }()),
      m_mode(mode),
      m_async(m_options, m_comm.rank()) {}

DeviceScheduler::~DeviceScheduler() {
  if (!m_control.joinable()) return;
  if (m_mode == Mode::Async) {
    m_async.stop();
  } else {
    {
      const std::lock_guard<std::mutex> lock(m_mutex);
      m_stopping = true;
      m_jobOrStop.store(true, std::memory_order_release);
    }
    m_wake.notify_one();
  }
  m_control.join();
}

void DeviceScheduler::controlThread() {
  if (m_mode == Mode::Async) {
    m_async.help();
    return;
  }
  while (true) {
    Job* job = nullptr;
    {
      // The next graph (the next timestep's) usually comes within
      // microseconds: spin for it before sleeping.
      spinUntil([&] { return m_jobOrStop.load(std::memory_order_acquire); });
      std::unique_lock<std::mutex> lock(m_mutex);
      m_wake.wait(lock, [&] { return m_job != nullptr || m_stopping; });
      if (m_job == nullptr) return;  // stopping
      job = m_job;
      m_job = nullptr;
      m_jobOrStop.store(false, std::memory_order_relaxed);
    }
    try {
      SyncControlLoop(*job->state, m_device, m_options, *job->controlStats, *job->deviceStats,
                      m_comm.rank(), mainTrack())
          .run();
    } catch (...) {
      job->failure = std::current_exception();
    }
    m_device.close();  // lets executeSync()'s serve() return
  }
}

void DeviceScheduler::startControlThread() {
  if (!m_control.joinable()) m_control = std::thread([this] { controlThread(); });
}

void DeviceScheduler::executeSync(ExecutionState& state, SchedulerStats& controlStats,
                                  SchedulerStats& deviceStats) {
  Job job;
  job.state = &state;
  job.controlStats = &controlStats;
  job.deviceStats = &deviceStats;
  const double busyBefore = m_device.busySeconds();
  m_device.reopen();
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_job = &job;
    m_jobOrStop.store(true, std::memory_order_release);
  }
  startControlThread();
  m_wake.notify_one();
  m_device.serve();  // this thread runs the kernels until the control thread is done
  controlStats.deviceBusySeconds += m_device.busySeconds() - busyBefore;
  if (job.failure) std::rethrow_exception(job.failure);
}

void DeviceScheduler::executeAsync(ExecutionState& state, SchedulerStats& controlStats,
                                   SchedulerStats& deviceStats) {
  // The control thread's host tasks are counted apart: it runs them while
  // the state counts communication in controlStats under the runner's lock.
  SchedulerStats helpStats;
  try {
    m_async.run(state, deviceStats, helpStats, mainTrack(), controlTrack(),
                [this] { startControlThread(); });
  } catch (...) {
    controlStats += helpStats;
    throw;
  }
  controlStats += helpStats;
}

void DeviceScheduler::execute(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                              OnDemandDataWarehouse& newDW) {
  SchedulerStats controlStats;
  SchedulerStats deviceStats;
  {
    ExecutionState state(graph, oldDW, newDW, m_comm, controlStats, m_executions++, m_buffers,
                         controlTrack(), m_options.messageChunkBytes, &m_blockComm);
    try {
      if (m_mode == Mode::Sync) {
        executeSync(state, controlStats, deviceStats);
      } else {
        executeAsync(state, controlStats, deviceStats);
      }
    } catch (...) {
      state.abandon(std::current_exception());
      m_stats += controlStats;
      m_stats += deviceStats;
      throw;
    }
  }
  m_stats += controlStats;
  m_stats += deviceStats;
}

}  // namespace tessera
