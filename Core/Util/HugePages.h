#pragma once
// Large host allocations in 2 MiB pages where the kernel allows it.
//
// A sweep over a cell variable of tens of megabytes walks thousands of 4 KiB
// pages, and on Linux with transparent huge pages in "madvise" mode (the
// common default) only memory that asks for huge pages gets them. Stencil
// sweeps measured 10-20 % faster with them (docs/benchmarks.md). Advice, not
// a requirement: where it is refused or unsupported nothing changes, and the
// data and results are the same either way.

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tessera {

constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// The whole 2 MiB pages inside [begin, begin + bytes): [first, last), empty
// (first >= last) when there is none.
struct AddressRange {
  std::uintptr_t first = 0;
  std::uintptr_t last = 0;
};
constexpr AddressRange wholeHugePagesIn(std::uintptr_t begin, std::size_t bytes) {
  return {(begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1),
          (begin + bytes) & ~(kHugePageBytes - 1)};
}

// Asks for huge pages on the whole 2 MiB pages inside [data, data + bytes).
// Call before the memory is first touched: pages already faulted in stay small.
inline void adviseHugePages(void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const AddressRange range = wholeHugePagesIn(reinterpret_cast<std::uintptr_t>(data), bytes);
  if (range.last > range.first) {
    // The result is ignored on purpose: advice the kernel may decline.
    (void)madvise(reinterpret_cast<void*>(range.first), range.last - range.first, MADV_HUGEPAGE);
  }
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace tessera
