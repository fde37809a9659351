// The warehouses' hash table of (label, id) keys (FlatLabelMap.h) against
// std::unordered_map under one seeded sequence of inserts, erases (by key,
// by iterator while iterating), lookups and rehashes: the same entries
// after every operation; values destroyed exactly once; copies and moves
// independent of their source.
#include <gtest/gtest.h>

#include "CCA/Components/Schedulers/FlatLabelMap.h"
#include "Core/Grid/VarLabel.h"

#include <map>
#include <memory>
#include <random>
#include <unordered_map>
#include <vector>

namespace tessera {
namespace {

// Addresses stand for labels: the table hashes and compares them only.
const VarLabel* label(int n) {
  static const std::vector<char> storage(64);
  return reinterpret_cast<const VarLabel*>(storage.data() + 8 * n);
}

template <class Map>
std::map<LabelKey, int> contents(const Map& map) {
  std::map<LabelKey, int> out;
  for (const auto& [key, value] : map)
    out[key] = *value;
  return out;
}

TEST(FlatLabelMap, AgreesWithUnorderedMapThroughInsertsErasesAndRehashes) {
  FlatLabelMap<std::shared_ptr<int>> flat;
  std::unordered_map<LabelKey, std::shared_ptr<int>, LabelKeyHash> reference;
  std::mt19937 random(20261128);
  std::uniform_int_distribution<int> op(0, 9), labels(0, 7), ids(-40, 400);
  for (int step = 0; step < 20000; ++step) {
    const LabelKey key{label(labels(random)), ids(random)};
    switch (op(random)) {
      case 0:
      case 1:
      case 2: {  // emplace: only where absent
        auto value = std::make_shared<int>(step);
        const bool inserted = flat.emplace(key, value).second;
        EXPECT_EQ(inserted, reference.emplace(key, value).second);
        break;
      }
      case 3:
      case 4:  // assignment through operator[]
        flat[key] = reference[key] = std::make_shared<int>(-step);
        break;
      case 5:
      case 6:
        EXPECT_EQ(flat.erase(key), reference.erase(key));
        break;
      case 7: {
        const auto found = flat.find(key);
        const auto expected = reference.find(key);
        ASSERT_EQ(found == flat.end(), expected == reference.end());
        if (found != flat.end()) {
          EXPECT_EQ(found->second, expected->second);
        }
        break;
      }
      case 8: {  // erase while iterating, one label's entries
        for (auto it = flat.begin(); it != flat.end();)
          it = it->first.first == key.first ? flat.erase(it) : std::next(it);
        for (auto it = reference.begin(); it != reference.end();)
          it = it->first.first == key.first ? reference.erase(it) : std::next(it);
        break;
      }
      default:
        if (step % 1000 == 9) {
          flat.clear();
          reference.clear();
        }
    }
    ASSERT_EQ(flat.size(), reference.size()) << "step " << step;
    if (step % 97 == 0) {
      ASSERT_EQ(contents(flat), contents(reference)) << "step " << step;
    }
  }
  EXPECT_EQ(contents(flat), contents(reference));
  // The table and the reference hold the only other references to each value.
  for (const auto& [key, value] : reference)
    EXPECT_EQ(value.use_count(), 2) << "one copy in each map";
}

TEST(FlatLabelMap, CopiesAndMovesAreIndependentAndValuesDieOnce) {
  const auto value = std::make_shared<int>(7);
  {
    FlatLabelMap<std::shared_ptr<int>> map;
    for (int id = 0; id < 100; ++id)
      map.emplace(LabelKey{label(id % 3), id}, value);
    EXPECT_EQ(value.use_count(), 101);
    FlatLabelMap<std::shared_ptr<int>> copy = map;
    EXPECT_EQ(value.use_count(), 201);
    copy.erase(LabelKey{label(0), 0});
    EXPECT_EQ(copy.size(), 99u);
    EXPECT_EQ(map.size(), 100u);
    EXPECT_NE(map.find(LabelKey{label(0), 0}), map.end());
    FlatLabelMap<std::shared_ptr<int>> moved = std::move(map);
    EXPECT_EQ(moved.size(), 100u);
    EXPECT_EQ(value.use_count(), 200);
    EXPECT_EQ(moved.at(LabelKey{label(1), 1}), value);
    EXPECT_THROW(moved.at(LabelKey{label(1), 2}), std::out_of_range);
  }
  EXPECT_EQ(value.use_count(), 1);
}

}  // namespace
}  // namespace tessera
