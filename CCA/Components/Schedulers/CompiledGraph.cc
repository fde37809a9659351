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
  // that does. Averaged pieces hold coarse cells of a fine source: never.
  const auto key = [&](std::size_t k) {
    const GhostPiece& piece = pieces[k];
    return std::make_tuple(piece.label, static_cast<int>(piece.dw), piece.sourcePatch);
  };
  std::vector<std::size_t> order;
  order.reserve(pieces.size());
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    pieces[k].sharesData = false;
    if (!pieces[k].averaged) order.push_back(k);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::make_tuple(key(a), -pieces[a].sourceBox.volume(), a) <
           std::make_tuple(key(b), -pieces[b].sourceBox.volume(), b);
  });
  const std::size_t none = pieces.size();
  std::vector<std::size_t> holder(pieces.size(), none);
  std::vector<std::size_t> kept;  // of the current key
  for (std::size_t e = 0; e < order.size(); ++e) {
    const std::size_t k = order[e];
    if (e == 0 || key(k) != key(order[e - 1])) kept.clear();
    const auto found = std::find_if(kept.begin(), kept.end(), [&](std::size_t c) {
      return pieces[c].sourceBox.contains(pieces[k].sourceBox);
    });
    if (found != kept.end()) {
      holder[k] = *found;
    } else {
      kept.push_back(k);
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
    piece.sharesData = true;
    piece.packedExtent = held.sourceBox.size();
    piece.byteOffset = held.byteOffset +
                       static_cast<std::size_t>(held.sourceBox.linearIndex(piece.sourceBox.lo())) *
                           piece.label->elementBytes();
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
