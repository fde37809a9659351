// Ranks agree on the outcome of a step: all succeed, or all throw the same
// error (the lowest failing rank's), marked agreed, of the same kind.
#include "Core/Parallel/Agreement.h"
#include "TestHelpers.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tessera {
namespace {

using testing::contains;

class AgreementTest : public ::testing::Test {
 protected:
  const Communicator m_world = Communicator::borrow(MPI_COMM_WORLD);
};

// What agreeOn threw on this rank: its message, whether it was an
// InputError, and whether it was marked agreed.
struct Outcome {
  bool threw = false;
  std::string message;
  bool input = false;
  bool agreed = false;
};

template <class Step>
Outcome outcomeOf(const Communicator& comm, Step&& step) {
  Outcome outcome;
  try {
    agreeOn(comm, std::forward<Step>(step));
  } catch (const InputError& e) {
    outcome = {true, e.what(), true, e.agreedByAllRanks()};
  } catch (const Error& e) {
    outcome = {true, e.what(), false, e.agreedByAllRanks()};
  }
  return outcome;
}

TEST_F(AgreementTest, ReturnsTheStepsValueWhenNoRankFails) {
  EXPECT_EQ(agreeOn(m_world, [&] { return 10 * m_world.rank() + 1; }), 10 * m_world.rank() + 1);
  EXPECT_NO_THROW(agreeOn(m_world, [] {}));
}

TEST_F(AgreementTest, AFailureOnTheLastRankOnlyIsThrownOnEveryRank) {
  const int last = m_world.size() - 1;
  const Outcome outcome = outcomeOf(m_world, [&] {
    if (m_world.rank() == last) throw std::runtime_error("disk full on the last rank");
  });
  EXPECT_TRUE(outcome.threw) << "rank " << m_world.rank();
  EXPECT_TRUE(outcome.agreed);
  EXPECT_FALSE(outcome.input);
  EXPECT_TRUE(contains(outcome.message, "disk full on the last rank")) << outcome.message;
  // Only some ranks failed: the message says which.
  EXPECT_EQ(contains(outcome.message, "on rank " + std::to_string(last)), m_world.size() > 1)
      << outcome.message;
}

TEST_F(AgreementTest, TheLowestFailingRanksMessageAndKindWin) {
  // Rank 0 fails with a runtime error, every other rank with an input error.
  const Outcome outcome = outcomeOf(m_world, [&] {
    if (m_world.rank() == 0) throw Error("runtime failure on rank 0");
    throw InputError("input error on rank " + std::to_string(m_world.rank()));
  });
  EXPECT_TRUE(outcome.threw);
  EXPECT_TRUE(outcome.agreed);
  EXPECT_FALSE(outcome.input);
  // Every rank failed: nothing names a rank that the others merely waited for.
  EXPECT_EQ(outcome.message, "runtime failure on rank 0");
}

TEST_F(AgreementTest, AnInputErrorStaysAnInputError) {
  const Outcome outcome = outcomeOf(m_world, [&] {
    if (m_world.isRoot()) throw InputError("cannot write statistics to '/x/y'");
  });
  EXPECT_TRUE(outcome.threw);
  EXPECT_TRUE(outcome.input);
  EXPECT_TRUE(outcome.agreed);
  EXPECT_TRUE(contains(outcome.message, "cannot write statistics to '/x/y'")) << outcome.message;
}

TEST_F(AgreementTest, TheRanksStayInStepAfterAnAgreedFailure) {
  for (int round = 0; round < 3; ++round) {
    const Outcome outcome = outcomeOf(m_world, [&] {
      if (m_world.rank() == round % m_world.size()) throw std::runtime_error("round failed");
    });
    EXPECT_TRUE(outcome.threw);
  }
  // A collective after the failures matches on every rank.
  EXPECT_EQ(m_world.allreduceSum(std::int64_t{1}), m_world.size());
}

}  // namespace
}  // namespace tessera
