#pragma once
// Waiting for another thread of the scheduler without a trip through the
// kernel: a condition variable's wake-up costs about 5 us on this machine
// (more when the waker must first be scheduled), against tasks and whole
// timesteps of tens of microseconds. So a waiter first spins for a short
// while, yielding its core between looks (on a shared core the yield hands
// it to the thread being waited for), and only then sleeps.

#include <algorithm>
#include <chrono>
#include <thread>

namespace tessera {

// How long a waiter spins before it sleeps.
inline constexpr std::chrono::microseconds kSpinBeforeSleep{50};

// Spins until `ready()` or kSpinBeforeSleep has passed (or `limit`, if
// shorter), yielding between looks; true if ready.
template <class Ready>
bool spinUntil(const Ready& ready, std::chrono::microseconds limit = kSpinBeforeSleep) {
  const auto deadline = std::chrono::steady_clock::now() + std::min(limit, kSpinBeforeSleep);
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace tessera
