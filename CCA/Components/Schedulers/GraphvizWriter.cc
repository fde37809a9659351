#include "CCA/Components/Schedulers/GraphvizWriter.h"

#include <map>
#include <set>
#include <tuple>

namespace tessera {

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
  // A message runs from its producers on the sender to the tasks on the
  // receiver whose ghost fills it feeds.
  for (const CompiledGraph& receiver : perRank) {
    for (std::size_t m = 0; m < receiver.receives.size(); ++m) {
      const Message& message = receiver.receives[m];
      std::set<int> consumers;
      for (const DetailedTask& node : receiver.detailedTasks) {
        for (int fill : node.fills) {
          for (const auto& [index, piece] :
               receiver.fills[static_cast<std::size_t>(fill)].remotePieces) {
            if (index == static_cast<int>(m)) consumers.insert(node.id);
          }
        }
      }
      std::vector<std::string> sources;
      for (const CompiledGraph& sender : perRank) {
        if (sender.rank != message.peer) continue;
        for (const Message& sent : sender.sends) {
          if (sent.peer != receiver.rank || sent.phase != message.phase) continue;
          for (int producer : sent.producers)
            sources.push_back(nodeName(sender.rank, producer));
          if (sent.producers.empty()) sources.push_back(startName(sender.rank));
        }
      }
      for (const std::string& source : sources) {
        for (int consumer : consumers) {
          out << "  " << source << " -> " << nodeName(receiver.rank, consumer)
              << " [style=dashed, label=\"" << message.bytes << " B\"];\n";
        }
      }
    }
  }
  // A block message, from the tasks that leave its version to its readers.
  for (const CompiledGraph& receiver : perRank) {
    for (const BlockMessage& message : receiver.blockReceives) {
      for (const CompiledGraph& sender : perRank) {
        if (sender.rank != message.peer) continue;
        for (const BlockMessage& sent : sender.blockSends) {
          if (sent.peer != receiver.rank || sent.sequence != message.sequence) continue;
          std::vector<std::string> sources;
          for (int producer : sent.producers)
            sources.push_back(nodeName(sender.rank, producer));
          if (sent.producers.empty()) sources.push_back(startName(sender.rank));
          for (const std::string& source : sources)
            for (int consumer : message.consumers)
              out << "  " << source << " -> " << nodeName(receiver.rank, consumer)
                  << " [style=dotted, label=\"" << message.label->name() << " "
                  << message.part.block << ", " << message.bytes << " B\"];\n";
        }
      }
    }
  }
  out << "}\n";
}

}  // namespace tessera
