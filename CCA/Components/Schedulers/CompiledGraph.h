#pragma once
// The task graph of one rank after compilation: detailed tasks (one task on
// one patch, or one reduction), the ghost fills they need, and the batched
// messages to and from other ranks. Plain data; HostScheduler executes it.

#include "CCA/Ports/Task.h"
#include "CCA/Ports/TaskSpace.h"
#include "Core/Grid/BlockLayout.h"
#include "Core/Grid/Box.h"
#include "Core/Grid/PatchGroup.h"
#include "Core/Grid/VarLabel.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tessera {

class Grid;
class Patch;

// One box of one variable moving from a source patch to a destination
// patch's ghost cells (shifted by `offset` across periodic boundaries).
struct GhostPiece {
  const VarLabel* label = nullptr;
  Task::WhichDW dw = Task::OldDW;
  int sourcePatch = -1;
  int destPatch = -1;
  Box sourceBox;
  IntVector offset;
  std::size_t byteOffset = 0;  // where the piece sits in its message buffer
  // Coarse cells for a finer patch's coarse-fine ghosts: they land in the
  // fill's staging array (GhostFill::staging), not in the patch's variable.
  bool toStaging = false;
  // ... into the staging array of the later time (GhostFill::timeWeight).
  bool laterTime = false;
  // The variable whose fill the piece serves, when it is not `label` in
  // `dw`: coarse cells of another time for a subcycled level's ghosts.
  const VarLabel* fillLabel = nullptr;
  Task::WhichDW fillDW = Task::OldDW;
  // Fine cells averaged onto a coarse patch (CoarsenFill): `sourceBox` is in
  // the coarse cells, and the sender averages its fine cells into them.
  bool averaged = false;
  // The cells already travel in another piece of the message, whose box
  // (`packedExtent` cells) holds this one's: not packed again, and read
  // from inside that piece's place in the buffer (byteOffset is this box's
  // first cell there). A coarse-fine footprint inside a face that the
  // coarse level sends anyway is the case: shareContainedPieces.
  bool sharesData = false;
  IntVector packedExtent{};

  std::size_t bytes() const {
    return static_cast<std::size_t>(sourceBox.volume()) * label->elementBytes();
  }
  // The bytes the piece adds to its message.
  std::size_t packedBytes() const { return sharesData ? 0 : bytes(); }
  // The layout of its cells in the buffer: dense over its own box, or over
  // the box of the piece it shares.
  IntVector layoutExtent() const { return sharesData ? packedExtent : sourceBox.size(); }
};

// Lets the pieces of `pieces` whose cells another piece (of the same
// variable, warehouse and source patch, averaged pieces aside) carries
// share them, and lays the rest out one after the other: the byte offsets
// and the message's size. Sender and receiver list a message's pieces
// identically, so both come to the same layout.
std::size_t shareContainedPieces(std::vector<GhostPiece>& pieces);

// Filling the ghost cells of one variable on one local patch, once per execution.
struct GhostFill {
  const VarLabel* label = nullptr;
  Task::WhichDW dw = Task::OldDW;
  int patchId = -1;
  int numGhost = 0;
  Ghost::Type type = Ghost::AroundCells;
  std::vector<GhostPiece> localCopies;
  // Local copies from patches of the reading task's patch group. When the
  // group's patches are windows on one allocation (the usual case) these
  // cells are already in place, and the copies are skipped after one
  // lookup; the runtime makes them only when the variables are separate.
  std::vector<GhostPiece> groupCopies;
  int groupStorageKey = 0;  // PatchGroup::storageKey() of that group
  // (receive message index, piece index) pairs that land in this variable.
  std::vector<std::pair<int, int>> remotePieces;
  // OldDW fills only: how many eager copies (below) the previous execution
  // of this graph made of the local copies (all of them, or none; never of
  // the group copies).
  int eagerCopies = 0;

  // A patch of a finer level: its ghost cells that no patch of its level
  // holds (Level::coarseFineGhosts), refined from the level below with the
  // label's operator. The coarse cells `staging` covers are gathered into an
  // array of their own (coarseCopies from this rank's coarse patches,
  // coarseRemotePieces by message); what lies beyond the domain's walls
  // (outside `stagingHeld`) repeats the last held plane; then each box is
  // refined from it.
  std::vector<Box> coarseFineBoxes;
  Box staging;
  Box stagingHeld;
  IntVector ratio{1, 1, 1};
  RefineOp refine = RefineOp::LimitedLinear;
  std::vector<GhostPiece> coarseCopies;
  std::vector<std::pair<int, int>> coarseRemotePieces;
  // Subcycling (Task::CoarseTimeSource): the pieces marked laterTime are
  // gathered into a second staging array, and the first becomes
  // (1 - timeWeight) * first + timeWeight * second before the refinement.
  double timeWeight = 0.0;

  // Whether its coarse cells may be read where they lie, as far as the
  // graph can tell: of one time, inside the domain, none a periodic image
  // and none by message (GhostFills checks at run time that one allocation
  // holds them all).
  bool readsCoarseCellsInPlace() const {
    if (coarseFineBoxes.empty() || coarseCopies.empty() || timeWeight > 0.0 ||
        !coarseRemotePieces.empty() || staging != stagingHeld)
      return false;
    return std::all_of(coarseCopies.begin(), coarseCopies.end(), [](const GhostPiece& piece) {
      return piece.offset == IntVector{} && !piece.laterTime;
    });
  }
};

// The coarse-fine ghost cells of one variable on the patches of a group,
// refined in one pass (GhostFills::refineForGroup) instead of fill by fill:
// the patches' boxes merged (a face of the group one box, not one per
// patch) and each coarse patch looked up once instead of once per fill
// that reads it. For fills that each read their coarse cells where they
// lie (one time, inside the domain, no periodic image, none by message:
// GhostFills::coarseWhereItLies); at run time the fills' variables must be
// windows on the group's allocation and the coarse cells lie in one, or
// each fill refines its own.
struct GroupRefinement {
  const VarLabel* label = nullptr;
  Task::WhichDW dw = Task::OldDW;
  int groupStorageKey = 0;
  std::vector<int> fills;          // the fills whose coarse-fine cells it refines
  std::vector<Box> boxes;          // their coarseFineBoxes, merged
  Box coarseCells;                 // the bounding box of the fills' staging boxes
  IntVector ratio{1, 1, 1};
  RefineOp refine = RefineOp::LimitedLinear;
  std::vector<GhostPiece> sources;  // one coarse piece per coarse patch read
};

// The cells of one coarse patch's variable that the next finer level covers,
// averaged from it (Task::requiresVar(dw, label, FinerLevel)) once per
// execution: from this rank's fine patches here, the others' by message
// (averaged at the sender: r^3 times fewer bytes than the fine cells).
struct CoarsenFill {
  const VarLabel* label = nullptr;
  Task::WhichDW dw = Task::NewDW;
  int patchId = -1;
  IntVector ratio{1, 1, 1};
  std::vector<GhostPiece> localAverages;  // source: a fine patch; sourceBox: coarse cells
  // NewDW only: per local piece, the local task that leaves its fine cells' values.
  std::vector<int> localWriters;
  std::vector<std::pair<int, int>> remotePieces;
};

// Local pieces of a CoarsenFill that the task computing their fine cells
// may average itself, slab by slab as its stencil sweep writes them, while
// they are in cache (SweepAverager), instead of the reader of the coarse
// cells reading them back afterwards. Taken when every task the reader
// waits for but the fine cells' writers has finished as the writer
// starts: the coarse cells then hold the values the averages replace, and
// nothing reads them before the reader (planSweepAverages).
struct SweepAverage {
  int coarsenFill = -1;
  int writer = -1;             // the local task whose sweep writes the fine cells
  std::vector<int> pieces;     // indices into the fill's localAverages
  std::vector<int> waitFor;    // local tasks that must have finished as the writer starts
};

// A local ghost copy made one step ahead. A graph that computes a label the
// next step reads from OldDW with ghosts (the timestep graph, run again on
// the warehouse it fills) makes the next step's local copy as soon as the
// source and the destination patch have their final values in this NewDW,
// while both are still in cache (for x neighbours, the tasks just before),
// rather than at the start of the next step, when at least one side has gone
// cold. The warehouse remembers which fills are done, and the next execution
// skips their local copies.
struct EagerCopy {
  int fill = -1;               // the OldDW fill of the next step (index into fills)
  int piece = -1;              // which of its local copies
  std::vector<int> producers;  // local detailed tasks that leave the final values
};

// What a block message carries: a block, or rows of one, from the rank
// that holds it to a rank whose tasks read it (one message per part,
// version and destination rank, whatever the number of readers there).
// See BlockDependencies.h.
struct BlockTransfer {
  const VarLabel* label = nullptr;
  Task::WhichDW dw = Task::OldDW;
  BlockRef part;       // resolved (rowEnd set)
  BlockExtent extent;  // of the part, in the global array
  int writer = -1;     // the task (graph order) whose version travels; -1: OldDW
  int sequence = 0;    // its number among the block messages between the two ranks
  // Sends: from the block's storage without packing, unless a later task of
  // the graph modifies the block on this rank while the send may be in
  // flight (copy).
  bool copy = false;
  // Receives: the buffer it lands in (a slot of the label's receive buffers).
  int slot = -1;
};

// One message between this rank and another in one execution of a graph.
// Every movement of data between ranks is one: the ghost cells of a
// dependency phase packed together (Cells), or a block part (Block). All are
// posted, polled, traced and described by one MessageExchange, tagged in one
// window per execution: Cells by phase (0 .. tasks), Block after them.
struct Message {
  enum class Kind { Cells, Block };
  Kind kind = Kind::Cells;
  int peer = -1;
  int tag = 0;  // within its execution's window (CompiledGraph::tagsPerExecution)
  std::size_t bytes = 0;
  // Sends: local detailed tasks that must finish before it is packed or posted.
  std::vector<int> producers;
  // Receives: the local detailed tasks that read what it brings, and those
  // that must finish before it may be posted (the previous readers of its
  // reused buffer: write after read).
  std::vector<int> consumers;
  std::vector<int> gate;
  // Cells: the dependency phase (0: the old warehouse, ready when the step
  // starts; 1 + t: what task t, in graph order, leaves in the new one) and
  // the pieces, each at its byteOffset in the buffer.
  int phase = 0;
  std::vector<GhostPiece> pieces;
  // Block: what it carries.
  BlockTransfer block;
};

// The sum, in the listed order, of block parts that one local index task
// reads (Task::requiresBlockSum).
struct BlockSum {
  const VarLabel* label = nullptr;
  Task::WhichDW dw = Task::OldDW;
  int node = -1;
  int index = -1;
  BlockExtent extent;            // the first part's
  std::vector<BlockRef> parts;   // resolved
  std::vector<int> receives;     // per part: the receive that brings it, or -1 (held here)
};

struct DetailedTask {
  enum class Kind { PatchTask, Reduction, IndexTask };
  Kind kind = Kind::PatchTask;
  int id = -1;
  int taskIndex = -1;                     // index into CompiledGraph::tasks
  const Patch* patch = nullptr;           // PatchTask only (a group task: the group's leader)
  int group = -1;                         // a task run per patch group: index into groups
  int index = -1;                         // IndexTask only: the index in the task's space
  const VarLabel* reduction = nullptr;    // Reduction only
  std::vector<int> predecessors;          // local detailed tasks that must finish first
  std::vector<int> successors;            // the local detailed tasks that wait for this one
  std::vector<int> fills;                 // ghost fills to perform before running
  std::vector<int> sendsToRelease;        // sends (ghost cells or blocks) it helps produce
  std::vector<int> receivesRead;          // receives whose data it reads (ghost cells or blocks)
  std::vector<int> receiveGates;          // receives it holds back (see Message::gate)
  std::vector<int> eagerCopiesToRelease;  // eager copies this task helps produce
  std::vector<int> contributors;          // Reduction only: local tasks that contribute
  std::vector<int> contributionsPerRank;  // Reduction only: contributing patches on each rank
  std::vector<int> blockSums;             // block sums it reads
  std::vector<int> coarsenFills;          // averages from the finer level to make before running
  std::vector<int> groupRefinements;      // its fills' coarse-fine cells refined per group
  std::vector<int> sweepAverages;         // averages its sweep may make (SweepAverage)
  // Labels it computes in the storage of their old version (Task::computesVarInPlace).
  std::vector<const VarLabel*> reusedStorage;

  std::string describe(const std::vector<Task>& tasks) const;
};

struct CompiledGraph {
  std::string name;
  const Grid* grid = nullptr;
  int rank = 0;
  std::vector<Task> tasks;                  // in execution (topological) order
  std::vector<DetailedTask> detailedTasks;  // in execution order
  std::vector<PatchGroup> groups;           // this rank's patch groups (see PatchGroup.h)
  std::vector<GhostFill> fills;
  std::vector<CoarsenFill> coarsenFills;
  std::vector<GroupRefinement> groupRefinements;
  std::vector<SweepAverage> sweepAverages;
  std::vector<EagerCopy> eagerCopies;
  // Messages of every kind, to and from other ranks.
  std::vector<Message> sends;
  std::vector<Message> receives;
  // MPI tags one execution takes: tasks + 1 phases, then the most block
  // messages between any two ranks.
  int tagsPerExecution = 1;
  // Block variables (see BlockDependencies.h).
  std::vector<TaskSpace> spaces;  // per task: its index space (empty for patch tasks)
  std::shared_ptr<const std::map<const VarLabel*, BlockLayout>> blockLayouts;
  std::vector<BlockSum> blockSums;
  std::vector<std::size_t> blockSlotBytes;  // block receive buffer sizes
  // Per label: the most ghost layers any reader asks for (allocation hint).
  std::map<const VarLabel*, int> ghostLayers;
  // Labels the graph reads from the old warehouse (kept across the swap).
  std::set<const VarLabel*> oldDWReads;
  // Labels carried forward from the old warehouse in place, the rest of
  // those carried are copied (see Task::modifiesVar(WhichDW, label)); and
  // those computesVarInPlace may take the storage of (where
  // DetailedTask::reusedStorage says).
  std::set<const VarLabel*> carriedInPlace;
  double compileSeconds = 0.0;

  // The patches a patch task covers: its group's, or its one patch.
  std::vector<const Patch*> patchesOf(const DetailedTask& node) const;
  std::size_t bytesSent() const;      // messages of one execution
  std::size_t bytesReceived() const;
};

}  // namespace tessera
