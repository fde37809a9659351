#include "CCA/Components/Schedulers/DeviceThread.h"

#include "Core/Util/Error.h"
#include "Core/Util/Timer.h"

namespace tessera {

void DeviceThread::serve() {
  std::unique_lock<std::mutex> lock(m_mutex);
  while (true) {
    m_wake.wait(lock, [&] { return static_cast<bool>(m_work) || m_closed; });
    if (m_work) {
      std::function<void()> work = std::move(m_work);
      m_work = nullptr;
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
  std::unique_lock<std::mutex> lock(m_mutex);
  return m_finished.wait_for(lock, limit,
                             [&] { return !busy() || m_done.load(std::memory_order_acquire); });
}

void DeviceThread::close() {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_closed = true;
  }
  m_wake.notify_one();
}

void DeviceThread::reopen() {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_closed = false;
}

}  // namespace tessera
