#pragma once
// (label, id) keys of the runtime's variable tables: a patch id, a patch
// group's storage key or a block id beside the variable's label. Looked up
// several times per task (gets, puts, ghost fills), so the tables hash
// rather than search a tree.

#include "Core/Grid/VarLabel.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>

namespace tessera {

using LabelKey = std::pair<const VarLabel*, int>;

struct LabelKeyHash {
  std::size_t operator()(const LabelKey& key) const noexcept {
    // Labels are few and ids dense: mix the id into the pointer's bits.
    const auto label = reinterpret_cast<std::uintptr_t>(key.first);
    return std::hash<std::uint64_t>{}(
        (static_cast<std::uint64_t>(label) << 20) ^
        static_cast<std::uint64_t>(static_cast<std::uint32_t>(key.second)));
  }
};

template <class Value>
using LabelKeyMap = std::unordered_map<LabelKey, Value, LabelKeyHash>;

}  // namespace tessera
