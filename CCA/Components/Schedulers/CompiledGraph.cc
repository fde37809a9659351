#include "CCA/Components/Schedulers/CompiledGraph.h"

#include "Core/Grid/Patch.h"

#include <algorithm>
#include <sstream>
#include <tuple>

namespace tessera {

std::size_t shareContainedPieces(std::vector<GhostPiece>& pieces) {
  // Pieces of one variable, warehouse and source patch side by side, the
  // largest first (ties in the message's order): a piece meets every piece
  // that could hold it before its own turn, and shares the first kept one
  // that does.
  struct Entry {
    const VarLabel* label;
    int dw;
    int source;
    std::int64_t volume;
    std::size_t index;
  };
  std::vector<Entry> order;
  order.reserve(pieces.size());
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    GhostPiece& piece = pieces[k];
    piece.sharesData = false;
    if (!piece.averaged)
      order.push_back({piece.label, static_cast<int>(piece.dw), piece.sourcePatch,
                       piece.sourceBox.volume(), k});
  }
  const auto key = [](const Entry& e) { return std::make_tuple(e.label, e.dw, e.source); };
  std::sort(order.begin(), order.end(), [&](const Entry& a, const Entry& b) {
    return std::make_tuple(key(a), -a.volume, a.index) <
           std::make_tuple(key(b), -b.volume, b.index);
  });
  const std::size_t none = pieces.size();
  std::vector<std::size_t> holder(pieces.size(), none);
  std::vector<std::size_t> kept;  // of the current key
  for (std::size_t e = 0; e < order.size(); ++e) {
    if (e == 0 || key(order[e]) != key(order[e - 1])) kept.clear();
    const GhostPiece& piece = pieces[order[e].index];
    const auto found = std::find_if(kept.begin(), kept.end(), [&](std::size_t c) {
      return pieces[c].sourceBox.contains(piece.sourceBox);
    });
    if (found != kept.end()) {
      holder[order[e].index] = *found;
    } else {
      kept.push_back(order[e].index);
    }
  }
  std::size_t bytes = 0;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    if (holder[k] != none) continue;
    pieces[k].byteOffset = bytes;
    bytes += pieces[k].bytes();
  }
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    if (holder[k] == none) continue;
    const GhostPiece& held = pieces[holder[k]];
    GhostPiece& piece = pieces[k];
    const IntVector at = piece.sourceBox.lo() - held.sourceBox.lo();
    const IntVector extent = held.sourceBox.size();
    const std::int64_t cell = (static_cast<std::int64_t>(at.z) * extent.y + at.y) * extent.x + at.x;
    piece.sharesData = true;
    piece.packedExtent = extent;
    piece.byteOffset =
        held.byteOffset + static_cast<std::size_t>(cell) * piece.label->elementBytes();
  }
  return bytes;
}

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
