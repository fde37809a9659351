// ExactSum adds doubles exactly: the result does not depend on the order of
// the terms or on how they are split and joined (threads, patches, ranks),
// and it is the exact sum rounded once to the nearest double.
#include "Core/Util/ExactSum.h"

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace tessera {
namespace {

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(a)) == 0; }

double exactSum(const std::vector<double>& values) {
  ExactSum sum;
  for (double v : values)
    sum.add(v);
  return sum.value();
}

// Terms from 1e-300 to 1e300 of both signs: a naive sum of them depends on
// the order.
std::vector<double> wildTerms(int count, unsigned seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-300, 300);
  std::vector<double> values;
  for (int n = 0; n < count; ++n)
    values.push_back(std::ldexp(mantissa(random), exponent(random)));
  return values;
}

TEST(ExactSum, CancellationLosesNothing) {
  EXPECT_EQ(exactSum({1e100, 1.0, -1e100}), 1.0);
  EXPECT_EQ(exactSum({1.0, 1e-300, -1.0}), 1e-300);
  EXPECT_EQ(exactSum({DBL_MAX, DBL_MAX, -DBL_MAX}), DBL_MAX);
  const double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(exactSum({tiny, tiny, tiny}), 3 * tiny);
  EXPECT_EQ(exactSum({}), 0.0);
  EXPECT_EQ(exactSum({-2.5, 2.5}), 0.0);
}

TEST(ExactSum, RoundsTheExactSumOnceToNearest) {
  // Ten times 0.1 is 1.0000000000000000555..., nearest double 1.0 (a naive
  // loop gives 0.9999999999999999).
  EXPECT_TRUE(sameBits(exactSum(std::vector<double>(10, 0.1)), 1.0));
  // 1 + 2^-53 is a tie: to even (1.0); with any more it rounds up.
  EXPECT_TRUE(sameBits(exactSum({1.0, std::ldexp(1.0, -53)}), 1.0));
  EXPECT_TRUE(sameBits(exactSum({1.0, std::ldexp(1.0, -53), std::ldexp(1.0, -300)}),
                       std::nextafter(1.0, 2.0)));
  EXPECT_TRUE(sameBits(exactSum({-1.0, -std::ldexp(1.0, -53), -std::ldexp(1.0, -300)}),
                       -std::nextafter(1.0, 2.0)));
}

TEST(ExactSum, TheOrderAndTheSplitDoNotMatter) {
  std::vector<double> values = wildTerms(20000, 7);
  const double forward = exactSum(values);
  std::reverse(values.begin(), values.end());
  EXPECT_TRUE(sameBits(exactSum(values), forward));
  std::shuffle(values.begin(), values.end(), std::mt19937_64(11));
  EXPECT_TRUE(sameBits(exactSum(values), forward));
  // Split into uneven parts (patches), joined in another order (ranks).
  std::vector<ExactSum> parts(7);
  for (std::size_t n = 0; n < values.size(); ++n)
    parts[(n * n) % parts.size()].add(values[n]);
  ExactSum joined;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it)
    joined += *it;
  EXPECT_TRUE(sameBits(joined.value(), forward));
  EXPECT_TRUE(joined.sameValue([&] {
    ExactSum all;
    for (double v : values)
      all.add(v);
    return all;
  }()));
}

TEST(ExactSum, CarriesBeforeTheLimbsOverflow) {
  // Doubling by joining reaches 2^31 terms of 1.0 in 31 joins.
  ExactSum sum(1.0);
  for (int n = 0; n < 31; ++n)
    sum += ExactSum(sum);
  EXPECT_EQ(sum.value(), std::ldexp(1.0, 31));
  ExactSum negative(-0.75);
  for (int n = 0; n < 40; ++n)
    negative += ExactSum(negative);
  EXPECT_EQ(negative.value(), -0.75 * std::ldexp(1.0, 40));
}

TEST(ExactSum, InfinitiesAndNaNsAsIeeeSums) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(exactSum({1.0, inf}), inf);
  EXPECT_EQ(exactSum({1.0, -inf}), -inf);
  EXPECT_TRUE(std::isnan(exactSum({inf, -inf})));
  EXPECT_TRUE(std::isnan(exactSum({1.0, std::nan("")})));
  EXPECT_EQ(exactSum({DBL_MAX, DBL_MAX}), inf);
  EXPECT_EQ(exactSum({-DBL_MAX, -DBL_MAX}), -inf);
}

TEST(ExactSum, AKokkosReductionGivesTheSameBitsOnAnyThreadCount) {
  const std::vector<double> values = wildTerms(100000, 3);
  const double serial = exactSum(values);
  const double* data = values.data();
  ExactSum threaded;
  Kokkos::parallel_reduce(
      "exact sum", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, values.size()),
      KOKKOS_LAMBDA(std::size_t n, ExactSum& s) { s.add(data[n]); },
      Kokkos::Sum<ExactSum>(threaded));
  EXPECT_TRUE(sameBits(threaded.value(), serial))
      << Kokkos::DefaultHostExecutionSpace().concurrency() << " threads";
}

}  // namespace
}  // namespace tessera
