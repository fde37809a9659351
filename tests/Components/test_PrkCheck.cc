// The PRK Stencil's validation (Components/Stencil/PrkKernel.h): within
// 1e-8 of the reference validates; anything else, a NaN above all, fails.
#include <gtest/gtest.h>

#include "Components/Stencil/PrkKernel.h"

#include <limits>

namespace tessera::stencil {
namespace {

TEST(PrkCheck, ANanNormNeverValidates) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(prkNormValidates(nan, 6.0));
  EXPECT_FALSE(prkNormValidates(6.0, nan));
  EXPECT_FALSE(prkNormValidates(std::numeric_limits<double>::infinity(), 6.0));
}

TEST(PrkCheck, WithinTheEpsilonValidates) {
  EXPECT_TRUE(prkNormValidates(6.0, 6.0));
  EXPECT_TRUE(prkNormValidates(6.0 + 5e-9, 6.0));
  EXPECT_FALSE(prkNormValidates(6.0 + 5e-8, 6.0));
  EXPECT_FALSE(prkNormValidates(5.0, 6.0));
}

}  // namespace
}  // namespace tessera::stencil
