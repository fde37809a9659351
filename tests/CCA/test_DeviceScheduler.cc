// The device scheduler layer on 1-3 ranks: the host, sync and async modes run
// one graph (old-warehouse ghosts two deep, a new-warehouse chain with a
// modifier, sum and min reductions, a host task) to the same bits, which are
// also the bits of a serial reference; tiles and device time are counted
// where they should be; an exception in a device task leaves execute() as an
// exception; the watchdog names the message a rank waits for and expires
// only without progress.
#include <gtest/gtest.h>

#include <regex>

#include "TestHelpers.h"

#include "CCA/Components/Schedulers/DeviceScheduler.h"
#include "CCA/Components/Schedulers/GraphScheduler.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Components/Schedulers/Watchdog.h"
#include "CCA/Ports/DataWarehouse.h"
#include "CCA/Ports/ExecutionContext.h"
#include "Core/Grid/Grid.h"
#include "Core/Parallel/Communicator.h"
#include "Core/Parallel/CoreBudget.h"
#include "Core/Util/Trace.h"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <sched.h>
#include <unistd.h>

namespace tessera {
namespace {

using namespace std::chrono_literals;

// ---------------------------------------------------------------------------
// The formulas, shared by the kernels and the serial reference so that both
// round identically. `a` is anything indexed by (i, j, k).

// A value no two cells share.
double f(const IntVector& c) {
  return c.x + 100.0 * c.y + 10000.0 * c.z + 0.5;
}

// Two layers deep, with an edge and a corner neighbour.
template <class A>
KOKKOS_INLINE_FUNCTION double wide(const A& a, int i, int j, int k) {
  return 0.5 * a(i, j, k) + 0.125 * (a(i - 2, j, k) - a(i + 2, j, k)) +
         0.0625 * (a(i, j - 2, k) + a(i, j + 1, k)) - 0.03125 * (a(i, j, k - 2) - a(i, j, k + 2)) +
         0.01 * a(i - 1, j - 1, k) + 0.02 * a(i + 1, j + 1, k + 1);
}

KOKKOS_INLINE_FUNCTION double modified(double v) {
  return 0.5 * v + 1.0;
}

// A 7-point stencil.
template <class A>
KOKKOS_INLINE_FUNCTION double sevenPoint(const A& a, int i, int j, int k) {
  return -0.75 * a(i, j, k) + 0.3 * (a(i - 1, j, k) + a(i + 1, j, k)) +
         0.2 * (a(i, j - 1, k) - a(i, j + 1, k)) + 0.1 * (a(i, j, k - 1) + a(i, j, k + 1));
}

template <class A>
KOKKOS_INLINE_FUNCTION double hostFormula(const A& a, int i, int j, int k, double total,
                                          double smallest) {
  return a(i + 1, j, k) - a(i, j - 1, k) + 1e-6 * total + smallest;
}

// ---------------------------------------------------------------------------

std::vector<int> roundRobin(int numPatches, int numRanks) {
  std::vector<int> ranks;
  for (int p = 0; p < numPatches; ++p)
    ranks.push_back(p % numRanks);
  return ranks;
}

Grid periodicGrid() {
  LevelSpec spec;
  spec.resolution = {12, 10, 8};
  spec.patches = {3, 2, 2};  // 4 x 5 x 4 cells each
  spec.periodic = {true, true, true};
  Grid grid;
  grid.addLevel(spec);
  return grid;
}

using tessera::testing::contains;
using tessera::testing::messageOf;

struct Labels {
  VarLabelRegistry registry;
  const VarLabel* u = registry.create<CCVariable<double>>("u");
  const VarLabel* v = registry.create<CCVariable<double>>("v");
  const VarLabel* w = registry.create<CCVariable<double>>("w");
  const VarLabel* z = registry.create<CCVariable<double>>("z");
  const VarLabel* x = registry.create<CCVariable<double>>("x");
  const VarLabel* y = registry.create<CCVariable<double>>("y");
  const VarLabel* total = registry.create<SumVariable<double>>("total");
  const VarLabel* smallest = registry.create<MinVariable<double>>("smallest");
};

// Which threads ran the tasks: device tasks belong on the thread that
// initialised Kokkos (this one), host tasks on the control thread.
struct ThreadLog {
  std::thread::id kokkosThread = std::this_thread::get_id();
  std::atomic<int> deviceOffKokkosThread{0};
  std::atomic<int> hostOnKokkosThread{0};
  std::atomic<int> hostTasks{0};
  void device() { deviceOffKokkosThread += std::this_thread::get_id() != kokkosThread; }
  void host() {
    hostOnKokkosThread += std::this_thread::get_id() == kokkosThread;
    ++hostTasks;
  }
};

// u = f over every patch, with a device kernel.
void scheduleInit(GraphScheduler& scheduler, const Level& level, const Labels& l,
                  ThreadLog& threads) {
  const VarLabel* u = l.u;
  scheduler.addTask(std::move(Task("init",
                                   [u, &threads](const Patch& patch, const DataWarehouse&,
                                                 DataWarehouse& dw, ExecutionContext& exec) {
                                     threads.device();
                                     const CellArray<double> a =
                                         dw.allocateAndPut<double>(u, patch).array();
                                     exec.parallelFor(
                                         patch.extendedBox(), KOKKOS_LAMBDA(int i, int j, int k) {
                                           a(i, j, k) = i + 100.0 * j + 10000.0 * k + 0.5;
                                         });
                                   })
                                  .computesVar(u)),
                    level.eachPatch());
}

// The step: added out of order, so only the declared data orders it.
void scheduleStep(GraphScheduler& scheduler, const Level& level, const Labels& l,
                  ThreadLog& threads) {
  const Labels* labels = &l;
  scheduler.addTask(
      std::move(Task(
                    "hostTask",
                    [labels, &threads](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                                       ExecutionContext& exec) {
                      threads.host();
                      const double total =
                          dw.getReduction<SumVariable<double>>(labels->total).get();
                      const double smallest =
                          dw.getReduction<MinVariable<double>>(labels->smallest).get();
                      const CellArray<const double> w =
                          dw.get<double>(labels->w, patch, Ghost::AroundCells, 1).array();
                      const CellArray<double> z =
                          dw.allocateAndPut<double>(labels->z, patch).array();
                      // A host task's stencil runs untiled on Kokkos::Serial.
                      exec.stencilFor(
                          patch.interior(), 1, StencilInputs<double, 1>{{w}},
                          StencilOutputs<double, 1>{{z}},
                          KOKKOS_LAMBDA(int i, int j, int k, const StencilInputs<double, 1>& in,
                                        const StencilOutputs<double, 1>& out) {
                            out[0](i, j, k) = hostFormula(in[0], i, j, k, total, smallest);
                          });
                    },
                    Task::Kind::Host)
                    .requiresVar(Task::NewDW, l.total)
                    .requiresVar(Task::NewDW, l.smallest)
                    .requiresVar(Task::NewDW, l.w, Ghost::AroundCells, 1)
                    .computesVar(l.z)),
      level.eachPatch());
  scheduler.addTask(
      std::move(Task("reduce",
                     [labels, &threads](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                                        ExecutionContext& exec) {
                       threads.device();
                       const ConstCCVariable<double> w = dw.get<double>(labels->w, patch);
                       double sum = 0.0;
                       patch.interior().forEachCell([&](const IntVector& c) { sum += w(c); });
                       const CellArray<const double> a = w.array();
                       double smallest = 0.0;
                       exec.parallelReduce(
                           patch.interior(),
                           KOKKOS_LAMBDA(int i, int j, int k, double& m) {
                             if (a(i, j, k) < m) m = a(i, j, k);
                           },
                           Kokkos::Min<double>(smallest));
                       dw.put(SumVariable<double>(sum), labels->total, patch);
                       dw.put(MinVariable<double>(smallest), labels->smallest, patch);
                     })
                    .requiresVar(Task::NewDW, l.w)
                    .computesVar(l.total)
                    .computesVar(l.smallest)),
      level.eachPatch());
  scheduler.addTask(
      std::move(Task("smooth",
                     [labels, &threads](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                                        ExecutionContext& exec) {
                       threads.device();
                       const CellArray<const double> v =
                           dw.get<double>(labels->v, patch, Ghost::AroundCells, 1).array();
                       const CellArray<double> w =
                           dw.allocateAndPut<double>(labels->w, patch).array();
                       exec.stencilFor(
                           patch.interior(), 1, StencilInputs<double, 1>{{v}},
                           StencilOutputs<double, 1>{{w}},
                           KOKKOS_LAMBDA(int i, int j, int k, const StencilInputs<double, 1>& in,
                                         const StencilOutputs<double, 1>& out) {
                             out[0](i, j, k) = sevenPoint(in[0], i, j, k);
                           });
                     })
                    .requiresVar(Task::NewDW, l.v, Ghost::AroundCells, 1)
                    .computesVar(l.w)),
      level.eachPatch());
  scheduler.addTask(std::move(Task("modify",
                                   [labels, &threads](const Patch& patch, const DataWarehouse&,
                                                      DataWarehouse& dw, ExecutionContext& exec) {
                                     threads.device();
                                     const CellArray<double> v =
                                         dw.getModifiable<double>(labels->v, patch).array();
                                     exec.parallelFor(
                                         patch.interior(), KOKKOS_LAMBDA(int i, int j, int k) {
                                           v(i, j, k) = modified(v(i, j, k));
                                         });
                                   })
                                  .modifiesVar(l.v)),
                    level.eachPatch());
  scheduler.addTask(
      std::move(Task("wide",
                     [labels, &threads](const Patch& patch, const DataWarehouse& oldDW,
                                        DataWarehouse& dw, ExecutionContext& exec) {
                       threads.device();
                       const CellArray<const double> u =
                           oldDW.get<double>(labels->u, patch, Ghost::AroundCells, 2).array();
                       const CellArray<double> v =
                           dw.allocateAndPut<double>(labels->v, patch).array();
                       exec.stencilFor(
                           patch.interior(), 2, StencilInputs<double, 1>{{u}},
                           StencilOutputs<double, 1>{{v}},
                           KOKKOS_LAMBDA(int i, int j, int k, const StencilInputs<double, 1>& in,
                                         const StencilOutputs<double, 1>& out) {
                             out[0](i, j, k) = wide(in[0], i, j, k);
                           });
                     })
                    .requiresVar(Task::OldDW, l.u, Ghost::AroundCells, 2)
                    .computesVar(l.v)),
      level.eachPatch());
}

// The step computed serially over the whole (periodic) level.
struct Reference {
  Box cells;
  std::vector<double> v, w, z;
  double total = 0.0;
  double smallest = 0.0;

  explicit Reference(const Level& level) : cells(level.cellBox()) {
    const IntVector n = level.resolution();
    const auto wrap = [n](int i, int j, int k) {
      return IntVector{((i % n.x) + n.x) % n.x, ((j % n.y) + n.y) % n.y, ((k % n.z) + n.z) % n.z};
    };
    const auto field = [&](const std::vector<double>& data) {
      return [&data, wrap, this](int i, int j, int k) {
        return data[static_cast<std::size_t>(cells.linearIndex(wrap(i, j, k)))];
      };
    };
    const auto u = [wrap](int i, int j, int k) { return f(wrap(i, j, k)); };
    const std::size_t size = static_cast<std::size_t>(cells.volume());
    v.resize(size);
    w.resize(size);
    z.resize(size);
    cells.forEachCell([&](const IntVector& c) { v[index(c)] = modified(wide(u, c.x, c.y, c.z)); });
    const auto vAt = field(v);
    cells.forEachCell([&](const IntVector& c) { w[index(c)] = sevenPoint(vAt, c.x, c.y, c.z); });
    total = SumOp<double>::identity();
    smallest = MinOp<double>::identity();
    for (const Patch& patch : level.patches()) {  // in id order, like the runtime
      double sum = 0.0;
      patch.interior().forEachCell([&](const IntVector& c) { sum += w[index(c)]; });
      total += sum;
    }
    for (double value : w)
      smallest = std::min(smallest, value);
    const auto wAt = field(w);
    cells.forEachCell([&](const IntVector& c) {
      z[index(c)] = hostFormula(wAt, c.x, c.y, c.z, total, smallest);
    });
  }
  std::size_t index(const IntVector& c) const {
    return static_cast<std::size_t>(cells.linearIndex(c));
  }
};

bool sameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

const char* const kModes[] = {"host", "sync", "async"};

class DeviceSchedulerTest : public ::testing::Test {
 protected:
  DeviceSchedulerTest() : m_grid(periodicGrid()) {
    m_ranks = roundRobin(m_grid.numPatches(), m_world.size());
  }
  const Level& level() const { return m_grid.level(0); }
  std::int64_t globalSum(std::int64_t local) const { return m_world.allreduceSum(local); }
  std::vector<const Patch*> localPatches() const {
    std::vector<const Patch*> mine;
    for (const Patch& patch : level().patches())
      if (m_ranks[static_cast<std::size_t>(patch.id())] == m_world.rank()) mine.push_back(&patch);
    return mine;
  }

  // Runs the initialisation graph into a warehouse that then turns old.
  std::unique_ptr<OnDemandDataWarehouse> initialise(GraphScheduler& scheduler, const Labels& l,
                                                    ThreadLog& threads) {
    scheduler.beginGraph("init");
    scheduleInit(scheduler, level(), l, threads);
    auto oldDW = std::make_unique<OnDemandDataWarehouse>("NewDW", 0, 0.0, 0.0);
    OnDemandDataWarehouse empty("OldDW", -1, 0.0, 0.0);
    scheduler.execute(scheduler.compile(m_grid, m_ranks), empty, *oldDW);
    oldDW->setRole("OldDW");
    return oldDW;
  }

  // Every rank checks its own patches against the serial reference; returns
  // the number of wrong values on this rank.
  std::int64_t wrongValues(const OnDemandDataWarehouse& newDW, const Labels& l,
                           const Reference& ref) const {
    std::int64_t wrong = 0;
    for (const Patch* patch : localPatches()) {
      const ConstCCVariable<double> v = newDW.get<double>(l.v, *patch);
      const ConstCCVariable<double> w = newDW.get<double>(l.w, *patch);
      const ConstCCVariable<double> z = newDW.get<double>(l.z, *patch);
      patch->interior().forEachCell([&](const IntVector& c) {
        wrong += !sameBits(v(c), ref.v[ref.index(c)]);
        wrong += !sameBits(w(c), ref.w[ref.index(c)]);
        wrong += !sameBits(z(c), ref.z[ref.index(c)]);
      });
    }
    wrong += !sameBits(newDW.getReduction<SumVariable<double>>(l.total).get(), ref.total);
    wrong += !sameBits(newDW.getReduction<MinVariable<double>>(l.smallest).get(), ref.smallest);
    return wrong;
  }

  Communicator m_world = Communicator::borrow(MPI_COMM_WORLD);
  Grid m_grid;
  std::vector<int> m_ranks;
};

// What one run of the step graph left behind on this rank.
struct StepResult {
  std::vector<double> values;  // v, w, z over each local patch's interior, patches in id order
  double total = 0.0;
  double smallest = 0.0;
  SchedulerStats step;  // the step graph alone
  SchedulerStats all;   // init and step
  std::int64_t wrong = 0;
  int deviceOffKokkosThread = 0;
  int hostOnKokkosThread = 0;
  int hostTasks = 0;
};

TEST_F(DeviceSchedulerTest, EveryModeGivesTheSameCorrectBits) {
  const Labels l;
  const Reference ref(level());
  const auto run = [&](const std::string& mode, const SchedulerOptions& options) {
    ThreadLog threads;
    const auto scheduler = makeScheduler(mode, m_world, options);
    EXPECT_EQ(scheduler->modeName(), mode);
    const auto oldDW = initialise(*scheduler, l, threads);
    scheduler->beginGraph("step");
    scheduleStep(*scheduler, level(), l, threads);
    const CompiledGraph graph = scheduler->compile(m_grid, m_ranks);
    const SchedulerStats before = scheduler->stats();
    OnDemandDataWarehouse newDW("NewDW", 1, 0.1, 0.1);
    scheduler->execute(graph, *oldDW, newDW);
    StepResult result;
    result.all = scheduler->stats();
    result.step = scheduler->stats();
    result.step -= before;
    for (const Patch* patch : localPatches())
      for (const VarLabel* label : {l.v, l.w, l.z}) {
        const ConstCCVariable<double> var = newDW.get<double>(label, *patch);
        patch->interior().forEachCell([&](const IntVector& c) { result.values.push_back(var(c)); });
      }
    result.total = newDW.getReduction<SumVariable<double>>(l.total).get();
    result.smallest = newDW.getReduction<MinVariable<double>>(l.smallest).get();
    result.wrong = wrongValues(newDW, l, ref);
    result.deviceOffKokkosThread = threads.deviceOffKokkosThread;
    result.hostOnKokkosThread = threads.hostOnKokkosThread;
    result.hostTasks = threads.hostTasks;
    return result;
  };

  SchedulerOptions chosen;
  chosen.watchdogSeconds = 30.0;  // a hang fails the test instead of timing it out
  chosen.tiling.scratchpadBytes = 2048;
  chosen.tiling.cacheBytes = 2048;
  SchedulerOptions explicitTile = chosen;
  explicitTile.tiling.tile = IntVector{3, 2, 3};
  explicitTile.tiling.scratchpadBytes = 65536;
  // async with its control thread at work during kernels, and without.
  SchedulerOptions helped = chosen;
  helped.controlThread = SchedulerOptions::ControlThread::Always;
  SchedulerOptions alone = chosen;
  alone.controlThread = SchedulerOptions::ControlThread::Never;
  const StepResult host = run("host", chosen);
  struct Case {
    const char* mode;
    const SchedulerOptions* options;
  };
  const std::vector<Case> cases = {{"sync", &chosen},       {"async", &chosen},
                                   {"sync", &explicitTile}, {"async", &explicitTile},
                                   {"async", &helped},      {"async", &alone}};

  // Tiles each device-task stencil takes on a 4 x 5 x 4 patch.
  const auto tilesOf = [](const IntVector& tile) {
    const IntVector n{4, 5, 4};
    return static_cast<std::int64_t>(((n.x + tile.x - 1) / tile.x) * ((n.y + tile.y - 1) / tile.y) *
                                     ((n.z + tile.z - 1) / tile.z));
  };
  const std::int64_t numLocal = static_cast<std::int64_t>(localPatches().size());
  // Staged tiles that fit the scratchpad on a device; cache blocks on the host.
  const auto chosenTile = [&](const StencilFootprint& footprint) {
    return runsOnHost<Kokkos::DefaultExecutionSpace>
               ? chooseHostTile({4, 5, 4}, footprint, chosen.tiling.cacheBytes,
                                Kokkos::DefaultExecutionSpace().concurrency())
               : *chooseTile({4, 5, 4}, footprint, chosen.tiling.scratchpadBytes);
  };
  const std::int64_t chosenTiles =
      numLocal * (tilesOf(chosenTile({1, 1, 2, 8})) + tilesOf(chosenTile({1, 1, 1, 8})));
  const std::int64_t explicitTiles = numLocal * 2 * tilesOf({3, 2, 3});
  EXPECT_GT(chosenTiles, 2 * numLocal) << "the budget should split patches into several tiles";

  EXPECT_EQ(globalSum(host.wrong), 0);
  // Host mode blocks for the cache where kernels run on the host, and
  // stages nothing in a device's scratchpad.
  EXPECT_EQ(host.step.tiles, runsOnHost<Kokkos::DefaultExecutionSpace> ? chosenTiles : 0);
  SchedulerOptions untiled = chosen;
  untiled.tileStencils = false;
  const StepResult hostUntiled = run("host", untiled);
  EXPECT_EQ(hostUntiled.step.tiles, 0);
  EXPECT_EQ(hostUntiled.values, host.values);
  EXPECT_EQ(host.all.deviceBusySeconds, 0.0);
  // Host mode runs every task on the calling thread.
  EXPECT_EQ(globalSum(host.deviceOffKokkosThread), 0);
  EXPECT_EQ(globalSum(host.hostOnKokkosThread), level().numPatches());
  // Per patch: wide, modify, smooth, reduce, hostTask.
  EXPECT_EQ(globalSum(host.step.tasksRun), 5 * level().numPatches());
  EXPECT_EQ(host.step.reductions, 2);
  if (m_world.size() > 1) {
    EXPECT_GT(globalSum(host.step.messagesSent), 0);
  }

  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.mode) +
                 (c.options->tiling.tile ? " explicit tile" : " chosen tile") +
                 (c.options == &helped ? ", control thread always" : "") +
                 (c.options == &alone ? ", control thread never" : ""));
    const StepResult r = run(c.mode, *c.options);
    EXPECT_EQ(globalSum(r.wrong), 0);
    EXPECT_EQ(r.values.size(), host.values.size());
    EXPECT_EQ(globalSum(r.values.size() == host.values.size() &&
                                std::memcmp(r.values.data(), host.values.data(),
                                            r.values.size() * sizeof(double)) == 0
                            ? 0
                            : 1),
              0)
        << "fields differ from host mode";
    EXPECT_TRUE(sameBits(r.total, host.total));
    EXPECT_TRUE(sameBits(r.smallest, host.smallest));
    EXPECT_EQ(r.step.tasksRun, host.step.tasksRun);
    EXPECT_EQ(r.all.tasksRun, host.all.tasksRun);
    EXPECT_EQ(r.step.kernels, host.step.kernels);
    EXPECT_EQ(r.step.reductions, host.step.reductions);
    EXPECT_EQ(r.step.messagesSent, host.step.messagesSent);
    EXPECT_EQ(r.step.bytesReceived, host.step.bytesReceived);
    EXPECT_EQ(r.step.tiles, c.options->tiling.tile ? explicitTiles : chosenTiles);
    EXPECT_GT(r.step.deviceBusySeconds, 0.0);
    EXPECT_GT(r.all.deviceBusySeconds, r.step.deviceBusySeconds) << "init ran on the device too";
    // Device tasks on the Kokkos thread. acc.sync runs host tasks there
    // too, between its kernels, and so does acc.async without its control
    // thread; with it, on whichever of the two threads is free.
    EXPECT_EQ(globalSum(r.deviceOffKokkosThread), 0);
    if (std::string(c.mode) == "sync" || c.options == &alone) {
      EXPECT_EQ(globalSum(r.hostOnKokkosThread), level().numPatches());
    }
    EXPECT_EQ(globalSum(r.hostTasks), level().numPatches());
  }
}

// acc.async: while the main thread is inside a kernel, the control thread
// runs the host tasks that are ready. The first kernel waits (yielding, at
// most 20 s) until a host task has run, so it passes only if a host task
// ran on another thread during that kernel.
TEST_F(DeviceSchedulerTest, AsyncRunsReadyHostTasksOnTheControlThreadDuringAKernel) {
  const Labels l;
  SchedulerOptions options;
  options.watchdogSeconds = 60.0;
  // Auto leaves it idle where the kernels' threads take every core.
  options.controlThread = SchedulerOptions::ControlThread::Always;
  const auto scheduler = makeScheduler("async", m_world, options);
  const std::thread::id kokkosThread = std::this_thread::get_id();
  std::atomic<int> hostTasksRun{0};
  std::atomic<int> hostTasksOffKokkosThread{0};
  std::atomic<int> kernelsThatSawAHostTask{0};
  std::atomic<bool> firstKernel{true};
  const VarLabel* x = l.x;
  const VarLabel* y = l.y;
  scheduler->beginGraph("overlap");
  scheduler->addTask(
      std::move(Task("long",
                     [&, x](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                            ExecutionContext& exec) {
                       const CellArray<double> a = dw.allocateAndPut<double>(x, patch).array();
                       exec.parallelFor(
                           patch.interior(),
                           KOKKOS_LAMBDA(int i, int j, int k) { a(i, j, k) = i + j + k; });
                       if (!firstKernel.exchange(false)) return;
                       const auto deadline = std::chrono::steady_clock::now() + 20s;
                       while (hostTasksRun.load() == 0 &&
                              std::chrono::steady_clock::now() < deadline)
                         std::this_thread::yield();
                       kernelsThatSawAHostTask += hostTasksRun.load() > 0;
                     })
                    .computesVar(x)),
      level().eachPatch());
  scheduler->addTask(std::move(Task(
                                   "side",
                                   [&, y](const Patch& patch, const DataWarehouse&,
                                          DataWarehouse& dw, ExecutionContext&) {
                                     dw.allocateAndPut<double>(y, patch);
                                     hostTasksOffKokkosThread +=
                                         std::this_thread::get_id() != kokkosThread;
                                     ++hostTasksRun;
                                   },
                                   Task::Kind::Host)
                                   .computesVar(y)),
                     level().eachPatch());
  const CompiledGraph graph = scheduler->compile(m_grid, m_ranks);
  OnDemandDataWarehouse oldDW("OldDW", 0, 0.0, 0.0);
  OnDemandDataWarehouse newDW("NewDW", 1, 0.1, 0.1);
  ASSERT_NO_THROW(scheduler->execute(graph, oldDW, newDW));
  EXPECT_EQ(kernelsThatSawAHostTask.load(), 1) << "no host task ran during the first kernel";
  EXPECT_GE(hostTasksOffKokkosThread.load(), 1);
  EXPECT_GE(hostTasksRun.load(), 1);
}

// acc.async with a core for the control thread: while the device's thread
// is inside a kernel, the control thread makes the local ghost copies that
// finished tasks released (for the next step's OldDW). The own-core path is
// forced, so the test runs the same on any machine. Two patches in a row per
// rank: each one's local copy needs both "advance" tasks, so both are
// released at once, as the second ends, and a "later" task always runs
// after it. The first kernel to start after that waits (yielding, at most
// 60 s: only a hang reaches it) until the warehouse records both copies as
// made. The trace then tells which thread made them: the control thread,
// and the device's thread never.
TEST_F(DeviceSchedulerTest, AsyncMakesLocalGhostCopiesOnTheControlThreadDuringAKernel) {
  LevelSpec spec;
  spec.resolution = {8 * m_world.size(), 4, 4};
  spec.patches = {2 * m_world.size(), 1, 1};
  Grid grid;
  grid.addLevel(spec);
  std::vector<int> ranks;
  for (int p = 0; p < grid.numPatches(); ++p)
    ranks.push_back(p / 2);
  const Labels l;
  SchedulerOptions options;
  options.watchdogSeconds = 120.0;
  options.patchGroups = false;  // beside groups of several the device's thread copies
  DeviceScheduler scheduler(m_world, options, DeviceScheduler::Mode::Async,
                            DeviceRunner::Help::OnOwnCore);
  const VarLabel* x = l.x;
  const VarLabel* y = l.y;
  scheduler.beginGraph("init");
  scheduler.addTask(std::move(Task("init",
                                   [x](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                                       ExecutionContext& exec) {
                                     const CellArray<double> a =
                                         dw.allocateAndPut<double>(x, patch).array();
                                     exec.parallelFor(
                                         patch.interior(), KOKKOS_LAMBDA(int i, int j, int k) {
                                           a(i, j, k) = i + 100.0 * j + 10000.0 * k;
                                         });
                                   })
                                  .computesVar(x)),
                    grid.level(0).eachPatch());
  OnDemandDataWarehouse oldDW("NewDW", 0, 0.0, 0.0);
  {
    OnDemandDataWarehouse empty("OldDW", -1, 0.0, 0.0);
    scheduler.execute(scheduler.compile(grid, ranks), empty, oldDW);
  }
  oldDW.setRole("OldDW");

  OnDemandDataWarehouse newDW("NewDW", 1, 0.1, 0.1);
  // The fills the step copies ahead: (patch, the patches their copies need).
  std::vector<std::pair<int, std::vector<int>>> eagerFills;
  // Device tasks run one at a time on this thread: what follows needs no lock.
  std::vector<int> advanced;  // patches whose "advance" kernel ended
  std::vector<bool> handled;  // per eager fill: looked at by a kernel after its producers
  int madeByTheNextKernelsEnd = 0;
  const auto watchEagerFills = [&] {
    const auto done = [&](int id) {
      return std::find(advanced.begin(), advanced.end(), id) != advanced.end();
    };
    const auto made = [&](std::size_t f) {
      return newDW.localGhostsFilled(x, grid.patchById(eagerFills[f].first), 1, Ghost::AroundCells);
    };
    std::vector<std::size_t> released;  // complete since the last kernel
    for (std::size_t f = 0; f < eagerFills.size(); ++f) {
      const std::vector<int>& producers = eagerFills[f].second;
      if (handled[f] || !std::all_of(producers.begin(), producers.end(), done)) continue;
      handled[f] = true;
      released.push_back(f);
    }
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    for (std::size_t f : released) {
      while (!made(f) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::yield();
      madeByTheNextKernelsEnd += made(f);
    }
  };
  scheduler.beginGraph("step");
  scheduler.addTask(std::move(Task("advance",
                                   [&, x](const Patch& patch, const DataWarehouse& old,
                                          DataWarehouse& dw, ExecutionContext& exec) {
                                     watchEagerFills();
                                     const CellArray<const double> in =
                                         old.get<double>(x, patch, Ghost::AroundCells, 1).array();
                                     const CellArray<double> out =
                                         dw.allocateAndPut<double>(x, patch).array();
                                     exec.parallelFor(
                                         patch.interior(), KOKKOS_LAMBDA(int i, int j, int k) {
                                           out(i, j, k) = in(i - 1, j, k) + in(i + 1, j, k);
                                         });
                                     advanced.push_back(patch.id());
                                   })
                                  .requiresVar(Task::OldDW, x, Ghost::AroundCells, 1)
                                  .computesVar(x)),
                    grid.level(0).eachPatch());
  scheduler.addTask(
      std::move(Task("later",
                     [&, x, y](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                               ExecutionContext& exec) {
                       watchEagerFills();
                       const CellArray<const double> in = dw.get<double>(x, patch).array();
                       const CellArray<double> out = dw.allocateAndPut<double>(y, patch).array();
                       exec.parallelFor(
                           patch.interior(), KOKKOS_LAMBDA(int i, int j, int k) {
                             out(i, j, k) = 2.0 * in(i, j, k);
                           });
                     })
                    .requiresVar(Task::NewDW, x)
                    .computesVar(y)),
      grid.level(0).eachPatch());
  const CompiledGraph step = scheduler.compile(grid, ranks);
  for (const GhostFill& fill : step.fills) {
    if (fill.dw != Task::OldDW || fill.eagerCopies == 0) continue;
    std::vector<int> producers{fill.patchId};
    for (const GhostPiece& piece : fill.localCopies)
      producers.push_back(piece.sourcePatch);
    eagerFills.emplace_back(fill.patchId, producers);
  }
  handled.assign(eagerFills.size(), false);
  Trace trace;
  scheduler.setTrace(&trace);
  // Each patch's copy from the other; every rank leaves together if not.
  ASSERT_EQ(globalSum(eagerFills.size() == 2 ? 0 : 1), 0) << eagerFills.size() << " eager fills";
  ASSERT_NO_THROW(scheduler.execute(step, oldDW, newDW));
  scheduler.setTrace(nullptr);
  EXPECT_EQ(advanced.size(), 2U);
  EXPECT_EQ(madeByTheNextKernelsEnd, 2);
  const auto copySlices = [](const TraceTrack& track) {
    return std::count_if(track.events().begin(), track.events().end(),
                         [](const TraceEvent& e) { return e.name == "eager ghost copies"; });
  };
  EXPECT_GE(copySlices(trace.control()), 1) << "no copies on the control thread";
  EXPECT_EQ(copySlices(trace.main()), 0) << "copies on the device's thread";
}

// A device mode posts a reduction as soon as this rank's share is in, and
// goes on with other tasks while it is in flight. Rank 1 fails in such a
// task, its reduction still pending (rank 0 has not posted yet: its share
// waits for rank 1's word, sent just before the failure, on a communicator
// of its own): abandoning the execution completes that reduction
// (ReductionExchange::abandon) rather than leaving it posted, so every
// later graph's collectives stay in step, and give the right sums.
TEST_F(DeviceSchedulerTest, AReductionInFlightWhenARankFailsCompletesAndLaterGraphsAgree) {
  const int size = m_world.size();
  const int rank = m_world.rank();
  LevelSpec spec;
  spec.resolution = {4 * size, 4, 4};
  spec.patches = {size, 1, 1};
  Grid grid;
  grid.addLevel(spec);
  std::vector<int> owners;
  for (int p = 0; p < size; ++p)
    owners.push_back(p);
  const Labels l;
  const VarLabel* x = l.x;
  const VarLabel* y = l.y;
  const VarLabel* total = l.total;
  const Communicator side = Communicator::duplicate(m_world.get());
  constexpr int kFailingTag = 8;
  for (const char* mode : {"sync", "async"}) {
    SchedulerOptions options;
    options.watchdogSeconds = 60.0;                                  // only a hang reaches it
    options.controlThread = SchedulerOptions::ControlThread::Never;  // MPI on one thread only
    const auto scheduler = makeScheduler(mode, m_world, options);
    bool fail = size > 1;
    scheduler->beginGraph("sum");
    scheduler->addTask(std::move(Task("share",
                                      [&](const Patch& patch, const DataWarehouse&,
                                          DataWarehouse& dw, ExecutionContext&) {
                                        if (fail && patch.id() == 0) {
                                          int failing = 0;
                                          MPI_Recv(&failing, 1, MPI_INT, 1, kFailingTag, side.get(),
                                                   MPI_STATUS_IGNORE);
                                        }
                                        dw.allocateAndPut<double>(x, patch);
                                        dw.put(SumVariable<double>(patch.id() + 0.25), total,
                                               patch);
                                      })
                                     .computesVar(x)
                                     .computesVar(total)),
                       grid.level(0).eachPatch());
    scheduler->addTask(std::move(Task("after",
                                      [&](const Patch& patch, const DataWarehouse&,
                                          DataWarehouse& dw, ExecutionContext&) {
                                        if (fail && patch.id() == 1) {
                                          int failing = 1;
                                          MPI_Send(&failing, 1, MPI_INT, 0, kFailingTag,
                                                   side.get());
                                          throw std::runtime_error("after failed");
                                        }
                                        dw.allocateAndPut<double>(y, patch);
                                      })
                                     .requiresVar(Task::NewDW, x)
                                     .computesVar(y)),
                       grid.level(0).eachPatch());
    const CompiledGraph graph = scheduler->compile(grid, owners);
    double expected = 0.0;
    for (int p = 0; p < size; ++p)
      expected += p + 0.25;
    {
      OnDemandDataWarehouse oldDW("OldDW", 0, 0.0, 0.0);
      OnDemandDataWarehouse newDW("NewDW", 1, 0.0, 0.0);
      if (size > 1 && rank == 1) {
        EXPECT_EQ(messageOf<std::runtime_error>([&] { scheduler->execute(graph, oldDW, newDW); }),
                  "after failed")
            << mode;
      } else {
        EXPECT_NO_THROW(scheduler->execute(graph, oldDW, newDW)) << mode << " rank " << rank;
        EXPECT_EQ(newDW.getReduction<SumVariable<double>>(total).get(), expected) << mode;
      }
    }
    fail = false;
    for (int run = 0; run < 2; ++run) {
      OnDemandDataWarehouse oldDW("OldDW", 0, 0.0, 0.0);
      OnDemandDataWarehouse newDW("NewDW", 1, 0.0, 0.0);
      EXPECT_NO_THROW(scheduler->execute(graph, oldDW, newDW)) << mode << " rank " << rank;
      EXPECT_EQ(newDW.getReduction<SumVariable<double>>(total).get(), expected) << mode;
    }
  }
}

TEST_F(DeviceSchedulerTest, UnknownModeIsAnInputError) {
  const std::string message =
      messageOf<InputError>([&] { makeScheduler("gpu", m_world, SchedulerOptions{}); });
  EXPECT_TRUE(contains(message, "'gpu'")) << message;
  EXPECT_TRUE(contains(message, "host, sync or async")) << message;
}

class DeviceSchedulerModeTest : public DeviceSchedulerTest,
                                public ::testing::WithParamInterface<const char*> {};

// MPI counts are ints, so a message of 2 GiB or more travels in chunks
// (ChunkedMessages.h). Forced down to 1001 bytes, the chunks cut values in
// two and end with a short one: every ghost value still arrives whole.
TEST_P(DeviceSchedulerModeTest, MessagesCutIntoChunksArriveWhole) {
  const Labels l;
  const Reference ref(level());
  SchedulerOptions options;
  options.messageChunkBytes = 1001;
  ThreadLog threads;
  const auto scheduler = makeScheduler(GetParam(), m_world, options);
  const auto oldDW = initialise(*scheduler, l, threads);
  scheduler->beginGraph("step");
  scheduleStep(*scheduler, level(), l, threads);
  const CompiledGraph step = scheduler->compile(m_grid, m_ranks);
  std::int64_t chunked = 0;
  for (const Message& message : step.sends)
    chunked += chunkCount(message.bytes, options.messageChunkBytes) > 1 ? 1 : 0;
  if (m_world.size() > 1) {
    EXPECT_GT(globalSum(chunked), 0);
  } else {
    EXPECT_EQ(globalSum(chunked), 0);
  }
  for (int run = 0; run < 2; ++run) {
    OnDemandDataWarehouse newDW("NewDW", 1, 0.1, 0.1);
    EXPECT_NO_THROW(scheduler->execute(step, *oldDW, newDW));
    EXPECT_EQ(globalSum(wrongValues(newDW, l, ref)), 0);
  }
}

TEST(ChunkedMessages, ChunkCountsCoverTheMessage) {
  EXPECT_EQ(chunkCount(0, 1001), 1U);
  EXPECT_EQ(chunkCount(1001, 1001), 1U);
  EXPECT_EQ(chunkCount(1002, 1001), 2U);
  EXPECT_EQ(chunkCount(std::size_t{5} << 30, kMaxMessageChunkBytes), 5U);
  // No chunk exceeds what an int counts, whatever is asked.
  EXPECT_EQ(chunkCount(std::size_t{1} << 32, std::size_t{1} << 40), 3U);
}

// Only the expiry is timed (a sleep longer than the limit); whatever is
// asserted not to have expired has a limit no stall of the machine reaches.
// The control thread is worth waking only with a core of its own.
TEST_F(DeviceSchedulerTest, NoCoreIsLeftWhenTheThreadsFillTheCpus) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  EXPECT_FALSE(coreLeftForOneMoreThread(m_world, CPU_COUNT(&allowed)));
  EXPECT_FALSE(coreLeftForOneMoreThread(m_world, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN))));
  // One thread per rank and a spare core each: only if the node has them.
  const Communicator node = Communicator::node(m_world.get());
  const bool spare = CPU_COUNT(&allowed) > 1 && 2 * node.size() <= sysconf(_SC_NPROCESSORS_ONLN);
  EXPECT_EQ(coreLeftForOneMoreThread(m_world, 1), spare);
}

// The control thread's CPU: one of this thread's, other than the one it
// runs on when there are two or more; a thread bound to it may run there only.
TEST_F(DeviceSchedulerTest, TheControlThreadsCpuIsAnotherOfTheRanks) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  const int localRank = Communicator::node(m_world.get()).rank();
  const int cpu = controlThreadCpu(localRank);
  if (CPU_COUNT(&allowed) < 2) {
    EXPECT_EQ(cpu, -1);
    return;
  }
  ASSERT_GE(cpu, 0);
  EXPECT_TRUE(CPU_ISSET(cpu, &allowed));
  cpu_set_t bound;
  CPU_ZERO(&bound);
  bool ok = false;
  std::thread([&] {
    ok = bindThisThreadTo(cpu);
    sched_getaffinity(0, sizeof(bound), &bound);
  }).join();
  EXPECT_TRUE(ok);
  EXPECT_EQ(CPU_COUNT(&bound), 1);
  EXPECT_TRUE(CPU_ISSET(cpu, &bound));
  EXPECT_FALSE(bindThisThreadTo(-1));
}

// The ranks of a node spread their control threads from the top of their
// CPUs down (all of them took the highest before), never onto the CPU the
// rank runs on.
TEST(ControlThreadCpu, TheRanksOfANodeTakeDifferentCpus) {
  const std::vector<int> four{0, 1, 2, 3};
  EXPECT_EQ(chooseControlThreadCpu(four, 0, 0), 3);
  EXPECT_EQ(chooseControlThreadCpu(four, 1, 1), 2);
  EXPECT_EQ(chooseControlThreadCpu(four, 2, 2), 1);
  EXPECT_EQ(chooseControlThreadCpu(four, 3, 3), 0);
  EXPECT_EQ(chooseControlThreadCpu(four, 3, 0), 2);  // its own CPU: the next lower
  EXPECT_EQ(chooseControlThreadCpu(four, 0, 3), 3);  // ... wrapping
  EXPECT_EQ(chooseControlThreadCpu(four, 0, 4), 3);  // more ranks than CPUs wrap too
  EXPECT_EQ(chooseControlThreadCpu({4, 6}, 6, 1), 4);
  EXPECT_EQ(chooseControlThreadCpu({5}, 5, 0), -1);
  EXPECT_EQ(chooseControlThreadCpu({}, 0, 0), -1);
}

// A container's CPU quota caps the CPUs counted (cgroup v2 cpu.max).
TEST(ControlThreadCpu, TheCgroupQuotaIsInWholeCpus) {
  EXPECT_FALSE(cgroupCpuQuota("max 100000\n").has_value());
  EXPECT_EQ(cgroupCpuQuota("200000 100000\n"), 2);
  EXPECT_EQ(cgroupCpuQuota("150000 100000"), 1);
  EXPECT_EQ(cgroupCpuQuota("50000 100000"), 1);
  EXPECT_FALSE(cgroupCpuQuota("").has_value());
  EXPECT_FALSE(cgroupCpuQuota("garbage").has_value());
}

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

// A device task throws on every patch of every rank, while ghost messages
// are still in flight. execute() throws it; then the same scheduler runs the
// good step graph and a graph whose messages have other sizes.
TEST_P(DeviceSchedulerModeTest, DeviceTaskExceptionPropagatesAndTheSchedulerRunsOn) {
  const Labels l;
  const Reference ref(level());
  SchedulerOptions options;
  options.watchdogSeconds = 30.0;
  ThreadLog threads;
  const auto scheduler = makeScheduler(GetParam(), m_world, options);
  const auto oldDW = initialise(*scheduler, l, threads);

  scheduler->beginGraph("failing");
  const VarLabel* x = l.x;
  const VarLabel* u = l.u;
  const VarLabel* y = l.y;
  scheduler->addTask(
      std::move(Task("boom",
                     [x](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                         ExecutionContext& exec) {
                       const CellArray<double> a = dw.allocateAndPut<double>(x, patch).array();
                       exec.parallelFor(
                           patch.interior(),
                           KOKKOS_LAMBDA(int i, int j, int k) { a(i, j, k) = i; });
                       throw std::runtime_error("boom on patch " + std::to_string(patch.id()));
                     })
                    .computesVar(x)),
      level().eachPatch());
  scheduler->addTask(std::move(Task("reader",
                                    [u, y](const Patch& patch, const DataWarehouse& old,
                                           DataWarehouse& dw, ExecutionContext&) {
                                      old.get<double>(u, patch, Ghost::AroundCells, 2);
                                      dw.allocateAndPut<double>(y, patch);
                                    })
                                   .requiresVar(Task::OldDW, l.u, Ghost::AroundCells, 2)
                                   .requiresVar(Task::NewDW, l.x)
                                   .computesVar(y)),
                     level().eachPatch());
  const CompiledGraph failing = scheduler->compile(m_grid, m_ranks);
  for (int attempt = 0; attempt < 2; ++attempt) {
    OnDemandDataWarehouse newDW("NewDW", 1, 0.1, 0.1);
    const std::string message =
        messageOf<std::runtime_error>([&] { scheduler->execute(failing, *oldDW, newDW); });
    // The task's own exception, not a watchdog report that names the task.
    EXPECT_TRUE(std::regex_match(message, std::regex("boom on patch [0-9]+")))
        << "attempt " << attempt << ": " << message;
  }
  m_world.barrier();

  // The good step graph, on the same scheduler.
  scheduler->beginGraph("step");
  scheduleStep(*scheduler, level(), l, threads);
  const CompiledGraph step = scheduler->compile(m_grid, m_ranks);
  {
    OnDemandDataWarehouse newDW("NewDW", 1, 0.1, 0.1);
    EXPECT_NO_THROW(scheduler->execute(step, *oldDW, newDW));
    EXPECT_EQ(globalSum(wrongValues(newDW, l, ref)), 0);
  }

  // One ghost layer of u: phase-0 messages of another size than before.
  scheduler->beginGraph("ghost1");
  std::int64_t wrong = 0;
  scheduler->addTask(
      std::move(
          Task(
              "check",
              [&](const Patch& patch, const DataWarehouse& old, DataWarehouse&, ExecutionContext&) {
                const ConstCCVariable<double> var =
                    old.get<double>(u, patch, Ghost::AroundCells, 1);
                const IntVector n = level().resolution();
                level().ghostedBox(patch, 1).forEachCell([&](const IntVector& c) {
                  const IntVector wrapped{(c.x + n.x) % n.x, (c.y + n.y) % n.y, (c.z + n.z) % n.z};
                  wrong += !sameBits(var(c), f(wrapped));
                });
              })
              .requiresVar(Task::OldDW, l.u, Ghost::AroundCells, 1)),
      level().eachPatch());
  const CompiledGraph ghost1 = scheduler->compile(m_grid, m_ranks);
  for (int run = 0; run < 2; ++run) {
    OnDemandDataWarehouse newDW("NewDW", 1, 0.1, 0.1);
    EXPECT_NO_THROW(scheduler->execute(ghost1, *oldDW, newDW));
  }
  EXPECT_EQ(globalSum(wrong), 0);
}

// Rank 1 needs ghost cells from rank 0, whose graph has lost its sends: rank
// 1's watchdog names the task, the rank and the phase it waits for, rank 0
// finishes, and afterwards everybody runs a correct graph. On one rank, the
// receive is redirected to rank 0 itself, which never sends it.
TEST_P(DeviceSchedulerModeTest, WatchdogNamesTheMessageARankWaitsFor) {
  const int size = m_world.size();
  const int rank = m_world.rank();
  const int numPatches = std::max(2, size);
  LevelSpec spec;
  spec.resolution = {4 * numPatches, 4, 4};
  spec.patches = {numPatches, 1, 1};  // a row: patch p touches only p - 1 and p + 1
  spec.extraCells = {1, 1, 1};
  Grid grid;
  grid.addLevel(spec);
  const Level& row = grid.level(0);
  std::vector<int> owners(static_cast<std::size_t>(numPatches), 0);
  if (size > 1)
    for (int p = 0; p < numPatches; ++p)
      owners[static_cast<std::size_t>(p)] = p;

  VarLabelRegistry labels;
  const VarLabel* u = labels.create<CCVariable<double>>("u");
  const VarLabel* out = labels.create<CCVariable<double>>("out");
  OnDemandDataWarehouse oldDW("OldDW", 0, 0.0, 0.0);
  for (const Patch& patch : row.patches()) {
    if (owners[static_cast<std::size_t>(patch.id())] != rank) continue;
    CCVariable<double> var = oldDW.allocateAndPut<double>(u, patch);
    patch.extendedBox().forEachCell([&](const IntVector& c) { var(c) = f(c); });
  }

  SchedulerOptions options;
  options.watchdogSeconds = 0.25;  // what the waiting rank waits for
  const auto scheduler = makeScheduler(GetParam(), m_world, options);
  std::int64_t wrong = 0;
  scheduler->beginGraph("halo");
  scheduler->addTask(std::move(Task("needsGhosts",
                                    [&](const Patch& patch, const DataWarehouse& old,
                                        DataWarehouse& dw, ExecutionContext&) {
                                      const ConstCCVariable<double> var =
                                          old.get<double>(u, patch, Ghost::AroundCells, 1);
                                      row.ghostedBox(patch, 1).forEachCell([&](const IntVector& c) {
                                        wrong += !sameBits(var(c), f(c));
                                      });
                                      dw.allocateAndPut<double>(out, patch);
                                    })
                                   .requiresVar(Task::OldDW, u, Ghost::AroundCells, 1)
                                   .computesVar(out)),
                     row.eachPatch());

  // Break the graph.
  CompiledGraph broken;
  if (size > 1) {
    broken = scheduler->compile(grid, owners);
    if (rank == 0) {
      EXPECT_FALSE(broken.sends.empty());  // not ASSERT: the other ranks wait for this one
      broken.sends.clear();
      for (DetailedTask& node : broken.detailedTasks)
        node.sendsToRelease.clear();
    }
  } else {
    // Compiled as if patch 1 lived on rank 1, then told to expect the
    // message from rank 0 (itself), which nobody sends.
    std::vector<int> split(static_cast<std::size_t>(numPatches), 0);
    split[1] = 1;
    broken = scheduler->recordedGraph().compile(grid, split, 0);
    ASSERT_EQ(broken.receives.size(), 1U);
    broken.receives[0].peer = 0;
    broken.sends.clear();
    for (DetailedTask& node : broken.detailedTasks)
      node.sendsToRelease.clear();
  }
  const int waitingRank = size > 1 ? 1 : 0;
  // Only the waiting rank's watchdog is meant to fire; the others wait for
  // nothing that is missing, under a limit only a hang reaches.
  if (rank != waitingRank) scheduler->setWatchdogSeconds(60.0);
  {
    OnDemandDataWarehouse newDW("NewDW", 1, 0.0, 0.0);
    if (rank == waitingRank) {
      const std::string message =
          messageOf<WatchdogError>([&] { scheduler->execute(broken, oldDW, newDW); });
      EXPECT_FALSE(message.empty()) << "no WatchdogError";
      EXPECT_TRUE(contains(message, "needsGhosts on patch " + std::to_string(waitingRank)))
          << message;
      EXPECT_TRUE(contains(message, "message from rank 0")) << message;
      EXPECT_TRUE(contains(message, "phase 0")) << message;
      EXPECT_TRUE(contains(message, "graph 'halo'")) << message;
      EXPECT_TRUE(contains(message, "no progress for 0.25 s")) << message;
    } else {
      EXPECT_NO_THROW(scheduler->execute(broken, oldDW, newDW)) << "rank " << rank;
    }
  }
  m_world.barrier();

  // A correct graph runs everywhere afterwards, twice, with a watchdog only
  // a hang can reach.
  scheduler->setWatchdogSeconds(60.0);
  std::vector<int> good = owners;
  const CompiledGraph graph = scheduler->compile(grid, good);
  for (int run = 0; run < 2; ++run) {
    OnDemandDataWarehouse newDW("NewDW", 1, 0.0, 0.0);
    EXPECT_NO_THROW(scheduler->execute(graph, oldDW, newDW)) << "rank " << rank;
  }
  EXPECT_EQ(globalSum(wrong), 0);
  // The patches before the broken run on rank 0 were checked too.
  EXPECT_EQ(globalSum(scheduler->stats().tasksRun),
            2 * numPatches + (size > 1 ? numPatches - 1 : 0));
}

// Rank 1 fails at once while rank 0 still computes the ghost cells it will
// send there (larger than any eager limit, so the send completes only when
// received). Rank 1 cancels its receive (ExecutionState::abandon), so rank
// 0's watchdog names that send instead of waiting for it forever; the send
// is set aside with its buffer (MessageBuffers::setAside). Ranks 2 and up
// own nothing. Afterwards the graph runs everywhere, with the right values.
// Rank 0's producer waits for rank 1's word, on a communicator of its own,
// that rank 1's execution has ended: no timing decides the order. (No
// control thread, so that only the main thread calls MPI.)
TEST_P(DeviceSchedulerModeTest, WatchdogNamesASendAFailedPeerNeverReceives) {
  const int size = m_world.size();
  const int rank = m_world.rank();
  LevelSpec spec;
  spec.resolution = {16, 64, 64};
  spec.patches = {2, 1, 1};
  Grid grid;
  grid.addLevel(spec);
  const Level& pair = grid.level(0);
  const std::vector<int> owners = {0, size > 1 ? 1 : 0};
  constexpr int numGhost = 3;  // 3 * 64 * 64 doubles: 96 KiB

  VarLabelRegistry labels;
  const VarLabel* x = labels.create<CCVariable<double>>("x");
  bool fail = size > 1;
  std::int64_t wrong = 0;
  SchedulerOptions options;
  options.watchdogSeconds = 0.25;  // what the test waits for
  options.controlThread = SchedulerOptions::ControlThread::Never;
  const auto scheduler = makeScheduler(GetParam(), m_world, options);
  const Communicator side = Communicator::duplicate(m_world.get());
  constexpr int kFailedTag = 7;
  scheduler->beginGraph("producer");
  scheduler->addTask(
      std::move(Task("produce",
                     [&](const Patch& patch, const DataWarehouse&, DataWarehouse& dw,
                         ExecutionContext& exec) {
                       if (fail && patch.id() == 1) throw std::runtime_error("producer failed");
                       if (fail) {
                         int ended = 0;
                         MPI_Recv(&ended, 1, MPI_INT, 1, kFailedTag, side.get(), MPI_STATUS_IGNORE);
                       }
                       const CellArray<double> a = dw.allocateAndPut<double>(x, patch).array();
                       exec.parallelFor(
                           patch.extendedBox(), KOKKOS_LAMBDA(int i, int j, int k) {
                             a(i, j, k) = i + 100.0 * j + 10000.0 * k + 0.5;
                           });
                     })
                    .computesVar(x)),
      pair.eachPatch());
  scheduler->addTask(
      std::move(
          Task("consume",
               [&](const Patch& patch, const DataWarehouse&, DataWarehouse& dw, ExecutionContext&) {
                 const ConstCCVariable<double> var =
                     dw.get<double>(x, patch, Ghost::AroundCells, numGhost);
                 pair.ghostedBox(patch, numGhost).forEachCell([&](const IntVector& c) {
                   wrong += !sameBits(var(c), f(c));
                 });
               })
              .requiresVar(Task::NewDW, x, Ghost::AroundCells, numGhost)),
      {&pair.patchById(1)});
  const CompiledGraph graph = scheduler->compile(grid, owners);
  {
    OnDemandDataWarehouse oldDW("OldDW", 0, 0.0, 0.0);
    OnDemandDataWarehouse newDW("NewDW", 1, 0.0, 0.0);
    if (size > 1 && rank == 0) {
      EXPECT_EQ(graph.sends.size(), 1U);
      EXPECT_GT(graph.sends.empty() ? 0 : graph.sends[0].bytes, std::size_t{65536});
      const std::string message =
          messageOf<WatchdogError>([&] { scheduler->execute(graph, oldDW, newDW); });
      EXPECT_TRUE(contains(message, "send to rank 1 (phase 1")) << message;
      EXPECT_TRUE(contains(message, "not yet received")) << message;
    } else if (size > 1 && rank == 1) {
      EXPECT_EQ(messageOf<std::runtime_error>([&] { scheduler->execute(graph, oldDW, newDW); }),
                "producer failed");
      int ended = 1;
      MPI_Send(&ended, 1, MPI_INT, 0, kFailedTag, side.get());
    } else {
      EXPECT_NO_THROW(scheduler->execute(graph, oldDW, newDW)) << "rank " << rank;
    }
  }
  m_world.barrier();

  scheduler->setWatchdogSeconds(60.0);  // correct graphs: only a hang reaches it
  fail = false;
  for (int run = 0; run < 2; ++run) {
    OnDemandDataWarehouse oldDW("OldDW", 0, 0.0, 0.0);
    OnDemandDataWarehouse newDW("NewDW", 1, 0.0, 0.0);
    EXPECT_NO_THROW(scheduler->execute(graph, oldDW, newDW)) << "rank " << rank;
  }
  EXPECT_EQ(globalSum(wrong), 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, DeviceSchedulerModeTest, ::testing::ValuesIn(kModes),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace tessera
