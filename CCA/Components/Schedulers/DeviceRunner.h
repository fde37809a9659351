#pragma once
// The device schedulers on a CPU: the device's thread runs the graph.
//
// On Sunway the MPE schedules, spawns a kernel on the CPEs and, in
// acc.async, goes on with MPI while they compute. Kokkos' OpenMP backend
// makes the launching thread one of the kernel's workers instead, so here
// the thread that initialised Kokkos (the device's thread) schedules
// between its kernels itself: it picks a ready task whose ghost data is
// here, fills its ghost cells, runs it, releases its successors and sends,
// polls MPI, and runs host tasks and reductions when no kernel is ready.
// The two offload modes differ in what happens while a kernel runs and in
// which task runs next:
//   Sync  (acc.sync): nothing else happens; device tasks run in graph
//     order, each waiting for its own messages (no reordering by arrival).
//   Async (acc.async): the control thread stands in for the device's
//     thread, testing messages, unpacking arrived ghost data, posting
//     reductions and running ready host tasks (and, with a core of its
//     own, making the local ghost copies); the device's thread runs the
//     most urgent ready task whose data has arrived. When there is nothing
//     to overlap (one rank, or one task per step) no work changes threads
//     and the mode costs what host mode costs.
//
// One runner serves every execution of its scheduler, so that the control
// thread waits on the runner's lock and condition variable across graphs
// and an execution ends without a hand-shake. What an execution shares
// between the threads (ExecutionState, the ready sets) is guarded by that
// lock; tasks run without it. See docs/threading.md.

#include "CCA/Components/Schedulers/ExecutionState.h"
#include "CCA/Components/Schedulers/GraphScheduler.h"
#include "CCA/Components/Schedulers/Watchdog.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace tessera {

class DeviceRunner {
 public:
  enum class Offload { Sync, Async };
  // Async only: whether the control thread works while kernels run
  // (otherwise the device's thread does everything, between kernels), and
  // whether it has a core of its own. There it waits for the next kernel
  // by spinning, so that the device's thread starts a kernel without a
  // system call: waking a sleeping thread cost the waker 11 us (median) to
  // 50 us (one in ten) here, before every kernel. It sleeps once no kernel
  // has started for 2 ms; on a shared core it always sleeps.
  enum class Help { None, OnSharedCore, OnOwnCore };

  DeviceRunner(const SchedulerOptions& options, int rank, Offload offload, Help help)
      : m_options(options),
        m_rank(rank),
        m_async(offload == Offload::Async),
        m_helped(m_async && help != Help::None),
        m_spins(m_helped && help == Help::OnOwnCore) {}
  DeviceRunner(const DeviceRunner&) = delete;
  DeviceRunner& operator=(const DeviceRunner&) = delete;

  // ---- the device's thread (the one that initialised Kokkos) ----
  // Runs `state`'s graph to its end and waits for the last sends, counting
  // its own work in `deviceStats` and the control thread's host tasks in
  // `helpStats`; `deviceTrack` and `controlTrack` are the two threads'
  // (null: tracing off). When helped, the first time a kernel starts while
  // there is something to progress, it calls `startHelper` (without the
  // lock): the scheduler then makes sure its control thread is in help();
  // otherwise it never calls it. Throws the first failure of either
  // thread; the control thread has let go of the state when it returns,
  // however it returns.
  void run(ExecutionState& state, SchedulerStats& deviceStats, SchedulerStats& helpStats,
           TraceTrack* deviceTrack, TraceTrack* controlTrack,
           const std::function<void()>& startHelper);

  // ---- the control thread (when helped) ----
  // Progresses communication, host tasks and local ghost copies while the
  // device's thread is inside a kernel, waiting otherwise, until stop(). A
  // failure is kept for run() to throw.
  void help();
  // Makes help() return.
  void stop();

 private:
  using Lock = std::unique_lock<std::mutex>;
  const DetailedTask& node(int id) const { return m_state->node(id); }

  // Everything below is called with the lock held, while m_state is set.
  void begin(ExecutionState& state, SchedulerStats& deviceStats, SchedulerStats& helpStats,
             TraceTrack* deviceTrack, TraceTrack* controlTrack);
  // Waits until no host task runs on the control thread, then forgets the
  // execution.
  void end(Lock& lock);
  void schedule(Lock& lock, const std::function<void()>& startHelper);
  void classify(int id);
  void finish(int id);
  bool pollCommunication();
  bool postReadyReductions();
  void postInitialSendsIfPending();
  // The most urgent ready device task (host task) whose inputs arrived,
  // taken from its ready set; -1 if none. In sync, only the first ready
  // device task in graph order is a candidate; no host task while another
  // runs (Kokkos::Serial has one user at a time).
  int takeDeviceTask();
  int takeHostTask();
  template <class Entry, class IdOf>
  int takeFirstArrived(std::vector<Entry>& ready, const IdOf& idOf);
  // Whether the control thread has anything to do while a kernel runs.
  bool helpUseful() const;
  // Runs a task without the lock (fills first, with it), then finishes it.
  void runDeviceTask(int id, Lock& lock, const std::function<void()>& startHelper);
  // `helping`: on the control thread (its stats and track).
  void runHostTask(int id, Lock& lock, bool helping);
  // The control thread: makes the pending eager ghost copies without the
  // lock, so that a kernel's end does not wait for them.
  void makeEagerCopiesWithoutLock(Lock& lock);
  // Waits (polling MPI, yielding between looks) until a message or a
  // reduction completes, or the control thread finishes a task.
  void waitForProgress(Lock& lock);
  void throwIfHelpFailed();
  // The control thread: waits until a kernel starts after `started` kernels
  // (or stop), spinning first where it has a core of its own.
  void waitForKernelStart(Lock& lock, std::int64_t started);
  // The control thread, a kernel running: lets a few microseconds pass
  // without the lock before it looks again (spinning on its own core, else
  // sleeping up to 100 us).
  void pauseWhileComputing(Lock& lock);

  const SchedulerOptions& m_options;
  int m_rank;
  bool m_async;   // Offload::Async
  bool m_helped;  // the control thread works while kernels run
  bool m_spins;   // ... on a core of its own, where it spins rather than sleeps

  std::mutex m_mutex;
  std::condition_variable m_helpWake;      // the control thread: a kernel started, or stop
  std::condition_variable m_hostTaskDone;  // the device's thread, ending a failed execution
  // Written with the lock held; the control thread also reads them without
  // it while it spins. m_kernelsStarted is what a control thread with
  // nothing to do waits on.
  std::atomic<bool> m_stopping{false};
  std::atomic<std::int64_t> m_kernelsStarted{0};
  bool m_helperStarted = false;      // startHelper called
  bool m_helperSleeping = false;     // the control thread waits on m_helpWake
  double m_meanKernelSeconds = 1.0;  // a running mean of device tasks' durations
  // The device's thread is inside a kernel (read by the state's overlap
  // accounting, and by help()'s wait predicates).
  std::atomic<bool> m_computing{false};

  // The execution being run (null between executions) and its bookkeeping.
  ExecutionState* m_state = nullptr;
  SchedulerStats* m_deviceStats = nullptr;
  SchedulerStats* m_helpStats = nullptr;
  TraceTrack* m_deviceTrack = nullptr;
  TraceTrack* m_controlTrack = nullptr;
  Watchdog m_watchdog{0.0};
  // Sorted vectors, not trees: a few dozen entries at most are typical, and
  // a task's way through them then allocates nothing.
  std::vector<std::pair<int, int>> m_readyDevice;  // (priority, id), ascending
  std::vector<int> m_readyHost;                    // ascending
  std::vector<int> m_reductionOrder;
  std::size_t m_nextReduction = 0;
  bool m_initialSendsPending = false;
  // Eager copies released when the last kernel started.
  std::size_t m_eagerReleasedAtKernelStart = 0;
  int m_hostTasksRunning = 0;        // host tasks (or eager copies) running without the lock
  bool m_hostTaskRunning = false;    // a host task runs (on Kokkos::Serial: one at a time)
  std::int64_t m_tasksFinished = 0;  // a progress count the idle device watches
  std::exception_ptr m_helpFailure;
};

}  // namespace tessera
