#pragma once
// After a failure part-way through an execution, a non-blocking collective
// this rank posted (a reduction's all-gather) must complete before the next
// collective on the same communicator starts: collectives match by order,
// and a gather one rank posted while another never will would pair with the
// next execution's. It cannot be cancelled. So: wait a bounded time for the
// other ranks to post theirs, and if they do not, end the whole job with
// the failure's message rather than let the ranks' collectives go out of
// step. (Point-to-point messages need no such care: each execution has its
// own tags; see MessageBuffers::setAside.)

#include "Core/Parallel/Communicator.h"

#include <string>
#include <vector>

namespace tessera {

inline constexpr double kAbandonedCollectiveSeconds = 10.0;

// Waits up to `seconds` for `collectives` to complete. If they do not, prints
// "rank R: <reason>" and why the job cannot go on, and calls MPI_Abort with
// exit code 2. On return every request is MPI_REQUEST_NULL.
void completeOrAbort(std::vector<MPI_Request>& collectives, const Communicator& comm,
                     const std::string& reason, double seconds = kAbandonedCollectiveSeconds);

}  // namespace tessera
