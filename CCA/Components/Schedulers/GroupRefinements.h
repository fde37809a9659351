#pragma once
// Which coarse-fine ghost fills a group task's refinement can make per
// patch group (CompiledGraph's GroupRefinement).

#include "CCA/Components/Schedulers/CompiledGraph.h"

namespace tessera {

// For each task run per patch group, the fills of its patches' coarse-fine
// ghost cells that read their coarse cells where they lie, one
// GroupRefinement per variable of two or more such fills. Call after the
// messages are planned (a fill with coarse cells by message is left to
// itself).
void planGroupRefinements(CompiledGraph& graph);

}  // namespace tessera
