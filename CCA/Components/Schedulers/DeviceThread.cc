#include "CCA/Components/Schedulers/DeviceThread.h"

#include "CCA/Components/Schedulers/SpinWait.h"

#include "Core/Util/Error.h"
#include "Core/Util/Timer.h"

namespace tessera {

void DeviceThread::serve() {
  std::unique_lock<std::mutex> lock(m_mutex);
  while (true) {
    if (m_queue.empty() && !m_closed) {
      lock.unlock();
      spinUntil([&] { return m_workOrClose.load(std::memory_order_acquire); });
      lock.lock();
      m_wake.wait(lock, [&] { return !m_queue.empty() || m_closed; });
    }
    if (m_queue.empty()) return;  // closed and nothing left to run
    const int id = m_queue.front();
    m_queue.pop_front();
    if (m_queue.empty() && !m_closed) m_workOrClose.store(false, std::memory_order_relaxed);
    const std::function<void(int)>& runner = m_runner;
    lock.unlock();
    const Timer timer;
    std::exception_ptr failure;
    try {
      runner(id);
    } catch (...) {
      failure = std::current_exception();
    }
    m_busyNanoseconds.fetch_add(static_cast<std::int64_t>(timer.seconds() * 1e9),
                                std::memory_order_relaxed);
    m_tasksRun.fetch_add(1, std::memory_order_relaxed);
    lock.lock();
    if (failure) {
      // The tasks behind a failed one never run: the control thread
      // rethrows at its next poll and abandons the graph. Tasks submitted
      // before that poll can fail too: each is counted (or drain() would
      // wait for it forever), the first one's exception is the one rethrown.
      if (!m_failure) m_failure = failure;
      ++m_failedUncollected;
      m_inFlight.fetch_sub(static_cast<int>(m_queue.size()), std::memory_order_acq_rel);
      m_queue.clear();
      if (!m_closed) m_workOrClose.store(false, std::memory_order_relaxed);
    } else {
      m_finished.push_back(id);
    }
    m_anyFinished.store(true, std::memory_order_release);
    m_finishedCv.notify_all();
  }
}

void DeviceThread::setRunner(std::function<void(int)> runner) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  TESSERA_REQUIRE_THROWS(inFlight() == 0, "the device's runner changed with tasks in flight");
  m_runner = std::move(runner);
}

void DeviceThread::submit(int id) {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    TESSERA_REQUIRE_THROWS(!m_closed, "the device has been closed");
    TESSERA_REQUIRE_THROWS(static_cast<bool>(m_runner), "no runner set for the device");
    m_queue.push_back(id);
    m_inFlight.fetch_add(1, std::memory_order_acq_rel);
    m_workOrClose.store(true, std::memory_order_release);
  }
  m_wake.notify_one();
}

bool DeviceThread::poll(std::vector<int>& finished) {
  if (!m_anyFinished.load(std::memory_order_acquire)) return false;
  std::exception_ptr failure;
  std::size_t collected = 0;
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    collected = m_finished.size();
    finished.insert(finished.end(), m_finished.begin(), m_finished.end());
    m_finished.clear();
    m_inFlight.fetch_sub(static_cast<int>(collected), std::memory_order_acq_rel);
    std::swap(failure, m_failure);
    if (m_failedUncollected > 0) {
      m_inFlight.fetch_sub(m_failedUncollected, std::memory_order_acq_rel);
      m_failedUncollected = 0;
    }
    m_anyFinished.store(false, std::memory_order_relaxed);
  }
  if (failure) std::rethrow_exception(failure);
  return collected > 0;
}

bool DeviceThread::waitFor(std::chrono::microseconds limit) {
  const auto finished = [&] { return !busy() || m_anyFinished.load(std::memory_order_acquire); };
  if (spinUntil(finished, limit)) return true;
  std::unique_lock<std::mutex> lock(m_mutex);
  return m_finishedCv.wait_for(lock, limit, finished);
}

void DeviceThread::drain() {
  std::unique_lock<std::mutex> lock(m_mutex);
  m_inFlight.fetch_sub(static_cast<int>(m_queue.size()), std::memory_order_acq_rel);
  m_queue.clear();
  if (!m_closed) m_workOrClose.store(false, std::memory_order_relaxed);
  const auto settled = [&] {
    return inFlight() == static_cast<int>(m_finished.size()) + m_failedUncollected;
  };
  m_finishedCv.wait(lock, settled);
  m_inFlight.store(0, std::memory_order_release);
  m_finished.clear();
  m_failure = nullptr;
  m_failedUncollected = 0;
  m_anyFinished.store(false, std::memory_order_relaxed);
}

void DeviceThread::close() {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_closed = true;
    m_workOrClose.store(true, std::memory_order_release);
  }
  m_wake.notify_one();
}

void DeviceThread::reopen() {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_closed = false;
  m_workOrClose.store(!m_queue.empty(), std::memory_order_release);
}

}  // namespace tessera
