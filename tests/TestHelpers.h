#pragma once
// Small helpers the unit tests share: grids built from a few numbers, patch
// owners, and checks on error messages.

#include "Core/Grid/Grid.h"
#include "Core/Util/Error.h"

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace tessera::testing {

inline LevelSpec makeLevelSpec(const IntVector& resolution, const IntVector& patches,
                               const IntVector& extra = {},
                               std::array<bool, 3> periodic = {false, false, false}) {
  LevelSpec spec;
  spec.resolution = resolution;
  spec.patches = patches;
  spec.extraCells = extra;
  spec.periodic = periodic;
  return spec;
}

inline Grid makeGrid(const IntVector& resolution, const IntVector& patches,
                     const IntVector& extra = {},
                     std::array<bool, 3> periodic = {false, false, false}) {
  Grid grid;
  grid.addLevel(makeLevelSpec(resolution, patches, extra, periodic));
  return grid;
}

// Patch p goes to rank p % numRanks.
inline std::vector<int> roundRobin(int numPatches, int numRanks) {
  std::vector<int> ranks;
  for (int p = 0; p < numPatches; ++p)
    ranks.push_back(p % numRanks);
  return ranks;
}

// The message of the exception of type E that f throws, or "" when it throws none.
template <class E>
std::string messageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

// The message of an Error thrown by f, or "" when f does not throw.
inline std::string errorOf(const std::function<void()>& f) {
  return messageOf<Error>(f);
}

inline bool contains(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

inline void expectMentions(const std::string& message, std::initializer_list<const char*> words) {
  EXPECT_FALSE(message.empty()) << "no error was thrown";
  for (const char* word : words) {
    EXPECT_NE(message.find(word), std::string::npos)
        << "'" << word << "' missing from: " << message;
  }
}

}  // namespace tessera::testing
