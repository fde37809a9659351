#include "CCA/Components/Schedulers/GraphvizWriter.h"

#include <map>
#include <string>

namespace tessera {

namespace {

// What a message of cells carries, per variable and kind of piece: ghost
// cells of the same level, coarse cells a finer level refines into its
// ghost cells, or fine cells averaged for the level below (the edges
// between levels).
std::string cellsLabel(const Message& message) {
  std::map<std::string, std::size_t> bytes;
  for (const GhostPiece& piece : message.pieces) {
    const char* kind = piece.toStaging  ? " to refine"
                       : piece.averaged ? " averaged"
                                        : " ghosts";
    bytes[piece.label->name() + kind] += piece.packedBytes();
  }
  std::string label;
  for (const auto& [what, count] : bytes)
    label += (label.empty() ? "" : ", ") + what + " " + std::to_string(count) + " B";
  return label.empty() ? std::to_string(message.bytes) + " B" : label;
}

}  // namespace

namespace {
std::string nodeName(int rank, int id) {
  return "r" + std::to_string(rank) + "_t" + std::to_string(id);
}
std::string startName(int rank) {
  return "r" + std::to_string(rank) + "_oldDW";
}
}  // namespace

void writeGraphviz(std::ostream& out, const std::vector<CompiledGraph>& perRank) {
  out << "digraph \"" << (perRank.empty() ? "graph" : perRank.front().name) << "\" {\n"
      << "  rankdir=LR;\n  node [shape=box, fontsize=10];\n";
  for (const CompiledGraph& graph : perRank) {
    out << "  subgraph cluster_rank" << graph.rank << " {\n    label=\"rank " << graph.rank
        << "\";\n";
    out << "    " << startName(graph.rank) << " [label=\"OldDW\", shape=cylinder];\n";
    for (const DetailedTask& node : graph.detailedTasks) {
      out << "    " << nodeName(graph.rank, node.id) << " [label=\"" << node.describe(graph.tasks)
          << "\"" << (node.kind == DetailedTask::Kind::Reduction ? ", shape=diamond" : "")
          << "];\n";
    }
    out << "  }\n";
    for (const DetailedTask& node : graph.detailedTasks) {
      for (int predecessor : node.predecessors)
        out << "  " << nodeName(graph.rank, predecessor) << " -> " << nodeName(graph.rank, node.id)
            << ";\n";
    }
  }
  // A message runs from its producers on the sender (or the sender's old
  // warehouse) to the tasks on the receiver that read it: dashed for ghost
  // cells, dotted for a block part.
  for (const CompiledGraph& receiver : perRank) {
    for (const Message& message : receiver.receives) {
      std::vector<std::string> sources;
      for (const CompiledGraph& sender : perRank) {
        if (sender.rank != message.peer) continue;
        for (const Message& sent : sender.sends) {
          if (sent.peer != receiver.rank || sent.tag != message.tag) continue;
          for (int producer : sent.producers)
            sources.push_back(nodeName(sender.rank, producer));
          if (sent.producers.empty()) sources.push_back(startName(sender.rank));
        }
      }
      const bool cells = message.kind == Message::Kind::Cells;
      const std::string label =
          cells ? cellsLabel(message)
                : message.block.label->name() + " " + std::to_string(message.block.part.block) +
                      ", " + std::to_string(message.bytes) + " B";
      for (const std::string& source : sources) {
        for (int consumer : message.consumers) {
          out << "  " << source << " -> " << nodeName(receiver.rank, consumer) << " [style="
              << (cells ? "dashed" : "dotted") << ", label=\"" << label << "\"];\n";
        }
      }
    }
  }
  out << "}\n";
}

}  // namespace tessera
