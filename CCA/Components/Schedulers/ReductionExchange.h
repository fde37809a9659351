#pragma once
// The reductions of one execution of a graph: each is one non-blocking
// all-gather of every patch's contribution, combined in patch-id order so
// that the result is the same bits on any number of ranks.

#include "CCA/Components/Schedulers/CommTimer.h"
#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "Core/Parallel/Communicator.h"

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace tessera {

class ReductionExchange {
 public:
  ReductionExchange(const CompiledGraph& graph, OnDemandDataWarehouse& newDW,
                    const Communicator& comm, CommContext& context);
  ReductionExchange(const ReductionExchange&) = delete;
  ReductionExchange& operator=(const ReductionExchange&) = delete;
  ~ReductionExchange();

  // Posts the combination of a reduction whose contributors finished.
  // Reductions are collective: every rank posts them in graph order.
  void post(const DetailedTask& task);
  // Completes posted reductions that MPI has finished; returns their node ids.
  std::vector<int> progress();
  bool posted(int id) const;
  // True while a posted reduction has not completed.
  bool pending() const;
  // After a failure: completes the posted all-gathers (a collective cannot
  // be cancelled, and the next one on the communicator must not overtake
  // it), or aborts the job printing `reason`.
  void abandon(const std::string& reason);

 private:
  struct Pending {
    int node = -1;
    MPI_Request request = MPI_REQUEST_NULL;
    std::vector<std::byte> local;
    std::vector<std::byte> all;
    std::vector<int> counts;
    std::vector<int> displacements;
  };
  void combine(Pending& pending);

  const CompiledGraph& m_graph;
  OnDemandDataWarehouse& m_newDW;
  const Communicator& m_comm;
  CommContext& m_context;
  std::vector<Pending> m_pending;
};

}  // namespace tessera
