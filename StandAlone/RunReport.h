#pragma once
// The end-of-run report sus prints: summary, analysis results and field digests.

#include "CCA/Components/SimulationController/SimulationController.h"

#include <ostream>

namespace tessera {

void printRunReport(std::ostream& out, const RunResult& result, int numRanks);

}  // namespace tessera
