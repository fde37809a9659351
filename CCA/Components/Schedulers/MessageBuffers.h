#pragma once
// Message buffers that outlive one execution of a graph: the next execution
// finds them sized, so a timestep neither allocates nor zero-fills them.

#include "CCA/Components/Schedulers/CompiledGraph.h"

#include <cstddef>
#include <vector>

namespace tessera {

struct MessageBuffers {
  std::vector<std::vector<std::byte>> receives;
  std::vector<std::vector<std::byte>> sends;

  // Sizes the buffers for `graph`, keeping those already of the right size.
  void prepare(const CompiledGraph& graph);
};

}  // namespace tessera
