#pragma once
// Turns a hang into a diagnosis: when a scheduler makes no progress (no task
// finishes, no message arrives) for too long, it reports what each waiting
// task waits for and fails instead of hanging the allocation.

#include "Core/Util/Error.h"
#include "Core/Util/Timer.h"

namespace tessera {

class WatchdogError : public Error {
 public:
  using Error::Error;
};

class Watchdog {
 public:
  explicit Watchdog(double limitSeconds) : m_limit(limitSeconds) {}
  void progressed() { m_sinceProgress.reset(); }
  bool expired() const { return m_limit > 0.0 && m_sinceProgress.seconds() > m_limit; }
  double limitSeconds() const { return m_limit; }

 private:
  double m_limit;
  Timer m_sinceProgress;
};

class ExecutionState;

// The report a watchdog gives when it fires: every unfinished task of this
// rank and what it is waiting for.
[[noreturn]] void watchdogFail(const ExecutionState& state, double limitSeconds, int rank);

}  // namespace tessera
