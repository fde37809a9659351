#include "Components/Gemm/GemmPlan.h"

#include "Core/Util/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

// Planning errors are the user's (a deck's sizes, grid or memory): plain
// InputErrors, without the source location an internal error carries.
#define GEMM_PLAN_REQUIRE(cond, msg) \
  do {                               \
    if (!(cond)) {                   \
      std::ostringstream text_;      \
      text_ << msg;                  \
      throw InputError(text_.str()); \
    }                                \
  } while (false)

namespace tessera::gemm {

Range split(Range range, int parts, int i) {
  const std::int64_t n = range.size();
  const std::int64_t base = n / parts;
  const std::int64_t extra = n % parts;
  const std::int64_t begin = range.begin + i * base + std::min<std::int64_t>(i, extra);
  return {begin, begin + base + (i < extra ? 1 : 0)};
}

std::int64_t Plan::maxWordsReceived() const {
  return wordsReceived.empty() ? 0 : *std::max_element(wordsReceived.begin(), wordsReceived.end());
}

GridCell Plan::cell(int rank) const {
  return {rank % grid.pm, (rank / grid.pm) % grid.pn, rank / (grid.pm * grid.pn)};
}

int Plan::rankOf(const GridCell& c) const {
  return c.i + grid.pm * (c.j + grid.pn * c.l);
}

std::string describe(const ProcessorGrid& grid) {
  std::ostringstream out;
  out << "[" << grid.pm << ", " << grid.pn << ", " << grid.pk << "]";
  return out.str();
}

namespace {

bool fitsMatrix(const Shape& shape, const ProcessorGrid& grid) {
  return grid.pm <= shape.m && grid.pn <= shape.n && grid.pk <= shape.k;
}

// The words rank `rank` receives in one multiplication with `rounds` rounds.
std::int64_t wordsOf(const Plan& plan, int rank) {
  const GridCell c = plan.cell(rank);
  const ProcessorGrid& g = plan.grid;
  const Range rows = plan.rows(c.i);
  const Range cols = plan.cols(c.j);
  std::int64_t words = 0;
  for (int r = 0; r < plan.rounds; ++r) {
    const Range inner = plan.inner(c.l, r);
    // A_{i,lr}: all of it but the rows slice j (held here).
    words += (rows.size() - split(rows, g.pn, c.j).size()) * inner.size();
    // B_{lr,j}: all of it but the inner slice i.
    words += (inner.size() - split(inner, g.pm, c.i).size()) * cols.size();
  }
  // Partial C_ij: slice l from each of the other pk - 1 ranks.
  words += (g.pk - 1) * split(rows, g.pk, c.l).size() * cols.size();
  return words;
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

std::optional<Plan> evaluate(const Shape& shape, const ProcessorGrid& grid, int ranks,
                             std::optional<std::int64_t> memoryWords) {
  if (!fitsMatrix(shape, grid) || grid.size() > ranks) return std::nullopt;
  Plan plan;
  plan.shape = shape;
  plan.grid = grid;
  plan.ranks = ranks;
  // The largest blocks (the first part of each split).
  const std::int64_t a = split(shape.m, grid.pm, 0).size();
  const std::int64_t b = split(shape.n, grid.pn, 0).size();
  const std::int64_t kl = split(shape.k, grid.pk, 0).size();
  if (memoryWords) {
    // Resident: the partial C block and one round's A and B.
    const std::int64_t room = *memoryWords - a * b;
    if (room < a + b) return std::nullopt;
    // COSMA's t = ceil(2ab / (S - a^2)), made whole: each round's slice of
    // K_l (the largest of the near-equal pieces) must fit.
    plan.rounds = static_cast<int>(std::min<std::int64_t>(kl, ceilDiv(kl, room / (a + b))));
  }
  plan.memoryWords = a * b + ceilDiv(kl, plan.rounds) * (a + b);
  plan.flopsPerRank =
      2.0 * static_cast<double>(a) * static_cast<double>(b) * static_cast<double>(kl);
  for (int q = 0; q < plan.usedRanks(); ++q)
    plan.wordsReceived.push_back(wordsOf(plan, q));
  return plan;
}

Plan plan(const Request& request) {
  const Shape& shape = request.shape;
  GEMM_PLAN_REQUIRE(shape.m >= 1 && shape.n >= 1 && shape.k >= 1,
                    "the matrix sizes must be at least 1");
  GEMM_PLAN_REQUIRE(request.ranks >= 1, "a GEMM needs at least one rank");
  if (request.strategy == Strategy::Explicit) {
    const ProcessorGrid& g = request.grid;
    GEMM_PLAN_REQUIRE(g.pm >= 1 && g.pn >= 1 && g.pk >= 1,
                      "the grid " << describe(g) << " has a factor below 1");
    GEMM_PLAN_REQUIRE(g.size() <= request.ranks, "the grid " << describe(g) << " needs " << g.size()
                                                             << " ranks; the run has "
                                                             << request.ranks);
    GEMM_PLAN_REQUIRE(fitsMatrix(shape, g), "the grid " << describe(g) << " does not fit a "
                                                        << shape.m << " x " << shape.n << " x "
                                                        << shape.k
                                                        << " product (pm <= m, pn <= n, pk <= k)");
    auto result = evaluate(shape, g, request.ranks, request.memoryWords);
    GEMM_PLAN_REQUIRE(result.has_value(), "the grid " << describe(g)
                                                      << " does not fit memory_words "
                                                      << *request.memoryWords);
    return *result;
  }
  const int fewest =
      request.strategy == Strategy::TwoD
          ? request.ranks
          : std::max(1, request.ranks - request.maxIdleRanks.value_or(request.ranks));
  std::optional<Plan> best;
  double bestScore = std::numeric_limits<double>::infinity();
  for (int used = request.ranks; used >= fewest; --used) {
    for (int pm = 1; pm <= used; ++pm) {
      if (used % pm) continue;
      for (int pn = 1; pn <= used / pm; ++pn) {
        if ((used / pm) % pn) continue;
        const int pk = used / (pm * pn);
        if (request.strategy == Strategy::TwoD && pk != 1) continue;
        auto candidate = evaluate(shape, {pm, pn, pk}, request.ranks, request.memoryWords);
        if (!candidate) continue;
        const double score =
            candidate->flopsPerRank +
            request.flopsPerWord * static_cast<double>(candidate->maxWordsReceived());
        // Ties: fewer rounds, then a smaller pk (no partial C to reduce:
        // the products go straight into C), then more ranks (visited
        // first), then the first grid met.
        const auto rank = [](const Plan& p) { return std::make_pair(p.rounds, p.grid.pk); };
        if (!best || score < bestScore || (score == bestScore && rank(*candidate) < rank(*best))) {
          best = std::move(candidate);
          bestScore = score;
        }
      }
    }
  }
  if (!best) {
    std::ostringstream why;
    if (request.memoryWords) {
      why << "memory_words " << *request.memoryWords << " is too small for any grid on "
          << request.ranks << " rank(s); the smallest that works is "
          << smallestMemory(shape, request.ranks);
    } else {
      why << "no " << (request.strategy == Strategy::TwoD ? "2D " : "") << "grid of "
          << request.ranks << " rank(s) fits a " << shape.m << " x " << shape.n << " x " << shape.k
          << " product";
    }
    throw InputError(why.str());
  }
  return *best;
}

double wordsHeld(const Plan& plan, int rank, bool verify) {
  if (rank < 0 || rank >= plan.usedRanks()) return 0.0;
  const GridCell c = plan.cell(rank);
  const ProcessorGrid& g = plan.grid;
  const auto rows = static_cast<double>(plan.rows(c.i).size());
  const auto cols = static_cast<double>(plan.cols(c.j).size());
  const auto inner = static_cast<double>(plan.inner(c.l).size());
  const auto aSlice = static_cast<double>(split(plan.rows(c.i), g.pn, c.j).size());
  const auto cSlice = static_cast<double>(split(plan.rows(c.i), g.pk, c.l).size());
  double words = aSlice * inner + 2.0 * cSlice * cols;
  // Received: every round's other slices, or two rounds' when they double-buffer.
  double received = 0.0, largestRound = 0.0;
  for (int r = 0; r < plan.rounds; ++r) {
    const Range k = plan.inner(c.l, r);
    const auto bSlice = static_cast<double>(split(k, g.pm, c.i).size());
    words += bSlice * cols;
    const double round = (rows - aSlice) * static_cast<double>(k.size()) +
                         (static_cast<double>(k.size()) - bSlice) * cols;
    received += round;
    largestRound = std::max(largestRound, round);
  }
  words += plan.rounds > 1 ? 2.0 * largestRound : received;
  // The partial product, the pk - 1 slices reduced onto this rank and their sum.
  if (g.pk > 1) words += rows * cols + static_cast<double>(g.pk) * cSlice * cols;
  if (verify) {
    const auto r = static_cast<std::int64_t>(cSlice);
    const auto n = static_cast<std::int64_t>(cols);
    words += 2.0 * cSlice * cols + 2.0 * static_cast<double>(verifyPanel(plan, r, n)) * (cSlice + cols);
  }
  return words;
}

double maxWordsHeld(const Plan& plan, bool verify) {
  double most = 0.0;
  for (int q = 0; q < plan.usedRanks(); ++q)
    most = std::max(most, wordsHeld(plan, q, verify));
  return most;
}

std::int64_t verifyPanel(const Plan& plan, std::int64_t rows, std::int64_t cols) {
  const std::int64_t perColumn = 2 * std::max<std::int64_t>(rows + cols, 1);
  return std::clamp<std::int64_t>(plan.memoryWords / perColumn, 1, std::max<std::int64_t>(plan.shape.k, 1));
}

std::int64_t smallestMemory(const Shape& shape, int ranks) {
  std::int64_t smallest = std::numeric_limits<std::int64_t>::max();
  for (int used = 1; used <= ranks; ++used) {
    for (int pm = 1; pm <= used; ++pm) {
      if (used % pm) continue;
      for (int pn = 1; pn <= used / pm; ++pn) {
        if ((used / pm) % pn) continue;
        const ProcessorGrid grid{pm, pn, used / (pm * pn)};
        if (!fitsMatrix(shape, grid)) continue;
        const std::int64_t a = split(shape.m, pm, 0).size();
        const std::int64_t b = split(shape.n, pn, 0).size();
        smallest = std::min(smallest, a * b + a + b);  // one column of k per round
      }
    }
  }
  return smallest;
}

double ioLowerBound(const Shape& shape, int ranks, std::optional<std::int64_t> memoryWords) {
  const double work = static_cast<double>(shape.m) * static_cast<double>(shape.n) *
                      static_cast<double>(shape.k) / ranks;
  const double threshold = std::pow(work, 2.0 / 3.0);
  if (memoryWords && static_cast<double>(*memoryWords) < threshold) {
    const double s = static_cast<double>(*memoryWords);
    return 2.0 * work / std::sqrt(s) + s;
  }
  return 3.0 * threshold;
}

}  // namespace tessera::gemm
