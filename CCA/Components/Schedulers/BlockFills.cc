#include "CCA/Components/Schedulers/BlockFills.h"

#include "Core/Util/Error.h"

#include <algorithm>
#include <memory>

namespace tessera {

namespace {

// out = parts[0] + parts[1] + ..., in that order, element by element.
template <class T>
void sumInOrder(std::byte* out, const std::vector<const std::byte*>& parts, std::int64_t count) {
  T* result = reinterpret_cast<T*>(out);
  const T* first = reinterpret_cast<const T*>(parts.front());
  std::copy(first, first + count, result);
  for (std::size_t p = 1; p < parts.size(); ++p) {
    const T* part = reinterpret_cast<const T*>(parts[p]);
    for (std::int64_t i = 0; i < count; ++i)
      result[i] += part[i];
  }
}

}  // namespace

BlockFills::BlockFills(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                       OnDemandDataWarehouse& newDW, CommContext& context,
                       const MessageExchange& messages, MessageBuffers& buffers)
    : m_graph(graph),
      m_oldDW(oldDW),
      m_newDW(newDW),
      m_context(context),
      m_messages(messages),
      m_buffers(buffers) {}

void BlockFills::performFills(const DetailedTask& task) {
  const auto arrivedBlock = [&](int r) {
    return m_graph.receives[static_cast<std::size_t>(r)].kind == Message::Kind::Block;
  };
  if (task.blockSums.empty() &&
      std::none_of(task.receivesRead.begin(), task.receivesRead.end(), arrivedBlock))
    return;
  TESSERA_REQUIRE_THROWS(m_messages.inputsArrived(task), "block inputs of "
                                                             << task.describe(m_graph.tasks)
                                                             << " used before they arrived");
  const CommTimer timer(m_context, &m_context.stats.packSeconds);
  const TraceScope traced(m_context.trace, "block fill", "comm", task.id);
  for (int r : task.receivesRead) {
    if (!arrivedBlock(r)) continue;
    const Message& message = m_graph.receives[static_cast<std::size_t>(r)];
    const BlockTransfer& transfer = message.block;
    // The part stays in its slot: the warehouse borrows it (see MessageExchange::postReceive).
    dw(transfer.dw)
        .putArrivedBlock(transfer.label, transfer.part,
                         std::make_shared<BlockData>(
                             transfer.extent, transfer.label->elementBytes(),
                             m_messages.receiveBuffer(r)));
  }
  for (int s : task.blockSums)
    computeSum(s);
}

void BlockFills::computeSum(int index) {
  const BlockSum& sum = m_graph.blockSums[static_cast<std::size_t>(index)];
  OnDemandDataWarehouse& where = dw(sum.dw);
  std::vector<const std::byte*> parts;
  std::vector<std::shared_ptr<BlockData>> held;  // kept alive while summing
  for (std::size_t p = 0; p < sum.parts.size(); ++p) {
    const BlockRef& part = sum.parts[p];
    const int receive = sum.receives[p];
    if (receive >= 0) {
      parts.push_back(m_messages.receiveBuffer(receive));
      continue;
    }
    auto block = where.findBlock(sum.label, part.block);
    TESSERA_REQUIRE_THROWS(block != nullptr, "the sum of '" << sum.label->name() << "' for index "
                                                            << sum.index << " needs block "
                                                            << part.block << ", not in "
                                                            << where.name());
    parts.push_back(block->data() + static_cast<std::size_t>(part.rowBegin) *
                                        static_cast<std::size_t>(block->extent().cols) *
                                        block->elementBytes());
    held.push_back(std::move(block));
  }
  std::byte* out = m_buffers.blockSums[static_cast<std::size_t>(index)].data();
  const std::int64_t count = sum.extent.size();
  const std::string& type = sum.label->valueType();
  if (type == "double") {
    sumInOrder<double>(out, parts, count);
  } else if (type == "float") {
    sumInOrder<float>(out, parts, count);
  } else if (type == "int") {
    sumInOrder<int>(out, parts, count);
  } else if (type == "int64") {
    sumInOrder<std::int64_t>(out, parts, count);
  } else {
    TESSERA_FAIL("cannot sum blocks of '" << sum.label->name() << "' (values of type " << type
                                          << ")");
  }
  where.putBlockSum(sum.label, sum.index,
                    std::make_shared<BlockData>(sum.extent, sum.label->elementBytes(), out));
}

void BlockFills::finish() {
  m_oldDW.dropBorrowedBlocks();
  m_newDW.dropBorrowedBlocks();
}

}  // namespace tessera
