#pragma once
// How many nodes a YAML text stands for once its aliases are expanded.
// yaml-cpp shares an aliased node rather than copying it, so loading nine
// levels of nine aliases ("billion laughs") is quick, but anything that
// walks the deck (the duplicate-key check, the schema) walks 9^9 nodes.
// Counted from the parser's events with each anchor's size remembered, in
// time linear in the text.

#include <cstdint>
#include <string>

namespace tessera {

// The most nodes a deck may expand to: a simulation's deck has hundreds.
constexpr std::int64_t kMaxDeckNodes = 100000;

// Throws a DeckError at the alias that takes the text past `limit` nodes.
// The text must already parse (YAML::Load).
void requireBoundedExpansion(const std::string& text, const std::string& file,
                             std::int64_t limit = kMaxDeckNodes);

}  // namespace tessera
