#pragma once
// What a run ends on, the same on every rank: the digests of the state
// (per level, and of block variables) and the reduction variables' values.

#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Components/SimulationController/SimulationController.h"
#include "CCA/Ports/Application.h"
#include "Core/Grid/Grid.h"

#include <vector>

namespace tessera {

class Communicator;

// Sums the digests of every local patch's interior over all ranks: per
// level, level l >= 1 named "<label>@level<l>". Collective.
std::vector<FieldDigest> digestFields(const Application& app, const Grid& grid,
                                      const OnDemandDataWarehouse& dw,
                                      const std::vector<int>& patchRanks, const Communicator& comm);

// The reduction variables the last timestep computed (every rank holds the
// same reduced value), in name order.
std::vector<ReducedValue> reducedValues(std::vector<const VarLabel*> labels,
                                        const OnDemandDataWarehouse& dw);

}  // namespace tessera
