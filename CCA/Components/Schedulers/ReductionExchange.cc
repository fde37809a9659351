#include "CCA/Components/Schedulers/ReductionExchange.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <utility>

#include "Core/Parallel/AbandonRequests.h"

namespace tessera {

ReductionExchange::ReductionExchange(const CompiledGraph& graph, OnDemandDataWarehouse& newDW,
                                     const Communicator& comm, CommContext& context)
    : m_graph(graph), m_newDW(newDW), m_comm(comm), m_context(context) {
  // Posted requests point into the records: they must never move.
  m_pending.reserve(graph.detailedTasks.size());
}

void ReductionExchange::post(const DetailedTask& task) {
  const CommTimer timer(m_context);
  const TraceScope traced(m_context.trace, "post reduction", "reduction", task.id);
  const VarLabel* label = task.reduction;
  const ReductionOps& ops = label->reductionOps();
  const std::size_t record = sizeof(std::int64_t) + ops.bytes;
  Pending pending;
  pending.node = task.id;
  const std::size_t mine = m_newDW.appendReductionRecords(label, pending.local);
  // Every rank knows from the graph how many patches contribute on each rank,
  // so one non-blocking gather suffices.
  pending.counts.assign(static_cast<std::size_t>(m_comm.size()), 0);
  for (std::size_t r = 0; r < task.contributionsPerRank.size() && r < pending.counts.size(); ++r)
    pending.counts[r] = task.contributionsPerRank[r] * static_cast<int>(record);
  TESSERA_REQUIRE_THROWS(pending.counts[static_cast<std::size_t>(m_comm.rank())] ==
                             static_cast<int>(pending.local.size()),
                         "reduction '" << label->name() << "' has " << mine
                                       << " contributions on this rank; the graph expects "
                                       << pending.counts[static_cast<std::size_t>(m_comm.rank())] /
                                              static_cast<int>(record));
  pending.displacements.assign(pending.counts.size(), 0);
  std::partial_sum(pending.counts.begin(), pending.counts.end() - 1,
                   pending.displacements.begin() + 1);
  pending.all.resize(
      static_cast<std::size_t>(pending.displacements.back() + pending.counts.back()));
  m_pending.push_back(std::move(pending));
  Pending& posted = m_pending.back();
  TESSERA_MPI_CHECK(MPI_Iallgatherv(
      posted.local.data(), static_cast<int>(posted.local.size()), MPI_BYTE, posted.all.data(),
      posted.counts.data(), posted.displacements.data(), MPI_BYTE, m_comm.get(), &posted.request));
}

ReductionExchange::~ReductionExchange() {
  if (pending()) abandon("graph '" + m_graph.name + "' ended before its reductions completed");
}

void ReductionExchange::abandon(const std::string& reason) {
  std::vector<MPI_Request> gathers;
  for (Pending& p : m_pending) {
    if (p.request != MPI_REQUEST_NULL) gathers.push_back(std::exchange(p.request, MPI_REQUEST_NULL));
  }
  if (!gathers.empty())
    completeOrAbort(gathers, m_comm, reason);
}

bool ReductionExchange::posted(int id) const {
  return std::any_of(m_pending.begin(), m_pending.end(),
                     [&](const Pending& pending) { return pending.node == id; });
}

bool ReductionExchange::pending() const {
  return std::any_of(m_pending.begin(), m_pending.end(),
                     [](const Pending& p) { return p.request != MPI_REQUEST_NULL; });
}

std::vector<int> ReductionExchange::progress() {
  std::vector<int> completed;
  if (!pending()) return completed;  // the common case: no clock read, no allocation
  const CommTimer timer(m_context);
  for (Pending& pending : m_pending) {
    if (pending.request == MPI_REQUEST_NULL) continue;
    int done = 0;
    TESSERA_MPI_CHECK(MPI_Test(&pending.request, &done, MPI_STATUS_IGNORE));
    if (!done) continue;
    combine(pending);
    completed.push_back(pending.node);
  }
  return completed;
}

// Combines every patch's contribution in patch-id order, so the result is the
// same bits for any number of ranks.
void ReductionExchange::combine(Pending& pending) {
  const ScopedTimer timer(m_context.stats.reduceSeconds);
  const TraceScope traced(m_context.trace, "combine reduction", "reduction", pending.node);
  const VarLabel* label = m_graph.detailedTasks[static_cast<std::size_t>(pending.node)].reduction;
  const ReductionOps& ops = label->reductionOps();
  const std::size_t record = sizeof(std::int64_t) + ops.bytes;
  std::vector<std::pair<std::int64_t, const std::byte*>> byPatch;
  byPatch.reserve(pending.all.size() / record);
  for (std::size_t offset = 0; offset < pending.all.size(); offset += record) {
    std::int64_t id = 0;
    std::memcpy(&id, pending.all.data() + offset, sizeof(id));
    byPatch.emplace_back(id, pending.all.data() + offset + sizeof(id));
  }
  // Each rank's records arrive in id order; sorting the whole makes the order
  // the level's, whatever the distribution.
  std::sort(byPatch.begin(), byPatch.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::byte> accumulator(ops.bytes);
  ops.identity(accumulator.data());
  for (const auto& [id, value] : byPatch)
    ops.combine(accumulator.data(), value);
  std::vector<std::byte> result(label->elementBytes());
  ops.finish(accumulator.data(), result.data());
  m_newDW.setReducedValue(label, result.data());
  ++m_context.stats.reductions;
}

}  // namespace tessera
