// The operators between levels (LevelOperators.h): refining converges at
// second order for smooth fields (first for Constant), conserves (the fine
// cells of a coarse cell average to it), the limited one adds no extremum at
// a jump, and coarsening is the mean in a fixed order; labels name their
// operators, and cell variables apply them with the kernels' own body.
#include "Core/Grid/VarLabel.h"
#include "Core/Grid/Variables/CCVariable.h"
#include "Core/Grid/Variables/LevelOperators.h"
#include "Core/Util/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

using namespace tessera;

namespace {

using Host = Kokkos::DefaultHostExecutionSpace;

// Cell values over a box, held in a vector.
struct Field {
  explicit Field(const Box& b) : box(b), values(static_cast<std::size_t>(b.volume())) {}
  CellArray<double> array() { return {values.data(), box}; }
  CellArray<const double> constArray() { return array(); }
  double operator()(int i, int j, int k) { return array()(i, j, k); }
  Box box;
  std::vector<double> values;
};

constexpr double kPi = 3.14159265358979323846;

double smooth(double x, double y, double z) {
  return 2.0 + std::sin(2 * kPi * x) * std::cos(2 * kPi * y) * std::sin(2 * kPi * z + 0.3);
}

// Coarse cells of width 1/n holding `f` at their centres (ghosts included),
// refined by `ratio` over the fine cells of [n/4, 3n/4)^3: the largest and
// the mean absolute error against `f` at the fine centres.
std::pair<double, double> refineError(int n, int ratio, RefineOp op) {
  const Box fineBox = refine(Box(IntVector::uniform(n / 4), IntVector::uniform(3 * n / 4)),
                             IntVector::uniform(ratio));
  Field coarse(refineFootprint(fineBox, IntVector::uniform(ratio), op));
  const double h = 1.0 / n;
  coarse.box.forEachCell([&](const IntVector& c) {
    coarse.array()(c) = smooth((c.x + 0.5) * h, (c.y + 0.5) * h, (c.z + 0.5) * h);
  });
  Field fine(fineBox);
  refineCells(Host(), coarse.constArray(), fine.array(), fineBox, IntVector::uniform(ratio), op);
  Host().fence();
  double largest = 0.0, total = 0.0;
  const double fh = h / ratio;
  fineBox.forEachCell([&](const IntVector& c) {
    const double error = std::fabs(fine.array()(c) - smooth((c.x + 0.5) * fh, (c.y + 0.5) * fh,
                                                            (c.z + 0.5) * fh));
    largest = std::max(largest, error);
    total += error;
  });
  return {largest, total / static_cast<double>(fineBox.volume())};
}

}  // namespace

TEST(LevelOperators, FloorDivisionOfNegativeCells) {
  EXPECT_EQ(floorDiv(5, 2), 2);
  EXPECT_EQ(floorDiv(-1, 2), -1);
  EXPECT_EQ(floorDiv(-2, 2), -1);
  EXPECT_EQ(floorDiv(-3, 2), -2);
  EXPECT_EQ(floorDiv(-4, 4), -1);
  EXPECT_EQ(floorDiv(-5, 4), -2);
}

// Observed order log2(e(n) / e(2n)) on two refinements of the coarse grid.
TEST(LevelOperators, RefiningConvergesAtTheStatedOrder) {
  struct Case {
    RefineOp op;
    bool maxNorm;
    double lowest;
    double highest;
  };
  for (const int ratio : {2, 4}) {
    for (const Case c : {Case{RefineOp::Linear, true, 1.85, 2.3},
                         Case{RefineOp::LimitedLinear, false, 1.8, 2.3},
                         Case{RefineOp::Constant, true, 0.85, 1.2}}) {
      SCOPED_TRACE(std::string(refineOpName(c.op)) + " ratio " + std::to_string(ratio));
      double previous = 0.0;
      for (const int n : {16, 32, 64}) {
        const auto [largest, mean] = refineError(n, ratio, c.op);
        const double error = c.maxNorm ? largest : mean;
        if (previous > 0.0) {
          const double order = std::log2(previous / error);
          std::printf("%s, ratio %d, coarse %d -> %d cells: error %.3e (%s), order %.3f\n",
                      refineOpName(c.op), ratio, n / 2, n, error, c.maxNorm ? "max" : "mean",
                      order);
          EXPECT_GE(order, c.lowest) << "n " << n;
          EXPECT_LE(order, c.highest) << "n " << n;
        }
        previous = error;
      }
    }
  }
}

// Refluxing's face operators: a coarse cell takes the mean of the fine
// cells whose low (high) face lies on its own, the same bits on the host
// loop and the kernel, and the other planes never read.
TEST(LevelOperators, FaceOperatorsAverageOneFacePlane) {
  for (const int ratio : {2, 4}) {
    const IntVector r = IntVector::uniform(ratio);
    const Box parents({-1, 0, 2}, {2, 3, 4});
    Field fine(refine(parents, r));
    fine.box.forEachCell([&](const IntVector& f) {
      // Values whose sums round, so that only the same order of additions
      // gives the same bits.
      fine.array()(f) = 1.0 + 0.25 * f.x - 0.5 * f.y + 0.125 * f.z * f.x +
                        1e-3 * std::sin(12.9898 * f.x + 78.233 * f.y + 37.719 * f.z);
    });
    for (int axis = 0; axis < 3; ++axis) {
      for (const bool high : {false, true}) {
        const CoarsenOp op = faceOp(axis, high);
        SCOPED_TRACE(std::string(coarsenOpName(op)) + " ratio " + std::to_string(ratio));
        EXPECT_TRUE(isFaceOp(op));
        EXPECT_EQ(faceAxis(op), axis);
        EXPECT_EQ(highFace(op), high);
        Field kernel(parents), inline_(parents);
        coarsenCells(Host(), fine.constArray(), kernel.array(), parents, r, op);
        Host().fence();
        coarsenCellsInline(fine.constArray(), inline_.array(), parents, r, op);
        parents.forEachCell([&](const IntVector& c) {
          double sum = 0.0;
          int count = 0;
          refine(Box(c, c + IntVector::uniform(1)), r).forEachCell([&](const IntVector& f) {
            const int plane = high ? r[axis] * (c[axis] + 1) - 1 : r[axis] * c[axis];
            if (f[axis] != plane) return;
            sum += fine.array()(f);
            ++count;
          });
          EXPECT_EQ(count, ratio * ratio);
          EXPECT_DOUBLE_EQ(kernel.array()(c), sum / count) << c;
          EXPECT_EQ(kernel.array()(c), inline_.array()(c)) << c;  // the same bits
        });
      }
    }
  }
}

TEST(LevelOperators, RefiningConservesAndCoarseningAverages) {
  for (const int ratio : {2, 4}) {
    for (const RefineOp op : {RefineOp::Constant, RefineOp::Linear, RefineOp::LimitedLinear}) {
      SCOPED_TRACE(std::string(refineOpName(op)) + " ratio " + std::to_string(ratio));
      const IntVector r = IntVector::uniform(ratio);
      const Box parents({-2, 1, 0}, {3, 5, 3});  // negative cells too
      Field coarse(parents.grow(1));
      coarse.box.forEachCell([&](const IntVector& c) {
        coarse.array()(c) = std::cos(0.7 * c.x) + 0.3 * c.y * c.y - 0.1 * c.z + (c.x == 1 ? 5 : 0);
      });
      Field fine(refine(parents, r));
      refineCells(Host(), coarse.constArray(), fine.array(), fine.box, r, op);
      Field back(parents);
      coarsenCells(Host(), fine.constArray(), back.array(), parents, r, CoarsenOp::Average);
      Host().fence();
      parents.forEachCell([&](const IntVector& c) {
        EXPECT_NEAR(back.array()(c), coarse.array()(c), 1e-14 * (1 + std::fabs(coarse.array()(c))))
            << c;
        // The mean is the sum in x-fastest order, divided once.
        double sum = 0.0;
        refine(Box(c, c + IntVector::uniform(1)), r).forEachCell([&](const IntVector& f) {
          sum += fine.array()(f);
        });
        const double mean = sum / (ratio * ratio * ratio);
        EXPECT_EQ(std::memcmp(&mean, &back.array()(c), sizeof(double)), 0) << c;
      });
    }
  }
}

TEST(LevelOperators, LimitedRefiningAddsNoExtremumAtAJump) {
  const IntVector r{2, 2, 2};
  const Box parents({0, 0, 0}, {8, 3, 3});
  Field coarse(parents.grow(1));
  coarse.box.forEachCell([&](const IntVector& c) { coarse.array()(c) = c.x < 4 ? 1.0 : 3.0; });
  for (const RefineOp op : {RefineOp::LimitedLinear, RefineOp::Linear}) {
    Field fine(refine(parents, r));
    refineCells(Host(), coarse.constArray(), fine.array(), fine.box, r, op);
    Host().fence();
    double lowest = 1e9, highest = -1e9;
    fine.box.forEachCell([&](const IntVector& c) {
      lowest = std::min(lowest, fine.array()(c));
      highest = std::max(highest, fine.array()(c));
    });
    if (op == RefineOp::LimitedLinear) {
      EXPECT_EQ(lowest, 1.0);
      EXPECT_EQ(highest, 3.0);
    } else {
      // Central slopes overshoot next to the jump (what the limiter is for).
      EXPECT_LT(lowest, 1.0);
      EXPECT_GT(highest, 3.0);
    }
  }
}

// A label names its operators once; a cell variable refines and coarsens
// through the type-erased interface with the same body, so the same bits,
// and refuses boxes its allocations do not hold.
TEST(LevelOperators, LabelsNameTheirOperatorsAndVariablesApplyThem) {
  VarLabelRegistry labels;
  const VarLabel* u = labels.create<CCVariable<double>>("u");
  EXPECT_EQ(u->levelTransfer().refine, RefineOp::LimitedLinear);
  EXPECT_EQ(u->levelTransfer().coarsen, CoarsenOp::Average);
  const VarLabel* flag = labels.create<CCVariable<int>>("flag", LevelTransfer{RefineOp::Constant});
  EXPECT_EQ(flag->levelTransfer().refine, RefineOp::Constant);
  EXPECT_EQ(labels.create<CCVariable<int>>("flag", LevelTransfer{RefineOp::Constant}), flag);
  try {
    labels.create<CCVariable<int>>("flag", LevelTransfer{RefineOp::Linear});
    ADD_FAILURE() << "other operators for the same label were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("refine constant"), std::string::npos) << e.what();
  }

  const IntVector r{2, 2, 2};
  const Box fineBox({-3, 2, 5}, {7, 9, 12});
  CCVariable<double> coarse(refineFootprint(fineBox, r, RefineOp::Linear), "coarse");
  coarse.box().forEachCell([&](const IntVector& c) { coarse(c) = std::sin(0.3 * c.x + 0.2 * c.y) + c.z; });
  for (const RefineOp op : {RefineOp::Constant, RefineOp::Linear, RefineOp::LimitedLinear}) {
    CCVariable<double> viaBase(fineBox.grow(1), "fine");
    static_cast<GridVariableBase&>(viaBase).refineFrom(coarse, fineBox, r, op);
    Field kernel(fineBox);
    refineCells(Host(), coarse.constArray(), kernel.array(), fineBox, r, op);
    Host().fence();
    fineBox.forEachCell([&](const IntVector& c) {
      EXPECT_EQ(std::memcmp(&viaBase(c), &kernel.array()(c), sizeof(double)), 0)
          << refineOpName(op) << " " << c;
    });
  }
  CCVariable<double> fine(fineBox, "fine");
  fine.refineFrom(coarse, fineBox, r, RefineOp::Linear);
  const Box parents({-1, 1, 3}, {3, 4, 6});
  CCVariable<double> back(parents, "back");
  back.coarsenFrom(fine, parents, r, CoarsenOp::Average);
  parents.forEachCell([&](const IntVector& c) {
    EXPECT_NEAR(back(c), coarse(c), 1e-14 * (1 + std::fabs(coarse(c)))) << c;
  });
  // Averages packed for another rank straight from the fine cells: the bits
  // of coarsening into a variable, then packing it.
  for (const CoarsenOp op : {CoarsenOp::Average, CoarsenOp::LowFaceX, CoarsenOp::HighFaceZ}) {
    CCVariable<double> averaged(parents, "averaged");
    averaged.coarsenFrom(fine, parents, r, op);
    const std::size_t bytes = static_cast<std::size_t>(parents.volume()) * sizeof(double);
    std::vector<std::byte> viaVariable(bytes), direct(bytes);
    averaged.pack(parents, viaVariable.data());
    fine.packCoarsened(parents, r, op, direct.data());
    EXPECT_EQ(viaVariable, direct) << static_cast<int>(op);
  }
  EXPECT_THROW(fine.packCoarsened(parents.grow(1), r, CoarsenOp::Average, nullptr), Error);
  // Boxes the allocations do not hold, and another type.
  EXPECT_THROW(fine.refineFrom(coarse, fineBox.grow(2), r, RefineOp::Linear), Error);
  CCVariable<double> small(Box({0, 0, 0}, {2, 2, 2}), "small");
  EXPECT_THROW(fine.refineFrom(small, fineBox, r, RefineOp::Constant), Error);
  EXPECT_THROW(back.coarsenFrom(fine, parents.grow(1), r, CoarsenOp::Average), Error);
  CCVariable<float> other(coarse.box(), "other");
  EXPECT_THROW(fine.refineFrom(other, fineBox, r, RefineOp::Linear), Error);
}

// The host's refinement at ratio 2 runs a row of coarse cells at a time
// (LevelOperators.h, refineRatio2Inline; along y for an x face): bitwise the
// kernel's RefineCell on every kind of box a coarse-fine fill refines
// (one-cell-thick faces along each axis, boxes starting at odd and negative
// cells, rows longer than a run), on data with jumps, plateaus and extrema,
// which take each branch of the limiter.
TEST(LevelOperators, RowsAtRatio2GiveTheKernelsBits) {
  const IntVector r{2, 2, 2};
  const std::vector<Box> boxes{
      Box({-3, 2, 5}, {7, 9, 12}),     Box({5, -4, -4}, {6, 14, 14}),  // an x face
      Box({-4, 7, -4}, {14, 8, 14}),   Box({-4, -4, 0}, {14, 14, 1}),  // y and z faces
      Box({-7, -1, 3}, {-6, 1, 4}),    Box({-9, 0, 0}, {75, 3, 2}),    // rows past a run
      Box({1, 1, 1}, {2, 2, 2}),       Box({0, 3, -1}, {2, 5, 3}),
      Box({3, -41, 0}, {4, 40, 2}),    Box({5, -3, 1}, {7, 4, 2})};  // a long x face
  for (const RefineOp op : {RefineOp::Linear, RefineOp::LimitedLinear}) {
    for (const Box& fineBox : boxes) {
      SCOPED_TRACE(std::string(refineOpName(op)) + " " + std::to_string(fineBox.lo().x) + " " +
                   std::to_string(fineBox.hi().x));
      CCVariable<double> coarse(refineFootprint(fineBox, r, op), "coarse");
      coarse.box().forEachCell([&](const IntVector& c) {
        const double wave = std::sin(0.9 * c.x + 0.4 * c.y * c.y - 0.3 * c.z);
        coarse(c) = (c.x + c.y) % 3 == 0 ? 1.0 : (c.z % 4 == 0 ? wave : wave + 4.0 * (c.y > 2));
      });
      CCVariable<double> inlineFine(fineBox, "fine");
      inlineFine.refineFrom(coarse, fineBox, r, op);
      Field kernel(fineBox);
      refineCells(Host(), coarse.constArray(), kernel.array(), fineBox, r, op);
      Host().fence();
      int differing = 0;
      fineBox.forEachCell([&](const IntVector& c) {
        differing += std::memcmp(&inlineFine(c), &kernel.array()(c), sizeof(double)) != 0;
      });
      EXPECT_EQ(differing, 0);
    }
  }
}
