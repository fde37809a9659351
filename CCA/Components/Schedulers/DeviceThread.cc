#include "CCA/Components/Schedulers/DeviceThread.h"

#include "Core/Util/Error.h"
#include "Core/Util/Timer.h"

#include <algorithm>
#include <thread>

namespace tessera {

namespace {
// How long a side spins (yielding) before it sleeps.
constexpr auto kSpin = std::chrono::microseconds(50);

// Spins until `ready()` or kSpin has passed (or `limit`, if shorter),
// yielding between looks; true if ready.
template <class Ready>
bool spinUntil(const Ready& ready, std::chrono::microseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + std::min(limit, kSpin);
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::yield();
  }
  return true;
}
}  // namespace

void DeviceThread::serve() {
  std::unique_lock<std::mutex> lock(m_mutex);
  while (true) {
    if (!m_work && !m_closed) {
      lock.unlock();
      spinUntil([&] { return m_submitted.load(std::memory_order_acquire); }, kSpin);
      lock.lock();
    }
    m_wake.wait(lock, [&] { return static_cast<bool>(m_work) || m_closed; });
    if (m_work) {
      std::function<void()> work = std::move(m_work);
      m_work = nullptr;
      m_submitted.store(false, std::memory_order_relaxed);
      lock.unlock();
      const Timer timer;
      try {
        work();
      } catch (...) {
        m_failure = std::current_exception();
      }
      m_busySeconds += timer.seconds();
      lock.lock();
      m_done.store(true, std::memory_order_release);
      m_finished.notify_all();
      continue;
    }
    return;  // closed and nothing left to run
  }
}

void DeviceThread::submit(std::function<void()> work) {
  TESSERA_REQUIRE_THROWS(!busy(), "the device is already running a task");
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    TESSERA_REQUIRE_THROWS(!m_closed, "the device has been closed");
    m_done.store(false, std::memory_order_relaxed);
    m_inFlight.store(true, std::memory_order_release);
    m_work = std::move(work);
    m_submitted.store(true, std::memory_order_release);
  }
  m_wake.notify_one();
}

bool DeviceThread::poll() {
  if (!busy() || !m_done.load(std::memory_order_acquire)) return false;
  m_inFlight.store(false, std::memory_order_release);
  if (m_failure) {
    std::exception_ptr failure = m_failure;
    m_failure = nullptr;
    std::rethrow_exception(failure);
  }
  return true;
}

bool DeviceThread::waitFor(std::chrono::microseconds limit) {
  const auto finished = [&] { return !busy() || m_done.load(std::memory_order_acquire); };
  if (spinUntil(finished, limit)) return true;
  std::unique_lock<std::mutex> lock(m_mutex);
  return m_finished.wait_for(lock, limit,
                             [&] { return !busy() || m_done.load(std::memory_order_acquire); });
}

void DeviceThread::close() {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_closed = true;
    m_submitted.store(true, std::memory_order_release);
  }
  m_wake.notify_one();
}

void DeviceThread::reopen() {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_closed = false;
  m_submitted.store(static_cast<bool>(m_work), std::memory_order_release);
}

}  // namespace tessera
