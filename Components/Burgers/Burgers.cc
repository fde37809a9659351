#include "Components/Burgers/Burgers.h"

#include "CCA/Ports/ErrorNorms.h"
#include "CCA/Ports/ExecutionContext.h"
#include "Components/Burgers/ExactSolution.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace tessera {

using burgers::phi;

Burgers::Burgers(ApplicationContext& context)
    : Application(context),
      m_u(context.labels.create<CCVariable<double>>("u")),
      m_phi(context.labels.create<PerPatch<PhiTables>>("burgers.phi")),
      m_delT(context.labels.create<MinVariable<double>>("burgers.stableDelT")),
      m_squaredError(context.labels.create<SumVariable<double>>("burgers.squaredError")),
      m_maxError(context.labels.create<MaxVariable<double>>("burgers.maxError")) {}

Schema Burgers::deckSchema() const {
  Schema schema("Burgers' equation parameters");
  schema.optional("viscosity", ValueType::Double, "the diffusion coefficient nu (default 0.01)")
      .greaterThan("viscosity", 0.0);
  schema.optional("refine_threshold", ValueType::Double,
                  "tagging: refine where u changes by more than this to a face neighbour "
                  "(default 0.05; amr without regions)")
      .greaterThan("refine_threshold", 0.0);
  return schema;
}

void Burgers::problemSetup(const ProblemSpec& deck, Grid& grid) {
  if (const auto section = deck.findSection("burgers")) {
    m_viscosity = section->get<double>("viscosity", m_viscosity);
    if (!(m_viscosity > 0.0))
      throw section->errorAtValue("viscosity", "viscosity must be positive");
    m_refineThreshold = section->get<double>("refine_threshold", m_refineThreshold);
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

// The initial state and the timestep run once per patch group: one kernel
// over each box of a rank's patches (see PatchGroup.h).
void Burgers::scheduleInitialize(const Level& level, Scheduler& sched) {
  Task task("Burgers::initialize", this, &Burgers::initialize);
  task.computesVar(m_u);
  task.computesVar(m_phi);
  sched.addTask(std::move(task), level.eachPatch());
}

// A checkpoint holds u and the stable timestep, not the tables: rebuild them.
void Burgers::scheduleRestartInitialize(const Level& level, Scheduler& sched) {
  Task task("Burgers::tabulatePhi", this, &Burgers::tabulatePhi);
  task.computesVar(m_phi);
  sched.addTask(std::move(task), level.eachPatch());
}

void Burgers::scheduleComputeStableTimestep(const Level& level, Scheduler& sched) {
  // Three numbers per patch from the tables: light work for the control thread.
  Task task("Burgers::computeStableTimestep", this, &Burgers::computeStableTimestep,
            Task::Kind::Host);
  task.requiresVar(Task::NewDW, m_phi);
  task.computesVar(m_delT);
  sched.addTask(std::move(task), level.eachPatch());
}

void Burgers::scheduleTimeAdvance(const Level& level, Scheduler& sched) {
  Task task("Burgers::timeAdvance", this, &Burgers::timeAdvance);
  // The 7-point stencil reads no edge or corner neighbours.
  task.requiresVar(Task::OldDW, m_u, Ghost::AroundFaces, 1);
  task.requiresVar(Task::OldDW, m_phi);
  task.computesVar(m_u);
  task.computesVar(m_phi);
  sched.addTask(std::move(task), level.eachPatch());
}

void Burgers::scheduleAnalysis(const Level& level, Scheduler& sched) {
  Task task("Burgers::computeErrors", this, &Burgers::computeErrors);
  task.requiresVar(Task::OldDW, m_u);
  task.requiresVar(Task::OldDW, m_phi);
  task.computesVar(m_squaredError);
  task.computesVar(m_maxError);
  sched.addTask(std::move(task), level.eachPatch());
}

// The fronts: a cell is tagged where u jumps by more than refine_threshold
// to one of its face neighbours.
void Burgers::scheduleErrorEstimate(const Level& level, Scheduler& sched,
                                    const VarLabel* refineFlag) {
  const VarLabel* const uLabel = m_u;
  const double threshold = m_refineThreshold;
  Task task("Burgers::errorEstimate", [=](const PatchGroup& group, const DataWarehouse&,
                                          DataWarehouse& newDW, ExecutionContext& exec) {
    const CellArray<const double> u = newDW.get<double>(uLabel, group, Ghost::AroundFaces, 1).array();
    const CellArray<int> flag = newDW.allocateAndPut<int>(refineFlag, group).array();
    exec.parallelFor(
        group.interior(), KOKKOS_LAMBDA(int i, int j, int k) {
          using Kokkos::Experimental::fabs;
          // Any jump above the threshold, tested one by one: the largest of
          // them through fmax was a call into libm per pair (fmax keeps
          // NaN's rules), and the kernel cost twice the timestep's.
          const double c = u(i, j, k);
          const bool steep =
              (fabs(u(i + 1, j, k) - c) > threshold) | (fabs(u(i - 1, j, k) - c) > threshold) |
              (fabs(u(i, j + 1, k) - c) > threshold) | (fabs(u(i, j - 1, k) - c) > threshold) |
              (fabs(u(i, j, k + 1) - c) > threshold) | (fabs(u(i, j, k - 1) - c) > threshold);
          flag(i, j, k) = steep ? 1 : 0;
        });
  });
  task.requiresVar(Task::NewDW, m_u, Ghost::AroundFaces, 1);
  task.computesVar(refineFlag);
  sched.addTask(std::move(task), level.eachPatch());
}

PhiTables Burgers::tabulate(const Box& box, double t, std::optional<PhiTables> recycled,
                            const Level& level) const {
  PhiTables tables =
      recycled && recycled->covers(box) ? std::move(*recycled) : PhiTables::allocate(box);
  // A few hundred evaluations: a kernel launch would cost more than the
  // work, so the lines are computed here and copied to the device (a no-op
  // when the device is the host).
  const Vector3 lower = level.spec().lower;
  const Vector3 dx = level.spacing();
  int at = 0;
  int lineStart[3] = {0, 0, 0};
  for (int axis = 0; axis < 3; ++axis) {
    lineStart[axis] = at;
    // On a cube of cubic cells (the usual case) the axes share their cell
    // centres: a value an earlier axis computed for the same index is the
    // same expression of the same numbers, so it is copied, not recomputed
    // (phi costs three exponentials and a division).
    int same = -1;
    for (int earlier = 0; earlier < axis && same < 0; ++earlier)
      if (lower[earlier] == lower[axis] && dx[earlier] == dx[axis]) same = earlier;
    for (int i = box.lo()[axis]; i < box.hi()[axis]; ++i, ++at) {
      if (same >= 0 && i >= box.lo()[same] && i < box.hi()[same]) {
        tables.hostValues(at) = tables.hostValues(lineStart[same] + i - box.lo()[same]);
      } else {
        tables.hostValues(at) = phi(lower[axis] + (i + 0.5) * dx[axis], t, m_viscosity);
      }
    }
  }
  Kokkos::deep_copy(tables.values, tables.hostValues);
  return tables;
}

PhiTables Burgers::phiTables(const PatchGroup& group, DataWarehouse& newDW) const {
  return tabulate(group.extendedBox(), newDW.time(),
                  newDW.recycledPerPatch<PhiTables>(m_phi, group.leader()), group.level());
}

PhiTables Burgers::phiTablesAtStart(const PatchGroup& group, const DataWarehouse& oldDW) const {
  const PhiTables kept = oldDW.getPerPatch<PhiTables>(m_phi, group.leader()).get();
  // After a restart, or with other groups, the patches' tables are their own.
  if (kept.covers(group.extendedBox())) return kept.entire();
  return tabulate(group.extendedBox(), oldDW.time(), std::nullopt, group.level());
}

void Burgers::putPhiTables(const PatchGroup& group, const PhiTables& tables,
                           DataWarehouse& newDW) const {
  for (const Patch* patch : group.patches()) {
    newDW.put(PerPatch<PhiTables>(
                  tables.window(patch->extendedBox(), patch->interior(), patch->spacing())),
              m_phi, *patch);
  }
}

void Burgers::initialize(const PatchGroup& group, const DataWarehouse&, DataWarehouse& newDW,
                         ExecutionContext& exec) const {
  const PhiTables p = phiTables(group, newDW);
  const CellArray<double> u = newDW.allocateAndPut<double>(m_u, group).array();
  exec.parallelFor(
      group.extendedBox(), KOKKOS_LAMBDA(int i, int j, int k) { u(i, j, k) = p.product(i, j, k); });
  putPhiTables(group, p, newDW);
}

void Burgers::tabulatePhi(const Patch& patch, const DataWarehouse&, DataWarehouse& newDW,
                          ExecutionContext&) const {
  const Box box = patch.extendedBox();
  const PhiTables tables =
      tabulate(box, newDW.time(), newDW.recycledPerPatch<PhiTables>(m_phi, patch), patch.level());
  newDW.put(PerPatch<PhiTables>(tables.window(box, patch.interior(), patch.spacing())), m_phi,
            patch);
}

void Burgers::computeStableTimestep(const PatchGroup& group, const DataWarehouse&,
                                    DataWarehouse& newDW, ExecutionContext&) const {
  // Explicit upwind advection plus diffusion is stable for
  //   dt <= 1 / (sum_axes |phi| / dx + 2 nu sum_axes 1 / dx^2)
  // in every cell. The per-axis terms are separable and rounding is
  // monotone, so the largest per-cell sum is the sum of the per-axis maxima:
  // the same bits as the per-cell minimum, from O(n) work instead of O(n^3),
  // and the same for any patch layout. One contribution per patch (a few
  // flops each), in one task per group: the runtime's cost per task, not
  // the arithmetic, is what a task per patch would spend.
  const Vector3 dx = group.spacing();
  const double diffusion =
      2.0 * m_viscosity * (1.0 / (dx.x * dx.x) + 1.0 / (dx.y * dx.y) + 1.0 / (dx.z * dx.z));
  for (const Patch* patch : group.patches()) {
    const PhiTables p = newDW.getPerPatch<PhiTables>(m_phi, *patch).get();
    const double advection = p.largestRate.x + p.largestRate.y + p.largestRate.z;
    newDW.put(MinVariable<double>(1.0 / (advection + diffusion)), m_delT, *patch);
  }
}

void Burgers::timeAdvance(const PatchGroup& group, const DataWarehouse& oldDW, DataWarehouse& newDW,
                          ExecutionContext& exec) const {
  const CellArray<const double> uOld = oldDW.get<double>(m_u, group, Ghost::AroundFaces, 1).array();
  const CellArray<double> unew = newDW.allocateAndPut<double>(m_u, group).array();
  const Vector3 dx = group.spacing();
  // Reciprocals: the kernel multiplies instead of dividing in every cell.
  const Vector3 inv{1.0 / dx.x, 1.0 / dx.y, 1.0 / dx.z};
  const Vector3 inv2{inv.x * inv.x, inv.y * inv.y, inv.z * inv.z};
  const double dt = newDW.delT();
  const double nu = m_viscosity;
  const PhiTables p = phiTablesAtStart(group, oldDW);
  // phi at the step's end: the Dirichlet values, the stable timestep next,
  // and the velocities of the next step.
  const PhiTables next = phiTables(group, newDW);
  // The Dirichlet values of the x faces go with the rows of the stencil
  // (rowEnds): each shares its cache line with the row's first or last
  // cell, where a loop of their own would touch a cache line per value.
  const Box interior = group.interior();
  const bool hasWest = group.hasBoundaryCondition(Face::XMinus);
  const bool hasEast = group.hasBoundaryCondition(Face::XPlus);
  const int west = interior.lo().x - 1;
  const int east = interior.hi().x;
  // A 7-point stencil over the whole group: tiled to the scratchpad by the
  // device scheduler.
  exec.stencilFor(
      interior, 1, StencilInputs<double, 1>{{uOld}}, StencilOutputs<double, 1>{{unew}},
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
      },
      KOKKOS_LAMBDA(int j, int k, const StencilOutputs<double, 1>& out) {
        if (hasWest) out[0](west, j, k) = next.product(west, j, k);
        if (hasEast) out[0](east, j, k) = next.product(east, j, k);
      });
  // The rest of the extra cells: the y and z faces, which hold the x
  // faces' cells beyond the interior's rows (edges and corners) too.
  applyBoundaryConditions(group, unew, next, exec,
                          {Face::YMinus, Face::YPlus, Face::ZMinus, Face::ZPlus});
  putPhiTables(group, next, newDW);
}

void Burgers::applyBoundaryConditions(const PatchGroup& group, const CellArray<double>& u,
                                      const PhiTables& phi, ExecutionContext& exec,
                                      std::initializer_list<Face> which) const {
  // Where face boxes meet (edges, corners) both write the same value.
  exec.parallelForExtraCells(
      group, KOKKOS_LAMBDA(int i, int j, int k) { u(i, j, k) = phi.product(i, j, k); }, which);
}

void Burgers::computeErrors(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                            ExecutionContext& exec) const {
  const CellArray<const double> u = oldDW.get<double>(m_u, patch).array();
  const PhiTables p = oldDW.getPerPatch<PhiTables>(m_phi, patch).get();
  // Added exactly, so that the norm's bits depend on nothing but the field;
  // on a refined grid, over each level's cells no finer level covers.
  const ErrorNorms norms = compositeErrorNorms(
      exec, patch, u, KOKKOS_LAMBDA(int i, int j, int k) { return p.product(i, j, k); });
  newDW.put(SumVariable<double>(norms.squared), m_squaredError, patch);
  newDW.put(MaxVariable<double>(norms.largest), m_maxError, patch);
}

std::vector<std::pair<std::string, double>> Burgers::analysisResults(
    const DataWarehouse& dw) const {
  const double squared = dw.getReduction<SumVariable<double>>(m_squaredError).get();
  const double largest = dw.getReduction<MaxVariable<double>>(m_maxError).get();
  return {{"L2 error", std::sqrt(squared / static_cast<double>(m_numCells))},
          {"max error", largest}};
}

}  // namespace tessera
