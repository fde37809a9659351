#pragma once
// Message buffers that outlive one execution of a graph: the next execution
// finds them sized, so a timestep neither allocates nor zero-fills them.
//
// They also keep what a failed execution left in flight. Its receives are
// cancelled where no message matched them yet, but a send whose receiver
// gave up never completes (MPI cannot cancel a send), and a matched receive
// completes only when its data has landed: such requests and the buffers MPI
// may still read or write are set aside here (each execution has its own MPI
// tags, so they match nothing later) and freed once MPI is done with them;
// at the end, sends no receive will ever match are freed with their buffers.

#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "Core/Grid/Variables/GridVariableBase.h"
#include "Core/Util/HugePageArena.h"

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace tessera {

struct MessageBuffers {
  // Per message: a send's packed data (ghost cells, a copied block; empty
  // for a block sent from its storage), a receive's landing place (ghost
  // cells; empty for a block, which lands in a slot). In huge pages, which
  // halve the time of a large message's copy between ranks (HugePageArena.h).
  HugePageArena receives;
  HugePageArena sends;
  // Block variables: receive buffers reused across messages (slots), and
  // array sums. Not in huge pages: the GEMM ran 19-24 % slower with its
  // slots in huge pages (4096^3 on two ranks, its multiply's kernels, not
  // its messages: docs/benchmarks.md), likely physically contiguous rows a
  // power of two apart meeting in the same cache sets.
  std::vector<std::vector<std::byte>> blockSlots;
  std::vector<std::vector<std::byte>> blockSums;
  // Per ghost fill of a finer patch: the coarse cells its coarse-fine ghost
  // cells are refined from (GhostFill::staging), kept while the box stays.
  std::vector<std::unique_ptr<GridVariableBase>> staging;
  // ... and those of the later time, for fills that interpolate in time.
  std::vector<std::unique_ptr<GridVariableBase>> laterStaging;

  MessageBuffers() = default;
  MessageBuffers(const MessageBuffers&) = delete;
  MessageBuffers& operator=(const MessageBuffers&) = delete;
  ~MessageBuffers();

  // Sizes the buffers for `graph`, keeping those already of the right size,
  // and frees what earlier failed executions left once it has completed.
  void prepare(const CompiledGraph& graph);

  // Takes over `requests` (still in flight) together with every current
  // buffer and `keepAlive` (block storage that sends read in place); the
  // next prepare() allocates new ones.
  void setAside(std::vector<MPI_Request> requests,
                std::vector<std::shared_ptr<const void>> keepAlive = {});
  std::size_t requestsSetAside() const;

 private:
  struct SetAside {
    std::vector<MPI_Request> requests;
    std::vector<HugePageArena> arenas;
    std::vector<std::vector<std::byte>> buffers;
    std::vector<std::shared_ptr<const void>> keepAlive;
  };
  void reap();
  std::vector<SetAside> m_setAside;
};

}  // namespace tessera
