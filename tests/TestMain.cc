// GoogleTest entry point shared by every Tessera test: MPI and Kokkos live for
// the whole run, owned by one Environment. Rank 0 prints the usual report;
// the other ranks print their failures only, each line naming the rank, so
// that a failure on rank 1 alone is not silent.
#include <gtest/gtest.h>

#include "Core/Parallel/Environment.h"

#include <iostream>

namespace {

class FailuresOnlyPrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailuresOnlyPrinter(int rank) : m_rank(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::cerr << "[rank " << m_rank << "] " << (result.file_name() ? result.file_name() : "?")
              << ":" << result.line_number() << ": Failure\n"
              << result.message() << std::endl;
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result()->Failed()) {
      std::cerr << "[rank " << m_rank << "] FAILED " << info.test_suite_name() << "."
                << info.name() << std::endl;
    }
  }

 private:
  int m_rank;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tessera::Environment env(argc, argv, tessera::EnvironmentOptions{});
  const int rank = env.world().rank();
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailuresOnlyPrinter(rank));  // GoogleTest owns its listeners
  }
  return RUN_ALL_TESTS();
}
