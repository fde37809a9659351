#include "CCA/Components/Schedulers/DeviceRunner.h"

#include "Core/Util/Timer.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace tessera {

namespace {
// While a kernel runs and messages are awaited, the control thread tests
// MPI this often (MPI has no event to wait on); between tests it sleeps, so
// on a core it shares with the kernel it takes a few microseconds a period.
constexpr auto kPollWhileComputing = std::chrono::microseconds(100);
// Waking the control thread costs the waker a system call and, on a shared
// core, a thread switch each way (5-25 us here): worth it only for kernels
// that are long against that. The device's thread judges by a running mean
// of its kernels' durations (it starts by assuming they are long).
constexpr double kKernelWorthHelpSeconds = 50e-6;
constexpr double kMeanWeight = 1.0 / 8.0;
// A control thread with a core of its own: how long it spins waiting for
// the next kernel before it sleeps (between timesteps, output, the end of
// the run), and how long it lets pass between its looks at MPI while a
// kernel runs (a test takes well under a microsecond).
constexpr double kSpinBeforeSleepSeconds = 2e-3;
constexpr double kPollWhileSpinningSeconds = 5e-6;

// A spinning control thread's pause. A system call, not a pause
// instruction: where the scheduler put it on the device thread's core (as
// it does a new or woken thread, until it balances the load), the device
// thread gets the core at once; on a core of its own it returns at once.
inline void cpuRelax() {
  std::this_thread::yield();
}

template <class T>
void insertSorted(std::vector<T>& sorted, const T& value) {
  sorted.insert(std::upper_bound(sorted.begin(), sorted.end(), value), value);
}
}  // namespace

void DeviceRunner::run(ExecutionState& state, SchedulerStats& deviceStats,
                       SchedulerStats& helpStats, TraceTrack* deviceTrack, TraceTrack* controlTrack,
                       const std::function<void()>& startHelper) {
  Lock lock(m_mutex);
  try {
    begin(state, deviceStats, helpStats, deviceTrack, controlTrack);
    schedule(lock, startHelper);
  } catch (...) {
    end(lock);
    throw;
  }
  end(lock);
}

void DeviceRunner::begin(ExecutionState& state, SchedulerStats& deviceStats,
                         SchedulerStats& helpStats, TraceTrack* deviceTrack,
                         TraceTrack* controlTrack) {
  m_state = &state;
  m_deviceStats = &deviceStats;
  m_helpStats = &helpStats;
  m_deviceTrack = deviceTrack;
  m_controlTrack = controlTrack;
  m_watchdog = Watchdog(m_options.watchdogSeconds);
  m_readyDevice.clear();
  m_readyHost.clear();
  m_reductionOrder.clear();
  m_nextReduction = 0;
  m_hostTasksRunning = 0;
  m_hostTaskRunning = false;
  m_tasksFinished = 0;
  m_helpFailure = nullptr;
  m_eagerReleasedAtKernelStart = 0;
  for (const DetailedTask& n : state.graph().detailedTasks) {
    if (n.kind == DetailedTask::Kind::Reduction) m_reductionOrder.push_back(n.id);
  }
  state.useTrace(deviceTrack);
  state.setDeviceBusyProbe([this] { return m_computing.load(std::memory_order_relaxed); });
  // With a control thread the old warehouse's sends wait for the first
  // kernel, so that it packs them while the kernel runs (or for the first
  // idle moment); otherwise they are posted first.
  // A control thread with a core of its own makes the local ghost copies
  // too, while the next kernel runs (on a shared core that would only move
  // them to a thread that takes turns with the kernel). Not beside groups
  // of several patches: a group task reading patches made one by one
  // gathers them into one allocation (findGroupVariable), ghost cells
  // included, which must not happen while a copy writes them.
  const auto& groups = state.graph().groups;
  const bool copiesApart =
      m_spins && std::none_of(groups.begin(), groups.end(),
                              [](const PatchGroup& g) { return g.patches().size() > 1; });
  state.start(/*deferInitialSends=*/m_helped, /*deferEagerCopies=*/copiesApart);
  m_initialSendsPending =
      m_helped && !state.graph().sends.empty();
}

void DeviceRunner::end(Lock& lock) {
  m_hostTaskDone.wait(lock, [&] { return m_hostTasksRunning == 0; });
  m_state->setDeviceBusyProbe({});
  m_state = nullptr;
  m_readyDevice.clear();
  m_readyHost.clear();
}

void DeviceRunner::schedule(Lock& lock, const std::function<void()>& startHelper) {
  for (const DetailedTask& n : m_state->graph().detailedTasks) {
    if (m_state->isReady(n.id)) classify(n.id);
  }
  while (!m_state->allFinished()) {
    throwIfHelpFailed();
    bool progressed = pollCommunication();
    progressed |= postReadyReductions();
    if (const int id = takeDeviceTask(); id >= 0) {
      runDeviceTask(id, lock, startHelper);
      m_watchdog.progressed();
      continue;
    }
    postInitialSendsIfPending();  // no kernel to hide them behind
    if (const int id = takeHostTask(); id >= 0) {
      runHostTask(id, lock, /*helping=*/false);
      m_watchdog.progressed();
      continue;
    }
    if (m_state->eagerCopiesPending()) {  // for the next step: only when nothing else can run
      m_state->performPendingEagerCopies();
      m_watchdog.progressed();
      continue;
    }
    if (progressed) {
      m_watchdog.progressed();
      continue;
    }
    waitForProgress(lock);
  }
  throwIfHelpFailed();
  postInitialSendsIfPending();
  const ScopedTimer waiting(m_deviceStats->waitSeconds);
  const TraceScope traced(m_deviceTrack, "wait: last sends", "wait");
  m_state->complete([this] {
    if (m_watchdog.expired()) watchdogFail(*m_state, m_watchdog.limitSeconds(), m_rank);
  });
}

void DeviceRunner::stop() {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_stopping = true;
  }
  m_helpWake.notify_all();
}

void DeviceRunner::help() {
  Lock lock(m_mutex);
  // Something to do: a kernel runs, in an execution that has not failed.
  const auto kernelRunning = [&] {
    return m_state != nullptr && m_computing.load(std::memory_order_relaxed) && !m_helpFailure;
  };
  while (!m_stopping) {
    if (!kernelRunning()) {
      // Between kernels the device's thread schedules for itself.
      waitForKernelStart(lock, m_kernelsStarted);
      continue;
    }
    try {
      m_state->useTrace(m_controlTrack);
      postInitialSendsIfPending();
      bool progressed = pollCommunication();
      progressed |= postReadyReductions();
      if (const int id = takeHostTask(); id >= 0) {
        runHostTask(id, lock, /*helping=*/true);
        continue;
      }
      if (m_state->eagerCopiesPending()) {
        makeEagerCopiesWithoutLock(lock);
        continue;
      }
      if (progressed) continue;
    } catch (...) {
      m_helpFailure = std::current_exception();
      continue;
    }
    if (helpUseful()) {
      pauseWhileComputing(lock);
    } else {
      // Nothing to progress until a later kernel starts.
      waitForKernelStart(lock, m_kernelsStarted);
    }
  }
}

void DeviceRunner::waitForKernelStart(Lock& lock, std::int64_t started) {
  const auto waited = [&] { return m_stopping || m_kernelsStarted != started; };
  if (m_spins) {
    lock.unlock();
    const Timer spinning;
    for (int look = 1; !waited(); ++look) {
      if (look % 64 == 0 && spinning.seconds() > kSpinBeforeSleepSeconds) break;
      cpuRelax();
    }
    lock.lock();
    if (waited()) return;
  }
  // The device's thread wakes a sleeping control thread as it starts a
  // kernel (runDeviceTask), having seen m_helperSleeping under the lock.
  m_helperSleeping = true;
  m_helpWake.wait(lock, waited);
  m_helperSleeping = false;
}

void DeviceRunner::pauseWhileComputing(Lock& lock) {
  if (!m_spins) {
    m_helpWake.wait_for(lock, kPollWhileComputing);
    return;
  }
  // Without the lock, so that the kernel's end does not wait for it.
  lock.unlock();
  const Timer pausing;
  while (m_computing.load(std::memory_order_relaxed) && !m_stopping &&
         pausing.seconds() < kPollWhileSpinningSeconds)
    cpuRelax();
  lock.lock();
}

void DeviceRunner::classify(int id) {
  const DetailedTask& n = node(id);
  if (n.kind == DetailedTask::Kind::Reduction) return;  // posted in graph order
  if (m_state->taskOf(n).kind() == Task::Kind::Host) {
    insertSorted(m_readyHost, id);
  } else {
    // Async: tasks that feed other ranks first, then graph order. Sync:
    // graph order.
    const int priority = m_async && n.sendsToRelease.empty() ? 1 : 0;
    insertSorted(m_readyDevice, std::make_pair(priority, id));
  }
}

void DeviceRunner::finish(int id) {
  for (int successor : m_state->finish(id))
    classify(successor);
  ++m_tasksFinished;
}

bool DeviceRunner::pollCommunication() {
  bool progressed = m_state->progressMessages();
  for (int id : m_state->progressReductions()) {
    finish(id);
    progressed = true;
  }
  return progressed;
}

// Reductions are collective: every rank posts them in the same (graph) order.
bool DeviceRunner::postReadyReductions() {
  bool posted = false;
  while (m_nextReduction < m_reductionOrder.size() &&
         m_state->isReady(m_reductionOrder[m_nextReduction])) {
    const int id = m_reductionOrder[m_nextReduction++];
    m_state->markStarted(id);
    m_state->postReduction(node(id));
    posted = true;
  }
  return posted;
}

void DeviceRunner::postInitialSendsIfPending() {
  if (!m_initialSendsPending) return;
  m_initialSendsPending = false;
  m_state->postInitialSends();
}

int DeviceRunner::takeDeviceTask() {
  if (!m_async) {
    // No reordering by arrival: the first in graph order, once its data is here.
    if (m_readyDevice.empty() || !m_state->inputsArrived(node(m_readyDevice.front().second)))
      return -1;
    const int id = m_readyDevice.front().second;
    m_readyDevice.erase(m_readyDevice.begin());
    return id;
  }
  return takeFirstArrived(m_readyDevice,
                          [](const std::pair<int, int>& entry) { return entry.second; });
}

int DeviceRunner::takeHostTask() {
  // Host tasks run on Kokkos::Serial, whose one scratch buffer (Kokkos 3.x)
  // every parallel_reduce resizes without a lock: one host task at a time.
  if (m_hostTaskRunning) return -1;
  return takeFirstArrived(m_readyHost, [](int id) { return id; });
}

template <class Entry, class IdOf>
int DeviceRunner::takeFirstArrived(std::vector<Entry>& ready, const IdOf& idOf) {
  for (auto it = ready.begin(); it != ready.end(); ++it) {
    const int id = idOf(*it);
    if (m_state->inputsArrived(node(id))) {
      ready.erase(it);
      return id;
    }
  }
  return -1;
}

bool DeviceRunner::helpUseful() const {
  return m_initialSendsPending || !m_readyHost.empty() || m_state->reductionsPending() ||
         m_state->receivesOutstanding() || m_state->eagerCopiesPending();
}

void DeviceRunner::runDeviceTask(int id, Lock& lock, const std::function<void()>& startHelper) {
  m_state->markStarted(id);
  m_state->performFills(node(id));
  SweepFollower* const follower = m_state->sweepFollower(id);
  // A task computing in the old storage overwrites what those sends read.
  if (!node(id).reusedStorage.empty()) postInitialSendsIfPending();
  if (m_spins) {
    // Eager copies the control thread left untaken through a whole kernel
    // (descheduled: this machine's cores are shared) are made here, before
    // they go cold; so a late control thread costs at most one kernel's delay.
    if (m_state->eagerCopiesTaken() < m_eagerReleasedAtKernelStart)
      m_state->performPendingEagerCopies();
    m_eagerReleasedAtKernelStart = m_state->eagerCopiesReleased();
  }
  m_computing.store(true, std::memory_order_relaxed);
  ++m_kernelsStarted;
  // A spinning control thread costs the kernel nothing to involve.
  const bool worthHelp = m_helped && (m_spins || m_meanKernelSeconds >= kKernelWorthHelpSeconds);
  if (!worthHelp) postInitialSendsIfPending();  // no one else will while the kernel runs
  const bool useful = worthHelp && helpUseful();
  const bool firstHelp = useful && !m_helperStarted;
  m_helperStarted |= useful;
  // A spinning control thread sees the kernel start by itself: no system call.
  const bool wake = useful && (!m_spins || m_helperSleeping);
  lock.unlock();
  std::exception_ptr failure;
  // A control thread that cannot start (std::thread throws) fails this
  // execution like a task would: the lock taken back, the kernel flag
  // cleared, and the next execution asks for it again.
  bool helperFailed = false;
  if (firstHelp) {
    try {
      startHelper();
    } catch (...) {
      failure = std::current_exception();
      helperFailed = true;
    }
  }
  if (wake && !failure) m_helpWake.notify_one();
  const double taskSecondsBefore = m_deviceStats->taskSeconds;  // runTask's clock, not another
  if (!failure) {
    try {
      m_state->recordSeconds(id, GraphScheduler::runTask(m_state->graph(), node(id),
                                                         m_state->oldDW(), m_state->newDW(),
                                                         m_options.tiling, *m_deviceStats,
                                                         m_deviceTrack, follower));
    } catch (...) {
      failure = std::current_exception();
    }
  }
  const double seconds = m_deviceStats->taskSeconds - taskSecondsBefore;
  m_deviceStats->deviceBusySeconds += seconds;
  m_meanKernelSeconds += kMeanWeight * (seconds - m_meanKernelSeconds);
  lock.lock();
  m_computing.store(false, std::memory_order_relaxed);
  if (helperFailed) m_helperStarted = false;
  m_state->useTrace(m_deviceTrack);
  if (failure) std::rethrow_exception(failure);
  finish(id);
}

void DeviceRunner::runHostTask(int id, Lock& lock, bool helping) {
  SchedulerStats& stats = helping ? *m_helpStats : *m_deviceStats;
  TraceTrack* const track = helping ? m_controlTrack : m_deviceTrack;
  m_state->markStarted(id);
  m_state->performFills(node(id));
  SweepFollower* const follower = m_state->sweepFollower(id);
  ++m_hostTasksRunning;
  m_hostTaskRunning = true;
  lock.unlock();
  std::exception_ptr failure;
  try {
    m_state->recordSeconds(id, GraphScheduler::runTask(m_state->graph(), node(id),
                                                       m_state->oldDW(), m_state->newDW(),
                                                       m_options.tiling, stats, track, follower));
  } catch (...) {
    failure = std::current_exception();
  }
  lock.lock();
  --m_hostTasksRunning;
  m_hostTaskRunning = false;
  m_hostTaskDone.notify_all();
  m_state->useTrace(track);
  if (failure) std::rethrow_exception(failure);
  finish(id);
}

void DeviceRunner::makeEagerCopiesWithoutLock(Lock& lock) {
  const GhostFills::EagerBatch copies = m_state->takePendingEagerCopies();
  const bool overlapped = m_computing.load(std::memory_order_relaxed);
  ++m_hostTasksRunning;  // end() waits for them as for a host task
  lock.unlock();
  std::exception_ptr failure;
  const Timer copying;
  try {
    const TraceScope traced(m_controlTrack, "eager ghost copies", "comm");
    m_state->makeEagerCopies(copies);
  } catch (...) {
    failure = std::current_exception();
  }
  const double seconds = copying.seconds();
  lock.lock();
  if (!failure) m_state->eagerCopiesMade(copies, seconds, overlapped);
  --m_hostTasksRunning;
  m_hostTaskDone.notify_all();
  if (failure) std::rethrow_exception(failure);
}

void DeviceRunner::waitForProgress(Lock& lock) {
  const ScopedTimer idle(m_deviceStats->waitSeconds);
  const TraceScope traced(m_deviceTrack, "wait: messages", "wait");
  const std::int64_t finishedBefore = m_tasksFinished;
  while (!pollCommunication() && m_tasksFinished == finishedBefore) {
    throwIfHelpFailed();
    if (m_hostTasksRunning > 0) {
      m_watchdog.progressed();  // the control thread is running a host task
    } else if (m_watchdog.expired()) {
      watchdogFail(*m_state, m_watchdog.limitSeconds(), m_rank);
    }
    // Yielding lets the control thread (or another rank's thread on this
    // core) run; no timed nap: its wake-up comes tens of microseconds late.
    lock.unlock();
    std::this_thread::yield();
    lock.lock();
    m_state->useTrace(m_deviceTrack);
  }
  m_watchdog.progressed();
}

void DeviceRunner::throwIfHelpFailed() {
  if (m_helpFailure) std::rethrow_exception(m_helpFailure);
}

}  // namespace tessera
