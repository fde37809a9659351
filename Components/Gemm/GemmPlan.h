#pragma once
// The GEMM planner: which processor grid [pm, pn, pk] multiplies
// C = alpha A B + beta C (A m x k, B k x n) with the least communication,
// following COSMA (Kwasniewski et al., SC'19). Deterministic and free of
// communication: every rank plans alike. See docs/gemm.md.
//
// Rank q = i + pm (j + pn l) works on the cell (i, j, l) of the grid: rows
// M_i of A and C, columns N_j of B and C, the slice K_l of the inner
// dimension, cut into `rounds` sequential pieces when memory is limited.
// In the blocked layout each rank starts with 1/pn of A_il, 1/pm of B_lj
// and 1/pk of C_ij, so it receives (m/pm)(k/pk)(1 - 1/pn) words of A,
// (k/pk)(n/pn)(1 - 1/pm) of B and, reducing C along l,
// (m/pm)(n/pn)(1 - 1/pk) of partial C (exactly, for any split: see words()).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera::gemm {

struct Range {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t size() const { return end - begin; }
};

// Part `i` of [range.begin, range.end) cut into `parts` near-equal pieces
// (the first ones one longer when it does not divide).
Range split(Range range, int parts, int i);
inline Range split(std::int64_t n, int parts, int i) {
  return split(Range{0, n}, parts, i);
}

struct Shape {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
};

struct ProcessorGrid {
  int pm = 1;
  int pn = 1;
  int pk = 1;
  // In 64 bits: an explicit grid from a deck may hold more cells than an
  // int counts (2048^3), and must be refused, not wrapped.
  std::int64_t size() const { return std::int64_t{pm} * pn * pk; }
  friend bool operator==(const ProcessorGrid& a, const ProcessorGrid& b) {
    return a.pm == b.pm && a.pn == b.pn && a.pk == b.pk;
  }
};

struct GridCell {
  int i = 0;
  int j = 0;
  int l = 0;
};

struct Plan {
  Shape shape;
  ProcessorGrid grid;
  int ranks = 1;                            // p: the ranks of the run (grid.size() of them work)
  int rounds = 1;                           // t: sequential pieces of each K_l
  std::vector<std::int64_t> wordsReceived;  // per working rank, per multiplication
  std::int64_t memoryWords = 0;             // the model's resident words on the fullest rank
  double flopsPerRank = 0.0;                // on the busiest rank

  int usedRanks() const { return static_cast<int>(grid.size()); }  // <= ranks
  std::int64_t maxWordsReceived() const;
  GridCell cell(int rank) const;
  int rankOf(const GridCell& cell) const;
  Range rows(int i) const { return split(shape.m, grid.pm, i); }
  Range cols(int j) const { return split(shape.n, grid.pn, j); }
  Range inner(int l) const { return split(shape.k, grid.pk, l); }
  Range inner(int l, int round) const { return split(inner(l), rounds, round); }
};

enum class Strategy { Cosma, TwoD, Explicit };

struct Request {
  Shape shape;
  int ranks = 1;
  std::optional<std::int64_t> memoryWords;  // S per rank; none: unlimited
  Strategy strategy = Strategy::Cosma;
  ProcessorGrid grid;               // Strategy::Explicit
  std::optional<int> maxIdleRanks;  // none: as many as pay off
  // How many flops take as long as receiving one word: weighs the work
  // per rank against the words when choosing how many ranks to use.
  double flopsPerWord = 512.0;
};

// The plan of `grid`, or nullopt when it does not fit the memory limit.
std::optional<Plan> evaluate(const Shape& shape, const ProcessorGrid& grid, int ranks,
                             std::optional<std::int64_t> memoryWords);
// The best plan for the request (see docs/gemm.md for the order of
// preference); throws Error (a sentence naming the cause) when none fits.
Plan plan(const Request& request);
// The words rank `rank` holds at the most while the plan runs: its own
// slices of A, B and C (C twice: the old and the new warehouse's), the
// slices it receives (two rounds' worth when rounds double-buffer), the
// partial product and the slices reduced onto it, and with `verify` what
// the check at the end holds (see verifyPanel). An upper bound of what the
// runtime allocates, in double so that no product of sizes wraps.
double wordsHeld(const Plan& plan, int rank, bool verify);
// The largest of wordsHeld over the ranks.
double maxWordsHeld(const Plan& plan, bool verify);
// The columns of A (rows of B) the check multiplies at once for a C block
// of rows x cols: its panels of A and B (and their absolute values) stay
// within the plan's memory, whatever k is.
std::int64_t verifyPanel(const Plan& plan, std::int64_t rows, std::int64_t cols);

// The smallest memory limit for which some grid on at most `ranks` ranks fits.
std::int64_t smallestMemory(const Shape& shape, int ranks);
// The I/O lower bound of COSMA's Theorem 2 for one rank, in words.
double ioLowerBound(const Shape& shape, int ranks, std::optional<std::int64_t> memoryWords);
std::string describe(const ProcessorGrid& grid);

}  // namespace tessera::gemm
