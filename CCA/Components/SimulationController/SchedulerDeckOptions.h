#pragma once
// The deck's `scheduler` section as SchedulerOptions, and the check of an
// explicit tile against the timestep graph's stencils.

#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Components/Schedulers/GraphScheduler.h"
#include "Core/ProblemSpec/ProblemSpec.h"

#include <optional>

namespace tessera {

SchedulerOptions schedulerOptions(const std::optional<ProblemSpec>& spec);

// An explicit scheduler.tile is checked where a kernel uses it, which ranks
// without patches never do. Every rank checks it here against the smallest
// footprint any stencil of the graph can have (one input with the widest
// ghost layer, one output), so that a tile too large for any kernel is a
// deck error on every rank before the run starts.
void checkExplicitTile(const std::optional<ProblemSpec>& spec, const TilingOptions& tiling,
                       const CompiledGraph& graph);

}  // namespace tessera
