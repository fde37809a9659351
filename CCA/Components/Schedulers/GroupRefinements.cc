#include "CCA/Components/Schedulers/GroupRefinements.h"

#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace tessera {

void planGroupRefinements(CompiledGraph& graph) {
  for (DetailedTask& node : graph.detailedTasks) {
    if (node.group < 0) continue;
    // The fills by variable, in the node's order.
    std::map<std::pair<const VarLabel*, int>, std::vector<int>> byVariable;
    for (int f : node.fills) {
      const GhostFill& fill = graph.fills[static_cast<std::size_t>(f)];
      if (fill.readsCoarseCellsInPlace())
        byVariable[{fill.label, static_cast<int>(fill.dw)}].push_back(f);
    }
    for (const auto& [variable, fills] : byVariable) {
      if (fills.size() < 2) continue;
      const GhostFill& first = graph.fills[static_cast<std::size_t>(fills.front())];
      GroupRefinement group;
      group.label = first.label;
      group.dw = first.dw;
      group.groupStorageKey = first.groupStorageKey;
      group.fills = fills;
      group.ratio = first.ratio;
      group.refine = first.refine;
      std::vector<Box> boxes;
      std::set<std::tuple<const VarLabel*, int, int>> sourcesSeen;  // (label, dw, coarse patch)
      for (int f : fills) {
        const GhostFill& fill = graph.fills[static_cast<std::size_t>(f)];
        boxes.insert(boxes.end(), fill.coarseFineBoxes.begin(), fill.coarseFineBoxes.end());
        group.coarseCells = boundingBox(group.coarseCells, fill.staging);
        for (const GhostPiece& piece : fill.coarseCopies)
          if (sourcesSeen.insert({piece.label, static_cast<int>(piece.dw), piece.sourcePatch})
                  .second)
            group.sources.push_back(piece);
      }
      group.boxes = mergeAdjacent(std::move(boxes));
      node.groupRefinements.push_back(static_cast<int>(graph.groupRefinements.size()));
      graph.groupRefinements.push_back(std::move(group));
    }
  }
}

}  // namespace tessera
