#include "Components/Advection/Advection.h"

#include "CCA/Ports/ErrorNorms.h"
#include "CCA/Ports/ExecutionContext.h"
#include "Core/Grid/AmrSpec.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace tessera {

namespace {

constexpr double kPi = 3.14159265358979323846;

}  // namespace

namespace swirl {

FaceLines FaceLines::make(int nx, int ny) {
  FaceLines lines;
  const auto line = [](int n, const char* name) {
    Kokkos::View<double*> values(Kokkos::view_alloc(std::string(name), Kokkos::WithoutInitializing),
                                 static_cast<std::size_t>(n + 1 + 2 * kPad));
    auto host = Kokkos::create_mirror_view(values);
    for (int face = -kPad; face <= n + kPad; ++face) {
      // The face's image in [0, n): the same bits on both sides of the
      // periodic boundary.
      const int wrapped = ((face % n) + n) % n;
      const double s = std::sin(kPi * (static_cast<double>(wrapped) / n));
      host(static_cast<std::size_t>(face + kPad)) = s * s;
    }
    Kokkos::deep_copy(values, host);
    return std::make_pair(values, host);
  };
  std::tie(lines.a, lines.hostA) = line(nx, "swirl::A");
  std::tie(lines.b, lines.hostB) = line(ny, "swirl::B");
  return lines;
}

double timeFactor(double t) {
  return std::cos(0.5 * kPi * t) / kPi;
}

}  // namespace swirl

Advection::Advection(ApplicationContext& context)
    : Application(context),
      m_phi(context.labels.create<CCVariable<double>>("phi")),
      m_delT(context.labels.create<MinVariable<double>>("advection.stableDelT")),
      m_total(context.labels.create<SumVariable<double>>("advection.total")),
      m_initialTotal(context.labels.create<SumVariable<double>>("advection.initialTotal")),
      m_squaredError(context.labels.create<SumVariable<double>>("advection.squaredError")),
      m_absoluteError(context.labels.create<SumVariable<double>>("advection.absoluteError")),
      m_maxError(context.labels.create<MaxVariable<double>>("advection.maxError")),
      m_lowFlux{
          context.labels.create<CCVariable<double>>("advection.flux.x.low", fluxTransfer(0, false)),
          context.labels.create<CCVariable<double>>("advection.flux.y.low",
                                                    fluxTransfer(1, false))},
      m_highFlux{
          context.labels.create<CCVariable<double>>("advection.flux.x.high", fluxTransfer(0, true)),
          context.labels.create<CCVariable<double>>("advection.flux.y.high",
                                                    fluxTransfer(1, true))} {}

std::vector<ConservedFlux> Advection::conservedFluxes() const {
  ConservedFlux flux;
  flux.conserved = m_phi;
  flux.low = {m_lowFlux[0], m_lowFlux[1], nullptr};
  flux.high = {m_highFlux[0], m_highFlux[1], nullptr};
  return {flux};
}

Schema Advection::deckSchema() const {
  return Schema("Advection of phi by the swirl (docs/advection.md)")
      .optional("cfl", ValueType::Double,
                "the Courant number of the largest face velocity over the run, per axis "
                "(default 0.7)")
      .greaterThan("cfl", 0.0, 1.0)
      .optional("refine_thresholds", ValueType::DoubleList,
                "tagging: refine where phi exceeds the level's value, one per level that tags "
                "(default [1.01, 1.1, 1.5])");
}

void Advection::problemSetup(const ProblemSpec& deck, Grid& grid) {
  std::optional<ProblemSpec> section = deck.findSection("advection");
  if (section) {
    m_cfl = section->get<double>("cfl", m_cfl);
    m_thresholds = section->get<std::vector<double>>("refine_thresholds", m_thresholds);
  }
  const Level& level = grid.level(0);
  const ProblemSpec levelSpec = deck.section("grid").section("level");
  for (int axis = 0; axis < 3; ++axis) {
    if (!level.periodic(axis)) {
      throw levelSpec.errorAtValue("periodic",
                                   "the swirl's box is periodic: every axis must be periodic");
    }
  }
  const LevelSpec& spec = level.spec();
  if (spec.lower.x != 0.0 || spec.lower.y != 0.0) {
    throw levelSpec.errorAtValue("lower",
                                 "the swirl fills the unit square: lower x and y must be 0");
  }
  if (spec.upper.x != 1.0 || spec.upper.y != 1.0) {
    throw levelSpec.errorAtValue("upper",
                                 "the swirl fills the unit square: upper x and y must be 1");
  }
  m_numCells = level.numCells();
  const Vector3 dx = level.spacing();
  m_cellVolume = dx.x * dx.y * dx.z;

  AmrSpec amr;
  if (const std::optional<ProblemSpec> amrSection = deck.findSection("amr"))
    amr = AmrSpec::fromDeck(*amrSection, spec);
  m_reflux = amr.refluxes();
  const int taggingLevels = amr.tagged() ? amr.maxLevels - 1 : 0;
  if (static_cast<int>(m_thresholds.size()) < taggingLevels) {
    std::ostringstream message;
    message << "amr.max_levels is " << amr.maxLevels << ", so levels 0 to " << taggingLevels - 1
            << " tag: refine_thresholds needs " << taggingLevels << " values, one per level, and "
            << (section && section->has("refine_thresholds") ? "has " : "the default has ")
            << m_thresholds.size();
    if (section && section->has("refine_thresholds"))
      throw section->errorAtValue("refine_thresholds", message.str());
    throw deck.section("amr").errorAtValue("max_levels", message.str());
  }
  IntVector cells = spec.resolution;
  for (int l = 0; l < amr.maxLevels; ++l) {
    m_lines.push_back(swirl::FaceLines::make(cells.x, cells.y));
    cells = cells * amr.ratioVector();
  }
}

const swirl::FaceLines& Advection::linesOf(const Level& level) const {
  return m_lines.at(static_cast<std::size_t>(level.index()));
}

void Advection::scheduleInitialize(const Level& level, Scheduler& sched) {
  Task task("Advection::initialize", this, &Advection::initialize);
  task.computesVar(m_phi);
  sched.addTask(std::move(task), level.eachPatch());

  // The integral at t = 0: nothing computes it again, so the warehouses
  // keep it from step to step, through checkpoints and regrids.
  Task total("Advection::initialTotal", [this](const Patch& patch, const DataWarehouse&,
                                               DataWarehouse& newDW, ExecutionContext& exec) {
    computeTotal(patch, newDW, newDW, m_initialTotal, exec);
  });
  total.requiresVar(Task::NewDW, m_phi);
  total.computesVar(m_initialTotal);
  sched.addTask(std::move(total), level.eachPatch());
}

void Advection::scheduleComputeStableTimestep(const Level& level, Scheduler& sched) {
  Task task("Advection::computeStableTimestep", this, &Advection::computeStableTimestep,
            Task::Kind::Host);
  task.computesVar(m_delT);
  sched.addTask(std::move(task), level.eachPatch());
}

void Advection::scheduleTimeAdvance(const Level& level, Scheduler& sched) {
  Task task("Advection::timeAdvance", this, &Advection::timeAdvance);
  // The face states read the upwind cell's neighbours, across the face and
  // along it: two layers, edges included.
  task.requiresVar(Task::OldDW, m_phi, Ghost::AroundCells, 2);
  task.computesVar(m_phi);
  if (m_reflux) {
    for (int axis = 0; axis < 2; ++axis)
      task.computesVar(m_lowFlux[axis]).computesVar(m_highFlux[axis]);
  }
  sched.addTask(std::move(task), level.eachPatch());
}

void Advection::scheduleAnalysis(const Level& level, Scheduler& sched) {
  Task errors("Advection::computeErrors", this, &Advection::computeErrors);
  errors.requiresVar(Task::OldDW, m_phi);
  errors.computesVar(m_squaredError);
  errors.computesVar(m_absoluteError);
  errors.computesVar(m_maxError);
  sched.addTask(std::move(errors), level.eachPatch());

  Task total("Advection::total",
             [this](const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                    ExecutionContext& exec) { computeTotal(patch, oldDW, newDW, m_total, exec); });
  total.requiresVar(Task::OldDW, m_phi);
  total.computesVar(m_total);
  sched.addTask(std::move(total), level.eachPatch());
}

void Advection::scheduleErrorEstimate(const Level& level, Scheduler& sched,
                                      const VarLabel* refineFlag) {
  const double threshold = m_thresholds.at(static_cast<std::size_t>(level.index()));
  Task task("Advection::errorEstimate", [=, phi = m_phi](const PatchGroup& group,
                                                         const DataWarehouse&, DataWarehouse& newDW,
                                                         ExecutionContext& exec) {
    const CellArray<const double> in = newDW.get<double>(phi, group).array();
    const CellArray<int> flag = newDW.allocateAndPut<int>(refineFlag, group).array();
    exec.parallelFor(
        group.interior(),
        KOKKOS_LAMBDA(int i, int j, int k) { flag(i, j, k) = in(i, j, k) > threshold ? 1 : 0; });
  });
  task.requiresVar(Task::NewDW, m_phi);
  task.computesVar(refineFlag);
  sched.addTask(std::move(task), level.eachPatch());
}

void Advection::initialize(const PatchGroup& group, const DataWarehouse&, DataWarehouse& newDW,
                           ExecutionContext& exec) const {
  const CellArray<double> phi = newDW.allocateAndPut<double>(m_phi, group).array();
  const Vector3 lower = group.level().spec().lower;
  const Vector3 dx = group.spacing();
  exec.parallelFor(
      group.extendedBox(), KOKKOS_LAMBDA(int i, int j, int k) {
        phi(i, j, k) = swirl::initialPhi(lower.x + (i + 0.5) * dx.x, lower.y + (j + 0.5) * dx.y);
      });
}

void Advection::computeStableTimestep(const Patch& patch, const DataWarehouse&,
                                      DataWarehouse& newDW, ExecutionContext&) const {
  // The largest face velocity over the whole run (|cos| <= 1), so that the
  // step does not grow without bound as the flow stops at t = 1. u = -c A
  // dB / dy and v = c dA / dx B are products of one line each, so their
  // largest magnitudes over the patch are products of the lines' largest.
  const swirl::FaceLines& lines = linesOf(patch.level());
  const Box box = patch.interior();
  const auto at = [](const auto& host, int face) {
    return host(static_cast<std::size_t>(face + swirl::FaceLines::kPad));
  };
  double largestA = 0.0, largestDA = 0.0, largestB = 0.0, largestDB = 0.0;
  for (int i = box.lo().x; i <= box.hi().x; ++i) {
    largestA = std::max(largestA, at(lines.hostA, i));
    if (i < box.hi().x)
      largestDA = std::max(largestDA, std::fabs(at(lines.hostA, i + 1) - at(lines.hostA, i)));
  }
  for (int j = box.lo().y; j <= box.hi().y; ++j) {
    largestB = std::max(largestB, at(lines.hostB, j));
    if (j < box.hi().y)
      largestDB = std::max(largestDB, std::fabs(at(lines.hostB, j + 1) - at(lines.hostB, j)));
  }
  const Vector3 dx = patch.spacing();
  const double u = largestA * largestDB / dx.y / kPi;
  const double v = largestDA / dx.x * largestB / kPi;
  const double rate = std::max(u / dx.x, v / dx.y);
  const double stable = rate > 0.0 ? m_cfl / rate : std::numeric_limits<double>::max();
  newDW.put(MinVariable<double>(stable), m_delT, patch);
}

namespace {

// The update, keeping the fluxes it applies through every cell's faces, or
// (SidesOnly) only through the faces of the sides of `cells`: two stores an
// x row, whole rows at the y sides.
template <bool SidesOnly>
void updateKeepingFluxes(ExecutionContext& exec, const Box& cells, const swirl::SwirlFluxes& flux,
                         const CellArray<const double>& phi,
                         const StencilOutputs<double, 5>& outputs) {
  const IntVector lo = cells.lo();
  const IntVector last = cells.hi() - IntVector::uniform(1);
  exec.stencilFor(
      cells, 2, StencilInputs<double, 1>{{phi}}, outputs,
      KOKKOS_LAMBDA(int i, int j, int k, const StencilInputs<double, 1>& in,
                    const StencilOutputs<double, 5>& out) {
        const CellArray<const double>& p = in[0];
        const double xLow = flux.x(p, i, j, k);
        const double xHigh = flux.x(p, i + 1, j, k);
        const double yLow = flux.y(p, i, j, k);
        const double yHigh = flux.y(p, i, j + 1, k);
        out[0](i, j, k) = flux.step(p(i, j, k), xLow, xHigh, yLow, yHigh);
        if (!SidesOnly || i == lo.x) out[1](i, j, k) = xLow;
        if (!SidesOnly || i == last.x) out[2](i, j, k) = xHigh;
        if (!SidesOnly || j == lo.y) out[3](i, j, k) = yLow;
        if (!SidesOnly || j == last.y) out[4](i, j, k) = yHigh;
      });
}

}  // namespace

void Advection::timeAdvance(const PatchGroup& group, const DataWarehouse& oldDW,
                            DataWarehouse& newDW, ExecutionContext& exec) const {
  const CellArray<const double> phi =
      oldDW.get<double>(m_phi, group, Ghost::AroundCells, 2).array();
  const CellArray<double> next = newDW.allocateAndPut<double>(m_phi, group).array();
  const swirl::FaceLines& lines = linesOf(group.level());
  const Vector3 dx = group.spacing();
  const double dt = newDW.delT();
  // The face velocities at the half step: second order in time.
  const swirl::SwirlFluxes flux{
      lines.a.data(), lines.b.data(), swirl::timeFactor(oldDW.time() + 0.5 * dt), dt,
      1.0 / dx.x,     1.0 / dx.y};
  if (!m_reflux) {
    exec.stencilFor(
        group.interior(), 2, StencilInputs<double, 1>{{phi}}, StencilOutputs<double, 1>{{next}},
        KOKKOS_LAMBDA(int i, int j, int k, const StencilInputs<double, 1>& in,
                      const StencilOutputs<double, 1>& out) {
          out[0](i, j, k) = flux.updated(in[0], i, j, k);
        });
    return;
  }
  StencilOutputs<double, 5> outputs{{next}};
  for (int axis = 0; axis < 2; ++axis) {
    outputs[1 + 2 * axis] = newDW.allocateAndPut<double>(m_lowFlux[axis], group).array();
    outputs[2 + 2 * axis] = newDW.allocateAndPut<double>(m_highFlux[axis], group).array();
  }
  // Refluxing reads a level's fluxes where a finer level ends, anywhere in
  // its patches, and the finest level's only where that level ends, on
  // faces that are sides of its patch groups: there the update stores those
  // alone (every cell's fluxes cost it 9-16 % a cell).
  if (group.level().finer() == nullptr) {
    updateKeepingFluxes<true>(exec, group.interior(), flux, phi, outputs);
  } else {
    updateKeepingFluxes<false>(exec, group.interior(), flux, phi, outputs);
  }
}

void Advection::computeTotal(const Patch& patch, const DataWarehouse& from, DataWarehouse& into,
                             const VarLabel* total, ExecutionContext& exec) const {
  const CellArray<const double> phi = from.get<double>(m_phi, patch).array();
  into.put(SumVariable<double>(compositeTotal(exec, patch, phi)), total, patch);
}

void Advection::computeErrors(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                              ExecutionContext& exec) const {
  const CellArray<const double> phi = oldDW.get<double>(m_phi, patch).array();
  const Vector3 lower = patch.level().spec().lower;
  const Vector3 dx = patch.spacing();
  // At t = 2 the exact solution is the initial one (the flow has reversed).
  const ErrorNorms norms = compositeErrorNorms(
      exec, patch, phi, KOKKOS_LAMBDA(int i, int j, int) {
        return swirl::initialPhi(lower.x + (i + 0.5) * dx.x, lower.y + (j + 0.5) * dx.y);
      });
  newDW.put(SumVariable<double>(norms.squared), m_squaredError, patch);
  newDW.put(SumVariable<double>(norms.absolute), m_absoluteError, patch);
  newDW.put(MaxVariable<double>(norms.largest), m_maxError, patch);
}

std::vector<std::pair<std::string, double>> Advection::analysisResults(
    const DataWarehouse& dw) const {
  const double cells = static_cast<double>(m_numCells);
  const double squared = dw.getReduction<SumVariable<double>>(m_squaredError).get();
  const double absolute = dw.getReduction<SumVariable<double>>(m_absoluteError).get();
  const double largest = dw.getReduction<MaxVariable<double>>(m_maxError).get();
  const double total = dw.getReduction<SumVariable<double>>(m_total).get();
  // The final warehouse's, which the analysis sees too.
  const double initial = dw.getReduction<SumVariable<double>>(m_initialTotal).get();
  return {{"L1 error", absolute / cells},
          {"L2 error", std::sqrt(squared / cells)},
          {"max error", largest},
          {"total phi", total * m_cellVolume},
          {"total change", (total - initial) / initial}};
}

}  // namespace tessera
