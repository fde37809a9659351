#pragma once
// Byte buffers of given sizes carved from one allocation, in 2 MiB pages
// where the kernel grants them (HugePages.h).
//
// For MPI's message buffers: Open MPI moves a large message between ranks of
// one node by a single copy the receiver makes from the sender's memory
// (CMA, process_vm_readv), which pins and walks both processes' pages. For
// 512 KiB in 4 KiB pages that copy took 109-123 us here, in huge pages
// 50-53 us (docs/benchmarks.md); a timestep pays it on the critical path of
// the rank that receives late. One allocation rather than one per buffer,
// so that the rounding to whole huge pages is paid once.

#include "Core/Util/HugePages.h"

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

namespace tessera {

class HugePageArena {
 public:
  HugePageArena() = default;

  // Buffers of `sizes` bytes, each starting on a cache line. Allocates only
  // when they need more than the storage it has (a scheduler alternating
  // between graphs must not fault in new pages each time); the same sizes
  // as before find their data where it was.
  void layout(const std::vector<std::size_t>& sizes) {
    if (sizes == m_sizes) return;  // the same graph again: nothing moves
    m_sizes = sizes;
    m_offsets.assign(sizes.size(), 0);
    std::size_t total = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      m_offsets[i] = total;
      total += roundUp(sizes[i], kLine);
    }
    if (total <= m_capacity) return;
    // Below a quarter of a huge page the rounding would cost more than the
    // pages save.
    const std::size_t alignment = total >= kHugePageBytes / 4 ? kHugePageBytes : kLine;
    const std::size_t bytes = roundUp(total, alignment);
    m_storage.reset();  // freed before the larger allocation, not after
    m_capacity = 0;
    m_storage.reset(static_cast<std::byte*>(std::aligned_alloc(alignment, bytes)));
    if (!m_storage) throw std::bad_alloc();
    m_capacity = bytes;
    if (alignment == kHugePageBytes) adviseHugePages(m_storage.get(), bytes);
  }

  std::size_t size() const { return m_sizes.size(); }
  std::size_t bytes(std::size_t i) const { return m_sizes[i]; }
  // Null for a buffer of no bytes.
  std::byte* data(std::size_t i) const {
    return m_sizes[i] == 0 ? nullptr : m_storage.get() + m_offsets[i];
  }

 private:
  static constexpr std::size_t kLine = 64;
  static constexpr std::size_t roundUp(std::size_t bytes, std::size_t multiple) {
    return (bytes + multiple - 1) / multiple * multiple;
  }
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::vector<std::size_t> m_sizes;
  std::vector<std::size_t> m_offsets;
  std::unique_ptr<std::byte, Free> m_storage;
  std::size_t m_capacity = 0;
};

}  // namespace tessera
