#include "Components/Stencil/HeatKernel.h"

#include "CCA/Ports/ExecutionContext.h"
#include "CCA/Ports/ErrorNorms.h"

#include <cmath>

namespace tessera::stencil {

namespace {

// One explicit Euler step, u + dt alpha Laplacian(u), with the radius known
// at compile time so that the loop over the star's arms unrolls.
template <int R, class RowEnds>
void eulerStep(ExecutionContext& exec, const Box& box, const CellArray<const double>& uOld,
               const CellArray<double>& uNew, const StarWeights& s, const Vector3& c,
               const RowEnds& rowEnds) {
  // c_a = dt alpha / dx_a^2
  const double w0 = s.w[0];
  const Kokkos::Array<double, kMaxRadius + 1> w = s.w;
  exec.stencilFor(
      box, R, StencilInputs<double, 1>{{uOld}}, StencilOutputs<double, 1>{{uNew}},
      KOKKOS_LAMBDA(int i, int j, int k, const StencilInputs<double, 1>& in,
                    const StencilOutputs<double, 1>& out) {
        const CellArray<const double>& u = in[0];
        const double centre = u(i, j, k);
        double dxx = w0 * centre;
        double dyy = w0 * centre;
        double dzz = w0 * centre;
        for (int d = 1; d <= R; ++d) {
          dxx += w[d] * (u(i - d, j, k) + u(i + d, j, k));
          dyy += w[d] * (u(i, j - d, k) + u(i, j + d, k));
          dzz += w[d] * (u(i, j, k - d) + u(i, j, k + d));
        }
        out[0](i, j, k) = centre + (c.x * dxx + c.y * dyy + c.z * dzz);
      },
      rowEnds);
}

}  // namespace

HeatKernel::HeatKernel(ApplicationContext& context, const StencilParameters& parameters,
                       const Grid& grid)
    : m_parameters(parameters),
      m_weights(secondDerivative(parameters.radius)),
      m_numCells(grid.level(0).numCells()),
      m_u(context.labels.create<CCVariable<double>>("u")),
      m_delT(context.labels.create<MinVariable<double>>("stencil.stableDelT")),
      m_squaredError(context.labels.create<SumVariable<double>>("stencil.squaredError")),
      m_maxError(context.labels.create<MaxVariable<double>>("stencil.maxError")) {
  for (int l = 0; l < grid.numLevels(); ++l)
    m_exact.push_back(HeatSolution::forLevel(grid.level(l), parameters.wavenumber, parameters.alpha));
}

double HeatKernel::stableTimestep(const Vector3& dx) const {
  const double symbol = largestSymbol(m_weights);
  return 2.0 / (m_parameters.alpha * symbol *
                (1.0 / (dx.x * dx.x) + 1.0 / (dx.y * dx.y) + 1.0 / (dx.z * dx.z)));
}

void HeatKernel::scheduleInitialize(const Level& level, Scheduler& sched) {
  Task task("Stencil::heat::initialize", this, &HeatKernel::initialize);
  task.computesVar(m_u);
  sched.addTask(std::move(task), level.eachPatch());
}

void HeatKernel::scheduleComputeStableTimestep(const Level& level, Scheduler& sched) {
  Task task("Stencil::heat::computeStableTimestep", this, &HeatKernel::computeStableTimestep,
            Task::Kind::Host);
  task.computesVar(m_delT);
  sched.addTask(std::move(task), level.eachPatch());
}

void HeatKernel::scheduleTimeAdvance(const Level& level, Scheduler& sched) {
  Task task("Stencil::heat::timeAdvance", this, &HeatKernel::timeAdvance);
  // A star reads along the axes only: face neighbours, r layers deep.
  task.requiresVar(Task::OldDW, m_u, Ghost::AroundFaces, m_parameters.radius);
  // In the old u's storage where the graph allows: eulerStep's stencilFor
  // reads each old value before it writes over it.
  task.computesVarInPlace(m_u);
  sched.addTask(std::move(task), level.eachPatch());
}

void HeatKernel::scheduleAnalysis(const Level& level, Scheduler& sched) {
  Task task("Stencil::heat::computeErrors", this, &HeatKernel::computeErrors);
  task.requiresVar(Task::OldDW, m_u);
  task.computesVar(m_squaredError);
  task.computesVar(m_maxError);
  sched.addTask(std::move(task), level.eachPatch());
}

void HeatKernel::initialize(const PatchGroup& group, const DataWarehouse&, DataWarehouse& newDW,
                            ExecutionContext& exec) const {
  const CellArray<double> u = newDW.allocateAndPut<double>(m_u, group).array();
  const HeatSolutionAt exact(exactOn(group.level()), newDW.time());
  exec.parallelFor(group.extendedBox(),
                   KOKKOS_LAMBDA(int i, int j, int k) { u(i, j, k) = exact(i, j, k); });
}

void HeatKernel::computeStableTimestep(const PatchGroup& group, const DataWarehouse&,
                                       DataWarehouse& newDW, ExecutionContext&) const {
  const double stable = stableTimestep(group.spacing());
  for (const Patch* patch : group.patches())
    newDW.put(MinVariable<double>(stable), m_delT, *patch);
}

void HeatKernel::timeAdvance(const PatchGroup& group, const DataWarehouse& oldDW,
                             DataWarehouse& newDW, ExecutionContext& exec) const {
  const int r = m_parameters.radius;
  const CellArray<const double> uOld = oldDW.get<double>(m_u, group, Ghost::AroundFaces, r).array();
  const CellArray<double> uNew = newDW.allocateAndPut<double>(m_u, group).array();
  const Vector3 dx = group.spacing();
  const double a = newDW.delT() * m_parameters.alpha;
  const Vector3 c{a / (dx.x * dx.x), a / (dx.y * dx.y), a / (dx.z * dx.z)};
  // The Dirichlet values of the x faces go with the rows of the stencil
  // (rowEnds), as in Burgers: each shares its cache line with the row's
  // first or last cell, where a loop of their own fetches a line per value
  // (470 of 3750 us per step on 128^3, one core: `sus --trace`).
  const HeatSolutionAt exact(exactOn(group.level()), newDW.time());
  const Box interior = group.interior();
  const int westLo = group.hasBoundaryCondition(Face::XMinus)
                         ? group.extraCellBox(Face::XMinus).lo().x
                         : interior.lo().x;
  const int eastHi = group.hasBoundaryCondition(Face::XPlus)
                         ? group.extraCellBox(Face::XPlus).hi().x
                         : interior.hi().x;
  const int westHi = interior.lo().x, eastLo = interior.hi().x;
  const auto xFaces = KOKKOS_LAMBDA(int j, int k, const StencilOutputs<double, 1>& out) {
    for (int i = westLo; i < westHi; ++i) out[0](i, j, k) = exact(i, j, k);
    for (int i = eastLo; i < eastHi; ++i) out[0](i, j, k) = exact(i, j, k);
  };
  switch (r) {
    case 1: eulerStep<1>(exec, interior, uOld, uNew, m_weights, c, xFaces); break;
    case 2: eulerStep<2>(exec, interior, uOld, uNew, m_weights, c, xFaces); break;
    case 3: eulerStep<3>(exec, interior, uOld, uNew, m_weights, c, xFaces); break;
    default: eulerStep<4>(exec, interior, uOld, uNew, m_weights, c, xFaces); break;
  }
  // The rest of the extra cells: the y and z faces, which hold the x
  // faces' cells beyond the interior's rows (edges and corners) too.
  applyBoundaryConditions(group, uNew, newDW.time(), exec,
                          {Face::YMinus, Face::YPlus, Face::ZMinus, Face::ZPlus});
}

void HeatKernel::applyBoundaryConditions(const PatchGroup& group, const CellArray<double>& u,
                                         double t, ExecutionContext& exec,
                                         std::initializer_list<Face> which) const {
  const HeatSolutionAt exact(exactOn(group.level()), t);
  exec.parallelForExtraCells(
      group, KOKKOS_LAMBDA(int i, int j, int k) { u(i, j, k) = exact(i, j, k); }, which);
}

void HeatKernel::computeErrors(const Patch& patch, const DataWarehouse& oldDW,
                               DataWarehouse& newDW, ExecutionContext& exec) const {
  const CellArray<const double> u = oldDW.get<double>(m_u, patch).array();
  // The composite solution's error: on a refined grid, each level's cells
  // that no finer level covers.
  const ErrorNorms norms = compositeErrorNorms(
      exec, patch, u, HeatSolutionAt(exactOn(patch.level()), oldDW.time()));
  newDW.put(SumVariable<double>(norms.squared), m_squaredError, patch);
  newDW.put(MaxVariable<double>(norms.largest), m_maxError, patch);
}

std::vector<std::pair<std::string, double>> HeatKernel::analysisResults(
    const DataWarehouse& dw) const {
  const double squared = dw.getReduction<SumVariable<double>>(m_squaredError).get();
  const double largest = dw.getReduction<MaxVariable<double>>(m_maxError).get();
  return {{"L2 error", std::sqrt(squared / static_cast<double>(m_numCells))},
          {"max error", largest}};
}

}  // namespace tessera::stencil
