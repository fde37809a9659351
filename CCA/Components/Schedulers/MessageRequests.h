#pragma once
// MessageExchange's MPI requests: each message's chunks (ChunkedMessages.h) as a range of one flat request
// vector, testing a message's chunks at once, and, after a failure,
// cancelling what no message matched and collecting what is still in flight.

#include "Core/Parallel/ChunkedMessages.h"
#include "Core/Parallel/Communicator.h"

#include <mpi.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace tessera {

// first[m] .. first[m + 1]: the requests of message m (anything with `bytes`).
template <class Messages>
std::vector<std::size_t> chunkOffsets(const Messages& messages, std::size_t chunkBytes) {
  std::vector<std::size_t> first(messages.size() + 1, 0);
  for (std::size_t m = 0; m < messages.size(); ++m)
    first[m + 1] = first[m] + chunkCount(messages[m].bytes, chunkBytes);
  return first;
}

// True when every request of [first, last) has completed (one test call).
inline bool allArrived(std::vector<MPI_Request>& requests, std::size_t first, std::size_t last) {
  int done = 0;
  TESSERA_MPI_CHECK(
      MPI_Testall(static_cast<int>(last - first), &requests[first], &done, MPI_STATUSES_IGNORE));
  return done != 0;
}

// Cancels the receives no message matched yet, then takes every request
// still in flight out of both vectors (a matched receive whose data is
// landing, a send its receiver gave up on): their buffers must outlive them.
inline std::vector<MPI_Request> cancelAndCollect(std::vector<MPI_Request>& receives,
                                                 std::vector<MPI_Request>& sends) {
  for (MPI_Request& request : receives) {
    if (request == MPI_REQUEST_NULL) continue;
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done) MPI_Cancel(&request);
  }
  std::vector<MPI_Request> inFlight;
  for (std::vector<MPI_Request>* requests : {&receives, &sends}) {
    for (MPI_Request& request : *requests) {
      int done = 0;
      if (request != MPI_REQUEST_NULL) MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (request != MPI_REQUEST_NULL) inFlight.push_back(std::exchange(request, MPI_REQUEST_NULL));
    }
  }
  return inFlight;
}

}  // namespace tessera
