#pragma once
// After a failure part-way through an exchange, requests already posted must
// complete before their buffers go (MPI may still write into or read from
// them), and a collective must complete before the next one on the same
// communicator starts. Yet the peers that should match them may have failed
// too. So: cancel what can be cancelled, wait a bounded time for the rest,
// and if that is not enough, end the whole job with the failure's message
// rather than leave a hang or undefined behaviour behind.

#include "Core/Parallel/Communicator.h"

#include <string>
#include <vector>

namespace tessera {

// Seconds to wait for abandoned requests before aborting the job: first for
// everything to complete as it is (peers that failed alike clean up the same
// way and match each other's messages), then for cancelled receives.
inline constexpr double kAbandonedRequestSeconds = 5.0;
inline constexpr double kAbandonedMatchSeconds = 1.0;

// Waits up to `matchSeconds` for `receives`, `sends` and `collectives`
// (non-blocking collectives, which cannot be cancelled) to complete; then
// cancels what is left of the receives and sends and waits for the rest
// until `seconds` have passed. If they do not all complete, prints
// "rank R: <reason>" and why the job cannot go on, and calls MPI_Abort with
// exit code 2. On return every request is MPI_REQUEST_NULL.
void completeOrAbort(std::vector<MPI_Request>& receives, std::vector<MPI_Request>& sends,
                     std::vector<MPI_Request>& collectives, const Communicator& comm,
                     const std::string& reason, double matchSeconds = kAbandonedMatchSeconds,
                     double seconds = kAbandonedRequestSeconds);

}  // namespace tessera
