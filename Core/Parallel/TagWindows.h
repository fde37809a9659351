#pragma once
// MPI tags for the successive executions of task graphs on one
// communicator. Each execution takes a window of consecutive tags (its
// graph's phases, or its block messages) right after the previous one's,
// whatever graph that was, so the windows of executions near in time never
// overlap: a message an earlier (failed) execution left behind cannot match
// a later receive. The windows wrap to 0 only when the next would pass
// MPI_TAG_UB, after every tag in between has been used.

#include "Core/Parallel/Communicator.h"

#include <cstdint>
#include <string>

namespace tessera {

class TagWindows {
 public:
  // Tags 0 .. tagUpperBound (MPI_TAG_UB; the standard guarantees 32767).
  explicit TagWindows(int tagUpperBound);
  static TagWindows of(const Communicator& comm);

  // The first tag of the next window of `size` tags; throws an Error
  // naming `what` when `size` tags exceed the communicator's tags.
  int take(std::int64_t size, const std::string& what);
  int upperBound() const { return m_upperBound; }

 private:
  int m_upperBound;
  std::int64_t m_next = 0;
};

}  // namespace tessera
