#include "Components/TaskBench/TaskBench.h"

#include "CCA/Ports/ExecutionContext.h"

#include <cmath>
#include <cstdint>

namespace tessera {

TaskBench::TaskBench(ApplicationContext& context)
    : Application(context),
      m_value(context.labels.create<CCVariable<double>>("taskbench.value")),
      m_sum(context.labels.create<SumVariable<double>>("taskbench.sum")) {}

Schema TaskBench::deckSchema() const {
  Schema schema("Task Bench's stencil_1d pattern over the patches along x");
  schema.optional("iterations", ValueType::Int,
                  "busy work per task: iterations of 8 multiply-adds (default 0)")
      .range("iterations", 0);
  schema.optional("imbalance", ValueType::Double,
                  "load imbalance: a patch's tasks do iterations x (1 + imbalance x u), u drawn "
                  "once per patch, uniform in [0, 1) (default 0)")
      .range("imbalance", 0.0);
  schema.optional("seed", ValueType::Int, "seed of the imbalance's draws (default 1)");
  return schema;
}

void TaskBench::problemSetup(const ProblemSpec& deck, Grid& grid) {
  if (const auto section = deck.findSection("taskbench")) {
    m_iterations = section->get<int>("iterations", 0);
    m_imbalance = section->get<double>("imbalance", 0.0);
    m_seed = section->get<int>("seed", 1);
  }
  const Level& level = grid.level(0);
  const ProblemSpec levelSpec = deck.section("grid").section("level");
  if (level.resolution().y != 1 || level.resolution().z != 1) {
    throw levelSpec.errorAtValue("resolution",
                                 "the stencil_1d pattern runs along x: y and z must be one cell");
  }
  if (level.periodic(0))
    throw levelSpec.errorAtValue("periodic", "the stencil_1d pattern has ends: x is not periodic");
  // Its tasks are the pattern's points: one level of them.
  if (grid.numLevels() > 1)
    throw deck.section("amr").errorAtKey("regions", "the stencil_1d pattern runs on one level");
  m_width = level.resolution().x;
}

void TaskBench::scheduleInitialize(const Level& level, Scheduler& sched) {
  Task task("TaskBench::initialize", this, &TaskBench::initialize);
  task.computesVar(m_value);
  sched.addTask(std::move(task), level.eachPatch());
}

void TaskBench::scheduleTimeAdvance(const Level& level, Scheduler& sched) {
  Task task("TaskBench::stencil_1d", this, &TaskBench::timeAdvance);
  task.requiresVar(Task::OldDW, m_value, Ghost::AroundFaces, 1);
  task.computesVar(m_value);
  sched.addTask(std::move(task), level.eachPatch());
}

void TaskBench::scheduleAnalysis(const Level& level, Scheduler& sched) {
  Task task("TaskBench::sum", this, &TaskBench::sumValues);
  task.requiresVar(Task::OldDW, m_value);
  task.computesVar(m_sum);
  sched.addTask(std::move(task), level.eachPatch());
}

void TaskBench::initialize(const Patch& patch, const DataWarehouse&, DataWarehouse& newDW,
                           ExecutionContext& exec) const {
  const CellArray<double> value = newDW.allocateAndPut<double>(m_value, patch).array();
  exec.parallelFor(patch.interior(), KOKKOS_LAMBDA(int i, int j, int k) {
    value(i, j, k) = static_cast<double>(i + 1);
  });
}

std::int64_t TaskBench::iterationsOf(const Patch& patch) const {
  if (m_imbalance == 0.0) return m_iterations;
  // splitmix64 of (seed, first point): a well-mixed 64-bit draw per patch.
  std::uint64_t z = static_cast<std::uint64_t>(m_seed) * 0x9E3779B97F4A7C15ull +
                    static_cast<std::uint64_t>(patch.interior().lo().x + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const double u = static_cast<double>(z >> 11) * 0x1.0p-53;
  return static_cast<std::int64_t>(
      std::llround(static_cast<double>(m_iterations) * (1.0 + m_imbalance * u)));
}

void TaskBench::timeAdvance(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                            ExecutionContext& exec) const {
  const CellArray<const double> old = oldDW.get<double>(m_value, patch, Ghost::AroundFaces, 1).array();
  const CellArray<double> value = newDW.allocateAndPut<double>(m_value, patch).array();
  const std::int64_t iterations = iterationsOf(patch);
  const int last = m_width - 1;
  exec.parallelFor(patch.interior(), KOKKOS_LAMBDA(int i, int j, int k) {
    // Compute-bound busy work: eight independent chains, so that the FPU's
    // latency, not one chain's, sets the pace.
    double x[8];
    for (int c = 0; c < 8; ++c)
      x[c] = 0.125 * c;
    for (std::int64_t it = 0; it < iterations; ++it)
      for (int c = 0; c < 8; ++c)
        x[c] = x[c] * 0.5 + 0.25;
    double work = 0.0;
    for (int c = 0; c < 8; ++c)
      work += x[c];
    // The point depends on itself and its neighbours that exist. The work
    // adds far less than half an ulp (values stay >= 1), so the bits are
    // the pattern's alone, yet the compiler must do it.
    const double c = old(i, j, k);
    double mean = 0.0;
    if (i == 0 && i == last) {
      mean = c;
    } else if (i == 0) {
      mean = (c + old(i + 1, j, k)) / 2.0;
    } else if (i == last) {
      mean = (old(i - 1, j, k) + c) / 2.0;
    } else {
      mean = (old(i - 1, j, k) + c + old(i + 1, j, k)) / 3.0;
    }
    value(i, j, k) = mean + 1e-300 * work;
  });
}

void TaskBench::sumValues(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                          ExecutionContext& exec) const {
  const CellArray<const double> value = oldDW.get<double>(m_value, patch).array();
  ExactSum sum;
  exec.parallelReduce(
      patch.interior(), KOKKOS_LAMBDA(int i, int j, int k, ExactSum& s) { s.add(value(i, j, k)); },
      Kokkos::Sum<ExactSum>(sum));
  newDW.put(SumVariable<double>(sum), m_sum, patch);
}

std::vector<std::pair<std::string, double>> TaskBench::analysisResults(
    const DataWarehouse& dw) const {
  return {{"value sum", dw.getReduction<SumVariable<double>>(m_sum).get()}};
}

}  // namespace tessera
