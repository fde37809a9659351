#include "Core/Grid/BlockLayout.h"

#include "Core/Util/Error.h"

#include <algorithm>
#include <ostream>

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

void BlockLayout::setReceiveBuffers(int n) {
  TESSERA_REQUIRE_THROWS(n >= 0, "a block layout cannot keep " << n << " receive buffers");
  m_receiveBuffers = n;
}

}  // namespace tessera
