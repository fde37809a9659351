// GoogleTest entry point shared by every Tessera test: MPI and Kokkos live for
// the whole run, owned by one Environment, and only rank 0 prints results.
#include <gtest/gtest.h>

#include "Core/Parallel/Environment.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tessera::Environment env(argc, argv, tessera::EnvironmentOptions{});
  if (env.world().rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  return RUN_ALL_TESTS();
}
