#pragma once
// Orders each level's patches along a space-filling curve through their layout
// positions and cuts the curve into one contiguous piece per rank, the pieces
// holding nearly equal numbers of cells (patches may differ in size). Every
// rank computes the same answer from the grid alone, without communicating.

#include "CCA/Components/LoadBalancers/SpaceFillingCurve.h"
#include "CCA/Ports/LoadBalancer.h"

#include <string>
#include <vector>

namespace tessera {

class SFCLoadBalancer : public LoadBalancer {
 public:
  explicit SFCLoadBalancer(Curve curve = Curve::Hilbert) : m_curve(curve) {}

  Curve curve() const { return m_curve; }
  // "sfc-hilbert" or "sfc-morton".
  std::string name() const override;
  // Each level is spread over all ranks on its own. With fewer patches than
  // ranks some ranks own no patch of that level.
  std::vector<int> assign(const Grid& grid, int numRanks) const override;
  // Each level's curve cut into contiguous pieces whose largest weight is
  // the least any such cut achieves (bisection on that bound).
  std::vector<int> assignWeighted(const Grid& grid, int numRanks,
                                  const std::vector<double>& weights) const override;

  // The ids of a level's patches in curve order.
  static std::vector<int> curveOrder(const Level& level, Curve curve);

 private:
  Curve m_curve;
};

}  // namespace tessera
