#include "CCA/Components/Schedulers/BlockDependencies.h"

#include "Core/Util/Error.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

namespace tessera {

namespace {

// What identifies a block message between two ranks: the same on both.
using PartKey = std::tuple<std::string /*label*/, int /*dw*/, int /*block*/, std::int64_t,
                           std::int64_t, int /*writer*/>;
using PairKey = std::tuple<int /*from*/, int /*to*/, PartKey>;

void addOnce(std::vector<int>& list, int value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

class BlockLinker {
 public:
  BlockLinker(CompiledGraph& graph, const std::map<const VarLabel*, std::vector<int>>& chains,
              const std::map<std::pair<int, int>, int>& indexNodes)
      : m_graph(graph), m_chains(chains), m_indexNodes(indexNodes), m_rank(graph.rank) {}

  void link() {
    collectWrites();
    walkReads();
    numberMessages();
    assignSlots();
    for (std::size_t s = 0; s < m_graph.blockSums.size(); ++s)
      node(m_graph.blockSums[s].node).blockSums.push_back(static_cast<int>(s));
  }

 private:
  struct Write {
    int task;
    int index;
  };
  using WriteKey = std::tuple<const VarLabel*, int /*block*/, int /*rank*/>;

  DetailedTask& node(int id) { return m_graph.detailedTasks[static_cast<std::size_t>(id)]; }
  int localNode(int task, int index) const { return m_indexNodes.at({task, index}); }
  const Task& task(int t) const { return m_graph.tasks[static_cast<std::size_t>(t)]; }
  const TaskSpace& space(int t) const { return m_graph.spaces[static_cast<std::size_t>(t)]; }

  const BlockLayout& layout(const VarLabel* label, int t) const {
    const auto* layouts = m_graph.blockLayouts.get();
    const auto found = layouts ? layouts->find(label) : decltype(layouts->end()){};
    TESSERA_REQUIRE_THROWS(layouts != nullptr && found != layouts->end(),
                           "task '" << task(t).name() << "' uses block variable '" << label->name()
                                    << "', which has no layout (Scheduler::setBlockLayout)");
    return found->second;
  }

  std::vector<BlockRef> blocksAt(const Task::Dependency& dep, int t, int index) const {
    try {
      return dep.blocks(index);
    } catch (const std::exception& e) {
      TESSERA_FAIL("task '" << task(t).name() << "' at index " << index << ": the blocks of '"
                            << dep.label->name() << "': " << e.what());
    }
  }

  void collectWrites() {
    for (std::size_t t = 0; t < m_graph.tasks.size(); ++t) {
      const int ti = static_cast<int>(t);
      if (!task(ti).runsPerIndex()) continue;
      for (const Task::Dependency& dep : task(ti).dependencies()) {
        if (dep.access == Task::Access::Requires || dep.label->kind() != VarKind::Block) continue;
        const BlockLayout& blocks = layout(dep.label, ti);
        for (int x = 0; x < space(ti).size(); ++x) {
          const int rank = space(ti).ranks[static_cast<std::size_t>(x)];
          for (const BlockRef& ref : blocksAt(dep, ti, x)) {
            const BlockRef whole = blocks.resolve(ref);
            TESSERA_REQUIRE_THROWS(
                whole.rowBegin == 0 && whole.rowEnd == blocks.extent(ref.block).rows,
                "task '" << task(ti).name() << "' at index " << x << " writes " << ref << " of '"
                         << dep.label->name() << "': tasks write whole blocks");
            TESSERA_REQUIRE_THROWS(blocks.heldBy(ref.block, rank),
                                   "task '" << task(ti).name() << "' at index " << x
                                            << " writes block " << ref.block << " of '"
                                            << dep.label->name() << "' on rank " << rank
                                            << ", which does not hold it");
            auto& writes = m_writes[{dep.label, ref.block, rank}];
            TESSERA_REQUIRE_THROWS(writes.empty() || writes.back().task != ti,
                                   "task '" << task(ti).name() << "' writes block " << ref.block
                                            << " of '" << dep.label->name() << "' on rank " << rank
                                            << " at two indices (" << writes.back().index << " and "
                                            << x << ")");
            // Write after write: a modifier runs after the previous writer.
            if (!writes.empty() && rank == m_rank)
              addOnce(node(localNode(ti, x)).predecessors,
                      localNode(writes.back().task, writes.back().index));
            writes.push_back({ti, x});
          }
        }
      }
    }
  }

  // The write whose version of `block` a reader at task position `reader`
  // sees on `rank`: the last one, or the last before the reader when the
  // reader itself writes the variable (it modifies it). Null if none.
  const Write* versionFor(const VarLabel* label, int block, int rank, int reader) const {
    const auto found = m_writes.find({label, block, rank});
    if (found == m_writes.end()) return nullptr;
    const auto chain = m_chains.find(label);
    const bool inChain =
        chain != m_chains.end() &&
        std::find(chain->second.begin(), chain->second.end(), reader) != chain->second.end();
    const Write* last = nullptr;
    for (const Write& w : found->second) {
      if (inChain && w.task >= reader) break;
      last = &w;
    }
    return last;
  }

  // The first write of `block` on this rank after task position `after`, or null.
  const Write* nextWrite(const VarLabel* label, int block, int after) const {
    const auto found = m_writes.find({label, block, m_rank});
    if (found == m_writes.end()) return nullptr;
    for (const Write& w : found->second)
      if (w.task > after) return &w;
    return nullptr;
  }

  // The message of `key` to or from `peer` (sends: `sending`), created on
  // first use after the graph's other messages.
  int messageFor(bool sending, const PartKey& key, const VarLabel* label, Task::WhichDW dw,
                 const BlockRef& part, const BlockLayout& blocks, int writer, int peer) {
    auto& index = sending ? m_sendOf : m_receiveOf;
    const auto found = index.find({key, peer});
    if (found != index.end()) return found->second;
    Message message;
    message.kind = Message::Kind::Block;
    message.peer = peer;
    BlockTransfer& block = message.block;
    block.label = label;
    block.dw = dw;
    block.part = part;
    block.extent = blocks.extent(part.block);
    block.extent.row0 += part.rowBegin;
    block.extent.rows = part.rowEnd - part.rowBegin;
    block.writer = writer;
    message.bytes = static_cast<std::size_t>(block.extent.size()) * label->elementBytes();
    std::vector<Message>& list = sending ? m_graph.sends : m_graph.receives;
    const int id = static_cast<int>(list.size());
    list.push_back(std::move(message));
    index[{key, peer}] = id;
    m_keyOf[sending ? 0 : 1][id] = key;
    return id;
  }

  Message& send(int s) { return m_graph.sends[static_cast<std::size_t>(s)]; }
  Message& receive(int r) { return m_graph.receives[static_cast<std::size_t>(r)]; }

  void walkReads() {
    for (std::size_t t = 0; t < m_graph.tasks.size(); ++t) {
      const int ti = static_cast<int>(t);
      if (!task(ti).runsPerIndex()) continue;
      for (const Task::Dependency& dep : task(ti).dependencies()) {
        if (dep.access != Task::Access::Requires || dep.label->kind() != VarKind::Block) continue;
        const BlockLayout& blocks = layout(dep.label, ti);
        for (int x = 0; x < space(ti).size(); ++x)
          readAt(dep, blocks, ti, x);
      }
    }
  }

  void readAt(const Task::Dependency& dep, const BlockLayout& blocks, int t, int x) {
    const int reader = space(t).ranks[static_cast<std::size_t>(x)];
    const bool here = reader == m_rank;
    BlockSum sum;
    if (here && dep.sum) {
      sum.label = dep.label;
      sum.dw = dep.dw;
      sum.node = localNode(t, x);
      sum.index = x;
    }
    for (const BlockRef& ref : blocksAt(dep, t, x)) {
      const BlockRef part = blocks.resolve(ref);
      const bool held = blocks.heldBy(part.block, reader);
      const int source = held ? reader : blocks.owner(part.block);
      const Write* version = nullptr;
      if (dep.dw == Task::NewDW) {
        version = versionFor(dep.label, part.block, source, t);
        TESSERA_REQUIRE_THROWS(version != nullptr,
                               "task '" << task(t).name() << "' at index " << x << " needs block "
                                        << part.block << " of '" << dep.label->name()
                                        << "' from NewDW, but no task computes it on rank "
                                        << source);
      }
      if (here && dep.sum) {
        BlockExtent extent = blocks.extent(part.block);
        extent.row0 += part.rowBegin;
        extent.rows = part.rowEnd - part.rowBegin;
        if (sum.parts.empty()) sum.extent = extent;
        TESSERA_REQUIRE_THROWS(
            extent.rows == sum.extent.rows && extent.cols == sum.extent.cols,
            "task '" << task(t).name() << "' at index " << x << " sums parts of '"
                     << dep.label->name() << "' of different shapes (" << sum.extent.rows << " x "
                     << sum.extent.cols << " and " << extent.rows << " x " << extent.cols << ")");
        sum.parts.push_back(part);
      }
      const int writer = version ? version->task : -1;
      if (held) {
        if (!here) continue;
        const int readerNode = localNode(t, x);
        if (version)
          addOnce(node(readerNode).predecessors, localNode(version->task, version->index));
        // Write after read: a later writer of the block waits for this reader.
        if (const Write* later = nextWrite(dep.label, part.block, writer)) {
          if (later->task != t)
            addOnce(node(localNode(later->task, later->index)).predecessors, readerNode);
        }
        if (dep.sum) sum.receives.push_back(-1);
        continue;
      }
      const PartKey key{dep.label->name(), dep.dw, part.block, part.rowBegin, part.rowEnd, writer};
      m_allMessages.insert({source, reader, key});
      if (here) {
        const int r = messageFor(false, key, dep.label, dep.dw, part, blocks, writer, source);
        addOnce(receive(r).consumers, localNode(t, x));
        if (dep.sum) sum.receives.push_back(r);
      }
      if (source == m_rank) {
        Message& sent = send(messageFor(true, key, dep.label, dep.dw, part, blocks, writer, reader));
        if (version) addOnce(sent.producers, localNode(version->task, version->index));
        if (dep.dw == Task::NewDW && nextWrite(dep.label, part.block, writer) != nullptr)
          sent.block.copy = true;
      }
    }
    if (here && dep.sum) {
      TESSERA_REQUIRE_THROWS(!sum.parts.empty(), "task '" << task(t).name() << "' at index " << x
                                                          << " sums no parts of '"
                                                          << dep.label->name() << "'");
      m_graph.blockSums.push_back(std::move(sum));
    }
  }

  // Tags: the block messages between two ranks numbered in one canonical
  // order, which both ranks see in full, after the ghost messages' phases.
  void numberMessages() {
    const int phases = static_cast<int>(m_graph.tasks.size()) + 1;
    std::map<std::pair<int, int>, int> perPair;
    std::map<PairKey, int> sequence;
    int mostPerPair = 0;
    for (const PairKey& key : m_allMessages) {
      int& count = perPair[{std::get<0>(key), std::get<1>(key)}];
      sequence[key] = count++;
      mostPerPair = std::max(mostPerPair, count);
    }
    m_graph.tagsPerExecution = phases + mostPerPair;
    for (const auto& [s, key] : m_keyOf[0]) {
      Message& m = send(s);
      m.block.sequence = sequence.at({m_rank, m.peer, key});
      m.tag = phases + m.block.sequence;
    }
    for (const auto& [r, key] : m_keyOf[1]) {
      Message& m = receive(r);
      m.block.sequence = sequence.at({m.peer, m_rank, key});
      m.tag = phases + m.block.sequence;
    }
  }

  // Receive buffers: one per receive, or the label's ring (see
  // BlockLayout::setReceiveBuffers), in the order the receives were met
  // (task order, then index order: the order their readers run).
  void assignSlots() {
    std::map<const VarLabel*, std::vector<int>> byLabel;
    for (const auto& [r, key] : m_keyOf[1])
      byLabel[receive(r).block.label].push_back(r);
    for (const auto& [label, receives] : byLabel) {
      const int ring = m_graph.blockLayouts->at(label).receiveBuffers();
      const int slots = ring > 0 ? std::min<int>(ring, static_cast<int>(receives.size()))
                                 : static_cast<int>(receives.size());
      const std::size_t first = m_graph.blockSlotBytes.size();
      m_graph.blockSlotBytes.resize(first + static_cast<std::size_t>(slots), 0);
      for (std::size_t k = 0; k < receives.size(); ++k) {
        Message& message = receive(receives[k]);
        message.block.slot = static_cast<int>(first + k % static_cast<std::size_t>(slots));
        std::size_t& bytes = m_graph.blockSlotBytes[static_cast<std::size_t>(message.block.slot)];
        bytes = std::max(bytes, message.bytes);
        if (k < static_cast<std::size_t>(slots)) continue;
        const Message& previous = receive(receives[k - static_cast<std::size_t>(slots)]);
        for (int consumer : message.consumers) {
          TESSERA_REQUIRE_THROWS(std::find(previous.consumers.begin(), previous.consumers.end(),
                                           consumer) == previous.consumers.end(),
                                 node(consumer).describe(m_graph.tasks)
                                     << " reads more parts of '" << label->name()
                                     << "' from other ranks than the layout's " << ring
                                     << " receive buffers hold");
        }
        message.gate = previous.consumers;
      }
    }
  }

  CompiledGraph& m_graph;
  const std::map<const VarLabel*, std::vector<int>>& m_chains;
  const std::map<std::pair<int, int>, int>& m_indexNodes;
  int m_rank;
  std::map<WriteKey, std::vector<Write>> m_writes;
  std::set<PairKey> m_allMessages;
  std::map<std::pair<PartKey, int>, int> m_sendOf;  // (part, peer) -> send
  std::map<std::pair<PartKey, int>, int> m_receiveOf;
  std::map<int, PartKey> m_keyOf[2];  // per block send, per block receive (by message index)
};

}  // namespace

void linkBlockTasks(CompiledGraph& graph, const std::map<const VarLabel*, std::vector<int>>& chains,
                    const std::map<std::pair<int, int>, int>& indexNodes) {
  BlockLinker(graph, chains, indexNodes).link();
}

}  // namespace tessera
