#pragma once
// Where the blocks of a block variable live. A block is a rectangle of a
// global two-dimensional array (row-major), held by one rank or replicated
// on several; a component declares the layout of each block label (A, B and
// C of a GEMM each have their own), independent of the grid's patches.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace tessera {

// The rectangle a block covers in its global array.
struct BlockExtent {
  std::int64_t row0 = 0;
  std::int64_t col0 = 0;
  std::int64_t rows = 0;
  std::int64_t cols = 0;

  std::int64_t size() const { return rows * cols; }
  friend bool operator==(const BlockExtent& a, const BlockExtent& b) {
    return a.row0 == b.row0 && a.col0 == b.col0 && a.rows == b.rows && a.cols == b.cols;
  }
};

// Rows [rowBegin, rowEnd) of one block: a contiguous run of its row-major
// storage, so it travels without packing. rowEnd -1 means "to the last row".
struct BlockRef {
  int block = -1;
  std::int64_t rowBegin = 0;
  std::int64_t rowEnd = -1;

  BlockRef() = default;
  // A whole block (implicit, so that a list of block ids is a list of refs).
  BlockRef(int b) : block(b) {}  // NOLINT(google-explicit-constructor)
  BlockRef(int b, std::int64_t begin, std::int64_t end) : block(b), rowBegin(begin), rowEnd(end) {}

  friend bool operator<(const BlockRef& a, const BlockRef& b) {
    if (a.block != b.block) return a.block < b.block;
    if (a.rowBegin != b.rowBegin) return a.rowBegin < b.rowBegin;
    return a.rowEnd < b.rowEnd;
  }
  friend bool operator==(const BlockRef& a, const BlockRef& b) {
    return a.block == b.block && a.rowBegin == b.rowBegin && a.rowEnd == b.rowEnd;
  }
};

std::ostream& operator<<(std::ostream& out, const BlockRef& ref);

class BlockLayout {
 public:
  // Adds a block held by `holders` (the first is its owner: the rank that
  // sends it to readers elsewhere); returns its id (0, 1, 2, ...).
  int add(const BlockExtent& extent, std::vector<int> holders);

  int numBlocks() const { return static_cast<int>(m_extents.size()); }
  const BlockExtent& extent(int block) const;
  const std::vector<int>& holders(int block) const;
  int owner(int block) const { return holders(block).front(); }
  bool heldBy(int block, int rank) const;
  // The blocks `rank` holds, in id order.
  std::vector<int> blocksOf(int rank) const;
  // The blocks `rank` owns (each block has one owner, however replicated):
  // what it sends, digests and archives.
  std::vector<int> blocksOwnedBy(int rank) const;
  // `ref` with rowEnd resolved; throws an Error naming the block when the
  // block or the row range does not exist.
  BlockRef resolve(const BlockRef& ref) const;
  // Values in the (resolved) part.
  std::int64_t size(const BlockRef& ref) const;
  // The global array the blocks are cut from: rows and columns from (0, 0)
  // to the farthest block corner.
  std::int64_t arrayRows() const;
  std::int64_t arrayCols() const;
  // Why the blocks cannot be stored as one array (the archive's need), or
  // empty: they must tile it, each entry in exactly one block (replicas are
  // holders of one block, not blocks), and fit the digest's 32-bit indices.
  std::string whyNotOneArray() const;

  // How many parts of this variable brought from other ranks a rank keeps
  // at once (0: all of them). With n, the k-th part a rank receives (in the
  // order its readers run) reuses the buffer of the (k - n)-th, once that
  // one's readers have finished: double buffering of rounds, kept safe by
  // the task graph.
  void setReceiveBuffers(int n);
  int receiveBuffers() const { return m_receiveBuffers; }

 private:
  std::vector<BlockExtent> m_extents;
  std::vector<std::vector<int>> m_holders;
  int m_receiveBuffers = 0;
};

}  // namespace tessera
