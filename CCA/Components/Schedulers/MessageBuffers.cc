#include "CCA/Components/Schedulers/MessageBuffers.h"

namespace tessera {

void MessageBuffers::prepare(const CompiledGraph& graph) {
  receives.resize(graph.receives.size());
  for (std::size_t r = 0; r < graph.receives.size(); ++r)
    receives[r].resize(graph.receives[r].bytes);
  sends.resize(graph.sends.size());
  for (std::size_t s = 0; s < graph.sends.size(); ++s)
    sends[s].resize(graph.sends[s].bytes);
}

}  // namespace tessera
