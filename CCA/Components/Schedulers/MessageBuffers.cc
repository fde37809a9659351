#include "CCA/Components/Schedulers/MessageBuffers.h"

#include <algorithm>

namespace tessera {

MessageBuffers::~MessageBuffers() {
  reap();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  // What is left are sends whose receivers cancelled their receives (MPI
  // cannot cancel a send): no receive will match them, so MPI never reads
  // their buffers again (an eager send's data was copied when it was posted;
  // a rendezvous send's is read only once a receive matches).
  for (SetAside& entry : m_setAside) {
    for (MPI_Request& request : entry.requests)
      if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
  }
}

void MessageBuffers::prepare(const CompiledGraph& graph) {
  reap();
  // A block is received in a slot, and sent from its storage unless copied.
  const auto packedBytes = [](const Message& m, bool sent) {
    if (m.kind == Message::Kind::Cells) return m.bytes;
    return sent && m.block.copy ? m.bytes : std::size_t{0};
  };
  const auto sizes = [&](const std::vector<Message>& messages, bool sent) {
    std::vector<std::size_t> bytes;
    bytes.reserve(messages.size());
    for (const Message& m : messages)
      bytes.push_back(packedBytes(m, sent));
    return bytes;
  };
  receives.layout(sizes(graph.receives, false));
  sends.layout(sizes(graph.sends, true));
  staging.resize(graph.fills.size());
  laterStaging.resize(graph.fills.size());
  blockSlots.resize(graph.blockSlotBytes.size());
  for (std::size_t s = 0; s < graph.blockSlotBytes.size(); ++s)
    blockSlots[s].resize(graph.blockSlotBytes[s]);
  blockSums.resize(graph.blockSums.size());
  for (std::size_t s = 0; s < graph.blockSums.size(); ++s)
    blockSums[s].resize(static_cast<std::size_t>(graph.blockSums[s].extent.size()) *
                        graph.blockSums[s].label->elementBytes());
}

void MessageBuffers::setAside(std::vector<MPI_Request> requests,
                              std::vector<std::shared_ptr<const void>> keepAlive) {
  requests.erase(std::remove(requests.begin(), requests.end(), MPI_REQUEST_NULL), requests.end());
  if (requests.empty()) return;
  SetAside entry{std::move(requests), {}, {}, std::move(keepAlive)};
  for (HugePageArena* arena : {&receives, &sends}) {
    entry.arenas.push_back(std::move(*arena));
    *arena = HugePageArena();
  }
  for (auto* group : {&blockSlots, &blockSums}) {
    for (std::vector<std::byte>& buffer : *group)
      entry.buffers.push_back(std::move(buffer));
    group->clear();
  }
  m_setAside.push_back(std::move(entry));
}

std::size_t MessageBuffers::requestsSetAside() const {
  std::size_t count = 0;
  for (const SetAside& entry : m_setAside)
    count += entry.requests.size();
  return count;
}

void MessageBuffers::reap() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  m_setAside.erase(std::remove_if(m_setAside.begin(), m_setAside.end(),
                                  [](SetAside& entry) {
                                    int done = 0;
                                    MPI_Testall(static_cast<int>(entry.requests.size()),
                                                entry.requests.data(), &done,
                                                MPI_STATUSES_IGNORE);
                                    return done != 0;
                                  }),
                   m_setAside.end());
}

}  // namespace tessera
