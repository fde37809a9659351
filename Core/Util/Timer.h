#pragma once
// Wall-clock timing on a monotonic clock.

#include <chrono>

namespace tessera {

class Timer {
 public:
  using Clock = std::chrono::steady_clock;

  Timer() : m_start(Clock::now()) {}
  void reset() { m_start = Clock::now(); }
  double seconds() const { return std::chrono::duration<double>(Clock::now() - m_start).count(); }

 private:
  Clock::time_point m_start;
};

// Adds the lifetime of the scope to an accumulator (for per-phase statistics).
class ScopedTimer {
 public:
  explicit ScopedTimer(double& accumulator) : m_accumulator(accumulator) {}
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;
  ~ScopedTimer() { m_accumulator += m_timer.seconds(); }

 private:
  double& m_accumulator;
  Timer m_timer;
};

}  // namespace tessera
