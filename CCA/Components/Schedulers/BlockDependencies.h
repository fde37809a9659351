#pragma once
// Compiling the block variables of a graph for one rank: which local index
// task reads which block (held here, or brought from its owner), which
// blocks this rank sends and to whom, the write-after-read order of reused
// receive buffers, and the array sums its tasks read. See docs/runtime.md.
//
// Unlike ghost cells, whose exchange partners are found among a patch's
// neighbours, any index may read any block: every rank walks every index of
// the graph's index tasks (the cost follows the global number of indices
// and block parts, small for the components that use them: a GEMM's
// processor grid times its rounds).

#include "CCA/Components/Schedulers/CompiledGraph.h"

#include <map>
#include <utility>
#include <vector>

namespace tessera {

// `graph` holds its tasks, spaces, layouts and the local detailed tasks;
// `chains` are the writer chains (task positions) per label; `indexNodes`
// maps (task position, index) to the local detailed task. Adds the block
// messages, sums and dependencies, and throws an Error naming the task, the
// variable and the block for a block nobody computes or holds.
void linkBlockTasks(CompiledGraph& graph, const std::map<const VarLabel*, std::vector<int>>& chains,
                    const std::map<std::pair<int, int>, int>& indexNodes);

}  // namespace tessera
