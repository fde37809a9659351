#pragma once
// The device: runs tasks' kernels on the thread that initialised Kokkos
// (Kokkos 3.4's OpenMP backend launches kernels only from that thread),
// one task at a time, from a queue the control thread fills. The control
// thread submits tasks (by id) and collects the finished ones without
// blocking; a queue several tasks deep lets the device run short tasks back
// to back instead of waiting for a hand-over after each.
//
// A hand-over costs two thread wake-ups through the kernel when each side
// sleeps on a condition variable (about 5 us each on this machine, against
// tasks of a few microseconds). So each side first spins for a short while,
// yielding its core between looks: on two cores the hand-over then takes
// a microsecond or so, and on one core a yield hands the core straight to
// the other side. Only after that does it sleep, so a long kernel or an
// idle device costs no core.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <vector>

namespace tessera {

class DeviceThread {
 public:
  // ---- the device thread ----
  // Runs submitted tasks until close(); returns then.
  void serve();

  // ---- the control thread ----
  // What running task `id` means, until the next call (set before submitting).
  void setRunner(std::function<void(int)> runner);
  // Queues task `id` behind those already submitted.
  void submit(int id);
  // Tasks submitted and not yet collected by poll().
  int inFlight() const { return m_inFlight.load(std::memory_order_acquire); }
  bool busy() const { return inFlight() > 0; }
  // Appends the tasks that finished since the last call to `finished`, in the
  // order they ran; true if there were any. Rethrows a task's exception (the
  // tasks queued behind it are dropped).
  bool poll(std::vector<int>& finished);
  // Blocks until a task finishes or `limit` passes, without taking a core
  // from the device; true if one did (poll() to collect).
  bool waitFor(std::chrono::microseconds limit);
  // Drops the queued tasks, waits for the one running (if any) to finish,
  // and forgets what was not collected, failures included: after it the
  // device holds nothing of the graph that was running. The control thread
  // calls it when a graph ends, normally or not.
  void drain();
  // Lets serve() return once the queue is empty.
  void close();
  // Lets a closed executor serve again: the device and control threads of
  // a scheduler live for the whole run and serve one graph at a time.
  void reopen();
  // Seconds the device spent running tasks, and how many it ran (both
  // readable from the control thread while the device runs).
  double busySeconds() const { return 1e-9 * static_cast<double>(m_busyNanoseconds.load()); }
  std::int64_t tasksRun() const { return m_tasksRun.load(); }

 private:
  std::mutex m_mutex;
  std::condition_variable m_wake;        // the device: work or close
  std::condition_variable m_finishedCv;  // the control thread: a task finished
  std::function<void(int)> m_runner;
  std::deque<int> m_queue;
  std::vector<int> m_finished;
  bool m_closed = false;
  std::atomic<bool> m_workOrClose{false};  // m_queue not empty, or closed
  std::atomic<bool> m_anyFinished{false};  // m_finished not empty, or failed
  std::atomic<int> m_inFlight{0};
  std::exception_ptr m_failure;  // the first failure not yet collected
  int m_failedUncollected = 0;   // failed tasks not yet collected by poll()
  std::atomic<std::int64_t> m_busyNanoseconds{0};
  std::atomic<std::int64_t> m_tasksRun{0};
};

}  // namespace tessera
