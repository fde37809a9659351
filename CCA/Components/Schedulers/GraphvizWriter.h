#pragma once
// Writes compiled graphs (one per rank) as GraphViz DOT: a cluster per rank,
// detailed tasks as nodes, local dependencies as solid edges and messages as
// dashed edges labelled with their size.

#include "CCA/Components/Schedulers/CompiledGraph.h"

#include <ostream>
#include <vector>

namespace tessera {

void writeGraphviz(std::ostream& out, const std::vector<CompiledGraph>& perRank);

}  // namespace tessera
