#include "CCA/Components/SimulationController/SimulationController.h"

#include "CCA/Components/SimulationController/InitialTagging.h"
#include "CCA/Components/SimulationController/LevelScheduling.h"
#include "CCA/Components/SimulationController/Regridder.h"
#include "CCA/Components/SimulationController/Reflux.h"
#include "CCA/Components/SimulationController/RunDigests.h"
#include "CCA/Components/SimulationController/RunReports.h"
#include "CCA/Components/SimulationController/SchedulerDeckOptions.h"
#include "CCA/Components/SimulationController/Subcycling.h"

#include "CCA/Components/DataArchiver/DataArchiver.h"
#include "CCA/Components/LoadBalancers/CostForecaster.h"
#include "CCA/Components/LoadBalancers/Knapsack.h"
#include "CCA/Components/LoadBalancers/LoadBalancerFactory.h"
#include "CCA/Components/Schedulers/GraphScheduler.h"
#include "CCA/Components/Schedulers/GridTransfer.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Components/SimulationController/TimestepControl.h"
#include "CCA/Components/SimulationController/TraceFile.h"
#include "CCA/Ports/LoadBalancer.h"
#include "Core/Grid/Variables/BlockDigest.h"
#include "Core/Grid/Variables/CCVariable.h"
#include "Core/Grid/Variables/FieldDigest.h"
#include "Core/Parallel/Agreement.h"
#include "Core/Parallel/Communicator.h"
#include "Core/Parallel/TileChooser.h"
#include "Core/ProblemSpec/DeckSchema.h"
#include "Core/Util/Logger.h"
#include "Core/Util/Timer.h"
#include "Core/Util/Trace.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <limits>
#include <functional>
#include <numeric>
#include <set>
#include <sstream>

namespace tessera {

namespace {

std::string componentName(const ProblemSpec& deck) {
  return deck.section("component").get<std::string>("name");
}

std::unique_ptr<Application> createComponent(const ProblemSpec& deck,
                                             const ComponentRegistry& components,
                                             ApplicationContext& context) {
  const ProblemSpec section = deck.section("component");
  const std::string name = section.get<std::string>("name");
  if (!components.contains(name)) {
    std::string known;
    for (const std::string& n : components.names())
      known += (known.empty() ? "" : ", ") + n;
    throw section.errorAtValue("name", "unknown component '" + name + "' (known: " + known + ")");
  }
  return components.create(name, context);
}

// The stable timestep of a component that has none (Application.h).
constexpr double kUnlimitedStep = 1.0;

// The deck's grid, or one cell for a component that uses none.
Grid gridOf(const ProblemSpec& deck) {
  if (deck.has("grid")) {
    const std::optional<ProblemSpec> amr = deck.findSection("amr");
    return Grid::fromDeck(deck.section("grid"), amr ? &*amr : nullptr);
  }
  Grid grid;
  grid.addLevel(LevelSpec{});
  return grid;
}

Schema fullSchema(const ProblemSpec& deck, const Application& app) {
  Schema schema = coreDeckSchema(app.usesGrid());
  schema.section(componentName(deck), app.deckSchema());
  return schema;
}

// Storage for the cell variables the timestep graph computes on this rank,
// allocated and touched now rather than inside the first timestep.
void reserveTimestepStorage(const CompiledGraph& graph, const OnDemandDataWarehouse& current,
                            VariablePool& pool) {
  for (const DetailedTask& node : graph.detailedTasks) {
    if (node.kind != DetailedTask::Kind::PatchTask) continue;
    for (const Task::Dependency& dep :
         graph.tasks[static_cast<std::size_t>(node.taskIndex)].dependencies()) {
      if (dep.access != Task::Access::Computes || dep.label->kind() != VarKind::CellCentered)
        continue;
      const auto prototype = current.findGridVariable(dep.label, *node.patch);
      if (!prototype) continue;  // first computed in the loop: its first step allocates it
      const auto layers = graph.ghostLayers.find(dep.label);
      const int ghost = layers == graph.ghostLayers.end() ? 0 : layers->second;
      if (node.group >= 0) {
        const PatchGroup& group = graph.groups[static_cast<std::size_t>(node.group)];
        pool.reserve(dep.label, group.storageKey(), *prototype, group.ghostedBox(ghost));
      } else {
        pool.reserve(dep.label, node.patch->id(), *prototype,
                     node.patch->level().ghostedBox(*node.patch, ghost));
      }
    }
  }
}

SchedulerStats sumOverRanks(const SchedulerStats& mine, const Communicator& comm) {
  SchedulerStats total = mine;
  total.tasksRun = comm.allreduceSum(mine.tasksRun);
  total.messagesSent = comm.allreduceSum(mine.messagesSent);
  total.bytesSent = comm.allreduceSum(mine.bytesSent);
  total.messagesReceived = comm.allreduceSum(mine.messagesReceived);
  total.bytesReceived = comm.allreduceSum(mine.bytesReceived);
  return total;
}

}  // namespace

SimulationController::SimulationController(ProblemSpec deck, const ComponentRegistry& components,
                                           const Communicator& world, Logger& log)
    : m_deck(std::move(deck)), m_components(components), m_world(world), m_log(log) {}

void SimulationController::validate() const {
  VarLabelRegistry labels;
  ApplicationContext context{labels, m_log, m_world};
  const auto app = createComponent(m_deck, m_components, context);
  fullSchema(m_deck, *app).validate(m_deck);
  Grid grid = gridOf(m_deck);
  app->problemSetup(m_deck, grid);
  TimestepControl::fromDeck(m_deck.section("time"));
  const auto scheduler = m_deck.findSection("scheduler");
  const auto balancer = m_deck.findSection("load_balancer");
  const auto loadBalancer =
      makeLoadBalancer(balancer ? balancer->get<std::string>("type", "sfc") : "sfc",
                       balancer ? balancer->get<std::string>("curve", "hilbert") : "hilbert");
  // An explicit tile is checked against the timestep graph's stencils,
  // compiled as for one rank: validation makes no collective call.
  if (scheduler && scheduler->has("tile")) {
    const Communicator self = Communicator::borrow(MPI_COMM_SELF);
    const auto host = makeScheduler("host", self, schedulerOptions(scheduler));
    host->beginGraph("timestep");
    forEachLevel(grid, [&](const Level& level) {
      app->scheduleTimeAdvance(level, *host);
      app->scheduleComputeStableTimestep(level, *host);
    });
    const CompiledGraph graph = host->compile(grid, loadBalancer->assign(grid, 1));
    checkExplicitTile(scheduler, host->options().tiling, graph);
  }
  if (const std::optional<AmrSpec> amr = amrSpecOf(m_deck, grid); amr && amr->tagged()) {
    const Communicator self = Communicator::borrow(MPI_COMM_SELF);
    const auto host = makeScheduler("host", self, schedulerOptions(scheduler));
    requireTagging(*app, grid, m_deck.section("amr"), *host,
                   labels.create<CCVariable<int>>("refineFlag"));
  }
  // The archiver checks its own sections: intervals, and the names to save.
  DataArchiver(m_deck, DataArchiver::defaultBase(m_deck.file(), ""), m_world, m_log)
      .savedLabels(labels, app->stateLabels());
}

RunResult SimulationController::run(const RunOptions& options) {
  // Every rank checks the deck; they agree before anything collective.
  agreeOn(m_world, [&] { validate(); });
  VarLabelRegistry labels;
  ApplicationContext context{labels, m_log, m_world};
  const auto app = createComponent(m_deck, m_components, context);
  Grid grid = gridOf(m_deck);
  app->problemSetup(m_deck, grid);
  TimestepControl control = TimestepControl::fromDeck(m_deck.section("time"));
  if (options.maxTimesteps) control.maxTimesteps = options.maxTimesteps;
  const auto schedulerSpec = m_deck.findSection("scheduler");
  const std::string schedulerType =
      !options.schedulerType.empty()
          ? options.schedulerType
          : (schedulerSpec ? schedulerSpec->get<std::string>("type", "async") : "async");
  const bool rebuildEveryStep =
      schedulerSpec && schedulerSpec->get<bool>("rebuild_every_timestep", false);
  const auto balancerSpec = m_deck.findSection("load_balancer");
  const auto balancer = makeLoadBalancer(
      balancerSpec ? balancerSpec->get<std::string>("type", "sfc") : "sfc",
      balancerSpec ? balancerSpec->get<std::string>("curve", "hilbert") : "hilbert");

  // Several modes (host,sync,async) take turns, one timestep each: a
  // benchmark's way to compare them under the same load of a shared machine.
  std::vector<std::unique_ptr<GraphScheduler>> schedulers;
  for (const std::string& mode : splitSchedulerModes(schedulerType))
    schedulers.push_back(makeScheduler(mode, m_world, schedulerOptions(schedulerSpec)));
  GraphScheduler& sched = *schedulers.front();
  const auto allStats = [&] {
    SchedulerStats total;
    for (const auto& each : schedulers)
      total += each->stats();
    return total;
  };
  m_log.info("scheduler: ", sched.modeName(),
             !sched.options().tiling.enabled ? std::string(", untiled kernels")
             : runsOnHost<Kokkos::DefaultExecutionSpace>
                 ? ", stencils tiled in place to " +
                       std::to_string(sched.options().tiling.cacheBytes) + " bytes of cache"
                 : ", stencils tiled to " + std::to_string(sched.options().tiling.scratchpadBytes) +
                       " bytes of scratch");
  if (schedulers.size() > 1)
    m_log.info("timesteps rotate over the schedulers ", schedulerType,
               " (initialisation and analysis run on ", sched.modeName(), ")");
  // The levels a deck leaves to the component: tagged at initialisation,
  // or on restart the checkpoint's; with a regrid interval, tagged again
  // every so many timesteps (regridNow, below).
  const std::optional<AmrSpec> amr = amrSpecOf(m_deck, grid);
  std::optional<Regridder> regridder;
  // Regridding's transfers have a communicator of their own (GridTransfer.h).
  std::optional<Communicator> transferComm;
  std::optional<ArchivedGrid> archived;
  if (options.restart) {
    archived = archivedGridOf(options.restart->directory, options.restart->timestep, m_world, m_log);
  }
  if (amr && amr->tagged()) {
    const VarLabel* refineFlag = labels.create<CCVariable<int>>("refineFlag");
    if (options.restart) {
      addArchivedLevels(grid, *archived, m_log);
    } else {
      addTaggedLevels(grid, *amr, *app, sched, *balancer, refineFlag, control.initTime, m_world,
                      m_log);
    }
    if (amr->regrids()) {
      regridder.emplace(*amr, *app, refineFlag, m_world, m_log);
      m_log.info("regridding every ", amr->regridInterval, " timestep(s)");
    }
  }
  const std::optional<DynamicBalance> dynamic = DynamicBalance::fromDeck(m_deck);
  std::optional<CostForecaster> forecaster;
  if (dynamic) {
    forecaster.emplace(dynamic->smoothing);
    for (const auto& each : schedulers)
      each->measurePatchSeconds(true);
    m_log.info("dynamic load balancing (", dynamic->knapsack ? "knapsack" : "the curve cut by cost",
               "): every ", dynamic->interval, " timestep(s) when the imbalance exceeds ",
               dynamic->threshold);
  }
  if (regridder || dynamic) transferComm.emplace(Communicator::duplicate(m_world.get()));
  std::vector<int> patchRanks = balancer->assign(grid, m_world.size());
  // A dynamically balanced run restarted on as many ranks takes up the
  // placement its checkpoint ran with, rather than measuring its way back.
  if (dynamic && archived && archived->placementRanks == m_world.size() &&
      archived->patchRanks.size() == patchRanks.size() &&
      std::all_of(archived->patchRanks.begin(), archived->patchRanks.end(),
                  [&](int r) { return r >= 0 && r < m_world.size(); })) {
    const std::size_t differ = static_cast<std::size_t>(
        std::inner_product(patchRanks.begin(), patchRanks.end(), archived->patchRanks.begin(), 0,
                           std::plus<>(), std::not_equal_to<>()));
    patchRanks = archived->patchRanks;
    m_log.info("restart: the checkpoint's placement (", differ,
               " patch(es) where the load balancer would have put them elsewhere)");
  }
  const Level& level = grid.level(0);
  m_log.info("grid: ", level.resolution(), " cells in ", level.patchLayout(), " patches on ",
             m_world.size(), " rank(s), load balancer ", balancer->name());
  for (int l = 1; l < grid.numLevels(); ++l) {
    m_log.info("level ", l, ": ", grid.level(l).numCells(), " cells of ",
               grid.level(l).resolution(), " in ", grid.level(l).numPatches(), " patches, ",
               grid.level(l).regions().size(), " region(s)");
  }
  // Tracing starts at the same moment on every rank, so that the ranks'
  // timelines line up: across nodes the moment after a barrier; on one
  // node, whose ranks read one monotonic clock, the earliest of those
  // moments (a rank the system sets aside just after the barrier would
  // otherwise shift its timeline, and a message would seem to arrive
  // before it was sent).
  std::optional<TraceFile> traceFile;
  std::unique_ptr<Trace> trace;
  if (!options.traceFile.empty()) {
    traceFile.emplace(options.traceFile, m_world);
    const Communicator node = Communicator::node(m_world.get());
    m_world.barrier();
    using Clock = std::chrono::steady_clock;
    const Clock::time_point afterBarrier = Clock::now();
    const double mine = std::chrono::duration<double>(afterBarrier.time_since_epoch()).count();
    const double earliest = node.allreduceMin(mine);
    const auto late = std::chrono::duration<double>(mine - earliest);
    trace =
        std::make_unique<Trace>(afterBarrier - std::chrono::duration_cast<Clock::duration>(late));
    for (const auto& each : schedulers)
      each->setTrace(trace.get());
  }
  TraceTrack* const mainTrack = trace ? &trace->main() : nullptr;
  std::ofstream statsOut;
  agreeOn(m_world, [&] {
    if (options.statsFile.empty() || !m_world.isRoot()) return;
    statsOut.open(options.statsFile);
    if (!statsOut) throw InputError("cannot write statistics to '" + options.statsFile + "'");
  });
  // Subcycling (Subcycling.h): each level steps with its own dt; the stable
  // timestep every level reports is counted in coarse steps.
  const bool subcycling = amr && amr->subcycle;
  // Refluxing (Reflux.h): for a component that declares its fluxes.
  const bool refluxing = amr && amr->refluxes() && !app->conservedFluxes().empty();
  if (refluxing) m_log.info("refluxing ", app->conservedFluxes().size(), " conserved variable(s)");
  if (subcycling)
    m_log.info("subcycling: level l takes ", amr->ratio, "^l substeps per timestep");
  const auto scheduleStableTimestep = [&](const Level& each) {
    if (subcycling) {
      scheduleScaledStableTimestep(each, *app, sched);
    } else {
      app->scheduleComputeStableTimestep(each, sched);
    }
  };
  const auto recordTimestepGraph = [&] {
    sched.beginGraph("timestep");
    if (subcycling && grid.numLevels() > 1) {
      scheduleSubcycledTimestep(grid, *app, labels, sched, refluxing);
      return;
    }
    forEachLevel(grid, [&](const Level& each) {
      app->scheduleTimeAdvance(each, sched);
      app->scheduleComputeStableTimestep(each, sched);
    });
    // Finest first: a level is averaged onto and refluxed before it is averaged below.
    for (int l = grid.numLevels() - 1; l >= 1; --l) {
      scheduleAveragingFrom(grid.level(l), app->stateLabels(), sched);
      if (!refluxing) continue;
      RefluxStep step;
      step.fine = &grid.level(l);
      step.fineSteps = {app->conservedFluxes()};
      step.coarse = app->conservedFluxes();
      scheduleReflux(step, sched);
    }
  };
  // The timestep graph is compiled once, before initialisation (so that the
  // initial state is allocated with the ghost room the timestep reads), and
  // reused while the grid and the load balance stay as they are.
  recordTimestepGraph();
  CompiledGraph stepGraph = sched.compile(grid, patchRanks);
  DataArchiver archiver(
      m_deck,
      DataArchiver::defaultBase(m_deck.file(), options.restart ? options.restart->directory : ""),
      m_world, m_log);
  std::vector<const VarLabel*> reductionLabels;
  for (const VarLabel* label : labels.all()) {
    if (label->kind() == VarKind::Reduction) reductionLabels.push_back(label);
  }
  // The warehouses of the run recycle each other's storage.
  auto pool = std::make_shared<VariablePool>();
  auto oldDW = std::make_unique<OnDemandDataWarehouse>("OldDW", 0, control.initTime, 0.0, pool);
  std::unique_ptr<OnDemandDataWarehouse> newDW;
  double time = control.initTime;
  int step = 0;
  bool converged = false;
  if (options.restart) {
    auto restored = DataArchiver::restore(options.restart->directory, options.restart->timestep,
                                          grid, patchRanks, app->stateLabels(), reductionLabels,
                                          stepGraph.ghostLayers, stepGraph.blockLayouts, m_world,
                                          m_log);
    newDW = std::move(restored.dw);
    newDW->setPool(pool);
    time = restored.step.time;
    step = restored.step.timestep;
    sched.beginGraph("restartInitialize");
    forEachLevel(grid, [&](const Level& each) { app->scheduleRestartInitialize(each, sched); });
    if (!sched.recordedGraph().empty())
      sched.execute(sched.compile(grid, patchRanks), *oldDW, *newDW);
    archiver.setup(grid, patchRanks, labels, app->stateLabels(), stepGraph.blockLayouts.get(),
                   componentName(m_deck), restored.file);
    // Whether the run had ended survives the restart: a converged state
    // stays converged, and a run at its limits goes on only if they were raised.
    converged = app->converged(*newDW);
    if (converged || control.finished(time, step)) {
      m_log.info("restart: the run had ended at timestep ", step,
                 converged ? " (the component converged); nothing to do"
                           : " (time.max_timesteps or time.max_time reached); nothing to do "
                             "unless the deck's limits are raised");
    }
  } else {
    const TraceScope traced(mainTrack, "initialize", "timestep");
    newDW = std::make_unique<OnDemandDataWarehouse>("NewDW", 0, control.initTime, 0.0, pool);
    newDW->setGhostLayers(stepGraph.ghostLayers);
    sched.beginGraph("initialize");
    forEachLevel(grid, [&](const Level& each) {
      app->scheduleInitialize(each, sched);
      scheduleStableTimestep(each);
    });
    scheduleAveragingDown(grid, app->stateLabels(), sched);
    sched.execute(sched.compile(grid, patchRanks), *oldDW, *newDW);
    archiver.setup(grid, patchRanks, labels, app->stateLabels(), stepGraph.blockLayouts.get(),
                   componentName(m_deck), "");
    archiver.afterTimestep(0, time, 0.0, time, *newDW, control.finished(time, step));
  }

  recordTimestepGraph();  // what rebuild_every_timestep and --emit-taskgraph compile
  reserveTimestepStorage(stepGraph, *newDW, *pool);
  const double slowestCompile = m_world.allreduceMax(stepGraph.compileSeconds);
  m_log.info("timestep graph: ", stepGraph.tasks.size(), " tasks, ", stepGraph.detailedTasks.size(),
             " detailed tasks, ", stepGraph.sends.size(), " sends and ", stepGraph.receives.size(),
             " receives on rank 0; compiled in ", std::setprecision(3),
             stepGraph.compileSeconds * 1e3, " ms (slowest rank ", slowestCompile * 1e3, " ms)");
  if (!options.taskGraphFile.empty()) {
    agreeOn(m_world, [&] {
      if (m_world.isRoot())
        writeTaskGraph(options.taskGraphFile, sched, grid, patchRanks, m_world.size());
    });
    m_log.info("wrote the timestep graph to ", options.taskGraphFile);
  }

  // What the old warehouse keeps across the swap: what the graph reads from it, and the state.
  const auto keptLabels = [&] {
    std::set<const VarLabel*> kept(stepGraph.oldDWReads.begin(), stepGraph.oldDWReads.end());
    for (const VarLabel* label : app->stateLabels())
      kept.insert(label);
    return kept;
  };
  std::set<const VarLabel*> keep = keptLabels();

  // The state moves onto `next` (a regrid's new grid; the same grid when
  // absent) with the patches on `nextRanks`: through GridTransfer, then
  // what a restart recomputes is made for the moved patches, the stable
  // timestep is taken again (a new finer level may need a smaller one) and
  // the timestep graph is compiled for the new layout.
  struct Moved {
    GridTransferCounts counts;  // summed over ranks
    double transferSeconds = 0.0;
    double compileSeconds = 0.0;
  };
  int placements = 0;  // grids and placements the run has had, after the first
  const auto moveState = [&](std::optional<Grid> next, std::vector<int> nextRanks,
                             const char* compileSpan) {
    const Grid& target = next ? *next : grid;
    // The step before's values are read no more: their storage (the old
    // warehouse's, and what the pool keeps) goes back to the allocator
    // first, so that the transfer's new variables reuse its pages instead
    // of faulting in new ones.
    oldDW.reset();
    pool->release();
    auto nextPool = std::make_shared<VariablePool>();
    auto moved = std::make_unique<OnDemandDataWarehouse>("NewDW", newDW->timestep(), newDW->time(),
                                                         newDW->delT(), nextPool);
    moved->setGhostLayers(stepGraph.ghostLayers);
    std::vector<const VarLabel*> cellLabels;
    for (const VarLabel* label : app->stateLabels())
      if (label->kind() == VarKind::CellCentered) cellLabels.push_back(label);
    Moved report;
    const Timer transferTimer;
    SchedulerStats transferStats;
    const GridTransferCounts counts =
        transferGrid({grid, patchRanks, *newDW},
                     {target, nextRanks, *moved, sched.options().patchGroups}, cellLabels,
                     *transferComm, transferStats, mainTrack);
    report.transferSeconds = m_world.allreduceMax(transferTimer.seconds());
    // One sum of the four counts (exact as doubles: far below 2^53).
    const std::vector<double> sums = m_world.allreduceSum(std::vector<double>{
        static_cast<double>(counts.copiedCells), static_cast<double>(counts.refinedCells),
        static_cast<double>(counts.messages), static_cast<double>(counts.bytesSent)});
    report.counts = {static_cast<std::int64_t>(sums[0]), static_cast<std::int64_t>(sums[1]),
                     static_cast<std::int64_t>(sums[2]), static_cast<std::int64_t>(sums[3])};
    // Kept until the graph below has run: its reductions go on (keepReductionsOf).
    std::unique_ptr<OnDemandDataWarehouse> previous = std::move(newDW);
    oldDW = std::make_unique<OnDemandDataWarehouse>("OldDW", step, time, 0.0, nextPool);
    if (next) grid = std::move(*next);
    patchRanks = std::move(nextRanks);
    ++placements;
    pool = std::move(nextPool);
    sched.beginGraph("after moving the state");
    scheduleStateInPlace(grid, cellLabels, sched);
    forEachLevel(grid, [&](const Level& each) {
      app->scheduleRestartInitialize(each, sched);
      scheduleStableTimestep(each);
    });
    sched.execute(sched.compile(grid, patchRanks), *oldDW, *moved);
    moved->keepReductionsOf(*previous);
    // The old grid's storage (this warehouse and, through it, the old pool
    // the retired one handed its variables to) goes back to the allocator
    // now, before the next timestep's storage is reserved below: those
    // allocations then reuse its pages instead of faulting in new ones.
    previous.reset();
    newDW = std::move(moved);
    const Timer compileTimer;
    {
      const TraceScope compiling(mainTrack, compileSpan, "regrid");
      recordTimestepGraph();
      stepGraph = sched.compile(grid, patchRanks);
      reserveTimestepStorage(stepGraph, *newDW, *pool);
    }
    report.compileSeconds = m_world.allreduceMax(compileTimer.seconds());
    keep = keptLabels();
    archiver.gridChanged(grid, patchRanks);
    for (const auto& each : schedulers)
      each->takePatchSeconds();  // measured on the old layout
    return report;
  };

  // Regridding: the component tags the state the last timestep left; when
  // the levels change, the state moves onto the new grid.
  int regrids = 0;
  int regridChecks = 0;
  const auto regridNow = [&] {
    const TraceScope traced(mainTrack, "regrid", "regrid", step);
    const Timer total;
    RegridTimes times;
    ++regridChecks;
    std::optional<Grid> next =
        regridder->regrid(grid, patchRanks, placements, *newDW, sched, times, mainTrack);
    if (!next) {
      m_log.info("regrid at timestep ", step, ": the levels stay (",
                 Regridder::describeLevels(grid), "); tagging ", ms(times.tagging),
                 " ms, clustering ", ms(times.clustering), " ms");
      return;
    }
    std::vector<int> nextRanks = balancer->assign(*next, m_world.size());
    const Moved moved = moveState(std::move(next), std::move(nextRanks), "regrid: compile");
    if (forecaster) forecaster->reset();  // other patches
    m_log.info("regrid at timestep ", step, ": ", Regridder::describeLevels(grid), "; tagging ",
               ms(times.tagging), " ms, clustering ", ms(times.clustering), " ms, transfer ",
               ms(moved.transferSeconds), " ms (", moved.counts.copiedCells, " cells copied, ",
               moved.counts.refinedCells, " refined, ", moved.counts.messages, " messages, ",
               moved.counts.bytesSent, " bytes), compile ", ms(moved.compileSeconds),
               " ms; regrid ", ms(total.seconds()), " ms in all");
    ++regrids;
  };

  // Dynamic load balancing: every interval, the imbalance the ranks
  // measured in their tasks since the last check; above the threshold, the
  // patches are placed anew by their forecast costs and migrate.
  int rebalances = 0;
  std::int64_t patchesMoved = 0;
  double taskSecondsAtCheck = 0.0;
  const auto balanceNow = [&] {
    const double taskSeconds = allStats().taskSeconds;
    const double measured = imbalanceOf(m_world.allgather(taskSeconds - taskSecondsAtCheck));
    taskSecondsAtCheck = taskSeconds;
    if (measured <= dynamic->threshold) return;
    const TraceScope traced(mainTrack, "rebalance", "regrid", step);
    const Timer total;
    const std::vector<double> costs = forecaster->costs(grid, patchRanks, m_world);
    std::vector<int> nextRanks = dynamic->knapsack
                                     ? knapsackAssign(grid, m_world.size(), costs)
                                     : balancer->assignWeighted(grid, m_world.size(), costs);
    const double before = imbalanceOf(rankLoads(costs, patchRanks, m_world.size()));
    const double after = imbalanceOf(rankLoads(costs, nextRanks, m_world.size()));
    std::int64_t moving = 0;
    for (std::size_t p = 0; p < nextRanks.size(); ++p)
      moving += nextRanks[p] != patchRanks[p] ? 1 : 0;
    // A placement that would gain less than half the threshold is not worth
    // a migration: measurements this close apart are the machine's noise,
    // and moving on them would move patches back and forth.
    if (moving == 0 || after > before - 0.5 * dynamic->threshold) {
      m_log.info("balance at timestep ", step, ": imbalance ", percent(measured),
                 " % measured, but the forecast costs give no placement better by half the "
                 "threshold (",
                 percent(before), " % now, ", percent(after), " % at best)");
      return;
    }
    forecaster->adopt(costs, nextRanks, m_world.rank());
    const Moved moved = moveState(std::nullopt, std::move(nextRanks), "rebalance: compile");
    ++rebalances;
    patchesMoved += moving;
    m_log.info("rebalance at timestep ", step, ": imbalance ", percent(measured),
               " % measured; forecast ", percent(before), " % -> ", percent(after), " %; ", moving,
               " patch(es) moved (", moved.counts.messages, " messages, ", moved.counts.bytesSent,
               " bytes, ", ms(moved.transferSeconds), " ms), compile ",
               ms(moved.compileSeconds), " ms; ", ms(total.seconds()), " ms in all");
  };

  RunResult result;
  std::int64_t cellUpdates = 0;
  const auto cellsNow = [&] {
    std::int64_t cells = 0;
    if (subcycling) return subcycledCellUpdates(grid);
    forEachLevel(grid, [&](const Level& each) { cells += each.numCells(); });
    return cells;
  };
  const SchedulerStats atLoopStart = allStats();
  const int firstStep = step;
  const Timer loopTimer;
  double firstStepSeconds = 0.0;
  while (!converged && !control.finished(time, step)) {
    const Timer stepTimer;
    if (trace) trace->setStep(step + 1);
    const TraceScope traced(mainTrack, "timestep", "timestep", step + 1);
    if (regridder && regridder->due(step)) regridNow();
    if (dynamic && step > firstStep && step % dynamic->interval == 0) balanceNow();
    const double stable =
        app->stableTimestepLabel() == nullptr
            ? kUnlimitedStep
            : newDW->getReduction<MinVariable<double>>(app->stableTimestepLabel()).get();
    const double delT = control.nextDelT(stable, time, step);
    if (delT > stable * control.multiplier && delT == control.deltMin) {
      m_log.warning("timestep ", step + 1, ": raising delt from ", stable * control.multiplier,
                    " to delt_min ", delT, " (above the stable timestep)");
    }
    const double next = control.advance(time, delT);
    oldDW = std::move(newDW);
    oldDW->setRole("OldDW");
    oldDW->retainOnly(keep);
    newDW = std::make_unique<OnDemandDataWarehouse>("NewDW", step + 1, next, delT, pool);
    if (rebuildEveryStep) {
      // Recorded again: a regrid's tagging graph may have been recorded since.
      recordTimestepGraph();
      stepGraph = sched.compile(grid, patchRanks);
      m_log.debug("recompiled the timestep graph in ", stepGraph.compileSeconds * 1e3, " ms");
    }
    GraphScheduler& stepScheduler =
        *schedulers[static_cast<std::size_t>(step - firstStep) % schedulers.size()];
    const SchedulerStats before = stepScheduler.stats();
    stepScheduler.execute(stepGraph, *oldDW, *newDW);
    newDW->keepReductionsOf(*oldDW);
    const double previous = time;
    time = next;
    ++step;
    cellUpdates += cellsNow();
    if (forecaster) {
      for (const auto& each : schedulers)
        forecaster->measured(each->takePatchSeconds());
    }
    if (statsOut.is_open()) {
      SchedulerStats delta = stepScheduler.stats();
      delta -= before;
      writeStatsLine(statsOut, step, time, delT, stepTimer.seconds(), stepScheduler.modeName(),
                     delta);
    }
    converged = app->converged(*newDW);
    if (step == firstStep + 1) firstStepSeconds = loopTimer.seconds();
    {
      const TraceScope output(mainTrack, "output", "io");
      archiver.afterTimestep(step, time, delT, previous, *newDW,
                             converged || control.finished(time, step));
    }
    m_log.info("timestep ", std::setw(5), step, "  time ", std::scientific, std::setprecision(6),
               time, "  delt ", std::setprecision(4), delT, std::defaultfloat, "  wall ",
               std::fixed, std::setprecision(4), stepTimer.seconds(), " s", std::defaultfloat);
  }
  result.wallSeconds = m_world.allreduceMax(loopTimer.seconds());
  const SchedulerStats atLoopEnd = allStats();
  result.loopBytesSent =
      m_world.allgather(static_cast<double>(atLoopEnd.bytesSent - atLoopStart.bytesSent));
  result.loopBytesReceived =
      m_world.allgather(static_cast<double>(atLoopEnd.bytesReceived - atLoopStart.bytesReceived));
  result.loopTaskSeconds = m_world.allgather(atLoopEnd.taskSeconds - atLoopStart.taskSeconds);
  result.timesteps = step - firstStep;
  result.firstTimestep = firstStep;
  result.time = time;
  result.cellUpdates = cellUpdates;
  result.regrids = regrids;
  result.rebalances = rebalances;
  result.patchesMoved = patchesMoved;
  result.regridChecks = regridChecks;
  forEachLevel(grid, [&](const Level& each) { result.levelCells.push_back(each.numCells()); });
  result.outputDirectory = archiver.directory();
  result.checkpointBytes = archiver.checkpointBytes();
  result.checkpointSeconds = archiver.checkpointSeconds();

  // What follows belongs to no timestep.
  if (trace) trace->setStep(-1);
  const TraceScope analysisTraced(mainTrack, "analysis and digests", "io");
  sched.beginGraph("analysis");
  forEachLevel(grid, [&](const Level& each) { app->scheduleAnalysis(each, sched); });
  {
    // The report comes also without analysis tasks (a rate needs none).
    OnDemandDataWarehouse scratch("AnalysisDW", step, time, 0.0);
    if (!sched.recordedGraph().empty()) {
      sched.execute(sched.compile(grid, patchRanks), *newDW, scratch);
      scratch.keepReductionsOf(*newDW);  // the results may read the state's reductions too
      result.analysis = app->analysisResults(scratch);
    }
    RunTiming timing;
    timing.timesteps = result.timesteps;
    timing.wallSeconds = result.wallSeconds;
    timing.firstStepSeconds = m_world.allreduceMax(firstStepSeconds);
    timing.bytesSent = result.loopBytesSent;
    timing.bytesReceived = result.loopBytesReceived;
    result.analysisReport = app->analysisReport(scratch, timing);
  }
  result.digests = digestFields(*app, grid, *newDW, patchRanks, m_world);
  result.reductions = reducedValues(reductionLabels, *newDW);
  result.stats = sumOverRanks(allStats(), m_world);
  for (const auto& each : schedulers)
    result.schedulerMode += (result.schedulerMode.empty() ? "" : ",") + each->modeName();
  if (traceFile) {
    for (const auto& each : schedulers)
      each->setTrace(nullptr);
    traceFile->write(*trace, describeForTrace(stepGraph));
  }
  return result;
}

double RunResult::loadImbalance() const {
  return imbalanceOf(loopTaskSeconds);
}

}  // namespace tessera
