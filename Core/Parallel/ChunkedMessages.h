#pragma once
// Point-to-point messages of any size. MPI counts are ints, so a message of
// 2 GiB or more cannot go in one call: it is cut into chunks of at most
// `chunkBytes`, sent and received in order with the same peer and tag (MPI
// does not let messages with the same source, tag and communicator overtake
// each other, so chunk i lands in chunk i's place).

#include <mpi.h>

#include <cstddef>

namespace tessera {

inline constexpr std::size_t kMaxMessageChunkBytes = std::size_t{1} << 30;

// The chunks a message of `bytes` takes (one for an empty message).
std::size_t chunkCount(std::size_t bytes, std::size_t chunkBytes);

// Post chunkCount(bytes, chunkBytes) requests into requests[0 ..).
void postChunkedReceive(void* data, std::size_t bytes, std::size_t chunkBytes, int peer, int tag,
                        MPI_Comm comm, MPI_Request* requests);
void postChunkedSend(const void* data, std::size_t bytes, std::size_t chunkBytes, int peer,
                     int tag, MPI_Comm comm, MPI_Request* requests);

}  // namespace tessera
