#include "CCA/Components/SimulationController/RunDigests.h"

#include "CCA/Ports/LoadBalancer.h"
#include "Core/Grid/Variables/BlockDigest.h"
#include "Core/Parallel/Communicator.h"
#include "Core/Util/Error.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace tessera {

namespace {

// The digest of the blocks of `label` this rank owns (replicas are counted
// once, by their owner), by global (row, column): independent of the layout.
std::uint64_t digestBlocks(const VarLabel* label, const OnDemandDataWarehouse& dw, int rank) {
  TESSERA_REQUIRE_THROWS(label->valueType() == "double", "digest of block variable '"
                                                             << label->name() << "' of "
                                                             << label->valueType());
  const BlockLayout& layout = dw.blockLayout(label);
  std::uint64_t digest = 0;
  for (int b : layout.blocksOwnedBy(rank)) {
    const auto data = dw.findBlock(label, b);
    TESSERA_REQUIRE_THROWS(data != nullptr, "state variable '"
                                                << label->name() << "' block " << b
                                                << " is missing at the end of the run");
    digest += blockDigest(*data);
  }
  return digest;
}

}  // namespace

std::vector<FieldDigest> digestFields(const Application& app, const Grid& grid,
                                      const OnDemandDataWarehouse& dw,
                                      const std::vector<int>& patchRanks,
                                      const Communicator& comm) {
  std::vector<FieldDigest> digests;
  for (const VarLabel* label : app.stateLabels()) {
    if (label->kind() == VarKind::Block) {
      digests.push_back(
          {label->name(), comm.allreduceSumWrapping(digestBlocks(label, dw, comm.rank()))});
      continue;
    }
    for (int l = 0; l < grid.numLevels(); ++l) {
      std::uint64_t local = 0;
      for (const Patch* patch : patchesOwnedBy(grid.level(l), patchRanks, comm.rank())) {
        const auto var = dw.findGridVariable(label, *patch);
        TESSERA_REQUIRE_THROWS(var != nullptr, "state variable '" << label->name()
                                                                  << "' is missing on " << *patch
                                                                  << " at the end of the run");
        local += var->digest(patch->interior());
      }
      digests.push_back({l == 0 ? label->name() : label->name() + "@level" + std::to_string(l),
                         comm.allreduceSumWrapping(local)});
    }
  }
  return digests;
}

std::vector<ReducedValue> reducedValues(std::vector<const VarLabel*> labels,
                                        const OnDemandDataWarehouse& dw) {
  std::sort(labels.begin(), labels.end(),
            [](const VarLabel* a, const VarLabel* b) { return a->name() < b->name(); });
  std::vector<ReducedValue> values;
  for (const VarLabel* label : labels) {
    std::vector<std::byte> bytes(label->elementBytes());
    if (!dw.reducedValue(label, bytes.data())) continue;
    const auto as = [&](auto typed) {
      std::memcpy(&typed, bytes.data(), std::min(bytes.size(), sizeof(typed)));
      return static_cast<double>(typed);
    };
    const std::string& type = label->valueType();
    const double value = type == "double"  ? as(0.0)
                         : type == "float" ? as(0.0f)
                         : type == "int"   ? as(0)
                         : type == "int64" ? as(std::int64_t{0})
                                           : std::numeric_limits<double>::quiet_NaN();
    values.push_back({label->name(), type, value});
  }
  return values;
}

}  // namespace tessera
