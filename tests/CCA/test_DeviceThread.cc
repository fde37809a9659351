// Unit tests of the pieces under the device schedulers: DeviceThread (the
// calling thread serves, a std::thread controls), Watchdog and
// ExecutionContext::stencilFor.
#include <gtest/gtest.h>

#include "TestHelpers.h"

#include "CCA/Components/Schedulers/DeviceThread.h"
#include "CCA/Components/Schedulers/Watchdog.h"
#include "CCA/Ports/ExecutionContext.h"
#include "Core/Util/Timer.h"

#include <Kokkos_Core.hpp>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace tessera {
namespace {

using namespace std::chrono_literals;

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

// ---------------------------------------------------------------------------
// DeviceThread: this (the Kokkos) thread serves, a std::thread controls.

// Collects finished tasks until `count` have been or `limit` passes; poll() may throw.
bool collect(DeviceThread& device, std::vector<int>& finished, std::size_t count,
             std::chrono::seconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (finished.size() < count && std::chrono::steady_clock::now() < deadline) {
    if (!device.poll(finished)) device.waitFor(std::chrono::microseconds(1000));
  }
  return finished.size() >= count;
}

// Runs `control` on a new thread while this thread serves the device.
void withControlThread(DeviceThread& device, const std::function<void()>& control,
                       std::string& failure) {
  std::thread thread([&] {
    try {
      control();
    } catch (const std::exception& e) {
      failure = e.what();
    }
    device.close();
  });
  device.serve();
  thread.join();
}

TEST(DeviceThread, RunsQueuedTasksOnTheServingThreadInOrder) {
  DeviceThread device;
  const std::thread::id kokkosThread = std::this_thread::get_id();
  int onServingThread = 0;
  double sum = 0.0;
  std::vector<int> ran;
  std::atomic<bool> release{false};
  std::vector<int> finished;
  bool polledEarly = true;
  int inFlightQueued = 0;
  double runnerSeconds = 0.0;  // as the tasks themselves measure it
  std::string failure;
  withControlThread(
      device,
      [&] {
        device.setRunner([&](int id) {
          const Timer running;
          onServingThread += std::this_thread::get_id() == kokkosThread;
          while (!release.load())
            std::this_thread::yield();
          // A default-initialised View and a kernel: only this thread may.
          Kokkos::View<double*> values("values", 100);
          double partial = 0.0;
          Kokkos::parallel_reduce(
              "DeviceThreadTest", 100,
              KOKKOS_LAMBDA(int i, double& acc) { acc += values(i) + i * id; }, partial);
          sum += partial;
          ran.push_back(id);
          std::this_thread::sleep_for(2ms);
          runnerSeconds += running.seconds();
        });
        for (int id : {3, 1, 2, 0})
          device.submit(id);
        inFlightQueued = device.inFlight();
        // Nothing can finish before the first task is released.
        std::this_thread::sleep_for(1ms);
        polledEarly = device.poll(finished);
        release = true;
        EXPECT_TRUE(collect(device, finished, 4));
        EXPECT_FALSE(device.busy());
        EXPECT_FALSE(device.poll(finished)) << "a completion is reported once";
      },
      failure);
  EXPECT_EQ(failure, "");
  EXPECT_EQ(inFlightQueued, 4);
  EXPECT_FALSE(polledEarly);
  EXPECT_EQ(onServingThread, 4);
  EXPECT_EQ(sum, (0 + 1 + 2 + 3) * 4950.0);
  EXPECT_EQ(ran, (std::vector<int>{3, 1, 2, 0})) << "in the order submitted";
  EXPECT_EQ(finished, (std::vector<int>{3, 1, 2, 0}));
  // The device counts as busy at least while its tasks ran.
  EXPECT_GE(device.busySeconds(), runnerSeconds);
  EXPECT_GT(runnerSeconds, 0.0);
}

TEST(DeviceThread, PollRethrowsAndDropsTheTasksBehindTheFailedOne) {
  DeviceThread device;
  std::string thrown, failure;
  std::vector<int> ran, finished;
  int inFlightAfter = -1;
  std::atomic<bool> release{false};
  withControlThread(
      device,
      [&] {
        device.setRunner([&](int id) {
          while (!release.load())
            std::this_thread::yield();
          if (id == 1) throw std::logic_error("kernel failed on the device");
          ran.push_back(id);
        });
        for (int id : {0, 1, 2})
          device.submit(id);
        release = true;
        try {
          collect(device, finished, 3, 10s);
        } catch (const std::logic_error& e) {
          thrown = e.what();
        }
        inFlightAfter = device.inFlight();
        device.submit(3);
        EXPECT_TRUE(collect(device, finished, finished.size() + 1));
      },
      failure);
  EXPECT_EQ(failure, "");
  EXPECT_EQ(thrown, "kernel failed on the device");
  EXPECT_EQ(inFlightAfter, 0);
  EXPECT_EQ(ran, (std::vector<int>{0, 3})) << "task 2 was dropped, and the device runs on";
  EXPECT_EQ(finished, (std::vector<int>{0, 3}));
}

// Tasks submitted before the control thread sees a failure can fail too
// (every patch's instance of a task that throws): poll() reports the first
// one, and none of them stays counted in flight, or drain() would wait for
// it forever (a hang seen in the async scheduler before this was counted).
TEST(DeviceThread, SeveralFailuresBeforeAPollAreAllCollected) {
  DeviceThread device;
  std::string thrown, failure;
  std::atomic<int> attempted{0};
  int inFlightAfter = -1;
  withControlThread(
      device,
      [&] {
        device.setRunner([&](int id) {
          ++attempted;
          throw std::runtime_error("boom on patch " + std::to_string(id));
        });
        device.submit(0);
        while (!device.waitFor(std::chrono::microseconds(1000))) {
        }
        device.submit(1);
        while (attempted.load() < 2)
          std::this_thread::yield();
        std::this_thread::sleep_for(20ms);  // the second failure is recorded
        try {
          std::vector<int> finished;
          device.poll(finished);
        } catch (const std::runtime_error& e) {
          thrown = e.what();
        }
        inFlightAfter = device.inFlight();
        if (inFlightAfter == 0) device.drain();  // would never return otherwise
      },
      failure);
  EXPECT_EQ(failure, "");
  EXPECT_EQ(attempted.load(), 2);
  EXPECT_EQ(thrown, "boom on patch 0") << "the first failure is the one reported";
  EXPECT_EQ(inFlightAfter, 0);
}

// What a control thread does when its graph fails: the running task
// finishes, the queued ones never run, and the device is clean for the next.
TEST(DeviceThread, DrainWaitsForTheRunningTaskAndDropsTheQueue) {
  DeviceThread device;
  std::vector<int> ran, finished;
  std::atomic<bool> started{false};
  int inFlightAfter = -1;
  bool pollAfter = true;
  std::string failure;
  withControlThread(
      device,
      [&] {
        device.setRunner([&](int id) {
          started = true;
          std::this_thread::sleep_for(20ms);
          ran.push_back(id);
        });
        for (int id : {0, 1, 2})
          device.submit(id);
        while (!started.load())
          std::this_thread::yield();
        device.drain();
        inFlightAfter = device.inFlight();
        pollAfter = device.poll(finished);
        device.setRunner([&](int id) { ran.push_back(10 + id); });
        device.submit(3);
        EXPECT_TRUE(collect(device, finished, 1));
      },
      failure);
  EXPECT_EQ(failure, "");
  EXPECT_EQ(inFlightAfter, 0);
  EXPECT_FALSE(pollAfter) << "drained tasks are not reported";
  EXPECT_EQ(ran, (std::vector<int>{0, 13}));
  EXPECT_EQ(finished, (std::vector<int>{3}));
}

TEST(DeviceThread, SubmitWithoutARunnerOrAfterCloseThrows) {
  DeviceThread device;
  std::string noRunner, failure;
  withControlThread(
      device, [&] { noRunner = messageOf<Error>([&] { device.submit(0); }); }, failure);
  EXPECT_EQ(failure, "");
  EXPECT_TRUE(contains(noRunner, "no runner")) << noRunner;
  device.setRunner([](int) {});
  EXPECT_TRUE(contains(messageOf<Error>([&] { device.submit(0); }), "closed"));
}

TEST(DeviceThread, CloseWhileIdleEndsServe) {
  DeviceThread device;
  std::string failure;
  withControlThread(
      device, [] { std::this_thread::sleep_for(2ms); }, failure);
  EXPECT_EQ(failure, "");
  EXPECT_EQ(device.busySeconds(), 0.0);
}

// Closing while tasks are queued still runs them before serve() returns.
TEST(DeviceThread, CloseRunsTheQueuedTasksFirst) {
  DeviceThread device;
  std::vector<int> ran;
  std::string failure;
  withControlThread(
      device,
      [&] {
        device.setRunner([&](int id) { ran.push_back(id); });
        device.submit(5);
        device.submit(6);
      },
      failure);
  EXPECT_EQ(failure, "");
  EXPECT_EQ(ran, (std::vector<int>{5, 6}));
}

// Only the expiry is timed (a sleep longer than the limit); whatever is
// asserted not to have expired has a limit no stall of the machine reaches.
TEST(Watchdog, ExpiresOnlyWithoutProgress) {
  Watchdog never(0.0);
  Watchdog patient(3600.0);
  Watchdog quick(0.05);
  EXPECT_FALSE(patient.expired());
  std::this_thread::sleep_for(80ms);
  EXPECT_TRUE(quick.expired());
  EXPECT_FALSE(never.expired());
  EXPECT_FALSE(patient.expired());
  patient.progressed();
  EXPECT_FALSE(patient.expired());
  EXPECT_EQ(quick.limitSeconds(), 0.05);
}

// ---------------------------------------------------------------------------
// ExecutionContext::stencilFor: tiled only for device tasks with tiling on.

// A stencil that reads more ghost layers than its inputs hold is an error
// naming the task, the same in the untiled loop (host mode, tiling off) and
// in the tiled one (device modes), instead of reading out of bounds.
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
  const IntVector tile =
      runsOnHost<Kokkos::DefaultExecutionSpace>
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
