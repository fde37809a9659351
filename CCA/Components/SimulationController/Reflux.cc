#include "CCA/Components/SimulationController/Reflux.h"

#include "CCA/Components/SimulationController/LevelScheduling.h"
#include "CCA/Ports/ExecutionContext.h"
#include "Core/Util/Error.h"

#include <algorithm>
#include <array>

namespace tessera {

namespace {

const char* const kAxes[3] = {"x", "y", "z"};

// The registers of one declared flux along one axis.
struct Registers {
  int axis = 0;
  const VarLabel* low = nullptr;   // at the fine cells whose low face is on a coarse face
  const VarLabel* high = nullptr;  // ... whose high face is
};

// The fine cells of `box` whose low (or high) face along `axis` lies on a
// face of the level below: their fluxes, summed over the finer steps and
// times ratio / steps; zero elsewhere.
void fillRegister(ExecutionContext& exec, const Box& box, const CellArray<double>& reg,
                  const std::vector<CellArray<const double>>& steps, int axis, bool high,
                  int ratio) {
  TESSERA_REQUIRE_THROWS(!steps.empty() && steps.size() <= 4,
                         "refluxing sums 1 to 4 finer steps, not " << steps.size());
  Kokkos::Array<CellArray<const double>, 4> parts;
  for (std::size_t s = 0; s < steps.size(); ++s)
    parts[s] = steps[s];
  const int count = static_cast<int>(steps.size());
  const double scale = static_cast<double>(ratio) / count;
  const int shift = high ? 1 : 0;
  exec.parallelFor(
      box, KOKKOS_LAMBDA(int i, int j, int k) {
        const int at = (axis == 0 ? i : axis == 1 ? j : k) + shift;
        double sum = 0.0;
        for (int s = 0; s < count; ++s)
          sum += parts[s](i, j, k);
        reg(i, j, k) = at % ratio == 0 ? scale * sum : 0.0;
      });
}

// Which cells of `box` (of the level below `fine`) `fine` covers, across
// periodic boundaries too.
class Coverage {
 public:
  Coverage(const Level& fine, const Box& box) : m_box(box), m_covered(box.volume(), 0) {
    const IntVector ratio = fine.refinementRatio();
    for (const GhostRegion& region : fine.sourcesOf(refine(box, ratio))) {
      const Box cells = coarsen(region.destinationBox(), ratio).intersection(box);
      cells.forEachCell([&](const IntVector& c) { m_covered[index(c)] = 1; });
    }
  }
  bool covered(const IntVector& c) const { return m_covered[index(c)] != 0; }
  bool any() const { return std::find(m_covered.begin(), m_covered.end(), 1) != m_covered.end(); }

 private:
  std::size_t index(const IntVector& c) const {
    const IntVector at = c - m_box.lo();
    const IntVector size = m_box.size();
    return static_cast<std::size_t>((at.z * size.y + at.y) * size.x + at.x);
  }
  Box m_box;
  std::vector<char> m_covered;
};

}  // namespace

void scheduleReflux(const RefluxStep& step, VarLabelRegistry& labels, Scheduler& sched) {
  const Level& fine = *step.fine;
  const Level& coarse = *fine.coarser();
  const IntVector ratio = fine.refinementRatio();
  for (std::size_t q = 0; q < step.coarse.size(); ++q) {
    const ConservedFlux& coarseFlux = step.coarse[q];
    std::vector<Registers> registers;
    for (int axis = 0; axis < 3; ++axis) {
      if (coarseFlux.low[axis] == nullptr) continue;
      const std::string name = coarseFlux.conserved->name() + ".register" +
                               std::to_string(fine.index()) + "." + kAxes[axis];
      registers.push_back({axis, labels.alias(coarseFlux.low[axis], name + ".low" + step.when),
                           labels.alias(coarseFlux.high[axis], name + ".high" + step.when)});
    }
    if (registers.empty()) continue;

    // 1. The finer level's registers.
    Task fineTask(
        "register " + coarseFlux.conserved->name() + " on level " + std::to_string(fine.index()),
        Task::GroupCallback([=, steps = step.fineSteps](const PatchGroup& group,
                                                        const DataWarehouse&, DataWarehouse& newDW,
                                                        ExecutionContext& exec) {
          for (const Registers& reg : registers) {
            for (const bool high : {false, true}) {
              std::vector<CellArray<const double>> fluxes;
              for (const auto& fluxesOfStep : steps) {
                const ConservedFlux& flux = fluxesOfStep[q];
                fluxes.push_back(
                    newDW.get<double>(high ? flux.high[reg.axis] : flux.low[reg.axis], group)
                        .array());
              }
              const CellArray<double> out =
                  newDW.allocateAndPut<double>(high ? reg.high : reg.low, group).array();
              fillRegister(exec, group.interior(), out, fluxes, reg.axis, high, ratio[reg.axis]);
            }
          }
        }));
    for (const auto& fluxesOfStep : step.fineSteps) {
      for (const Registers& reg : registers) {
        fineTask.requiresVar(Task::NewDW, fluxesOfStep[q].low[reg.axis]);
        fineTask.requiresVar(Task::NewDW, fluxesOfStep[q].high[reg.axis]);
      }
    }
    for (const Registers& reg : registers)
      fineTask.computesVar(reg.low).computesVar(reg.high);
    sched.addTask(std::move(fineTask), fine.eachPatch());

    // 2. The coarser level's: zero, then the finer level's averages where it
    // covers. The level below it has them too (zero), for the coarse-fine
    // ghost cells of the coarser level's own boundary.
    std::vector<const VarLabel*> names;
    for (const Registers& reg : registers) {
      names.push_back(reg.low);
      names.push_back(reg.high);
    }
    for (const Level* level = &coarse; level != nullptr && level->index() + 1 >= coarse.index();
         level = level->coarser()) {
      Task zero("zero registers of " + coarseFlux.conserved->name() + " on level " +
                    std::to_string(level->index()),
                Task::GroupCallback([names](const PatchGroup& group, const DataWarehouse&,
                                            DataWarehouse& newDW, ExecutionContext& exec) {
                  for (const VarLabel* name : names) {
                    const CellArray<double> reg = newDW.allocateAndPut<double>(name, group).array();
                    exec.parallelFor(
                        group.extendedBox(),
                        KOKKOS_LAMBDA(int i, int j, int k) { reg(i, j, k) = 0.0; });
                  }
                }));
      for (const VarLabel* name : names)
        zero.computesVar(name);
      sched.addTask(std::move(zero), level->eachPatch());
    }
    scheduleAveragingFrom(fine, names, sched);

    // 3. The corrections, on the coarser patches near the finer level.
    std::vector<const Patch*> near;
    for (const Patch& patch : coarse.patches())
      if (!fine.sourcesOf(refine(patch.interior().grow(1), ratio)).empty()) near.push_back(&patch);
    const int coarseSubsteps = step.coarseSubsteps;
    const Level* const finer = &fine;
    Task correct(
        "reflux " + coarseFlux.conserved->name() + " onto level " + std::to_string(coarse.index()),
        [=](const Patch& patch, const DataWarehouse&, DataWarehouse& newDW, ExecutionContext&) {
          const Box interior = patch.interior();
          const Coverage coverage(*finer, interior.grow(1));
          CCVariable<double> state = newDW.getModifiable<double>(coarseFlux.conserved, patch);
          const double dt = newDW.delT() / coarseSubsteps;
          const Vector3 dx = patch.spacing();
          struct Axis {
            int axis;
            double rate;  // dt / dx
            CellArray<const double> coarseLow, coarseHigh, fineLow, fineHigh;
          };
          std::vector<Axis> axes;
          for (const Registers& reg : registers) {
            axes.push_back({reg.axis, dt / dx[reg.axis],
                            newDW.get<double>(coarseFlux.low[reg.axis], patch).array(),
                            newDW.get<double>(coarseFlux.high[reg.axis], patch).array(),
                            newDW.get<double>(reg.low, patch, Ghost::AroundFaces, 1).array(),
                            newDW.get<double>(reg.high, patch, Ghost::AroundFaces, 1).array()});
          }
          interior.forEachCell([&](const IntVector& u) {
            if (coverage.covered(u)) return;
            double change = 0.0;
            bool beside = false;
            for (const Axis& a : axes) {
              const IntVector e = IntVector::axisVector(a.axis, 1);
              // The finer level beyond the high face: that face's coarse
              // flux gives way to the fine one (the register at the cell
              // beyond, of its low faces), and the reverse beyond the low face.
              if (coverage.covered(u + e)) {
                const IntVector c = u + e;
                change += a.rate * (a.coarseHigh(u.x, u.y, u.z) - a.fineLow(c.x, c.y, c.z));
                beside = true;
              }
              if (coverage.covered(u - e)) {
                const IntVector c = u - e;
                change -= a.rate * (a.coarseLow(u.x, u.y, u.z) - a.fineHigh(c.x, c.y, c.z));
                beside = true;
              }
            }
            if (beside) state(u) += change;
          });
        },
        Task::Kind::Host);
    for (const Registers& reg : registers) {
      correct.requiresVar(Task::NewDW, coarseFlux.low[reg.axis]);
      correct.requiresVar(Task::NewDW, coarseFlux.high[reg.axis]);
      correct.requiresVar(Task::NewDW, reg.low, Ghost::AroundFaces, 1);
      correct.requiresVar(Task::NewDW, reg.high, Ghost::AroundFaces, 1);
    }
    correct.modifiesVar(coarseFlux.conserved);
    sched.addTask(std::move(correct), near);
  }
}

}  // namespace tessera
