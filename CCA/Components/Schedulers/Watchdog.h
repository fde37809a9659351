#pragma once
// Turns a hang into a diagnosis: when a scheduler makes no progress (no task
// finishes, no message arrives) for too long, it reports what each waiting
// task waits for and fails instead of hanging the allocation.

#include "Core/Util/Error.h"
#include "Core/Util/Timer.h"

#include <cstdint>

namespace tessera {

class WatchdogError : public Error {
 public:
  using Error::Error;
};

// Progress is reported after every task and message, so reporting it only
// counts (a clock read costs 20-50 ns here, a task's whole overhead about
// 1.5 us); the clock is read when a waiter asks whether the limit passed,
// and the silence is timed from the first such question after the last
// progress.
class Watchdog {
 public:
  explicit Watchdog(double limitSeconds) : m_limit(limitSeconds) {}
  void progressed() { ++m_progress; }
  bool expired() {
    if (m_limit <= 0.0) return false;
    if (m_progress != m_progressSeen) {
      m_progressSeen = m_progress;
      m_silence.reset();
      return false;
    }
    return m_silence.seconds() > m_limit;
  }
  double limitSeconds() const { return m_limit; }

 private:
  double m_limit;
  std::uint64_t m_progress = 0;
  std::uint64_t m_progressSeen = 0;
  Timer m_silence;  // since the first question after the last progress
};

class ExecutionState;

// The report a watchdog gives when it fires: every unfinished task of this
// rank and what it is waiting for.
[[noreturn]] void watchdogFail(const ExecutionState& state, double limitSeconds, int rank);

}  // namespace tessera
