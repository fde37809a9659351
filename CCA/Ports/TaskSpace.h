#pragma once
// An index set a task runs over when its work is not "one call per patch":
// the (i, j, l) cells of a GEMM's processor grid, the blocks of a matrix.
// Each index is placed on a rank by the component; the task runs once per
// index, on that rank, and names the data it reads and writes per index.

#include <string>
#include <vector>

namespace tessera {

struct TaskSpace {
  std::string name;
  std::vector<int> ranks;  // ranks[index]: where the task at `index` runs

  int size() const { return static_cast<int>(ranks.size()); }
  // The indices placed on `rank`, in order.
  std::vector<int> indicesOn(int rank) const {
    std::vector<int> indices;
    for (int i = 0; i < size(); ++i)
      if (ranks[static_cast<std::size_t>(i)] == rank) indices.push_back(i);
    return indices;
  }
};

}  // namespace tessera
