// ExecutionContext::stencilFor, the loop every stencil kernel runs through:
// tiled only for device tasks with tiling on, the same bits either way, and
// the same error (naming the task) when the inputs lack ghost layers.
#include <gtest/gtest.h>

#include "TestHelpers.h"

#include "CCA/Ports/ExecutionContext.h"

#include <Kokkos_Core.hpp>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera {
namespace {

using tessera::testing::contains;
using tessera::testing::errorOf;
using tessera::testing::messageOf;

// A value no two cells share.
double f(const IntVector& c) {
  return c.x + 100.0 * c.y + 10000.0 * c.z + 0.5;
}

// A 7-point stencil.
template <class A>
KOKKOS_INLINE_FUNCTION double sevenPoint(const A& a, int i, int j, int k) {
  return -0.75 * a(i, j, k) + 0.3 * (a(i - 1, j, k) + a(i + 1, j, k)) +
         0.2 * (a(i, j - 1, k) - a(i, j + 1, k)) + 0.1 * (a(i, j, k - 1) + a(i, j, k + 1));
}

// A stencil that reads more ghost layers than its inputs hold is an error
// naming the task, the same in the untiled loop (host mode, tiling off) and
// in the tiled one (device modes), instead of reading out of bounds.
struct OneInputCopy {
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, const StencilInputs<double, 1>& in,
                                         const StencilOutputs<double, 1>& out) const {
    out[0](i, j, k) = in[0](i - 2, j, k) + in[0](i + 2, j, k);
  }
};

std::string haloErrorOf(bool tiled,
                        ExecutionContext::Space space = ExecutionContext::Space::Device) {
  const std::string task = "wide stencil on patch 3";
  TilingOptions tiling;
  tiling.enabled = tiled;
  ExecutionContext exec(task, space, tiling);
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
  // A host task's stencil (Kokkos::Serial) runs untiled whatever the options.
  const std::string host = haloErrorOf(true, ExecutionContext::Space::Host);
  for (const std::string& message : {untiled, tiled, host}) {
    EXPECT_TRUE(contains(message, "wide stencil on patch 3")) << message;
    EXPECT_TRUE(contains(message, "2 ghost layers")) << message;
  }
  // Same text, apart from where it was raised.
  EXPECT_EQ(untiled.substr(0, untiled.find(" [")), tiled.substr(0, tiled.find(" [")));
  EXPECT_EQ(host.substr(0, host.find(" [")), tiled.substr(0, tiled.find(" [")));
}

TEST(ExecutionContextStencil, TilingFollowsTheOptionsWithTheSameBits) {
  const Box box({-2, -1, 0}, {5, 5, 3});  // 7 x 6 x 3
  const Box inputBox = box.grow(1);
  std::vector<double> input(static_cast<std::size_t>(inputBox.volume()));
  inputBox.forEachCell([&](const IntVector& c) {
    input[static_cast<std::size_t>(inputBox.linearIndex(c))] = f(c) * 0.37;
  });
  const StencilInputs<double, 1> in{{CellArray<const double>(input.data(), inputBox)}};
  const auto body = KOKKOS_LAMBDA(int i, int j, int k, const StencilInputs<double, 1>& a,
                                  const StencilOutputs<double, 1>& o) {
    o[0](i, j, k) = sevenPoint(a[0], i, j, k);
  };
  const auto run = [&](ExecutionContext& exec, std::vector<double>& output) {
    output.assign(static_cast<std::size_t>(box.volume()), -1.0);
    exec.stencilFor(box, 1, in, StencilOutputs<double, 1>{{CellArray<double>(output.data(), box)}},
                    body);
    exec.fence();
  };

  std::vector<double> untiled, hostSpace, chosen, explicitTile;
  const std::string plainName = "plain";
  ExecutionContext plain(plainName);
  run(plain, untiled);
  EXPECT_EQ(plain.tilesExecuted(), 0);
  EXPECT_EQ(plain.kernelsLaunched(), 1);
  EXPECT_EQ(plain.cellsVisited(), box.volume());

  TilingOptions tiling;
  tiling.enabled = true;
  tiling.scratchpadBytes = 1024;
  tiling.cacheBytes = 1024;
  const std::string hostName = "host";
  ExecutionContext host(hostName, ExecutionContext::Space::Host, tiling);
  run(host, hostSpace);
  EXPECT_EQ(host.tilesExecuted(), 0) << "host tasks never tile";

  const std::string chosenName = "chosen";
  ExecutionContext device(chosenName, ExecutionContext::Space::Device, tiling);
  run(device, chosen);
  const StencilFootprint footprint{1, 1, 1, sizeof(double)};
  // A device stages tiles that fit its scratchpad; on the host the tiles are
  // cache blocks, iterated in place (cacheBytes 1024: two rows of 7 cells).
  const IntVector tile = runsOnHost<Kokkos::DefaultExecutionSpace>
                             ? chooseHostTile(box.size(), footprint, tiling.cacheBytes,
                                              Kokkos::DefaultExecutionSpace().concurrency())
                             : *chooseTile(box.size(), footprint, 1024);
  const IntVector n = box.size();
  EXPECT_EQ(device.tilesExecuted(), ((n.x + tile.x - 1) / tile.x) * ((n.y + tile.y - 1) / tile.y) *
                                        ((n.z + tile.z - 1) / tile.z));
  EXPECT_GT(device.tilesExecuted(), 1);

  tiling.tile = IntVector{2, 4, 2};
  const std::string fixedName = "fixed";
  ExecutionContext fixed(fixedName, ExecutionContext::Space::Device, tiling);
  run(fixed, explicitTile);
  EXPECT_EQ(fixed.tilesExecuted(), 4 * 2 * 2);

  EXPECT_EQ(hostSpace, untiled);
  EXPECT_EQ(0, std::memcmp(chosen.data(), untiled.data(), untiled.size() * sizeof(double)));
  EXPECT_EQ(0, std::memcmp(explicitTile.data(), untiled.data(), untiled.size() * sizeof(double)));

  // An explicit tile larger than the box is clipped to it.
  tiling.tile = IntVector{50, 1, 50};
  tiling.scratchpadBytes = 1 << 20;
  const std::string clippedName = "clipped";
  ExecutionContext clipped(clippedName, ExecutionContext::Space::Device, tiling);
  std::vector<double> clippedOut;
  run(clipped, clippedOut);
  EXPECT_EQ(clipped.tilesExecuted(), 6);
  EXPECT_EQ(clippedOut, untiled);
}

TEST(ExecutionContextStencil, ScratchTooSmallIsAnInputError) {
  const Box box({0, 0, 0}, {4, 4, 4});
  std::vector<double> input(static_cast<std::size_t>(box.grow(1).volume()), 1.0);
  std::vector<double> output(static_cast<std::size_t>(box.volume()), 0.0);
  const StencilInputs<double, 1> in{{CellArray<const double>(input.data(), box.grow(1))}};
  const StencilOutputs<double, 1> out{{CellArray<double>(output.data(), box)}};
  const auto body = KOKKOS_LAMBDA(int i, int j, int k, const StencilInputs<double, 1>& a,
                                  const StencilOutputs<double, 1>& o) {
    o[0](i, j, k) = a[0](i, j, k);
  };

  TilingOptions tiling;
  tiling.enabled = true;
  tiling.scratchpadBytes = 4096;
  tiling.tile = IntVector{8, 8, 8};  // (10^3 + 8^3) * 8 bytes
  const std::string tooBigName = "Component::tooBig";
  ExecutionContext tooBig(tooBigName, ExecutionContext::Space::Device, tiling);
  const std::string message =
      messageOf<InputError>([&] { tooBig.stencilFor(box, 1, in, out, body); });
  EXPECT_TRUE(contains(message, "scheduler.tile")) << message;
  EXPECT_TRUE(contains(message, "Component::tooBig")) << message;
  EXPECT_TRUE(contains(message, "4096")) << message;

  tiling.tile.reset();
  tiling.scratchpadBytes = 70;  // one cell needs (27 + 1) * 8 = 224 bytes
  const std::string noCellName = "Component::noCell";
  ExecutionContext noCell(noCellName, ExecutionContext::Space::Device, tiling);
  const std::string none = messageOf<InputError>([&] { noCell.stencilFor(box, 1, in, out, body); });
  EXPECT_TRUE(contains(none, "cannot hold even one cell")) << none;
  EXPECT_TRUE(contains(none, "224")) << none;
  EXPECT_EQ(output, std::vector<double>(output.size(), 0.0)) << "nothing ran";
}

}  // namespace
}  // namespace tessera
