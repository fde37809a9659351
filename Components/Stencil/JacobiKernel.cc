#include "Components/Stencil/JacobiKernel.h"

#include "CCA/Ports/ExecutionContext.h"
#include "CCA/Ports/ErrorNorms.h"

#include <cmath>

namespace tessera::stencil {

namespace {

// The damping of a sweep: u + omega (J - u), J the plain Jacobi value. A
// plain sweep multiplies the most oscillatory mode by 1 - S / |w0| (S the
// largest magnitude of the star's symbol): -1 for r = 1, but -1.13, -1.22
// and -1.28 for r = 2, 3 and 4, which diverge. omega = 2 |w0| / S damps
// that mode as the plain sweep of r = 1 does (1 exactly for r = 1, so r = 1
// keeps its bits); a Dirichlet grid's most oscillatory mode lies just
// inside, so every radius converges.
double dampingOf(const StarWeights& s) {
  return 2.0 * std::fabs(s.w[0]) / largestSymbol(s);
}

template <int R>
void jacobiSweep(ExecutionContext& exec, const Box& box, const CellArray<const double>& uOld,
                 const CellArray<double>& uNew, const StarWeights& s, const Vector3& inv2,
                 ExactSum& updates) {
  // sum_a inv2_a (w0 u + sum_d w_d (u_+d + u_-d)) = 0, solved for u, damped.
  const Kokkos::Array<double, kMaxRadius + 1> w = s.w;
  const double diagonal = -s.w[0] * (inv2.x + inv2.y + inv2.z);
  const double omega = dampingOf(s);
  const bool damped = omega != 1.0;
  exec.parallelReduce(
      box,
      KOKKOS_LAMBDA(int i, int j, int k, ExactSum& sum) {
        double xx = 0.0, yy = 0.0, zz = 0.0;
        for (int d = 1; d <= R; ++d) {
          xx += w[d] * (uOld(i - d, j, k) + uOld(i + d, j, k));
          yy += w[d] * (uOld(i, j - d, k) + uOld(i, j + d, k));
          zz += w[d] * (uOld(i, j, k - d) + uOld(i, j, k + d));
        }
        const double plain = (inv2.x * xx + inv2.y * yy + inv2.z * zz) / diagonal;
        const double next = damped ? uOld(i, j, k) + omega * (plain - uOld(i, j, k)) : plain;
        const double change = next - uOld(i, j, k);
        uNew(i, j, k) = next;
        sum.add(change * change);
      },
      Kokkos::Sum<ExactSum>(updates));
}

}  // namespace

JacobiKernel::JacobiKernel(ApplicationContext& context, const StencilParameters& parameters,
                           const Level& level)
    : m_parameters(parameters),
      m_weights(secondDerivative(parameters.radius)),
      m_numCells(level.numCells()),
      m_u(context.labels.create<CCVariable<double>>("u")),
      m_delT(context.labels.create<MinVariable<double>>("stencil.stableDelT")),
      m_update(context.labels.create<SumVariable<double>>("stencil.squaredUpdate")),
      m_lastUpdate(context.labels.create<MaxVariable<double>>("stencil.lastUpdate")),
      m_squaredError(context.labels.create<SumVariable<double>>("stencil.squaredError")),
      m_maxError(context.labels.create<MaxVariable<double>>("stencil.maxError")) {
  const Vector3 kappa = waveNumbers(level, parameters.wavenumber);
  m_exact = HarmonicSolution{CellCentres{level.spec().lower, level.spacing()},
                             Vector3{kappa.x, kappa.y, std::sqrt(kappa.x * kappa.x + kappa.y * kappa.y)},
                             level.spec().upper.z};
}

double JacobiKernel::updateRms(double sumOfSquares) const {
  return std::sqrt(sumOfSquares / static_cast<double>(m_numCells));
}

void JacobiKernel::scheduleInitialize(const Level& level, Scheduler& sched) {
  Task task("Stencil::jacobi::initialize", this, &JacobiKernel::initialize);
  task.computesVar(m_u);
  sched.addTask(std::move(task), level.eachPatch());
}

void JacobiKernel::scheduleComputeStableTimestep(const Level& level, Scheduler& sched) {
  // A sweep is a unit of time; one task gives it.
  Task task("Stencil::jacobi::timestep", this, &JacobiKernel::computeStableTimestep,
            Task::Kind::Host);
  task.computesVar(m_delT);
  sched.addTask(std::move(task), {level.eachPatch().front()});
}

void JacobiKernel::scheduleTimeAdvance(const Level& level, Scheduler& sched) {
  Task task("Stencil::jacobi::sweep", this, &JacobiKernel::sweep);
  task.requiresVar(Task::OldDW, m_u, Ghost::AroundFaces, m_parameters.radius);
  task.computesVar(m_u);
  task.computesVar(m_update);
  sched.addTask(std::move(task), level.eachPatch());
}

void JacobiKernel::scheduleAnalysis(const Level& level, Scheduler& sched) {
  Task task("Stencil::jacobi::computeErrors", this, &JacobiKernel::computeErrors);
  task.requiresVar(Task::OldDW, m_u);
  task.requiresVar(Task::OldDW, m_update);
  task.computesVar(m_lastUpdate);
  task.computesVar(m_squaredError);
  task.computesVar(m_maxError);
  sched.addTask(std::move(task), level.eachPatch());
}

void JacobiKernel::initialize(const Patch& patch, const DataWarehouse&, DataWarehouse& newDW,
                              ExecutionContext& exec) const {
  const CellArray<double> u = newDW.allocateAndPut<double>(m_u, patch).array();
  exec.parallelFor(patch.interior(), KOKKOS_LAMBDA(int i, int j, int k) { u(i, j, k) = 0.0; });
  applyBoundaryConditions(patch, u, exec);
}

void JacobiKernel::computeStableTimestep(const Patch& patch, const DataWarehouse&,
                                         DataWarehouse& newDW, ExecutionContext&) const {
  newDW.put(MinVariable<double>(1.0), m_delT, patch);
}

void JacobiKernel::sweep(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                         ExecutionContext& exec) const {
  const int r = m_parameters.radius;
  const CellArray<const double> uOld = oldDW.get<double>(m_u, patch, Ghost::AroundFaces, r).array();
  const CellArray<double> uNew = newDW.allocateAndPut<double>(m_u, patch).array();
  const Vector3 dx = patch.spacing();
  const Vector3 inv2{1.0 / (dx.x * dx.x), 1.0 / (dx.y * dx.y), 1.0 / (dx.z * dx.z)};
  ExactSum updates;
  switch (r) {
    case 1: jacobiSweep<1>(exec, patch.interior(), uOld, uNew, m_weights, inv2, updates); break;
    case 2: jacobiSweep<2>(exec, patch.interior(), uOld, uNew, m_weights, inv2, updates); break;
    case 3: jacobiSweep<3>(exec, patch.interior(), uOld, uNew, m_weights, inv2, updates); break;
    default: jacobiSweep<4>(exec, patch.interior(), uOld, uNew, m_weights, inv2, updates); break;
  }
  applyBoundaryConditions(patch, uNew, exec);
  newDW.put(SumVariable<double>(updates), m_update, patch);
}

void JacobiKernel::applyBoundaryConditions(const Patch& patch, const CellArray<double>& u,
                                           ExecutionContext& exec) const {
  Kokkos::Array<Box, 6> faces;
  int count = 0;
  for (const Face face : allFaces()) {
    if (patch.hasBoundaryCondition(face)) faces[count++] = patch.extraCellBox(face);
  }
  const HarmonicSolution exact = m_exact;
  exec.parallelForBoxes(faces, count,
                        KOKKOS_LAMBDA(int i, int j, int k) { u(i, j, k) = exact.at(i, j, k); });
}

bool JacobiKernel::converged(const DataWarehouse& newDW) const {
  // The initial state (or a checkpoint of it) has no sweep's update yet.
  return newDW.hasReduction(m_update) &&
         updateRms(newDW.getReduction<SumVariable<double>>(m_update).get()) <
             m_parameters.tolerance;
}

void JacobiKernel::computeErrors(const Patch& patch, const DataWarehouse& oldDW,
                                 DataWarehouse& newDW, ExecutionContext& exec) const {
  const CellArray<const double> u = oldDW.get<double>(m_u, patch).array();
  const ErrorNorms norms = errorNorms(exec, patch.interior(), u, m_exact);
  newDW.put(SumVariable<double>(norms.squared), m_squaredError, patch);
  newDW.put(MaxVariable<double>(norms.largest), m_maxError, patch);
  // Every patch gives the same value: the maximum is it.
  newDW.put(MaxVariable<double>(updateRms(oldDW.getReduction<SumVariable<double>>(m_update).get())),
            m_lastUpdate, patch);
}

std::vector<std::pair<std::string, double>> JacobiKernel::analysisResults(
    const DataWarehouse& dw) const {
  const double squared = dw.getReduction<SumVariable<double>>(m_squaredError).get();
  return {{"sweeps", dw.time()},
          {"last update RMS", dw.getReduction<MaxVariable<double>>(m_lastUpdate).get()},
          {"L2 error", std::sqrt(squared / static_cast<double>(m_numCells))},
          {"max error", dw.getReduction<MaxVariable<double>>(m_maxError).get()}};
}

}  // namespace tessera::stencil
