// A stencil that reads more ghost layers than its inputs hold is an error
// naming the task, the same in the untiled loop (host mode, tiling off) and
// in the tiled one (device modes), instead of reading out of bounds.
#include "CCA/Ports/ExecutionContext.h"
#include "TestHelpers.h"

#include <gtest/gtest.h>

#include <vector>

namespace tessera {
namespace {

using testing::contains;
using testing::errorOf;

struct OneInputCopy {
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, const StencilInputs<double, 1>& in,
                                         const StencilOutputs<double, 1>& out) const {
    out[0](i, j, k) = in[0](i - 2, j, k) + in[0](i + 2, j, k);
  }
};

std::string haloErrorOf(bool tiled) {
  const std::string task = "wide stencil on patch 3";
  TilingOptions tiling;
  tiling.enabled = tiled;
  ExecutionContext exec(task, ExecutionContext::Space::Device, tiling);
  const Box interior({0, 0, 0}, {8, 8, 8});
  const Box oneLayer = interior.grow(1);
  std::vector<double> input(static_cast<std::size_t>(oneLayer.volume()), 1.0);
  std::vector<double> output(static_cast<std::size_t>(interior.volume()), 0.0);
  const StencilInputs<double, 1> in{CellArray<const double>(input.data(), oneLayer)};
  const StencilOutputs<double, 1> out{CellArray<double>(output.data(), interior)};
  return errorOf([&] { exec.stencilFor(interior, 2, in, out, OneInputCopy{}); });
}

TEST(ExecutionContextStencil, TooFewGhostLayersIsTheSameErrorTiledOrNot) {
  const std::string untiled = haloErrorOf(false);
  const std::string tiled = haloErrorOf(true);
  for (const std::string& message : {untiled, tiled}) {
    EXPECT_TRUE(contains(message, "wide stencil on patch 3")) << message;
    EXPECT_TRUE(contains(message, "2 ghost layers")) << message;
  }
  // Same text, apart from where it was raised.
  EXPECT_EQ(untiled.substr(0, untiled.find(" [")), tiled.substr(0, tiled.find(" [")));
}

}  // namespace
}  // namespace tessera
