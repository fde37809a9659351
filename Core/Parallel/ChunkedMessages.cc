#include "Core/Parallel/ChunkedMessages.h"

#include "Core/Parallel/Communicator.h"

#include <algorithm>
#include <climits>

namespace tessera {

namespace {

std::size_t usableChunk(std::size_t chunkBytes) {
  return std::clamp<std::size_t>(chunkBytes, 1, static_cast<std::size_t>(INT_MAX));
}

}  // namespace

std::size_t chunkCount(std::size_t bytes, std::size_t chunkBytes) {
  const std::size_t chunk = usableChunk(chunkBytes);
  return bytes == 0 ? 1 : (bytes + chunk - 1) / chunk;
}

void postChunkedReceive(void* data, std::size_t bytes, std::size_t chunkBytes, int peer, int tag,
                        MPI_Comm comm, MPI_Request* requests) {
  const std::size_t chunk = usableChunk(chunkBytes);
  auto* at = static_cast<std::byte*>(data);
  const std::size_t count = chunkCount(bytes, chunk);
  for (std::size_t c = 0; c < count; ++c) {
    const std::size_t offset = c * chunk;
    const int size = static_cast<int>(std::min(chunk, bytes - std::min(bytes, offset)));
    TESSERA_MPI_CHECK(MPI_Irecv(at + offset, size, MPI_BYTE, peer, tag, comm, &requests[c]));
  }
}

void postChunkedSend(const void* data, std::size_t bytes, std::size_t chunkBytes, int peer,
                     int tag, MPI_Comm comm, MPI_Request* requests) {
  const std::size_t chunk = usableChunk(chunkBytes);
  const auto* at = static_cast<const std::byte*>(data);
  const std::size_t count = chunkCount(bytes, chunk);
  for (std::size_t c = 0; c < count; ++c) {
    const std::size_t offset = c * chunk;
    const int size = static_cast<int>(std::min(chunk, bytes - std::min(bytes, offset)));
    TESSERA_MPI_CHECK(MPI_Isend(at + offset, size, MPI_BYTE, peer, tag, comm, &requests[c]));
  }
}

}  // namespace tessera
