#include "Components/Heat/Heat.h"

#include "CCA/Ports/ExecutionContext.h"

namespace tessera {

namespace {

// u(x, y, z, t) at the centre of cell (i, j, k), a cell of size h from `lower`.
struct Exact {
  Vector3 lower, h;
  double decay;  // exp(-3 pi^2 alpha t)
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const {
    using Kokkos::Experimental::sin;
    const double pi = 3.14159265358979323846;
    return decay * sin(pi * (lower.x + (i + 0.5) * h.x)) * sin(pi * (lower.y + (j + 0.5) * h.y)) *
           sin(pi * (lower.z + (k + 0.5) * h.z));
  }
};

// The 7-point Laplacian at cell (i, j, k).
KOKKOS_INLINE_FUNCTION double laplacian(const CellArray<const double>& u, int i, int j, int k,
                                        const Vector3& h) {
  const double c = 2.0 * u(i, j, k);
  return (u(i + 1, j, k) - c + u(i - 1, j, k)) / (h.x * h.x) +
         (u(i, j + 1, k) - c + u(i, j - 1, k)) / (h.y * h.y) +
         (u(i, j, k + 1) - c + u(i, j, k - 1)) / (h.z * h.z);
}

Exact exactAt(const PatchGroup& group, double alpha, double t) {
  const double pi = 3.14159265358979323846;
  return {group.level().spec().lower, group.spacing(), std::exp(-3.0 * pi * pi * alpha * t)};
}

}  // namespace

Heat::Heat(ApplicationContext& context)
    : Application(context),
      m_u(context.labels.create<CCVariable<double>>("u")),
      m_delT(context.labels.create<MinVariable<double>>("heat.stableDelT")) {}

Schema Heat::deckSchema() const {
  return Schema("The heat equation (docs/amr-walkthrough.md)")
      .optional("alpha", ValueType::Double, "the diffusivity (default 1)")
      .greaterThan("alpha", 0.0)
      .optional("refine_threshold", ValueType::Double, "tag where |laplacian(u)| > this")
      .greaterThan("refine_threshold", 0.0);
}

void Heat::problemSetup(const ProblemSpec& deck, Grid&) {
  if (const auto section = deck.findSection("heat")) {
    m_alpha = section->get<double>("alpha", m_alpha);
    m_threshold = section->get<double>("refine_threshold", m_threshold);
  }
}

void Heat::scheduleInitialize(const Level& level, Scheduler& sched) {
  Task task("Heat::initialize", [u = m_u, alpha = m_alpha](
                                    const PatchGroup& group, const DataWarehouse&,
                                    DataWarehouse& newDW, ExecutionContext& exec) {
    const CellArray<double> out = newDW.allocateAndPut<double>(u, group).array();
    const Exact exact = exactAt(group, alpha, newDW.time());
    exec.parallelFor(group.extendedBox(),
                     KOKKOS_LAMBDA(int i, int j, int k) { out(i, j, k) = exact(i, j, k); });
  });
  task.computesVar(m_u);
  sched.addTask(std::move(task), level.eachPatch());
}

void Heat::scheduleComputeStableTimestep(const Level& level, Scheduler& sched) {
  // Forward Euler with the 7-point Laplacian is stable for dt <= 1 / (2 alpha sum 1/h^2).
  Task task("Heat::stableTimestep", [=, delT = m_delT, alpha = m_alpha](
                                        const Patch& patch, const DataWarehouse&,
                                        DataWarehouse& newDW, ExecutionContext&) {
    const Vector3 h = patch.spacing();
    const double rate = 2.0 * alpha * (1.0 / (h.x * h.x) + 1.0 / (h.y * h.y) + 1.0 / (h.z * h.z));
    newDW.put(MinVariable<double>(1.0 / rate), delT, patch);
  }, Task::Kind::Host);
  task.computesVar(m_delT);
  sched.addTask(std::move(task), level.eachPatch());
}

void Heat::scheduleTimeAdvance(const Level& level, Scheduler& sched) {
  Task task("Heat::timeAdvance", [u = m_u, alpha = m_alpha](
                                     const PatchGroup& group, const DataWarehouse& oldDW,
                                     DataWarehouse& newDW, ExecutionContext& exec) {
    const CellArray<const double> old = oldDW.get<double>(u, group, Ghost::AroundFaces, 1).array();
    const CellArray<double> next = newDW.allocateAndPut<double>(u, group).array();
    const Vector3 h = group.spacing();
    const double dt = newDW.delT();
    exec.parallelFor(group.interior(), KOKKOS_LAMBDA(int i, int j, int k) {
      next(i, j, k) = old(i, j, k) + dt * alpha * laplacian(old, i, j, k, h);
    });
    // The Dirichlet values: the exact solution in the extra cells.
    const Exact exact = exactAt(group, alpha, newDW.time());
    exec.parallelForExtraCells(group, KOKKOS_LAMBDA(int i, int j, int k) { next(i, j, k) = exact(i, j, k); });
  });
  task.requiresVar(Task::OldDW, m_u, Ghost::AroundFaces, 1);
  task.computesVar(m_u);
  sched.addTask(std::move(task), level.eachPatch());
}

void Heat::scheduleErrorEstimate(const Level& level, Scheduler& sched, const VarLabel* refineFlag) {
  Task task("Heat::errorEstimate", [u = m_u, refineFlag, threshold = m_threshold](
                                       const PatchGroup& group, const DataWarehouse&,
                                       DataWarehouse& newDW, ExecutionContext& exec) {
    const CellArray<const double> in = newDW.get<double>(u, group, Ghost::AroundFaces, 1).array();
    const CellArray<int> flag = newDW.allocateAndPut<int>(refineFlag, group).array();
    const Vector3 h = group.spacing();
    exec.parallelFor(group.interior(), KOKKOS_LAMBDA(int i, int j, int k) {
      using Kokkos::Experimental::fabs;
      flag(i, j, k) = fabs(laplacian(in, i, j, k, h)) > threshold ? 1 : 0;
    });
  });
  task.requiresVar(Task::NewDW, m_u, Ghost::AroundFaces, 1);
  task.computesVar(refineFlag);
  sched.addTask(std::move(task), level.eachPatch());
}

}  // namespace tessera
