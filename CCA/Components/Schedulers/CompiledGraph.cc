#include "CCA/Components/Schedulers/CompiledGraph.h"

#include "Core/Grid/Patch.h"

#include <sstream>

namespace tessera {

std::string DetailedTask::describe(const std::vector<Task>& tasks) const {
  std::ostringstream out;
  out << tasks[static_cast<std::size_t>(taskIndex)].name();
  if (kind == Kind::Reduction) {
    out << " (reduce " << reduction->name() << ")";
  } else if (kind == Kind::IndexTask) {
    out << " at index " << index;
  } else if (group >= 0) {
    out << " on the patch group of patch " << patch->id();
  } else {
    out << " on patch " << patch->id();
  }
  return out.str();
}

std::vector<const Patch*> CompiledGraph::patchesOf(const DetailedTask& node) const {
  if (node.group >= 0) return groups[static_cast<std::size_t>(node.group)].patches();
  return {node.patch};
}

std::size_t CompiledGraph::bytesSent() const {
  std::size_t total = 0;
  for (const Message& m : sends)
    total += m.bytes;
  return total;
}

std::size_t CompiledGraph::bytesReceived() const {
  std::size_t total = 0;
  for (const Message& m : receives)
    total += m.bytes;
  return total;
}

}  // namespace tessera
