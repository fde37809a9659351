#include "CCA/Components/SimulationController/Subcycling.h"

#include "CCA/Components/Schedulers/SubstepWarehouse.h"
#include "CCA/Components/SimulationController/LevelScheduling.h"
#include "CCA/Components/SimulationController/Reflux.h"
#include "Core/Util/Error.h"

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>

namespace tessera {

namespace {

OnDemandDataWarehouse& runtimeWarehouse(const DataWarehouse& dw) {
  // The scheduler runs tasks on its own warehouses; the views are made
  // around those.
  return const_cast<OnDemandDataWarehouse&>(dynamic_cast<const OnDemandDataWarehouse&>(dw));
}

// Collects a level's timestep tasks without recording them: what the
// level computes at every substep.
class CollectingScheduler final : public Scheduler {
 public:
  void addTask(Task task, const std::vector<const Patch*>&) override {
    tasks.push_back(std::move(task));
  }
  void addTask(Task task, const TaskSpace&) override { tasks.push_back(std::move(task)); }
  void setBlockLayout(const VarLabel*, BlockLayout) override {}
  std::vector<Task> tasks;
};

// `task` as `name`, with the same declarations, its callback (per patch or
// per group) called through `through(oldDW, newDW, call)`, which hands
// `call` the warehouses the task is to see.
template <class Through>
Task throughViews(const Task& task, const std::string& name, Through through) {
  Task wrapped = [&]() -> Task {
    if (task.runsPerGroup()) {
      return Task(name,
                  Task::GroupCallback([inner = task.groupCallback(), through](
                                          const PatchGroup& group, const DataWarehouse& oldDW,
                                          DataWarehouse& newDW, ExecutionContext& exec) {
                    through(oldDW, newDW, [&](const DataWarehouse& o, DataWarehouse& n) {
                      inner(group, o, n, exec);
                    });
                  }),
                  task.kind());
    }
    TESSERA_REQUIRE_THROWS(!task.runsPerIndex(), "subcycling: task '"
                                                     << task.name()
                                                     << "' runs per index, not on a level");
    return Task(name,
                Task::Callback([inner = task.callback(), through](
                                   const Patch& patch, const DataWarehouse& oldDW,
                                   DataWarehouse& newDW, ExecutionContext& exec) {
                  through(oldDW, newDW, [&](const DataWarehouse& o, DataWarehouse& n) {
                    inner(patch, o, n, exec);
                  });
                }),
                task.kind());
  }();
  wrapped.setDependencies(task.dependencies());
  return wrapped;
}

// Records each task a component adds as `wrap` makes it (on levels only).
class WrappingScheduler final : public Scheduler {
 public:
  WrappingScheduler(Scheduler& sched, std::function<Task(const Task&)> wrap)
      : m_sched(sched), m_wrap(std::move(wrap)) {}
  void addTask(Task task, const std::vector<const Patch*>& patches) override {
    m_sched.addTask(m_wrap(task), patches);
  }
  void addTask(Task task, const TaskSpace&) override {
    TESSERA_FAIL("subcycling: task '" << task.name() << "' runs per index, not on a level");
  }
  void setBlockLayout(const VarLabel* label, BlockLayout layout) override {
    m_sched.setBlockLayout(label, std::move(layout));
  }

 private:
  Scheduler& m_sched;
  std::function<Task(const Task&)> m_wrap;
};

using LabelDW = std::pair<const VarLabel*, Task::WhichDW>;

// The names of the levels' states through one coarse step.
class Timeline {
 public:
  Timeline(const Grid& grid, VarLabelRegistry& labels, std::set<const VarLabel*> synced)
      : m_labels(labels),
        m_positions(substepsOf(grid.level(grid.numLevels() - 1))),
        m_finest(grid.numLevels() - 1),
        m_synced(std::move(synced)) {}

  int positions() const { return m_positions; }
  // Positions per substep of `level`.
  int stride(const Level& level) const { return m_positions / substepsOf(level); }
  bool synced(const VarLabel* label) const { return m_synced.count(label) > 0; }

  // `label` of `level` at position p: with `beforeSync`, as the level's own
  // step left it (where a finer level is then averaged onto it).
  LabelDW at(const VarLabel* label, const Level& level, int p, bool beforeSync) {
    const bool split = beforeSync && level.index() < m_finest && synced(label) && p > 0;
    const std::string when = "@" + std::to_string(p) + "/" + std::to_string(m_positions);
    if (split) return {m_labels.alias(label, label->name() + when + " before sync"), Task::NewDW};
    if (p == 0) return {label, Task::OldDW};
    if (p == m_positions) return {label, Task::NewDW};
    return {m_labels.alias(label, label->name() + when), Task::NewDW};
  }

  // Where the coarse-fine ghost cells of `label` on `level` at position p
  // come from, or nullopt when the level below has it under the same name.
  // `atEnd`: read at the end of a substep, where the level below is not
  // synchronised yet.
  std::optional<Task::CoarseTimeSource> coarseSource(const VarLabel* label, const Level& level,
                                                     int p, bool atEnd, const LabelDW& fine) {
    const Level& coarse = *level.coarser();
    const int stride = this->stride(coarse);
    const int before = (p / stride) * stride;
    Task::CoarseTimeSource source;
    if (p == before) {
      const LabelDW same = at(label, coarse, p, atEnd);
      if (same == fine) return std::nullopt;
      source.before = same.first;
      source.beforeDW = same.second;
      source.after = same.first;
      source.afterDW = same.second;
      return source;
    }
    const LabelDW from = at(label, coarse, before, false);
    const LabelDW to = at(label, coarse, before + stride, true);
    source.before = from.first;
    source.beforeDW = from.second;
    source.after = to.first;
    source.afterDW = to.second;
    source.weight = static_cast<double>(p - before) / stride;
    return source;
  }

 private:
  VarLabelRegistry& m_labels;
  int m_positions;
  int m_finest;
  std::set<const VarLabel*> m_synced;
};

// Substep `k` of a level: the component's tasks on the substep's names.
class SubstepRecorder {
 public:
  SubstepRecorder(Timeline& timeline, const Level& level, int k,
                  const std::set<const VarLabel*>& computed)
      : m_timeline(timeline),
        m_level(level),
        m_substeps(substepsOf(level)),
        m_k(k),
        m_start(k * timeline.stride(level)),
        m_end((k + 1) * timeline.stride(level)),
        m_computed(computed) {}

  Task operator()(const Task& task) {
    auto oldNames = std::make_shared<SubstepWarehouse::Renaming>();
    auto newNames = std::make_shared<SubstepWarehouse::Renaming>();
    std::vector<Task::Dependency> dependencies;
    for (Task::Dependency dep : task.dependencies())
      dependencies.push_back(renamed(task, dep, *oldNames, *newNames));
    const std::string where = " (level " + std::to_string(m_level.index()) + ", substep " +
                              std::to_string(m_k + 1) + " of " + std::to_string(m_substeps) + ")";
    // Made once here, not at every run of the task.
    const auto names = std::make_shared<const std::pair<std::string, std::string>>("OldDW" + where,
                                                                                   "NewDW" + where);
    const int positions = m_timeline.positions();
    const int start = m_start;
    const int end = m_end;
    const int substeps = m_substeps;
    // The views of the two warehouses a substep's task sees.
    const auto views = [=](const DataWarehouse& oldDW, DataWarehouse& newDW) {
      OnDemandDataWarehouse& before = runtimeWarehouse(oldDW);
      OnDemandDataWarehouse& after = runtimeWarehouse(newDW);
      const double t0 = before.time();
      const double step = after.delT();
      const double finest = step / positions;
      return std::make_pair(
          SubstepWarehouse(before, after, *oldNames, &names->first,
                           start == 0 ? t0 : t0 + start * finest, before.delT()),
          SubstepWarehouse(after, after, *newNames, &names->second,
                           end == positions ? after.time() : t0 + end * finest, step / substeps));
    };
    Task wrapped =
        throughViews(task, task.name() + where,
                     [views](const DataWarehouse& oldDW, DataWarehouse& newDW, const auto& call) {
                       auto [before, after] = views(oldDW, newDW);
                       call(before, after);
                     });
    wrapped.setDependencies(std::move(dependencies));
    return wrapped;
  }

 private:
  Task::Dependency renamed(const Task& task, Task::Dependency dep,
                           SubstepWarehouse::Renaming& oldNames,
                           SubstepWarehouse::Renaming& newNames) {
    const VarLabel* const label = dep.label;
    if (!m_computed.count(label) || dep.domain == Task::LevelDomain::FinerLevel) return dep;
    if (dep.carriesForward()) {
      TESSERA_FAIL("subcycling: task '" << task.name() << "' carries '" << label->name()
                                        << "' forward (modifiesVar(OldDW)), which a level's "
                                           "substeps cannot: declare requiresVar and computesVar");
    }
    const bool readsOld = dep.access == Task::Access::Requires && dep.dw == Task::OldDW;
    const int p = readsOld ? m_start : m_end;
    const LabelDW name = m_timeline.at(label, m_level, p, !readsOld);
    if (name.first != label) (readsOld ? oldNames : newNames).labels[label] = name.first;
    const Task::WhichDW original = dep.dw;
    dep.label = name.first;
    dep.dw = name.second;
    if (dep.access == Task::Access::Requires && dep.numGhost > 0 && m_level.index() > 0 &&
        label->kind() == VarKind::CellCentered) {
      dep.coarseTime = m_timeline.coarseSource(label, m_level, p, original == Task::NewDW, name);
    }
    return dep;
  }

  Timeline& m_timeline;
  const Level& m_level;
  int m_substeps;
  int m_k;
  int m_start;  // positions
  int m_end;
  const std::set<const VarLabel*>& m_computed;
};

// The synchronised copy of `label` on `level` at position p: the level's
// own step's result, before the finer level is averaged onto it.
void scheduleSynchronisedCopy(const Level& level, const LabelDW& ownStep, const LabelDW& synced,
                              Scheduler& sched) {
  Task keep("keep " + synced.first->name() + " on level " + std::to_string(level.index()),
            Task::GroupCallback([from = ownStep.first, to = synced.first](
                                    const PatchGroup& group, const DataWarehouse&,
                                    DataWarehouse& newDW, ExecutionContext&) {
              OnDemandDataWarehouse& dw = runtimeWarehouse(newDW);
              const auto source = dw.findGroupVariable(from, group);
              TESSERA_REQUIRE_THROWS(source != nullptr, "'" << from->name() << "' on " << group
                                                            << " is not in " << dw.name());
              const Box box = group.ghostedBox(dw.ghostLayersToAllocate(to));
              std::shared_ptr<GridVariableBase> copy =
                  dw.recycledGridVariable(to, group.storageKey(), box);
              if (!copy) copy = source->cloneEmpty(box);
              copy->copyFrom(*source, group.extendedBox(), IntVector{});
              dw.putGroupVariable(to, group, std::move(copy));
            }));
  keep.requiresVar(Task::NewDW, ownStep.first).computesVar(synced.first);
  sched.addTask(std::move(keep), level.eachPatch());
}

// The refluxing of `fine` onto the level below at position p (the end of
// one of its substeps), on the names the substeps gave the fluxes.
RefluxStep refluxAt(Timeline& timeline, const Application& app, const Level& fine, int p) {
  const Level& coarse = *fine.coarser();
  const auto named = [&](const Level& level, int at) {
    std::vector<ConservedFlux> fluxes = app.conservedFluxes();
    for (ConservedFlux& flux : fluxes) {
      for (int axis = 0; axis < 3; ++axis) {
        if (flux.low[axis] == nullptr) continue;
        flux.low[axis] = timeline.at(flux.low[axis], level, at, true).first;
        flux.high[axis] = timeline.at(flux.high[axis], level, at, true).first;
      }
    }
    return fluxes;
  };
  RefluxStep step;
  step.fine = &fine;
  const int stride = timeline.stride(fine);
  for (int end = p - timeline.stride(coarse) + stride; end <= p; end += stride)
    step.fineSteps.push_back(named(fine, end));
  step.coarse = named(coarse, p);
  for (ConservedFlux& flux : step.coarse)
    flux.conserved = timeline.at(flux.conserved, coarse, p, false).first;  // synchronised
  step.coarseSubsteps = substepsOf(coarse);
  step.coarseNamesBelow =
      coarse.coarser() == nullptr || p % timeline.stride(*coarse.coarser()) == 0;
  return step;
}

}  // namespace

int substepsOf(const Level& level) {
  int substeps = 1;
  for (const Level* l = &level; l->coarser() != nullptr; l = l->coarser())
    substeps *= l->refinementRatio().x;
  return substeps;
}

std::int64_t subcycledCellUpdates(const Grid& grid) {
  std::int64_t updates = 0;
  for (int l = 0; l < grid.numLevels(); ++l)
    updates += grid.level(l).numCells() * substepsOf(grid.level(l));
  return updates;
}

void scheduleSubcycledTimestep(const Grid& grid, Application& app, VarLabelRegistry& labels,
                               Scheduler& sched, bool reflux) {
  std::set<const VarLabel*> synced;
  for (const VarLabel* label : app.stateLabels())
    if (label->kind() == VarKind::CellCentered) synced.insert(label);
  Timeline timeline(grid, labels, synced);
  for (int l = 0; l < grid.numLevels(); ++l) {
    const Level& level = grid.level(l);
    // What the level's step computes: renamed at every substep (level 0's
    // one step too, for the state it leaves before its finer level's sync).
    CollectingScheduler collected;
    app.scheduleTimeAdvance(level, collected);
    std::set<const VarLabel*> computed;
    for (const Task& task : collected.tasks)
      for (const Task::Dependency& dep : task.dependencies())
        if (dep.access != Task::Access::Requires && !dep.carriesForward())
          computed.insert(dep.label);
    for (int k = 0; k < substepsOf(level); ++k) {
      WrappingScheduler recorder(sched, SubstepRecorder(timeline, level, k, computed));
      app.scheduleTimeAdvance(level, recorder);
      if (l + 1 == grid.numLevels()) continue;
      // Right after the substep, so that it runs before the finer level's
      // substeps: the averages onto the copy wait for it, and made in the
      // finer level's last sweep (SweepAverager) only if it has run then.
      const int p = (k + 1) * timeline.stride(level);
      for (const VarLabel* label : synced)
        scheduleSynchronisedCopy(level, timeline.at(label, level, p, true),
                                 timeline.at(label, level, p, false), sched);
    }
  }
  std::set<std::pair<const VarLabel*, int>> made;  // refluxing's storage
  // Each level meets its finer level at the end of each of its substeps,
  // finest pair first.
  for (int l = grid.numLevels() - 2; l >= 0; --l) {
    const Level& level = grid.level(l);
    const int stride = timeline.stride(level);
    for (int k = 0; k < substepsOf(level); ++k) {
      const int p = (k + 1) * stride;
      std::vector<const VarLabel*> names;
      for (const VarLabel* label : synced)
        names.push_back(timeline.at(label, level, p, false).first);
      scheduleAveragingFrom(grid.level(l + 1), names, sched);
      if (reflux) {
        RefluxStep step = refluxAt(timeline, app, grid.level(l + 1), p);
        step.made = &made;
        scheduleReflux(step, sched);
      }
    }
  }
  for (int l = 0; l < grid.numLevels(); ++l)
    scheduleScaledStableTimestep(grid.level(l), app, sched);
}

void scheduleScaledStableTimestep(const Level& level, Application& app, Scheduler& sched) {
  const int substeps = substepsOf(level);
  if (substeps == 1 || app.stableTimestepLabel() == nullptr) {
    app.scheduleComputeStableTimestep(level, sched);
    return;
  }
  auto renaming = std::make_shared<SubstepWarehouse::Renaming>();
  renaming->scaled = app.stableTimestepLabel();
  renaming->scale = substeps;
  // Each task's contribution counted in coarse steps.
  WrappingScheduler scaling(sched, [renaming](const Task& task) {
    return throughViews(
        task, task.name(),
        [renaming](const DataWarehouse& oldDW, DataWarehouse& newDW, const auto& call) {
          OnDemandDataWarehouse& dw = runtimeWarehouse(newDW);
          SubstepWarehouse scaled(dw, dw, *renaming, nullptr, dw.time(), dw.delT());
          call(oldDW, scaled);
        });
  });
  app.scheduleComputeStableTimestep(level, scaling);
}

}  // namespace tessera
