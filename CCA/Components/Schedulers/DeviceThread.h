#pragma once
// The device: runs one task's kernels at a time on the thread that
// initialised Kokkos (Kokkos 3.4's OpenMP backend launches kernels only from
// that thread), while the control thread submits work and polls for its
// completion without blocking.
//
// A hand-over costs two thread wake-ups through the kernel when each side
// sleeps on a condition variable (about 5 us each on this machine, against
// tasks of a few microseconds). So each side first spins for a short while,
// yielding its core between looks: on two cores the hand-over then takes
// well under a microsecond, and on one core a yield hands the core straight
// to the other side. Only after that does it sleep, so a long kernel or an
// idle device costs no core.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>

namespace tessera {

class DeviceThread {
 public:
  // ---- the device thread ----
  // Runs submitted work until close(); returns then.
  void serve();

  // ---- the control thread ----
  // Hands over one piece of work; the device must be idle.
  void submit(std::function<void()> work);
  // True from submit until poll() has reported the completion.
  bool busy() const { return m_inFlight.load(std::memory_order_acquire); }
  // True once when submitted work has finished; rethrows its exception.
  bool poll();
  // Blocks until the submitted work finishes or `limit` passes, without
  // taking a core from the device; true if it finished (poll() to collect).
  bool waitFor(std::chrono::microseconds limit);
  // Lets serve() return once the current work is done.
  void close();
  // Lets a closed executor serve again: the device and control threads of
  // a scheduler live for the whole run and serve one graph at a time.
  void reopen();
  // Seconds the device spent running work.
  double busySeconds() const { return m_busySeconds; }

 private:
  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::condition_variable m_finished;
  std::function<void()> m_work;
  std::atomic<bool> m_submitted{false};  // work waits in m_work (or close() was called)
  bool m_closed = false;
  std::atomic<bool> m_inFlight{false};
  std::atomic<bool> m_done{false};
  std::exception_ptr m_failure;
  double m_busySeconds = 0.0;
};

}  // namespace tessera
