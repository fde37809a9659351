#pragma once
// Helpers the task graph tests share: a task with no work, and looking up
// and comparing the messages of compiled graphs.

#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Ports/DataWarehouse.h"
#include "CCA/Ports/ExecutionContext.h"
#include "CCA/Ports/Task.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tessera::testing {

inline Task makeTask(const std::string& name) {
  return Task(name, [](const Patch&, const DataWarehouse&, DataWarehouse&, ExecutionContext&) {});
}

// The one message for (peer, phase) in `list`, or nullptr.
inline const Message* findMessage(const std::vector<Message>& list, int peer, int phase) {
  const Message* found = nullptr;
  for (const Message& m : list) {
    if (m.peer != peer || m.phase != phase) continue;
    EXPECT_EQ(found, nullptr) << "two messages for peer " << peer << " phase " << phase;
    found = &m;
  }
  return found;
}

// The sender and the receiver list a message's pieces identically.
inline void expectSamePieces(const Message& sent, const Message& received) {
  EXPECT_EQ(sent.bytes, received.bytes);
  EXPECT_EQ(sent.tag, received.tag);
  ASSERT_EQ(sent.pieces.size(), received.pieces.size());
  for (std::size_t k = 0; k < sent.pieces.size(); ++k) {
    SCOPED_TRACE("piece " + std::to_string(k));
    const GhostPiece& a = sent.pieces[k];
    const GhostPiece& b = received.pieces[k];
    EXPECT_EQ(a.label, b.label);
    EXPECT_EQ(a.dw, b.dw);
    EXPECT_EQ(a.sourcePatch, b.sourcePatch);
    EXPECT_EQ(a.destPatch, b.destPatch);
    EXPECT_EQ(a.sourceBox, b.sourceBox);
    EXPECT_EQ(a.offset, b.offset);
    EXPECT_EQ(a.byteOffset, b.byteOffset);
  }
}

}  // namespace tessera::testing
