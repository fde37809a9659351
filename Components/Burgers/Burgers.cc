#include "Components/Burgers/Burgers.h"

#include "CCA/Ports/ExecutionContext.h"
#include "Components/Burgers/ExactSolution.h"

#include <cmath>

namespace tessera {

using burgers::exactSolution;
using burgers::phi;

Burgers::Burgers(ApplicationContext& context)
    : Application(context),
      m_u(context.labels.create<CCVariable<double>>("u")),
      m_delT(context.labels.create<MinVariable<double>>("burgers.stableDelT")),
      m_squaredError(context.labels.create<SumVariable<double>>("burgers.squaredError")),
      m_maxError(context.labels.create<MaxVariable<double>>("burgers.maxError")) {}

Schema Burgers::deckSchema() const {
  Schema schema("Burgers' equation parameters");
  schema.optional("viscosity", ValueType::Double, "the diffusion coefficient nu (default 0.01)")
      .greaterThan("viscosity", 0.0);
  return schema;
}

void Burgers::problemSetup(const ProblemSpec& deck, Grid& grid) {
  if (const auto section = deck.findSection("burgers")) {
    m_viscosity = section->get<double>("viscosity", m_viscosity);
    if (!(m_viscosity > 0.0))
      throw section->errorAtValue("viscosity", "viscosity must be positive");
  }
  const Level& level = grid.level(0);
  const ProblemSpec levelSpec = deck.section("grid").section("level");
  for (int axis = 0; axis < 3; ++axis) {
    // The boundary values come from the exact solution, which is not periodic.
    if (level.periodic(axis)) {
      throw levelSpec.errorAtValue("periodic",
                                   "Burgers has Dirichlet boundaries: no axis may be periodic");
    }
    if (level.spec().extraCells[axis] < 1) {
      throw levelSpec.errorAtValue("extra_cells",
                                   "Burgers needs at least one extra cell on every axis "
                                   "for its boundary values");
    }
  }
  m_numCells = level.numCells();
}

void Burgers::scheduleInitialize(const Level& level, Scheduler& sched) {
  Task task("Burgers::initialize", this, &Burgers::initialize);
  task.computesVar(m_u);
  sched.addTask(std::move(task), level.eachPatch());
}

void Burgers::scheduleComputeStableTimestep(const Level& level, Scheduler& sched) {
  Task task("Burgers::computeStableTimestep", this, &Burgers::computeStableTimestep);
  task.computesVar(m_delT);
  sched.addTask(std::move(task), level.eachPatch());
}

void Burgers::scheduleTimeAdvance(const Level& level, Scheduler& sched) {
  Task task("Burgers::timeAdvance", this, &Burgers::timeAdvance);
  task.requiresVar(Task::OldDW, m_u, Ghost::AroundCells, 1);
  task.computesVar(m_u);
  sched.addTask(std::move(task), level.eachPatch());
}

void Burgers::scheduleAnalysis(const Level& level, Scheduler& sched) {
  Task task("Burgers::computeErrors", this, &Burgers::computeErrors);
  task.requiresVar(Task::OldDW, m_u);
  task.computesVar(m_squaredError);
  task.computesVar(m_maxError);
  sched.addTask(std::move(task), level.eachPatch());
}

void Burgers::initialize(const Patch& patch, const DataWarehouse&, DataWarehouse& newDW,
                         ExecutionContext& exec) const {
  const CCVariable<double> var = newDW.allocateAndPut<double>(m_u, patch);
  const CellArray<double> u = var.array();
  const Vector3 lo = patch.level().spec().lower;
  const Vector3 dx = patch.spacing();
  const double t = newDW.time();
  const double nu = m_viscosity;
  exec.parallelFor(
      patch.extendedBox(), KOKKOS_LAMBDA(int i, int j, int k) {
        u(i, j, k) = exactSolution(lo.x + (i + 0.5) * dx.x, lo.y + (j + 0.5) * dx.y,
                                   lo.z + (k + 0.5) * dx.z, t, nu);
      });
}

PhiProfiles Burgers::phiProfiles(const Patch& patch, const Box& box, double t,
                                 ExecutionContext& exec) const {
  PhiProfiles profiles;
  profiles.lo = box.lo();
  const Vector3 lo = patch.level().spec().lower;
  const Vector3 dx = patch.spacing();
  const double nu = m_viscosity;
  Kokkos::View<double*>* tables[3] = {&profiles.x, &profiles.y, &profiles.z};
  for (int axis = 0; axis < 3; ++axis) {
    const Kokkos::View<double*> table(
        Kokkos::view_alloc("Burgers::phi", Kokkos::WithoutInitializing),
        static_cast<std::size_t>(box.size()[axis]));
    const int first = box.lo()[axis];
    const double origin = lo[axis];
    const double h = dx[axis];
    exec.parallelFor(
        first, box.hi()[axis],
        KOKKOS_LAMBDA(int i) { table(i - first) = phi(origin + (i + 0.5) * h, t, nu); });
    *tables[axis] = table;
  }
  return profiles;
}

void Burgers::computeStableTimestep(const Patch& patch, const DataWarehouse&, DataWarehouse& newDW,
                                    ExecutionContext& exec) const {
  // The bound is taken cell by cell: its minimum over the level does not
  // depend on how the level is cut into patches.
  const Vector3 dx = patch.spacing();
  const double t = newDW.time();
  const double nu = m_viscosity;
  const double diffusion =
      2.0 * nu * (1.0 / (dx.x * dx.x) + 1.0 / (dx.y * dx.y) + 1.0 / (dx.z * dx.z));
  const PhiProfiles p = phiProfiles(patch, patch.interior(), t, exec);
  double stable = 0.0;
  exec.parallelReduce(
      patch.interior(),
      KOKKOS_LAMBDA(int i, int j, int k, double& smallest) {
        using Kokkos::Experimental::fabs;
        const double advection =
            fabs(p.atX(i)) / dx.x + fabs(p.atY(j)) / dx.y + fabs(p.atZ(k)) / dx.z;
        const double bound = 1.0 / (advection + diffusion);
        if (bound < smallest) smallest = bound;
      },
      Kokkos::Min<double>(stable));
  newDW.put(MinVariable<double>(stable), m_delT, patch);
}

void Burgers::timeAdvance(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                          ExecutionContext& exec) const {
  const CellArray<const double> uOld = oldDW.get<double>(m_u, patch, Ghost::AroundCells, 1).array();
  const CCVariable<double> next = newDW.allocateAndPut<double>(m_u, patch);
  const CellArray<double> unew = next.array();
  const Vector3 dx = patch.spacing();
  // Reciprocals: the kernel multiplies instead of dividing in every cell.
  const Vector3 inv{1.0 / dx.x, 1.0 / dx.y, 1.0 / dx.z};
  const Vector3 inv2{inv.x * inv.x, inv.y * inv.y, inv.z * inv.z};
  const double dt = newDW.delT();
  const double nu = m_viscosity;
  const PhiProfiles p = phiProfiles(patch, patch.interior(), oldDW.time(), exec);
  // A 7-point stencil: tiled to the scratchpad by the device scheduler.
  exec.stencilFor(
      patch.interior(), 1, StencilInputs<double, 1>{{uOld}}, StencilOutputs<double, 1>{{unew}},
      KOKKOS_LAMBDA(int i, int j, int k, const StencilInputs<double, 1>& in,
                    const StencilOutputs<double, 1>& out) {
        const CellArray<const double>& u = in[0];
        const double px = p.atX(i);
        const double py = p.atY(j);
        const double pz = p.atZ(k);
        const double c = u(i, j, k);
        // phi > 0, so the upwind differences look backwards.
        const double advection = px * (c - u(i - 1, j, k)) * inv.x +
                                 py * (c - u(i, j - 1, k)) * inv.y +
                                 pz * (c - u(i, j, k - 1)) * inv.z;
        const double diffusion = (u(i + 1, j, k) - 2.0 * c + u(i - 1, j, k)) * inv2.x +
                                 (u(i, j + 1, k) - 2.0 * c + u(i, j - 1, k)) * inv2.y +
                                 (u(i, j, k + 1) - 2.0 * c + u(i, j, k - 1)) * inv2.z;
        out[0](i, j, k) = c + dt * (nu * diffusion - advection);
      });
  applyBoundaryConditions(patch, next, newDW.time(), exec);
}

void Burgers::applyBoundaryConditions(const Patch& patch, const CCVariable<double>& var, double t,
                                      ExecutionContext& exec) const {
  const CellArray<double> u = var.array();
  const Vector3 lo = patch.level().spec().lower;
  const Vector3 dx = patch.spacing();
  const double nu = m_viscosity;
  for (const Face face : allFaces()) {
    if (!patch.hasBoundaryCondition(face)) continue;
    exec.parallelFor(
        patch.extraCellBox(face), KOKKOS_LAMBDA(int i, int j, int k) {
          u(i, j, k) = exactSolution(lo.x + (i + 0.5) * dx.x, lo.y + (j + 0.5) * dx.y,
                                     lo.z + (k + 0.5) * dx.z, t, nu);
        });
  }
}

void Burgers::computeErrors(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                            ExecutionContext& exec) const {
  const CellArray<const double> u = oldDW.get<double>(m_u, patch).array();
  const Vector3 lo = patch.level().spec().lower;
  const Vector3 dx = patch.spacing();
  const double t = oldDW.time();
  const double nu = m_viscosity;
  double squared = 0.0;
  double largest = 0.0;
  exec.parallelReduce(
      patch.interior(),
      KOKKOS_LAMBDA(int i, int j, int k, double& sum) {
        const double e =
            u(i, j, k) - exactSolution(lo.x + (i + 0.5) * dx.x, lo.y + (j + 0.5) * dx.y,
                                       lo.z + (k + 0.5) * dx.z, t, nu);
        sum += e * e;
      },
      Kokkos::Sum<double>(squared));
  exec.parallelReduce(
      patch.interior(),
      KOKKOS_LAMBDA(int i, int j, int k, double& worst) {
        using Kokkos::Experimental::fabs;
        const double e =
            fabs(u(i, j, k) - exactSolution(lo.x + (i + 0.5) * dx.x, lo.y + (j + 0.5) * dx.y,
                                            lo.z + (k + 0.5) * dx.z, t, nu));
        if (e > worst) worst = e;
      },
      Kokkos::Max<double>(largest));
  newDW.put(SumVariable<double>(squared), m_squaredError, patch);
  newDW.put(MaxVariable<double>(largest), m_maxError, patch);
}

std::vector<std::pair<std::string, double>> Burgers::analysisResults(
    const DataWarehouse& dw) const {
  const double squared = dw.getReduction<SumVariable<double>>(m_squaredError).get();
  const double largest = dw.getReduction<MaxVariable<double>>(m_maxError).get();
  return {{"L2 error", std::sqrt(squared / static_cast<double>(m_numCells))},
          {"max error", largest}};
}

}  // namespace tessera
