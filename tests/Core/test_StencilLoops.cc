// Stencil loops: the same body run straight over memory (stencilFor), tile by
// tile out of team scratch (tiledStencilFor) and by a plain host loop gives
// the same bits in every cell, writes nothing outside the box, and counts its
// tiles; cells beyond the ends of the rows are written once per row
// (rowEnds) whichever way. An output that is also the input is updated in
// place with the same bits (inPlaceStencilFor), in any number of slabs; so
// is an input changed cell by cell after the stencil's last read
// (laggedUpdateSweep), in any number of slabs and strips. The box has
// negative lower indices, like extra and ghost cells.
#include <gtest/gtest.h>

#include "Core/Parallel/LaggedUpdateSweep.h"
#include "Core/Parallel/StencilLoops.h"
#include "Core/Util/Error.h"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace tessera {
namespace {

constexpr double kSentinel = -12345.678;

// A value per cell that no neighbour shares and that rounds in every operation.
double inputValue(int which, int i, int j, int k) {
  return std::sqrt(2.0 + 0.37 * i + 1.13 * j * j + 2.71 * k + which * 0.91 + (i * j * k) % 7);
}

// Storage for one variable over `box` (host memory: OpenMP and Serial share it).
struct Field {
  Box box;
  std::vector<double> data;
  Field(const Box& b, double value) : box(b), data(static_cast<std::size_t>(b.volume()), value) {}
  CellArray<double> array() { return CellArray<double>(data.data(), box); }
  CellArray<const double> constArray() const { return CellArray<const double>(data.data(), box); }
  double at(const IntVector& c) const { return constArray()(c); }
};

Field makeInput(int which, const Box& box) {
  Field field(box, 0.0);
  box.forEachCell([&](const IntVector& c) { field.array()(c) = inputValue(which, c.x, c.y, c.z); });
  return field;
}

// A 7-point stencil with one ghost layer.
struct SevenPoint {
  double centre;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, const StencilInputs<double, 1>& in,
                                         const StencilOutputs<double, 1>& out) const {
    const CellArray<const double>& u = in[0];
    out[0](i, j, k) = centre * u(i, j, k) + 0.1 * (u(i - 1, j, k) - u(i + 1, j, k)) +
                      0.2 * (u(i, j - 1, k) + u(i, j + 1, k)) +
                      0.3 * (u(i, j, k - 1) - 0.5 * u(i, j, k + 1));
  }
};

// Two inputs read two layers deep, two outputs.
struct WideTwoByTwo {
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, const StencilInputs<double, 2>& in,
                                         const StencilOutputs<double, 2>& out) const {
    const CellArray<const double>& a = in[0];
    const CellArray<const double>& b = in[1];
    double sum = 0.0;
    for (int d = -2; d <= 2; ++d) {
      sum += (d + 3) * a(i + d, j, k) - 0.25 * b(i, j + d, k) + 0.125 * a(i, j, k + d);
    }
    out[0](i, j, k) = sum + a(i - 2, j - 2, k - 2) * b(i + 2, j + 2, k + 2);
    out[1](i, j, k) = a(i, j, k) / b(i, j, k) - b(i - 1, j + 2, k - 2);
  }
};

const Box kBox({-3, -2, -1}, {4, 4, 4});  // 7 x 6 x 5 cells

int expectedTiles(const Box& box, const IntVector& tile) {
  const IntVector n = box.size();
  return ((n.x + tile.x - 1) / tile.x) * ((n.y + tile.y - 1) / tile.y) *
         ((n.z + tile.z - 1) / tile.z);
}

const std::vector<IntVector>& tileShapes() {
  static const std::vector<IntVector> shapes = {
      {1, 1, 1}, {3, 5, 2}, {4, 4, 4}, {7, 6, 5}, {2, 4, 3},
      {7, 1, 1}, {1, 6, 1}, {1, 1, 5}, {5, 5, 5}, {10, 9, 8}};  // the last is larger than the box
  return shapes;
}

// Every cell of `field` outside `box` still holds the sentinel.
int touchedOutside(const Field& field, const Box& box) {
  int touched = 0;
  field.box.forEachCell([&](const IntVector& c) {
    if (!box.contains(c) && field.at(c) != kSentinel) ++touched;
  });
  return touched;
}

bool sameBits(const Field& a, const Field& b) {
  return a.box == b.box && a.data.size() == b.data.size() &&
         std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(double)) == 0;
}

template <class ExecSpace>
class StencilLoopsTest : public ::testing::Test {};
using Spaces = ::testing::Types<Kokkos::DefaultExecutionSpace, Kokkos::Serial>;
TYPED_TEST_SUITE(StencilLoopsTest, Spaces);

TYPED_TEST(StencilLoopsTest, SevenPointTiledMatchesUntiledAndAHostLoop) {
  const TypeParam space;
  const Field u = makeInput(0, kBox.grow(1));
  const SevenPoint body{-0.6};
  const StencilInputs<double, 1> in{{u.constArray()}};

  // A plain host loop, and stencilFor, over outputs with a sentinel ring.
  Field reference(kBox.grow(2), kSentinel);
  kBox.forEachCell([&](const IntVector& c) {
    body(c.x, c.y, c.z, in, StencilOutputs<double, 1>{{reference.array()}});
  });
  Field untiled(kBox.grow(2), kSentinel);
  stencilFor("untiled", space, kBox, in, StencilOutputs<double, 1>{{untiled.array()}}, body);
  space.fence();
  EXPECT_TRUE(sameBits(untiled, reference));
  EXPECT_EQ(touchedOutside(untiled, kBox), 0);

  for (const IntVector& tile : tileShapes()) {
    SCOPED_TRACE("tile " + std::to_string(tile.x) + "x" + std::to_string(tile.y) + "x" +
                 std::to_string(tile.z));
    Field tiled(kBox.grow(2), kSentinel);
    const int tiles = tiledStencilFor("tiled", space, kBox, 1, tile, in,
                                      StencilOutputs<double, 1>{{tiled.array()}}, body);
    space.fence();
    EXPECT_EQ(tiles, expectedTiles(kBox, tile));
    EXPECT_TRUE(sameBits(tiled, untiled));
    EXPECT_EQ(touchedOutside(tiled, kBox), 0);
  }
}

TYPED_TEST(StencilLoopsTest, TwoGhostLayersTwoInputsTwoOutputs) {
  const TypeParam space;
  // The inputs hold more than the two layers the body reads.
  const Field a = makeInput(1, kBox.grow(2));
  const Field b = makeInput(2, kBox.grow(3));
  const WideTwoByTwo body;
  const StencilInputs<double, 2> in{{a.constArray(), b.constArray()}};

  Field refX(kBox.grow(1), kSentinel), refY(kBox.grow(2), kSentinel);
  kBox.forEachCell([&](const IntVector& c) {
    body(c.x, c.y, c.z, in, StencilOutputs<double, 2>{{refX.array(), refY.array()}});
  });
  Field x(kBox.grow(1), kSentinel), y(kBox.grow(2), kSentinel);
  stencilFor("untiled", space, kBox, in, StencilOutputs<double, 2>{{x.array(), y.array()}}, body);
  space.fence();
  EXPECT_TRUE(sameBits(x, refX));
  EXPECT_TRUE(sameBits(y, refY));

  for (const IntVector& tile : tileShapes()) {
    SCOPED_TRACE("tile " + std::to_string(tile.x) + "x" + std::to_string(tile.y) + "x" +
                 std::to_string(tile.z));
    Field tx(kBox.grow(1), kSentinel), ty(kBox.grow(2), kSentinel);
    const int tiles = tiledStencilFor("tiled", space, kBox, 2, tile, in,
                                      StencilOutputs<double, 2>{{tx.array(), ty.array()}}, body);
    space.fence();
    EXPECT_EQ(tiles, expectedTiles(kBox, tile));
    EXPECT_TRUE(sameBits(tx, x));
    EXPECT_TRUE(sameBits(ty, y));
    EXPECT_EQ(touchedOutside(tx, kBox), 0);
    EXPECT_EQ(touchedOutside(ty, kBox), 0);
  }
}

// rowEnds writes beyond both ends of each x row: a count at the low end
// (each row must be visited exactly once) and a value at the high end.
struct CountRowEnds {
  int before;  // the x just below the box
  int after;   // the x just above it
  KOKKOS_INLINE_FUNCTION void operator()(int j, int k, const StencilOutputs<double, 1>& out) const {
    out[0](before, j, k) += 1.0;
    out[0](after, j, k) = 1000.0 * j + k;
  }
};

TYPED_TEST(StencilLoopsTest, RowEndsVisitEachRowOnceUntiledAndTiled) {
  const TypeParam space;
  // A small box (run inline) and one of more than kInlineCells cells.
  for (const Box& box : {kBox, Box({-3, -2, -1}, {37, 10, 5})}) {
    SCOPED_TRACE("box of " + std::to_string(box.volume()) + " cells");
    const Field u = makeInput(0, box.grow(1));
    const SevenPoint body{-0.6};
    const StencilInputs<double, 1> in{{u.constArray()}};
    Field plain(box.grow(1), 0.0);
    stencilFor("plain", space, box, in, StencilOutputs<double, 1>{{plain.array()}}, body);
    space.fence();
    // What the outputs must hold: the stencil in the box, the count 1 just
    // below each row, the value just above it, nothing anywhere else.
    Field expected = plain;
    const Box rows(box.lo(), {box.lo().x + 1, box.hi().y, box.hi().z});
    rows.forEachCell([&](const IntVector& c) {
      expected.array()(box.lo().x - 1, c.y, c.z) = 1.0;
      expected.array()(box.hi().x, c.y, c.z) = 1000.0 * c.y + c.z;
    });
    const CountRowEnds rowEnds{box.lo().x - 1, box.hi().x};

    Field untiled(box.grow(1), 0.0);
    stencilFor("untiled", space, box, in, StencilOutputs<double, 1>{{untiled.array()}}, body,
               rowEnds);
    space.fence();
    EXPECT_TRUE(sameBits(untiled, expected));
    for (const IntVector& tile : tileShapes()) {
      SCOPED_TRACE("tile " + std::to_string(tile.x) + "x" + std::to_string(tile.y) + "x" +
                   std::to_string(tile.z));
      Field tiled(box.grow(1), 0.0);
      tiledStencilFor("tiled", space, box, 1, tile, in, StencilOutputs<double, 1>{{tiled.array()}},
                      body, rowEnds);
      space.fence();
      EXPECT_TRUE(sameBits(tiled, expected));
    }
  }
}

// A star of radius R whose arms weigh differently, so that a value read
// after its update (or from the wrong plane) shows.
template <int R>
struct Star {
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, const StencilInputs<double, 1>& in,
                                         const StencilOutputs<double, 1>& out) const {
    const CellArray<const double>& u = in[0];
    double sum = -0.9 * u(i, j, k);
    for (int d = 1; d <= R; ++d) {
      sum += 0.1 * d * (u(i - d, j, k) - 0.3 * u(i + d, j, k)) +
             0.07 * d * (u(i, j - d, k) + 0.6 * u(i, j + d, k)) +
             0.05 / d * (u(i, j, k - d) - 0.5 * u(i, j, k + d));
    }
    out[0](i, j, k) = u(i, j, k) + sum;
  }
};

// A stencil that reads the edges of its cube too (y and z at once), which
// a star leaves out: an old value is read by rows up to R away in y of
// the plane R on, so it goes back no sooner.
template <int R>
struct StarAndEdges {
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, const StencilInputs<double, 1>& in,
                                         const StencilOutputs<double, 1>& out) const {
    const CellArray<const double>& u = in[0];
    Star<R>{}(i, j, k, in, out);
    out[0](i, j, k) += 0.01 * (u(i, j + R, k - R) - 0.7 * u(i, j - R, k + R)) +
                       0.02 * (u(i, j - R, k - R) + 0.3 * u(i, j + R, k + R));
  }
};

template <int R, class Space, class Body = Star<R>>
void expectInPlaceMatchesTwoArrays(const Space& space, const Body& stencil = Body{}) {
  // From one plane (every plane at both ends of its slab) to several slabs
  // of interior planes.
  for (const int planes : {1, R, 2 * R + 1, 4 * R + 3, 23}) {
    const Box box({-3, -2, -1}, {9, 15, -1 + planes});  // 17 rows: strips of 2 R and more
    const Field u = makeInput(0, box.grow(R));
    const StencilInputs<double, 1> in{{u.constArray()}};
    const CountRowEnds rowEnds{box.lo().x - 1, box.hi().x};
    // Into a second array that starts as a copy: what the update in place
    // must leave everywhere, the ghost cells and the row ends included.
    Field expected = u;
    stencilFor("two arrays", space, box, in, StencilOutputs<double, 1>{{expected.array()}},
               stencil, rowEnds);
    space.fence();
    for (const int slabs : {0, 1, 2, 3, 7}) {
      for (const int strip : {0, 1, 5, 9}) {
        SCOPED_TRACE("r " + std::to_string(R) + ", " + std::to_string(planes) + " planes, " +
                     std::to_string(slabs) + " slabs, strips of " + std::to_string(strip));
        Field v = u;
        const StencilInputs<double, 1> self{{v.constArray()}};
        const StencilOutputs<double, 1> selfOut{{v.array()}};
        ASSERT_TRUE(outputsOverlapInputs(self, selfOut));
        inPlaceStencilFor("in place", space, box, R, self, selfOut, stencil, rowEnds, slabs,
                          strip);
        space.fence();
        EXPECT_TRUE(sameBits(v, expected));
      }
    }
    // A tiled loop handed its input as output goes in place too.
    Field w = u;
    tiledStencilFor("tiled, in place", space, box, R, IntVector{4, 3, 2},
                    StencilInputs<double, 1>{{w.constArray()}},
                    StencilOutputs<double, 1>{{w.array()}}, stencil, rowEnds);
    space.fence();
    EXPECT_TRUE(sameBits(w, expected)) << "tiled, r " << R << ", " << planes << " planes";
  }
}

TYPED_TEST(StencilLoopsTest, InPlaceMatchesTwoArraysForEveryRadiusAndSlabCount) {
  const TypeParam space;
  expectInPlaceMatchesTwoArrays<1>(space);
  expectInPlaceMatchesTwoArrays<2>(space);
  expectInPlaceMatchesTwoArrays<3>(space);
  expectInPlaceMatchesTwoArrays<4>(space);
  expectInPlaceMatchesTwoArrays<1>(space, StarAndEdges<1>{});
  expectInPlaceMatchesTwoArrays<3>(space, StarAndEdges<3>{});
}

// The PRK's shape: `out += star(in)` into a variable no neighbour reads,
// and `in` updated in place.
struct AccumulateAndShift {
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, const StencilInputs<double, 1>& in,
                                         const StencilOutputs<double, 2>& out) const {
    const CellArray<const double>& u = in[0];
    out[0](i, j, k) = u(i, j, k) + 1.0;
    out[1](i, j, k) +=
        0.5 * (u(i + 1, j, k) - u(i - 1, j, k)) + 0.25 * (u(i, j, k + 1) - u(i, j, k - 1));
  }
};

TYPED_TEST(StencilLoopsTest, InPlaceLeavesAnOutputThatIsNoInputWhereItIs) {
  const TypeParam space;
  const Box box({-3, -2, -1}, {9, 6, 13});
  const Field u = makeInput(0, box.grow(1));
  const Field acc = makeInput(3, box.grow(1));
  Field expectedU = u;
  Field expectedAcc = acc;
  stencilFor("two arrays", space, box, StencilInputs<double, 1>{{u.constArray()}},
             StencilOutputs<double, 2>{{expectedU.array(), expectedAcc.array()}},
             AccumulateAndShift{});
  space.fence();
  for (const int slabs : {0, 1, 3}) {
    Field v = u;
    Field w = acc;
    inPlaceStencilFor("in place", space, box, 1, StencilInputs<double, 1>{{v.constArray()}},
                      StencilOutputs<double, 2>{{v.array(), w.array()}}, AccumulateAndShift{},
                      NoRowEnds{}, slabs, slabs + 1);
    space.fence();
    EXPECT_TRUE(sameBits(v, expectedU)) << slabs << " slabs";
    EXPECT_TRUE(sameBits(w, expectedAcc)) << slabs << " slabs";
  }
}

// The PRK's sweep by rows: out += a star of `in` reaching R rows and planes
// (and R cells along the row), then in = f(in) cell by cell, with in
// changed in place as soon as no later row reads it.
template <int R>
struct StarRow {
  CellArray<const double> in;
  CellArray<double> out;
  int loX, hiX;
  KOKKOS_INLINE_FUNCTION void operator()(int j, int k) const {
    for (int i = loX; i < hiX; ++i) {
      double sum = out(i, j, k) + 0.5 * in(i, j, k);
      for (int d = 1; d <= R; ++d)
        sum += 0.1 * d * (in(i + d, j, k) - 0.3 * in(i - d, j, k)) +
               0.07 / d * (in(i, j + d, k) - 0.6 * in(i, j - d, k)) +
               0.05 * d * (in(i, j, k + d) - 0.4 * in(i, j, k - d));
      out(i, j, k) = sum;  // a second call for the row would add again
    }
  }
};

struct ShiftRow {
  CellArray<double> in;
  int loX, hiX;
  KOKKOS_INLINE_FUNCTION void operator()(int j, int k) const {
    for (int i = loX; i < hiX; ++i)
      in(i, j, k) = 1.5 * in(i, j, k) + 1.0;
  }
};

template <int R, class Space>
void expectLaggedUpdateMatchesTwoPasses(const Space& space) {
  // One plane (swept along y), a few planes, several slabs of interior
  // planes; 17 rows, so strips of 1 (narrower than R) and more.
  for (const int planes : {1, R, 2 * R + 1, 4 * R + 3, 23}) {
    const Box box({-3, -2, -1}, {9, 15, -1 + planes});
    const Box halo = box.grow(R);
    const Field in0 = makeInput(0, halo);
    const Field out0 = makeInput(1, halo);
    Field expectedIn = in0;
    Field expectedOut = out0;
    const StarRow<R> body{in0.constArray(), expectedOut.array(), box.lo().x, box.hi().x};
    const ShiftRow update{expectedIn.array(), box.lo().x, box.hi().x};
    box.forEachCell([&](const IntVector& c) {
      if (c.x == box.lo().x) body(c.y, c.z);
    });
    box.forEachCell([&](const IntVector& c) {
      if (c.x == box.lo().x) update(c.y, c.z);
    });
    for (const int slabs : {0, 1, 2, 3, 7}) {
      for (const int strip : {0, 1, 5, 9}) {
        SCOPED_TRACE("r " + std::to_string(R) + ", " + std::to_string(planes) + " planes, " +
                     std::to_string(slabs) + " slabs, strips of " + std::to_string(strip));
        Field in = in0;
        Field out = out0;
        laggedUpdateSweep("lagged", space, box, R, strip,
                          StarRow<R>{in.constArray(), out.array(), box.lo().x, box.hi().x},
                          ShiftRow{in.array(), box.lo().x, box.hi().x}, slabs);
        space.fence();
        EXPECT_TRUE(sameBits(out, expectedOut));
        EXPECT_TRUE(sameBits(in, expectedIn));  // ghost cells untouched, each row once
      }
    }
  }
}

TYPED_TEST(StencilLoopsTest, LaggedUpdateMatchesTwoPassesForEveryRadiusSlabAndStrip) {
  const TypeParam space;
  expectLaggedUpdateMatchesTwoPasses<1>(space);
  expectLaggedUpdateMatchesTwoPasses<2>(space);
  expectLaggedUpdateMatchesTwoPasses<3>(space);
  expectLaggedUpdateMatchesTwoPasses<4>(space);
}

TEST(StencilLoopsOverlap, SeparateArraysDoNotOverlapWindowsOnOneDo) {
  const Field a = makeInput(0, kBox.grow(1));
  Field b(kBox.grow(1), 0.0);
  Field c(kBox.grow(1), 0.0);
  EXPECT_FALSE(outputsOverlapInputs(StencilInputs<double, 1>{{a.constArray()}},
                                    StencilOutputs<double, 1>{{b.array()}}));
  EXPECT_TRUE(outputsOverlapInputs(StencilInputs<double, 2>{{a.constArray(), c.constArray()}},
                                   StencilOutputs<double, 1>{{c.array()}}));
  // A window on part of an array overlaps the whole.
  const CellArray<double> part(&c.array()(kBox.lo()), kBox, c.array().strideY(),
                               c.array().strideZ());
  EXPECT_TRUE(outputsOverlapInputs(StencilInputs<double, 1>{{c.constArray()}},
                                   StencilOutputs<double, 1>{{part}}));
}

TYPED_TEST(StencilLoopsTest, EmptyBoxRunsNoTile) {
  const TypeParam space;
  const Field u = makeInput(0, kBox.grow(1));
  Field out(kBox, kSentinel);
  const Box empty({0, 0, 0}, {0, 3, 3});
  EXPECT_EQ(tiledStencilFor("empty", space, empty, 1, IntVector{2, 2, 2},
                            StencilInputs<double, 1>{{u.constArray()}},
                            StencilOutputs<double, 1>{{out.array()}}, SevenPoint{1.0}),
            0);
  EXPECT_EQ(touchedOutside(out, Box()), 0);
}

TYPED_TEST(StencilLoopsTest, InputWithoutEnoughGhostRoomThrows) {
  const TypeParam space;
  Field out(kBox, kSentinel);
  // One layer short on every side, then short on a single side only.
  const Field tooSmall = makeInput(0, kBox.grow(1));
  const Field oneSideShort =
      makeInput(0, Box(kBox.lo() - IntVector{2, 2, 2}, kBox.hi() + IntVector{2, 1, 2}));
  for (const Field* input : {&tooSmall, &oneSideShort}) {
    EXPECT_THROW(tiledStencilFor("short", space, kBox, 2, IntVector{3, 3, 3},
                                 StencilInputs<double, 1>{{input->constArray()}},
                                 StencilOutputs<double, 1>{{out.array()}}, SevenPoint{1.0}),
                 Error);
  }
  // The second input is the short one.
  const Field a = makeInput(1, kBox.grow(2));
  try {
    tiledStencilFor("second input short", space, kBox, 2, IntVector{3, 3, 3},
                    StencilInputs<double, 2>{{a.constArray(), tooSmall.constArray()}},
                    StencilOutputs<double, 2>{{out.array(), out.array()}}, WideTwoByTwo{});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("second input short"), std::string::npos) << message;
    EXPECT_NE(message.find("input 1"), std::string::npos) << message;
  }
  EXPECT_EQ(touchedOutside(out, Box()), 0) << "nothing ran";
}

TYPED_TEST(StencilLoopsTest, NonPositiveTileThrows) {
  const TypeParam space;
  const Field u = makeInput(0, kBox.grow(1));
  Field out(kBox, kSentinel);
  for (const IntVector tile : {IntVector{0, 2, 2}, IntVector{2, -1, 2}, IntVector{2, 2, 0}}) {
    EXPECT_THROW(tiledStencilFor("bad tile", space, kBox, 1, tile,
                                 StencilInputs<double, 1>{{u.constArray()}},
                                 StencilOutputs<double, 1>{{out.array()}}, SevenPoint{1.0}),
                 Error);
  }
}

}  // namespace
}  // namespace tessera
