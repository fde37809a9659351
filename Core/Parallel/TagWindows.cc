#include "Core/Parallel/TagWindows.h"

#include "Core/Util/Error.h"

namespace tessera {

TagWindows::TagWindows(int tagUpperBound) : m_upperBound(tagUpperBound) {
  TESSERA_REQUIRE_THROWS(tagUpperBound >= 0, "MPI_TAG_UB " << tagUpperBound << " is negative");
}

TagWindows TagWindows::of(const Communicator& comm) {
  int* upperBound = nullptr;
  int found = 0;
  TESSERA_MPI_CHECK(MPI_Comm_get_attr(comm.get(), MPI_TAG_UB, &upperBound, &found));
  return TagWindows(found && upperBound ? *upperBound : 32767);
}

int TagWindows::take(std::int64_t size, const std::string& what) {
  const std::int64_t tags = std::int64_t{m_upperBound} + 1;
  TESSERA_REQUIRE_THROWS(size >= 1 && size <= tags,
                         what << " needs " << size << " MPI tags per execution, but this MPI's "
                              << "MPI_TAG_UB is " << m_upperBound);
  if (m_next + size > tags) m_next = 0;
  const auto first = static_cast<int>(m_next);
  m_next += size;
  return first;
}

}  // namespace tessera
