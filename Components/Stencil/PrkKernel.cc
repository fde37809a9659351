#include "Components/Stencil/PrkKernel.h"

#include "CCA/Ports/ExecutionContext.h"
#include "Core/Parallel/StreamingStores.h"
#include "Core/Util/ExactSum.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tessera::stencil {

namespace {

constexpr double kEpsilon = 1e-8;  // the PRK's

// The parts of `box` outside `inner` (which it contains): at most six
// slabs, x first, then y within x's range, then z within both.
int boxesAround(const Box& box, const Box& inner, Kokkos::Array<Box, 6>& slabs) {
  int count = 0;
  IntVector lo = box.lo(), hi = box.hi();
  for (int axis = 0; axis < 3; ++axis) {
    if (inner.lo()[axis] > lo[axis]) {
      IntVector sliceHi = hi;
      sliceHi[axis] = inner.lo()[axis];
      slabs[count++] = Box(lo, sliceHi);
    }
    if (inner.hi()[axis] < hi[axis]) {
      IntVector sliceLo = lo;
      sliceLo[axis] = inner.hi()[axis];
      slabs[count++] = Box(sliceLo, hi);
    }
    lo[axis] = inner.lo()[axis];
    hi[axis] = inner.hi()[axis];
  }
  return count;
}

// out(i, j, k) + the star of `in` at (i, j, k): the PRK's update of one
// active point, the radius and the number of axes known at compile time.
template <int R, int Axes>
struct PrkStar {
  CellArray<const double> in;
  CellArray<double> out;
  Kokkos::Array<double, kMaxRadius + 1> w;

  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const {
    double sum = out(i, j, k);
    for (int d = 1; d <= R; ++d) {
      sum += w[d] * (in(i + d, j, k) - in(i - d, j, k));
      sum += w[d] * (in(i, j + d, k) - in(i, j - d, k));
      if constexpr (Axes == 3) sum += w[d] * (in(i, j, k + d) - in(i, j, k - d));
    }
    return sum;
  }
};

// The active points of `block` (rows of `updated`) and the rest of their
// rows in `box`: out += the star, in += 1.
template <int R, int Axes>
void prkRows(ExecutionContext& exec, const Box& box, const Box& block,
             const PrkStar<R, Axes>& star, const CellArray<const double>& inOld,
             const CellArray<double>& inNew) {
  const CellArray<double> out = star.out;
  const int westEnd = block.lo().x, eastStart = block.hi().x;
  const int loX = box.lo().x, hiX = box.hi().x;
  if (exec.streamsRows()) {
    // The new `in` is written whole, row by row, with streaming stores (8 B
    // per point instead of 16: its lines are not read before they are
    // written). Each row goes in chunks, the stencil's loop over a chunk
    // (writing `out` only) then the chunk of the new `in`, so that the
    // streamed stores come between the loads instead of in one burst.
    constexpr int kChunk = 1024;
    exec.streamedRows(block, [=](int j, int k) {
      for (int x0 = loX; x0 < hiX; x0 += kChunk) {
        const int x1 = std::min(x0 + kChunk, hiX);
        const int a = std::max(x0, westEnd), b = std::min(x1, eastStart);
        TESSERA_SIMD
        for (int i = a; i < b; ++i)
          out(i, j, k) = star(i, j, k);
        const double* from = &inOld(x0, j, k);
        streamRow(&inNew(x0, j, k), x1 - x0, [from](int i) { return from[i] + 1.0; });
      }
    });
    return;
  }
  exec.parallelFor(
      block,
      KOKKOS_LAMBDA(int i, int j, int k) {
        out(i, j, k) = star(i, j, k);
        inNew(i, j, k) = inOld(i, j, k) + 1.0;
      },
      KOKKOS_LAMBDA(int j, int k) {
        for (int i = loX; i < westEnd; ++i) inNew(i, j, k) = inOld(i, j, k) + 1.0;
        for (int i = eastStart; i < hiX; ++i) inNew(i, j, k) = inOld(i, j, k) + 1.0;
      });
}

// prkSweep with `in` in its old storage (computesVarInPlace): each
// row of `in` gains 1 as soon as the stencil has read it for the last time,
// while it is still in the cache (laggedUpdateSweep). 32 bytes per point
// streamed instead of 40: `in` read once and written back, `out` read and
// written; the same bits.
template <int R, int Axes>
void prkSweepInPlace(ExecutionContext& exec, const Box& box, const Box& active,
                     const CellArray<double>& in, const CellArray<double>& out,
                     const StarWeights& s) {
  const PrkStar<R, Axes> star{in, out, s.w};
  const Box updated = box.intersection(active);
  const IntVector lo = updated.lo(), hi = updated.hi();
  const int loX = box.lo().x, hiX = box.hi().x;
  exec.sweepUpdatingInput(
      box, {1, 1, R, sizeof(double)},
      KOKKOS_LAMBDA(int j, int k) {
        if (j < lo.y || j >= hi.y || k < lo.z || k >= hi.z) return;
        TESSERA_SIMD
        for (int i = lo.x; i < hi.x; ++i)
          out(i, j, k) = star(i, j, k);
      },
      KOKKOS_LAMBDA(int j, int k) {
        TESSERA_SIMD
        for (int i = loX; i < hiX; ++i)
          in(i, j, k) += 1.0;
      });
}

// One PRK sweep over `box`: out += sum_j w_j (in(+j) - in(-j)) along each
// axis at the active points, in += 1 everywhere. `out` is the old output
// carried forward and updated in place (40 bytes per point streamed, as
// the PRK does, instead of 48 with a new copy of it; 32 where the new `in`
// is streamed). The active points and the rest are separate loops, so that
// the stencil's loop has no test per point and vectorises (the same
// arithmetic, in the same order, as one loop with a test: the same bits);
// the rest of the active rows is written with each row, the planes and
// rows outside them by a loop of their own. Where the new `in` is the old
// one's storage, prkSweepInPlace instead.
template <int R, int Axes>
void prkSweep(ExecutionContext& exec, const Box& box, const Box& active,
              const CellArray<const double>& inOld, const CellArray<double>& inNew,
              const CellArray<double>& out, const StarWeights& s) {
  if (outputsOverlapInputs(StencilInputs<double, 1>{{inOld}}, StencilOutputs<double, 1>{{inNew}})) {
    prkSweepInPlace<R, Axes>(exec, box, active, inNew, out, s);  // the old in's storage
    return;
  }
  const PrkStar<R, Axes> star{inOld, out, s.w};
  const Box updated = box.intersection(active);
  // The active rows span x from the box's lo to its hi; only the points
  // inside `updated` gain the stencil, those beyond its x ends (the
  // domain's first and last r points, written with their row) only in += 1.
  Box rows = updated;
  if (!updated.empty()) {
    rows = Box({box.lo().x, updated.lo().y, updated.lo().z},
               {box.hi().x, updated.hi().y, updated.hi().z});
    // In 3D a sweep along z reuses 2R + 1 planes of `in`; where they do not
    // fit the cache, it goes through slabs of rows (cache blocking), or
    // every plane is read 2R + 1 times from memory.
    const int slab = Axes == 3 ? exec.cacheBlockRows(updated.size(), {1, 1, R, sizeof(double)})
                               : updated.size().y;
    for (int j0 = updated.lo().y; j0 < updated.hi().y; j0 += slab) {
      const Box block({updated.lo().x, j0, updated.lo().z},
                      {updated.hi().x, std::min(j0 + slab, updated.hi().y), updated.hi().z});
      prkRows<R, Axes>(exec, box, block, star, inOld, inNew);
    }
  }
  Kokkos::Array<Box, 6> rim;
  const int count = updated.empty() ? (rim[0] = box, 1) : boxesAround(box, rows, rim);
  if (count == 0) return;
  exec.parallelForBoxes(rim, count, KOKKOS_LAMBDA(int i, int j, int k) {
    inNew(i, j, k) = inOld(i, j, k) + 1.0;
  });
}

template <int Axes>
void prkSweepOfRadius(int r, ExecutionContext& exec, const Box& box, const Box& active,
                      const CellArray<const double>& inOld, const CellArray<double>& inNew,
                      const CellArray<double>& out, const StarWeights& s) {
  switch (r) {
    case 1: prkSweep<1, Axes>(exec, box, active, inOld, inNew, out, s); break;
    case 2: prkSweep<2, Axes>(exec, box, active, inOld, inNew, out, s); break;
    case 3: prkSweep<3, Axes>(exec, box, active, inOld, inNew, out, s); break;
    default: prkSweep<4, Axes>(exec, box, active, inOld, inNew, out, s); break;
  }
}

}  // namespace

bool prkNormValidates(double norm, double reference) {
  // Written so that a NaN fails: every comparison with a NaN is false.
  return std::fabs(norm - reference) <= kEpsilon;
}

PrkKernel::PrkKernel(ApplicationContext& context, const StencilParameters& parameters,
                     const Level& level)
    : m_parameters(parameters),
      m_weights(prk(parameters.radius)),
      m_axes(level.resolution().z == 1 ? 2 : 3),
      m_in(context.labels.create<CCVariable<double>>("stencil.in")),
      m_out(context.labels.create<CCVariable<double>>("stencil.out")),
      m_delT(context.labels.create<MinVariable<double>>("stencil.stableDelT")),
      m_absoluteSum(context.labels.create<SumVariable<double>>("stencil.absoluteOutput")) {
  const int r = parameters.radius;
  const IntVector n = level.resolution();
  m_active = Box(IntVector{r, r, m_axes == 3 ? r : 0},
                 IntVector{n.x - r, n.y - r, m_axes == 3 ? n.z - r : n.z});
}

void PrkKernel::scheduleInitialize(const Level& level, Scheduler& sched) {
  Task task("Stencil::prk::initialize", this, &PrkKernel::initialize);
  task.computesVar(m_in);
  task.computesVar(m_out);
  sched.addTask(std::move(task), level.eachPatch());
}

void PrkKernel::scheduleComputeStableTimestep(const Level& level, Scheduler& sched) {
  // A sweep is a unit of time; one task gives it.
  Task task("Stencil::prk::timestep", this, &PrkKernel::computeStableTimestep, Task::Kind::Host);
  task.computesVar(m_delT);
  sched.addTask(std::move(task), {level.eachPatch().front()});
}

void PrkKernel::scheduleTimeAdvance(const Level& level, Scheduler& sched) {
  Task task("Stencil::prk::sweep", this, &PrkKernel::sweep);
  task.requiresVar(Task::OldDW, m_in, Ghost::AroundFaces, m_parameters.radius);
  // In the old in's storage where the graph allows (prkSweepInPlace).
  task.computesVarInPlace(m_in);
  // out accumulates: carried forward and updated in place, as the PRK does.
  task.modifiesVar(Task::OldDW, m_out);
  sched.addTask(std::move(task), level.eachPatch());
}

void PrkKernel::scheduleAnalysis(const Level& level, Scheduler& sched) {
  Task task("Stencil::prk::sumOutput", this, &PrkKernel::sumOutput);
  task.requiresVar(Task::OldDW, m_out);
  task.computesVar(m_absoluteSum);
  sched.addTask(std::move(task), level.eachPatch());
}

void PrkKernel::initialize(const PatchGroup& group, const DataWarehouse&, DataWarehouse& newDW,
                           ExecutionContext& exec) const {
  const CellArray<double> in = newDW.allocateAndPut<double>(m_in, group).array();
  const CellArray<double> out = newDW.allocateAndPut<double>(m_out, group).array();
  const double zWeight = m_axes == 3 ? 1.0 : 0.0;
  exec.parallelFor(group.extendedBox(), KOKKOS_LAMBDA(int i, int j, int k) {
    in(i, j, k) = static_cast<double>(i) + static_cast<double>(j) + zWeight * k;
    out(i, j, k) = 0.0;
  });
}

void PrkKernel::computeStableTimestep(const Patch& patch, const DataWarehouse&,
                                      DataWarehouse& newDW, ExecutionContext&) const {
  newDW.put(MinVariable<double>(1.0), m_delT, patch);
}

void PrkKernel::sweep(const PatchGroup& group, const DataWarehouse& oldDW, DataWarehouse& newDW,
                      ExecutionContext& exec) const {
  const int r = m_parameters.radius;
  const CellArray<const double> inOld = oldDW.get<double>(m_in, group, Ghost::AroundFaces, r).array();
  const CellArray<double> inNew = newDW.allocateAndPut<double>(m_in, group).array();
  const CellArray<double> out = newDW.getModifiable<double>(m_out, group).array();
  if (m_axes == 3) {
    prkSweepOfRadius<3>(r, exec, group.interior(), m_active, inOld, inNew, out, m_weights);
  } else {
    prkSweepOfRadius<2>(r, exec, group.interior(), m_active, inOld, inNew, out, m_weights);
  }
}

void PrkKernel::sumOutput(const Patch& patch, const DataWarehouse& oldDW, DataWarehouse& newDW,
                          ExecutionContext& exec) const {
  const CellArray<const double> out = oldDW.get<double>(m_out, patch).array();
  ExactSum sum;
  const Box mine = patch.interior().intersection(m_active);
  exec.parallelReduce(
      mine,
      KOKKOS_LAMBDA(int i, int j, int k, ExactSum& s) {
        s.add(Kokkos::Experimental::fabs(out(i, j, k)));
      },
      Kokkos::Sum<ExactSum>(sum));
  newDW.put(SumVariable<double>(sum), m_absoluteSum, patch);
}

double PrkKernel::meanAbsoluteOutput(const DataWarehouse& dw) const {
  return dw.getReduction<SumVariable<double>>(m_absoluteSum).get() /
         static_cast<double>(m_active.volume());
}

std::vector<std::pair<std::string, double>> PrkKernel::analysisResults(
    const DataWarehouse& dw) const {
  // The time counts the sweeps (dt = 1 from time 0).
  return {{"mean absolute output", meanAbsoluteOutput(dw)},
          {"reference norm", dw.time() * m_axes}};
}

std::vector<std::string> PrkKernel::analysisReport(const DataWarehouse& dw,
                                                   const RunTiming& timing) const {
  const double norm = meanAbsoluteOutput(dw);
  const double reference = dw.time() * m_axes;
  std::vector<std::string> lines;
  char line[256];
  if (!prkNormValidates(norm, reference)) {
    std::snprintf(line, sizeof(line), "ERROR: L1 norm = %.17g, Reference L1 norm = %.17g", norm,
                  reference);
    lines.emplace_back(line);
    return lines;
  }
  lines.emplace_back("Solution validates");
  // The PRK times every sweep but the first.
  const int timed = timing.timesteps - 1;
  if (timed > 0) {
    const double seconds = timing.wallSeconds - timing.firstStepSeconds;
    const double flops = static_cast<double>(flopsPerPoint()) * m_active.volume() * timed;
    std::snprintf(line, sizeof(line), "Rate (MFlops/s): %.6f  Avg time (s): %.6f",
                  seconds > 0 ? flops / seconds * 1e-6 : 0.0, seconds / timed);
    lines.emplace_back(line);
  }
  return lines;
}

}  // namespace tessera::stencil
