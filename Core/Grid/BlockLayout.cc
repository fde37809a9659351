#include "Core/Grid/BlockLayout.h"

#include "Core/Util/Error.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <ostream>
#include <sstream>

namespace tessera {

std::ostream& operator<<(std::ostream& out, const BlockRef& ref) {
  out << "block " << ref.block;
  if (ref.rowBegin != 0 || ref.rowEnd >= 0)
    out << " rows [" << ref.rowBegin << ", " << ref.rowEnd << ")";
  return out;
}

int BlockLayout::add(const BlockExtent& extent, std::vector<int> holders) {
  TESSERA_REQUIRE_THROWS(
      extent.rows >= 0 && extent.cols >= 0,
      "block " << numBlocks() << " has a negative shape " << extent.rows << " x " << extent.cols);
  TESSERA_REQUIRE_THROWS(!holders.empty(), "block " << numBlocks() << " is held by no rank");
  for (int rank : holders)
    TESSERA_REQUIRE_THROWS(rank >= 0, "block " << numBlocks() << " is held by rank " << rank);
  m_extents.push_back(extent);
  m_holders.push_back(std::move(holders));
  return numBlocks() - 1;
}

const BlockExtent& BlockLayout::extent(int block) const {
  TESSERA_REQUIRE_THROWS(
      block >= 0 && block < numBlocks(),
      "block " << block << " does not exist (the layout has " << numBlocks() << ")");
  return m_extents[static_cast<std::size_t>(block)];
}

const std::vector<int>& BlockLayout::holders(int block) const {
  extent(block);
  return m_holders[static_cast<std::size_t>(block)];
}

bool BlockLayout::heldBy(int block, int rank) const {
  const std::vector<int>& h = holders(block);
  return std::find(h.begin(), h.end(), rank) != h.end();
}

std::vector<int> BlockLayout::blocksOf(int rank) const {
  std::vector<int> blocks;
  for (int b = 0; b < numBlocks(); ++b)
    if (heldBy(b, rank)) blocks.push_back(b);
  return blocks;
}

std::vector<int> BlockLayout::blocksOwnedBy(int rank) const {
  std::vector<int> blocks;
  for (int b = 0; b < numBlocks(); ++b)
    if (owner(b) == rank) blocks.push_back(b);
  return blocks;
}

BlockRef BlockLayout::resolve(const BlockRef& ref) const {
  const BlockExtent& e = extent(ref.block);
  BlockRef resolved = ref;
  if (resolved.rowEnd < 0) resolved.rowEnd = e.rows;
  TESSERA_REQUIRE_THROWS(
      resolved.rowBegin >= 0 && resolved.rowBegin <= resolved.rowEnd && resolved.rowEnd <= e.rows,
      "rows [" << ref.rowBegin << ", " << ref.rowEnd << ") of block " << ref.block << ", which has "
               << e.rows << " rows");
  return resolved;
}

std::int64_t BlockLayout::size(const BlockRef& ref) const {
  const BlockRef r = resolve(ref);
  return (r.rowEnd - r.rowBegin) * extent(r.block).cols;
}

std::int64_t BlockLayout::arrayRows() const {
  std::int64_t rows = 0;
  for (const BlockExtent& e : m_extents)
    if (e.size() > 0) rows = std::max(rows, e.row0 + e.rows);
  return rows;
}

std::int64_t BlockLayout::arrayCols() const {
  std::int64_t cols = 0;
  for (const BlockExtent& e : m_extents)
    if (e.size() > 0) cols = std::max(cols, e.col0 + e.cols);
  return cols;
}

std::string BlockLayout::whyNotOneArray() const {
  const std::int64_t rows = arrayRows(), cols = arrayCols();
  std::ostringstream why;
  constexpr std::int64_t kIndexLimit = std::numeric_limits<std::int32_t>::max();
  if (rows > kIndexLimit || cols > kIndexLimit) {
    why << "its " << rows << " x " << cols << " array has more rows or columns than the digest's "
        << "32-bit indices allow (" << kIndexLimit << ")";
    return why.str();
  }
  std::int64_t covered = 0;
  for (int b = 0; b < numBlocks(); ++b) {
    const BlockExtent& e = m_extents[static_cast<std::size_t>(b)];
    if (e.row0 < 0 || e.col0 < 0) {
      why << "block " << b << " starts at (" << e.row0 << ", " << e.col0 << "), outside the array";
      return why.str();
    }
    covered += e.size();
  }
  // Blocks inside the array whose sizes add up to it tile it unless two
  // overlap; overlaps are found by sorting the blocks by corner.
  std::vector<const BlockExtent*> sorted;
  for (const BlockExtent& e : m_extents)
    if (e.size() > 0) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(), [](const BlockExtent* a, const BlockExtent* b) {
    return a->row0 != b->row0 ? a->row0 < b->row0 : a->col0 < b->col0;
  });
  for (std::size_t x = 0; x < sorted.size(); ++x)
    for (std::size_t y = x + 1; y < sorted.size() && sorted[y]->row0 < sorted[x]->row0 + sorted[x]->rows; ++y) {
      const BlockExtent& a = *sorted[x];
      const BlockExtent& b = *sorted[y];
      if (b.col0 < a.col0 + a.cols && a.col0 < b.col0 + b.cols) {
        why << "two blocks overlap at row " << b.row0 << ", column " << std::max(a.col0, b.col0);
        return why.str();
      }
    }
  if (covered != rows * cols) {
    why << "its blocks cover " << covered << " of the " << rows * cols << " entries of its "
        << rows << " x " << cols << " array";
    return why.str();
  }
  return {};
}

void BlockLayout::setReceiveBuffers(int n) {
  TESSERA_REQUIRE_THROWS(n >= 0, "a block layout cannot keep " << n << " receive buffers");
  m_receiveBuffers = n;
}

}  // namespace tessera
