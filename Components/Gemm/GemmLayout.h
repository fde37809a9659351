#pragma once
// The blocked layout of a GEMM plan: the blocks of A, B, C and the partial
// products, their ids, shapes and holders, and which blocks each cell
// (i, j, l) of the processor grid reads and writes. Pure arithmetic on the
// plan, shared by the component and its tests.
//
//   A  (i, l, r, s): rows slice s of M_i (cut in pn), columns K_lr; on (i, s, l)
//   B  (l, r, j, s): rows slice s of K_lr (cut in pm), columns N_j; on (s, j, l)
//   C  (i, j, s):    rows slice s of M_i (cut in pk), columns N_j; on (i, j, s)
//   P  (q):          M_i x N_j, rank q's partial product (the sum over its K_l)
// Rank (i, j, l) gathers A_{i,lr} from the pn ranks (i, *, l) and B_{lr,j}
// from the pm ranks (*, j, l) in each round r, and owns slice l of C_ij,
// the sum of slice l of the pk partial products P(i, j, *).

#include "Components/Gemm/GemmPlan.h"
#include "Core/Grid/BlockLayout.h"

#include <utility>
#include <vector>

namespace tessera::gemm {

class GemmLayout {
 public:
  explicit GemmLayout(Plan plan) : m_plan(std::move(plan)) {}

  const Plan& plan() const { return m_plan; }
  int aBlock(int i, int l, int round, int s) const;
  int bBlock(int l, int round, int j, int s) const;
  int cBlock(int i, int j, int s) const;

  BlockLayout layoutA() const;
  BlockLayout layoutB() const;
  BlockLayout layoutC() const;
  BlockLayout layoutPartial() const;

  // What the cell of working rank q reads and writes.
  // A round's products pair each of the pn slices of A_{i,lr} with each of
  // the pm slices of B_{lr,j}; product d (of pn pm) uses A slice
  // (j + d / pm) mod pn and B slice (i + d mod pm) mod pm, so product 0
  // uses the two slices rank q holds and can start before anything arrives.
  int numProducts() const { return m_plan.grid.pn * m_plan.grid.pm; }
  int aSliceOf(int q, int product) const;
  int bSliceOf(int q, int product) const;
  // The A and B blocks product `product` of `round` reads on rank q.
  int aBlockOf(int q, int round, int product) const;
  int bBlockOf(int q, int round, int product) const;
  std::vector<BlockRef> aRound(int q, int round) const;  // the pn slices of A_{i,lr}
  std::vector<BlockRef> bRound(int q, int round) const;  // the pm slices of B_{lr,j}
  std::vector<BlockRef> partialSlices(int q) const;      // slice l of P(i, j, l') for every l'
  int ownC(int q) const;                                 // C(i, j, l)
  std::vector<BlockRef> ownA(int q) const;               // A(i, l, r, j) for every round
  std::vector<BlockRef> ownB(int q) const;               // B(l, r, j, i) for every round

 private:
  Plan m_plan;
};

}  // namespace tessera::gemm
