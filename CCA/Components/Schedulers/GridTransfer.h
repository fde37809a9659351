#pragma once
// Moves the cell variables of a run from one grid to another: after a
// regrid (the levels' regions changed), or after a rebalance (the patches
// changed ranks). Where the old grid's level held a cell, the cell is
// copied; elsewhere on a finer level it is refined from the new grid's
// level below (the label's operator, as its coarse-fine ghost cells are),
// level after level. Every cell that changes rank travels in a Message
// through MessageExchange, the mechanism of the timestep graph (one message
// per peer and phase), never through files. See docs/amr.md, "Regridding".

#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Components/Schedulers/SchedulerStats.h"
#include "Core/Grid/Grid.h"

#include <cstdint>
#include <vector>

namespace tessera {

class Communicator;
class TraceTrack;

// One side of a transfer: a grid, which rank holds each of its patches
// (indexed by patch id), and the warehouse holding this rank's variables;
// on the side transferred to, whether they are allocated per patch group
// (formPatchGroups, as scheduler.patch_groups asks the graph) or per patch.
struct GridSide {
  const Grid& grid;
  const std::vector<int>& patchRanks;
  OnDemandDataWarehouse& dw;
  bool patchGroups = true;
};

struct GridTransferCounts {
  std::int64_t copiedCells = 0;   // cells (of every label) copied from the old grid
  std::int64_t refinedCells = 0;  // cells refined from the level below
  std::int64_t messages = 0;      // sent by this rank
  std::int64_t bytesSent = 0;
};

// Fills `to.dw` with `labels` (cell variables) on the patches `to`'s rank
// holds: each patch's extended box (interior and extra cells), allocated
// with the ghost layers `to.dw` asks for, a group's patches windows on one
// allocation (`to.patchGroups`). Level 0 must be the same in both
// grids. Every rank calls it (point-to-point messages on `comm`, which
// nothing else may use meanwhile); the same cells on any rank count.
// Throws, on every rank alike, when a finer level of `to` is not nested
// deeply enough in its level below for the refinement's stencil.
GridTransferCounts transferGrid(const GridSide& from, const GridSide& to,
                                const std::vector<const VarLabel*>& labels,
                                const Communicator& comm, SchedulerStats& stats,
                                TraceTrack* trace = nullptr);

}  // namespace tessera
