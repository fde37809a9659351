// The async device runner's control thread, where it can go wrong on 1-3
// ranks: host tasks (Kokkos::Serial, one scratch buffer that every
// parallel_reduce resizes without a lock) never run side by side on the two
// threads, and a control thread that cannot start fails the execution
// cleanly, with the next execution asking for it again. Run under
// ThreadSanitizer too (label scheduler).
#include <gtest/gtest.h>

#include "TestHelpers.h"

#include "CCA/Components/Schedulers/DeviceRunner.h"
#include "CCA/Components/Schedulers/ExecutionState.h"
#include "CCA/Components/Schedulers/GraphScheduler.h"
#include "CCA/Components/Schedulers/MessageBuffers.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Ports/DataWarehouse.h"
#include "CCA/Ports/ExecutionContext.h"
#include "Core/Grid/Grid.h"
#include "Core/Parallel/Communicator.h"

#include <Kokkos_Core.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace tessera {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class DeviceRunnerTest : public ::testing::Test {
 protected:
  DeviceRunnerTest()
      : m_world(Communicator::borrow(MPI_COMM_WORLD)),
        m_grid(testing::makeGrid({8 * m_world.size(), 8, 8}, {2 * m_world.size(), 1, 1})),
        m_ranks(testing::roundRobin(m_grid.numPatches(), m_world.size())) {
    m_options.watchdogSeconds = 60.0;
    // Auto would leave the control thread idle where the kernels' threads
    // take every core; the shared-core path is the one every machine has.
    m_options.controlThread = SchedulerOptions::ControlThread::Always;
  }
  const Level& level() const { return m_grid.level(0); }
  int localPatches() const {
    int mine = 0;
    for (int owner : m_ranks) mine += owner == m_world.rank();
    return mine;
  }

  Communicator m_world;
  Grid m_grid;
  std::vector<int> m_ranks;
  SchedulerOptions m_options;
  VarLabelRegistry m_labels;
};

// The control thread takes a reducing host task while the first kernel
// runs and holds it until a second host task starts beside it, or, once
// every kernel of this rank has ended, for 0.3 s more (the device's thread
// would take the next host task within that time if it were allowed to;
// a bounded wait, not a timed assertion). Every reduction must also be right.
TEST_F(DeviceRunnerTest, HostTasksNeverRunSideBySideOnKokkosSerial) {
  const auto scheduler = makeScheduler("async", m_world, m_options);
  const VarLabel* x = m_labels.create<CCVariable<double>>("x");
  std::vector<const VarLabel*> sums;
  for (int t = 0; t < 4; ++t)
    sums.push_back(m_labels.create<CCVariable<double>>("sum" + std::to_string(t)));
  std::atomic<int> running{0}, most{0}, hostStarted{0}, kernelsEnded{0}, wrongSums{0};
  const int kernels = localPatches();
  scheduler->beginGraph("serial users");
  scheduler->addTask(
      std::move(Task("kernel",
                     [&, x](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                            ExecutionContext& exec) {
                       const CellArray<double> a = dw.allocateAndPut<double>(x, patch).array();
                       exec.parallelFor(patch.interior(),
                                        KOKKOS_LAMBDA(int i, int j, int k) { a(i, j, k) = i + j + k; });
                       const auto deadline = Clock::now() + 20s;
                       while (hostStarted.load() == 0 && Clock::now() < deadline)
                         std::this_thread::yield();
                       ++kernelsEnded;
                     })
                    .computesVar(x)),
      level().eachPatch());
  for (const VarLabel* sum : sums) {
    scheduler->addTask(
        std::move(Task("reduce " + sum->name(),
                       [&, sum](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                                ExecutionContext& exec) {
                         dw.allocateAndPut<double>(sum, patch);
                         most = std::max(most.load(), ++running);
                         const bool first = hostStarted++ == 0;
                         double total = 0.0;
                         exec.parallelReduce(
                             patch.interior(),
                             KOKKOS_LAMBDA(int i, int j, int k, double& s) { s += i + j + k; },
                             Kokkos::Sum<double>(total));
                         double expected = 0.0;
                         patch.interior().forEachCell(
                             [&](const IntVector& c) { expected += c.x + c.y + c.z; });
                         wrongSums += total != expected;
                         if (first) {
                           const auto deadline = Clock::now() + 20s;
                           auto quietSince = Clock::time_point::max();
                           while (running.load() < 2 && Clock::now() < deadline) {
                             if (kernelsEnded.load() == kernels && quietSince == Clock::time_point::max())
                               quietSince = Clock::now();
                             if (Clock::now() - quietSince > 300ms) break;
                             std::this_thread::yield();
                           }
                         }
                         --running;
                       },
                       Task::Kind::Host)
                      .computesVar(sum)),
        level().eachPatch());
  }
  const CompiledGraph graph = scheduler->compile(m_grid, m_ranks);
  OnDemandDataWarehouse oldDW("OldDW", 0, 0.0, 0.0);
  OnDemandDataWarehouse newDW("NewDW", 1, 0.1, 0.1);
  ASSERT_NO_THROW(scheduler->execute(graph, oldDW, newDW));
  EXPECT_EQ(most.load(), 1) << "two host tasks ran at once on Kokkos::Serial";
  EXPECT_EQ(hostStarted.load(), 4 * kernels);
  EXPECT_EQ(wrongSums.load(), 0);
}

// std::thread can throw (no resources): the execution fails with that
// error and lets go of its state; the runner asks again next time.
TEST_F(DeviceRunnerTest, AControlThreadThatCannotStartFailsTheExecutionCleanly) {
  const auto recorder = makeScheduler("host", m_world, m_options);
  const VarLabel* x = m_labels.create<CCVariable<double>>("x");
  const VarLabel* y = m_labels.create<CCVariable<double>>("y");
  recorder->beginGraph("helped");
  recorder->addTask(std::move(Task("kernel",
                                   [x](const Patch& patch, const DataWarehouse&,
                                       DataWarehouse& dw, ExecutionContext& exec) {
                                     const CellArray<double> a =
                                         dw.allocateAndPut<double>(x, patch).array();
                                     exec.parallelFor(
                                         patch.interior(),
                                         KOKKOS_LAMBDA(int i, int j, int k) { a(i, j, k) = i + j + k; });
                                   })
                                  .computesVar(x)),
                    level().eachPatch());
  recorder->addTask(std::move(Task("side",
                                   [y](const Patch& patch, const DataWarehouse&,
                                       DataWarehouse& dw, ExecutionContext&) {
                                     dw.allocateAndPut<double>(y, patch);
                                   },
                                   Task::Kind::Host)
                                  .computesVar(y)),
                    level().eachPatch());
  const CompiledGraph graph = recorder->compile(m_grid, m_ranks);
  DeviceRunner runner(m_options, m_world.rank(), DeviceRunner::Offload::Async,
                      DeviceRunner::Help::OnSharedCore);
  MessageBuffers buffers;
  SchedulerStats stats, deviceStats, helpStats;
  int asked = 0;
  {
    OnDemandDataWarehouse oldDW("OldDW", 0, 0.0, 0.0);
    OnDemandDataWarehouse newDW("NewDW", 1, 0.1, 0.1);
    ExecutionState state(graph, oldDW, newDW, m_world, stats, ExecutionTags{0, 0}, buffers);
    bool threw = false;
    try {
      runner.run(state, deviceStats, helpStats, nullptr, nullptr, [&] {
        ++asked;
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                                "no thread");
      });
    } catch (const std::system_error& e) {
      threw = testing::contains(e.what(), "no thread");
      state.abandon(std::current_exception());
    }
    EXPECT_TRUE(threw) << "the failure to start is the execution's error";
  }
  EXPECT_EQ(asked, localPatches() > 0 ? 1 : 0);
  // The next execution asks again, gets its control thread and completes.
  std::thread control;
  int askedAgain = 0;
  {
    OnDemandDataWarehouse oldDW("OldDW", 1, 0.1, 0.1);
    OnDemandDataWarehouse newDW("NewDW", 2, 0.2, 0.1);
    ExecutionState state(graph, oldDW, newDW, m_world, stats, ExecutionTags{1, 100}, buffers);
    EXPECT_NO_THROW(runner.run(state, deviceStats, helpStats, nullptr, nullptr, [&] {
      ++askedAgain;
      control = std::thread([&runner] { runner.help(); });
    }));
    for (const Patch& patch : level().patches()) {
      if (m_ranks[static_cast<std::size_t>(patch.id())] != m_world.rank()) continue;
      EXPECT_NE(newDW.findGridVariable(x, patch), nullptr);
      EXPECT_NE(newDW.findGridVariable(y, patch), nullptr);
    }
  }
  runner.stop();
  if (control.joinable()) control.join();
  EXPECT_EQ(askedAgain, localPatches() > 0 ? 1 : 0);
}

}  // namespace
}  // namespace tessera
