#include "Components/Stencil/Stencil.h"

#include "Components/Stencil/HeatKernel.h"
#include "Components/Stencil/JacobiKernel.h"
#include "Components/Stencil/PrkKernel.h"
#include "Core/Util/Error.h"

namespace tessera {

using stencil::kMaxRadius;

namespace {

const std::vector<std::string> kKernels{"heat", "jacobi", "prk"};

// Deck errors about the grid name the grid.level key they come from.
void checkGrid(const stencil::StencilParameters& p, const Level& level, const ProblemSpec& deck) {
  const ProblemSpec levelSpec = deck.section("grid").section("level");
  const IntVector resolution = level.resolution();
  const IntVector layout = level.patchLayout();
  const bool prk = p.kernel == "prk";
  for (int axis = 0; axis < 3; ++axis) {
    // A PRK level one cell thick in z is the PRK's 2D stencil: z is not an axis of it.
    const bool flat = prk && axis == 2 && resolution[axis] == 1;
    if (flat) continue;
    const std::string name(1, "xyz"[axis]);
    // The PRK updates only points r or more cells from every edge of the
    // axes it spans: a grid with none would validate an empty average.
    if (prk && resolution[axis] <= 2 * p.radius) {
      throw levelSpec.errorAtValue(
          "resolution", "the prk kernel updates only points at least stencil.radius = " +
                            std::to_string(p.radius) + " cells from each edge: " +
                            std::to_string(resolution[axis]) + " cells along " + name +
                            " leave none (it needs more than " + std::to_string(2 * p.radius) +
                            ")");
    }
    // Ghost cells come from the next patch only: each patch must hold r cells.
    const int narrowest = resolution[axis] / layout[axis];
    if (narrowest < p.radius) {
      throw levelSpec.errorAtValue(
          "patches", "patches " + std::to_string(narrowest) + " cells wide along " + name +
                         " are narrower than stencil.radius " + std::to_string(p.radius));
    }
    if (level.periodic(axis)) {
      if (p.kernel == "jacobi" && axis == 2) {
        throw levelSpec.errorAtValue("periodic",
                                     "the jacobi kernel's exact solution grows along z: z "
                                     "cannot be periodic");
      }
      const double length = level.spec().upper[axis] - level.spec().lower[axis];
      const double periods = length * p.wavenumber;
      if (!prk && std::abs(periods - std::round(periods)) > 1e-12) {
        throw levelSpec.errorAtValue(
            "periodic", "the exact solution sin(2 k pi " + name + ") is periodic along " + name +
                            " only if the box's length times stencil.wavenumber is a whole number");
      }
    } else if (!prk && level.spec().extraCells[axis] < p.radius) {
      throw levelSpec.errorAtValue(
          "extra_cells", "the " + p.kernel + " kernel needs at least stencil.radius = " +
                             std::to_string(p.radius) + " extra cells along the Dirichlet axis " +
                             name + " for its boundary values");
    }
  }
}

}  // namespace

Stencil::Stencil(ApplicationContext& context) : Application(context) {}
Stencil::~Stencil() = default;

Schema Stencil::deckSchema() const {
  Schema schema("star stencils: heat equation, Jacobi sweeps, the PRK Stencil");
  schema.optional("kernel", ValueType::String, "heat, jacobi or prk (default heat)")
      .oneOf("kernel", kKernels)
      .optional("radius", ValueType::Int, "the star's radius r, 1 to 4 (default 1)")
      .range("radius", 1, kMaxRadius)
      .optional("alpha", ValueType::Double, "heat: the diffusivity (default 1)")
      .greaterThan("alpha", 0.0)
      .optional("wavenumber", ValueType::Int, "heat, jacobi: k of the exact solution (default 1)")
      .range("wavenumber", 1)
      .optional("tolerance", ValueType::Double,
                "jacobi: stop when the RMS of a sweep's update is below (default 1e-8)")
      .greaterThan("tolerance", 0.0);
  return schema;
}

void Stencil::problemSetup(const ProblemSpec& deck, Grid& grid) {
  if (const auto section = deck.findSection("stencil")) {
    m_parameters.kernel = section->get<std::string>("kernel", m_parameters.kernel);
    m_parameters.radius = section->get<int>("radius", m_parameters.radius);
    m_parameters.alpha = section->get<double>("alpha", m_parameters.alpha);
    m_parameters.wavenumber = section->get<int>("wavenumber", m_parameters.wavenumber);
    m_parameters.tolerance = section->get<double>("tolerance", m_parameters.tolerance);
  }
  const Level& level = grid.level(0);
  checkGrid(m_parameters, level, deck);
  ApplicationContext& ctx = context();
  // The heat kernel runs on refined levels; the others keep to one (their
  // exact solutions and the PRK's active points are level 0's).
  if (grid.numLevels() > 1 && m_parameters.kernel != "heat") {
    throw deck.section("amr").errorAtKey(
        "regions", "the " + m_parameters.kernel +
                       " kernel runs on one level (refined levels: the heat kernel, Burgers)");
  }
  if (m_parameters.kernel == "heat") {
    m_kernel = std::make_unique<stencil::HeatKernel>(ctx, m_parameters, grid);
  } else if (m_parameters.kernel == "jacobi") {
    m_kernel = std::make_unique<stencil::JacobiKernel>(ctx, m_parameters, level);
  } else {
    m_kernel = std::make_unique<stencil::PrkKernel>(ctx, m_parameters, level);
  }
}

stencil::StencilKernel& Stencil::kernel() const {
  TESSERA_REQUIRE_THROWS(m_kernel != nullptr, "the stencil component was used before problemSetup");
  return *m_kernel;
}

void Stencil::scheduleInitialize(const Level& level, Scheduler& sched) {
  kernel().scheduleInitialize(level, sched);
}
void Stencil::scheduleRestartInitialize(const Level& level, Scheduler& sched) {
  kernel().scheduleRestartInitialize(level, sched);
}
void Stencil::scheduleComputeStableTimestep(const Level& level, Scheduler& sched) {
  kernel().scheduleComputeStableTimestep(level, sched);
}
void Stencil::scheduleTimeAdvance(const Level& level, Scheduler& sched) {
  kernel().scheduleTimeAdvance(level, sched);
}
void Stencil::scheduleAnalysis(const Level& level, Scheduler& sched) {
  kernel().scheduleAnalysis(level, sched);
}
const VarLabel* Stencil::stableTimestepLabel() const { return kernel().stableTimestepLabel(); }
std::vector<const VarLabel*> Stencil::stateLabels() const { return kernel().stateLabels(); }
std::vector<std::pair<std::string, double>> Stencil::analysisResults(
    const DataWarehouse& dw) const {
  return kernel().analysisResults(dw);
}
std::vector<std::string> Stencil::analysisReport(const DataWarehouse& dw,
                                                 const RunTiming& timing) const {
  return kernel().analysisReport(dw, timing);
}
bool Stencil::converged(const DataWarehouse& newDW) const { return kernel().converged(newDW); }

}  // namespace tessera
