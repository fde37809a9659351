#pragma once
// What the hand-written reference programs (burgers-reference,
// heat-reference, stream-triad) share, and nothing of the framework: their
// option parsing, first-touch arrays, and the time stepping rules of the
// deck's `time` section that they copy.

#include "Core/Util/HugePages.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

namespace tessera::reference {

// `--name value` pairs, each handled by its entry in `handlers`; an unknown
// option or a missing value ends the program with a message naming it.
inline void parseOptions(int argc, char** argv, const char* program,
                         const std::map<std::string, std::function<void(const char*)>>& handlers) {
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    const auto handler = handlers.find(arg);
    if (handler == handlers.end()) {
      std::fprintf(stderr, "%s: unknown option %s\n", program, arg.c_str());
      std::exit(1);
    }
    if (a + 1 >= argc) {
      std::fprintf(stderr, "%s: %s needs a value\n", program, arg.c_str());
      std::exit(1);
    }
    handler->second(argv[++a]);
  }
}

// An array of doubles left uninitialised, so that the threads that sweep it
// touch its pages first (and, when asked, in huge pages).
//
// Its allocation is aligned to a huge page, and its first element starts
// `stagger` doubles into it. Two arrays swept side by side (u and its next
// value) should have different staggers: in huge pages their element i would
// otherwise share its cache sets in every cache (a 2 MiB page fixes all the
// index bits) and evict the other's (heat-reference at 256^3 in huge pages:
// 2.6e8 cell updates per second instead of 6.0e8 without them).
class FirstTouchArray {
 public:
  // 67 cache lines: a different set of L1's 64 and of every larger cache's.
  static constexpr std::size_t kStagger = 8 * 67;

  FirstTouchArray() = default;
  FirstTouchArray(std::size_t n, bool hugePages, std::size_t stagger = 0)
      : m_data(static_cast<double*>(std::aligned_alloc(kHugePageBytes, roundUp(n + stagger)))),
        m_stagger(stagger) {
    if (!m_data) {
      std::fprintf(stderr, "out of memory for %zu doubles\n", n);
      std::exit(1);
    }
    if (hugePages) adviseHugePages(m_data.get(), roundUp(n + stagger));
  }
  double* data() const { return m_data.get() + m_stagger; }
  double& operator[](std::size_t i) const { return data()[i]; }
  void swap(FirstTouchArray& other) noexcept {
    m_data.swap(other.m_data);
    std::swap(m_stagger, other.m_stagger);
  }

 private:
  static std::size_t roundUp(std::size_t n) {
    return (n * sizeof(double) + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  }
  struct Free {
    void operator()(double* p) const { std::free(p); }
  };
  std::unique_ptr<double, Free> m_data;
  std::size_t m_stagger = 0;
};

// As TimestepControl (no delt_min, delt_max or delt_init): the stable step
// times the multiplier, shortened to land exactly on maxTime.
inline double nextDelT(double stable, double multiplier, double time, double maxTime) {
  double delT = stable * multiplier;
  if (time + delT >= maxTime) delT = maxTime - time;
  return delT;
}

inline double advance(double time, double delT, double maxTime) {
  const double next = time + delT;
  return (next >= maxTime || delT >= maxTime - time) ? maxTime : next;
}

}  // namespace tessera::reference
