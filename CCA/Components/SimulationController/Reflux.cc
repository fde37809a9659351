#include "CCA/Components/SimulationController/Reflux.h"

#include "CCA/Components/SimulationController/LevelScheduling.h"
#include "CCA/Ports/ExecutionContext.h"
#include "Core/Util/Error.h"

#include <algorithm>
#include <array>
#include <map>
#include <memory>

namespace tessera {

namespace {

// Finer steps per coarser step: the ratio, 2 or 4 (AmrSpec).
constexpr int kMostSteps = 4;

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

 private:
  std::size_t index(const IntVector& c) const {
    const IntVector at = c - m_box.lo();
    const IntVector size = m_box.size();
    return static_cast<std::size_t>((at.z * size.y + at.y) * size.x + at.x);
  }
  Box m_box;
  std::vector<char> m_covered;
};

// A face of a coarse cell the finer level does not cover, shared with a
// cell it does: the cell, the axis, and +1 when the finer level lies beyond
// its high face, -1 beyond its low face.
struct InterfaceFace {
  IntVector cell;
  int axis;
  int side;
};

std::vector<InterfaceFace> interfaceOf(const Level& fine, const Patch& patch,
                                       const std::vector<int>& axes) {
  const Box interior = patch.interior();
  const Coverage coverage(fine, interior.grow(1));
  std::vector<InterfaceFace> faces;
  interior.forEachCell([&](const IntVector& u) {
    if (coverage.covered(u)) return;
    for (int axis : axes) {
      const IntVector e = IntVector::axisVector(axis, 1);
      if (coverage.covered(u + e)) faces.push_back({u, axis, +1});
      if (coverage.covered(u - e)) faces.push_back({u, axis, -1});
    }
  });
  return faces;
}

// Variables made for names no task of the level computes (the finer level's
// earlier steps' fluxes, read where its faces fill them and copied around
// as ghost cells, never elsewhere): storage alone.
void scheduleStorage(const Level& level, std::vector<const VarLabel*> names,
                     std::set<std::pair<const VarLabel*, int>>* made, Scheduler& sched) {
  if (made != nullptr) {
    names.erase(std::remove_if(names.begin(), names.end(),
                               [&](const VarLabel* name) {
                                 return !made->insert({name, level.index()}).second;
                               }),
                names.end());
  }
  if (names.empty()) return;
  Task make("storage for refluxing on level " + std::to_string(level.index()),
            Task::GroupCallback([names](const PatchGroup& group, const DataWarehouse&,
                                        DataWarehouse& newDW, ExecutionContext&) {
              for (const VarLabel* name : names)
                newDW.allocateAndPut<double>(name, group);
            }),
            Task::Kind::Host);
  for (const VarLabel* name : names)
    make.computesVar(name);
  sched.addTask(std::move(make), level.eachPatch());
}

}  // namespace

void scheduleReflux(const RefluxStep& step, Scheduler& sched) {
  const Level& fine = *step.fine;
  const Level& coarse = *fine.coarser();
  const int steps = static_cast<int>(step.fineSteps.size());
  TESSERA_REQUIRE_THROWS(steps >= 1 && steps <= kMostSteps,
                         "refluxing sums 1 to " << kMostSteps << " finer steps, not " << steps);
  for (std::size_t q = 0; q < step.coarse.size(); ++q) {
    const ConservedFlux& coarseFlux = step.coarse[q];
    std::vector<int> axes;
    for (int axis = 0; axis < 3; ++axis) {
      if (coarseFlux.low[axis] == nullptr) continue;
      for (const bool high : {false, true}) {
        const VarLabel* label = high ? coarseFlux.high[axis] : coarseFlux.low[axis];
        TESSERA_REQUIRE_THROWS(
            label->levelTransfer().coarsen == faceOp(axis, high),
            "refluxing '" << coarseFlux.conserved->name() << "': its flux '" << label->name()
                          << "' coarsens by " << coarsenOpName(label->levelTransfer().coarsen)
                          << "; make it with fluxTransfer(" << axis << ", " << high << ")");
      }
      axes.push_back(axis);
    }
    if (axes.empty()) continue;

    // 1. The finer level's fluxes onto the coarser level's cells along its faces.
    std::vector<const VarLabel*> read;  // every step's, the coarser level's among them
    std::vector<const VarLabel*> made;  // those the coarser level does not compute
    for (int k = 0; k < steps; ++k) {
      const ConservedFlux& flux = step.fineSteps[static_cast<std::size_t>(k)][q];
      for (int axis : axes) {
        for (const VarLabel* label : {flux.low[axis], flux.high[axis]}) {
          read.push_back(label);
          if (k + 1 < steps) made.push_back(label);
        }
      }
    }
    scheduleStorage(coarse, made, step.made, sched);
    if (const Level* below = coarse.coarser()) {
      std::vector<const VarLabel*> missing = made;
      if (!step.coarseNamesBelow) {
        for (int axis : axes) {
          missing.push_back(coarseFlux.low[axis]);
          missing.push_back(coarseFlux.high[axis]);
        }
      }
      scheduleStorage(*below, missing, step.made, sched);
    }
    scheduleAveragingFrom(fine, read, sched);

    // 2. The corrections, on the coarser patches beside the finer level.
    std::vector<const Patch*> near;
    std::map<int, std::shared_ptr<const std::vector<InterfaceFace>>> facesOf;
    for (const Patch& patch : coarse.patches()) {
      auto faces =
          std::make_shared<const std::vector<InterfaceFace>>(interfaceOf(fine, patch, axes));
      if (faces->empty()) continue;
      near.push_back(&patch);
      facesOf[patch.id()] = std::move(faces);
    }
    if (near.empty()) continue;
    const int coarseSubsteps = step.coarseSubsteps;
    const auto fineSteps = step.fineSteps;
    Task correct(
        "reflux " + coarseFlux.conserved->name() + " onto level " + std::to_string(coarse.index()),
        [=](const Patch& patch, const DataWarehouse&, DataWarehouse& newDW, ExecutionContext&) {
          CCVariable<double> state = newDW.getModifiable<double>(coarseFlux.conserved, patch);
          const double dt = newDW.delT() / coarseSubsteps;
          const Vector3 dx = patch.spacing();
          // Per axis and step, the finer fluxes with the covered neighbours'
          // cells; the last step's names are the coarse fluxes too.
          std::array<std::array<CellArray<const double>, kMostSteps>, 3> low, high;
          for (int axis : axes) {
            for (int k = 0; k < steps; ++k) {
              const ConservedFlux& flux = fineSteps[static_cast<std::size_t>(k)][q];
              low[axis][k] =
                  newDW.get<double>(flux.low[axis], patch, Ghost::AroundFaces, 1).array();
              high[axis][k] =
                  newDW.get<double>(flux.high[axis], patch, Ghost::AroundFaces, 1).array();
            }
          }
          const std::vector<InterfaceFace>& faces = *facesOf.at(patch.id());
          for (std::size_t f = 0; f < faces.size();) {
            const IntVector u = faces[f].cell;
            double change = 0.0;
            for (; f < faces.size() && faces[f].cell == u; ++f) {
              const int axis = faces[f].axis;
              const IntVector c = u + IntVector::axisVector(axis, faces[f].side);
              // The coarse flux through the face, from u's side; the finer
              // level's mean over its steps, from the covered cell's side.
              const auto& ownSide = faces[f].side > 0 ? high[axis] : low[axis];
              const auto& fineSide = faces[f].side > 0 ? low[axis] : high[axis];
              double fineSum = 0.0;
              for (int k = 0; k < steps; ++k)
                fineSum += fineSide[k](c.x, c.y, c.z);
              const double difference = ownSide[steps - 1](u.x, u.y, u.z) - fineSum / steps;
              change += faces[f].side * (dt / dx[axis]) * difference;
            }
            state(u) += change;
          }
        },
        Task::Kind::Host);
    for (const VarLabel* label : read)
      correct.requiresVar(Task::NewDW, label, Ghost::AroundFaces, 1);
    correct.modifiesVar(coarseFlux.conserved);
    sched.addTask(std::move(correct), near);
  }
}

}  // namespace tessera
