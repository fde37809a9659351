#include "CCA/Components/Schedulers/SweepAverages.h"

#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"

#include <algorithm>
#include <map>
#include <utility>

namespace tessera {

namespace {

// The fine cells a slab hands over: slabs of 64 KiB (two planes of 64^2
// cells) measured faster than of 256 KiB, and whole sweeps followed by the
// averages slower still (Burgers on two levels, docs/benchmarks.md): the
// fewer planes written since, the more of them the averages find in cache.
constexpr std::int64_t kSlabBytes = 64 * 1024;

// Whether `task` modifies `label` in the new warehouse: then no task and
// no message sees the coarse cells between their last writer before it
// and it (TaskOrder), so the averages may land there early.
bool modifies(const Task& task, const VarLabel* label) {
  return std::any_of(
      task.dependencies().begin(), task.dependencies().end(), [&](const Task::Dependency& dep) {
        return dep.label == label && dep.dw == Task::NewDW && dep.access == Task::Access::Modifies;
      });
}

}  // namespace

void planSweepAverages(CompiledGraph& graph) {
  std::vector<std::vector<int>> readers(graph.coarsenFills.size());
  for (const DetailedTask& node : graph.detailedTasks)
    for (int c : node.coarsenFills)
      readers[static_cast<std::size_t>(c)].push_back(node.id);
  for (std::size_t c = 0; c < graph.coarsenFills.size(); ++c) {
    const CoarsenFill& fill = graph.coarsenFills[c];
    if (fill.dw != Task::NewDW || fill.localAverages.empty() || readers[c].size() != 1 ||
        fill.localWriters.size() != fill.localAverages.size() ||
        fill.label->levelTransfer().coarsen != CoarsenOp::Average)
      continue;
    std::map<int, std::vector<int>> piecesOf;  // by writer
    for (std::size_t k = 0; k < fill.localAverages.size(); ++k)
      piecesOf[fill.localWriters[k]].push_back(static_cast<int>(k));
    const DetailedTask& reader = graph.detailedTasks[static_cast<std::size_t>(readers[c].front())];
    if (!modifies(graph.tasks[static_cast<std::size_t>(reader.taskIndex)], fill.label)) continue;
    std::vector<int> waitFor;
    for (int p : reader.predecessors)
      if (piecesOf.count(p) == 0) waitFor.push_back(p);
    for (auto& [writer, pieces] : piecesOf) {
      DetailedTask& node = graph.detailedTasks[static_cast<std::size_t>(writer)];
      const Task& task = graph.tasks[static_cast<std::size_t>(node.taskIndex)];
      if (node.kind != DetailedTask::Kind::PatchTask || node.group < 0 ||
          task.kind() != Task::Kind::Device)
        continue;
      node.sweepAverages.push_back(static_cast<int>(graph.sweepAverages.size()));
      graph.sweepAverages.push_back({static_cast<int>(c), writer, std::move(pieces), waitFor});
    }
  }
}

SweepAverager::SweepAverager(const OnDemandDataWarehouse& fineDW, const VarLabel* label,
                             int fineStorageKey, const IntVector& ratio, CoarsenOp op,
                             std::vector<Target> targets, std::vector<int> entries)
    : m_fineDW(fineDW),
      m_label(label),
      m_fineStorageKey(fineStorageKey),
      m_ratio(ratio),
      m_op(op),
      m_targets(std::move(targets)),
      m_entries(std::move(entries)) {}

int SweepAverager::slabPlanes(const void* output, const Box& box, int threads) {
  m_fine = m_fineDW.findGroupStorage(m_label, m_fineStorageKey);
  // Slabs that begin on a coarse plane: each coarse cell's fine cells lie
  // in one slab (complete() relies on it).
  if (m_fine == nullptr || !m_fine->holdsAddress(output) ||
      box.lo().z - floorDiv(box.lo().z, m_ratio.z) * m_ratio.z != 0) {
    m_fine = nullptr;
    return 0;
  }
  const std::int64_t planeBytes = static_cast<std::int64_t>(box.size().x) * box.size().y *
                                  static_cast<std::int64_t>(m_fine->bytesPerCell());
  // At most a thread's share of the planes, so that every thread has slabs.
  const int share = (box.size().z + threads - 1) / std::max(threads, 1);
  const auto fit = static_cast<int>(std::min<std::int64_t>(kSlabBytes / planeBytes, share));
  m_slabPlanes = std::max(m_ratio.z, fit - fit % m_ratio.z);
  m_sweep = box;
  m_sweptCells = 0;
  prefetchTargets(box.lo().z);
  return m_slabPlanes;
}

void SweepAverager::prefetchTargets(int z) const {
  if (z >= m_sweep.hi().z) return;
  const Box slab({m_sweep.lo().x, m_sweep.lo().y, z},
                 {m_sweep.hi().x, m_sweep.hi().y, std::min(z + m_slabPlanes, m_sweep.hi().z)});
  const Box above = coarsenInside(slab, m_ratio);
  for (const Target& target : m_targets)
    target.coarse->prefetchForWrite(target.cells.intersection(above));
}

void SweepAverager::swept(const Box& slab) {
  if (m_fine == nullptr) return;
  // Slabs of one sweep average disjoint coarse cells, on any thread.
  const Box above = coarsenInside(slab, m_ratio);
  for (const Target& target : m_targets) {
    const Box cells = target.cells.intersection(above);
    if (!cells.empty()) target.coarse->coarsenFrom(*m_fine, cells, m_ratio, m_op);
  }
  // The next slab's coarse cells: the averages' stores would otherwise wait
  // for each line (written before this task began, they are no longer in
  // the per-core cache); the lines arrive while the sweep runs.
  prefetchTargets(slab.hi().z);
  m_sweptCells.fetch_add(slab.intersection(m_sweep).volume(), std::memory_order_relaxed);
}

void SweepAverager::kernelOver(const Box* box) {
  // The task's kernels run one after another: no slab is being handed over.
  if (box == nullptr || !box->intersection(m_sweep).empty()) {
    m_sweep = Box{};
    m_sweptCells = 0;
  }
}

bool SweepAverager::complete() const {
  if (m_sweep.empty() || m_sweptCells.load() != m_sweep.volume()) return false;
  return std::all_of(m_targets.begin(), m_targets.end(), [&](const Target& target) {
    return m_sweep.contains(refine(target.cells, m_ratio));
  });
}

}  // namespace tessera
