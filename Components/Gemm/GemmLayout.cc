#include "Components/Gemm/GemmLayout.h"

namespace tessera::gemm {

int GemmLayout::aBlock(int i, int l, int round, int s) const {
  const ProcessorGrid& g = m_plan.grid;
  return ((i * g.pk + l) * m_plan.rounds + round) * g.pn + s;
}

int GemmLayout::bBlock(int l, int round, int j, int s) const {
  const ProcessorGrid& g = m_plan.grid;
  return ((l * m_plan.rounds + round) * g.pn + j) * g.pm + s;
}

int GemmLayout::cBlock(int i, int j, int s) const {
  const ProcessorGrid& g = m_plan.grid;
  return (i * g.pn + j) * g.pk + s;
}

namespace {
BlockExtent extentOf(const Range& rows, const Range& cols) {
  return {rows.begin, cols.begin, rows.size(), cols.size()};
}
}  // namespace

BlockLayout GemmLayout::layoutA() const {
  const ProcessorGrid& g = m_plan.grid;
  BlockLayout layout;
  for (int i = 0; i < g.pm; ++i)
    for (int l = 0; l < g.pk; ++l)
      for (int r = 0; r < m_plan.rounds; ++r)
        for (int s = 0; s < g.pn; ++s)
          layout.add(extentOf(split(m_plan.rows(i), g.pn, s), m_plan.inner(l, r)),
                     {m_plan.rankOf({i, s, l})});
  return layout;
}

BlockLayout GemmLayout::layoutB() const {
  const ProcessorGrid& g = m_plan.grid;
  BlockLayout layout;
  for (int l = 0; l < g.pk; ++l)
    for (int r = 0; r < m_plan.rounds; ++r)
      for (int j = 0; j < g.pn; ++j)
        for (int s = 0; s < g.pm; ++s)
          layout.add(extentOf(split(m_plan.inner(l, r), g.pm, s), m_plan.cols(j)),
                     {m_plan.rankOf({s, j, l})});
  return layout;
}

BlockLayout GemmLayout::layoutC() const {
  const ProcessorGrid& g = m_plan.grid;
  BlockLayout layout;
  for (int i = 0; i < g.pm; ++i)
    for (int j = 0; j < g.pn; ++j)
      for (int s = 0; s < g.pk; ++s)
        layout.add(extentOf(split(m_plan.rows(i), g.pk, s), m_plan.cols(j)),
                   {m_plan.rankOf({i, j, s})});
  return layout;
}

BlockLayout GemmLayout::layoutPartial() const {
  BlockLayout layout;
  for (int q = 0; q < m_plan.usedRanks(); ++q) {
    const GridCell c = m_plan.cell(q);
    layout.add(extentOf(m_plan.rows(c.i), m_plan.cols(c.j)), {q});
  }
  return layout;
}

int GemmLayout::aSliceOf(int q, int product) const {
  return (m_plan.cell(q).j + product / m_plan.grid.pm) % m_plan.grid.pn;
}

int GemmLayout::bSliceOf(int q, int product) const {
  return (m_plan.cell(q).i + product % m_plan.grid.pm) % m_plan.grid.pm;
}

int GemmLayout::aBlockOf(int q, int round, int product) const {
  const GridCell c = m_plan.cell(q);
  return aBlock(c.i, c.l, round, aSliceOf(q, product));
}

int GemmLayout::bBlockOf(int q, int round, int product) const {
  const GridCell c = m_plan.cell(q);
  return bBlock(c.l, round, c.j, bSliceOf(q, product));
}

std::vector<BlockRef> GemmLayout::aRound(int q, int round) const {
  const GridCell c = m_plan.cell(q);
  std::vector<BlockRef> refs;
  for (int s = 0; s < m_plan.grid.pn; ++s)
    refs.emplace_back(aBlock(c.i, c.l, round, s));
  return refs;
}

std::vector<BlockRef> GemmLayout::bRound(int q, int round) const {
  const GridCell c = m_plan.cell(q);
  std::vector<BlockRef> refs;
  for (int s = 0; s < m_plan.grid.pm; ++s)
    refs.emplace_back(bBlock(c.l, round, c.j, s));
  return refs;
}

std::vector<BlockRef> GemmLayout::partialSlices(int q) const {
  const GridCell c = m_plan.cell(q);
  const Range rows = m_plan.rows(c.i);
  const Range slice = split(Range{0, rows.size()}, m_plan.grid.pk, c.l);
  std::vector<BlockRef> refs;
  for (int l = 0; l < m_plan.grid.pk; ++l)
    refs.emplace_back(m_plan.rankOf({c.i, c.j, l}), slice.begin, slice.end);
  return refs;
}

int GemmLayout::ownC(int q) const {
  const GridCell c = m_plan.cell(q);
  return cBlock(c.i, c.j, c.l);
}

std::vector<BlockRef> GemmLayout::ownA(int q) const {
  const GridCell c = m_plan.cell(q);
  std::vector<BlockRef> refs;
  for (int r = 0; r < m_plan.rounds; ++r)
    refs.emplace_back(aBlock(c.i, c.l, r, c.j));
  return refs;
}

std::vector<BlockRef> GemmLayout::ownB(int q) const {
  const GridCell c = m_plan.cell(q);
  std::vector<BlockRef> refs;
  for (int r = 0; r < m_plan.rounds; ++r)
    refs.emplace_back(bBlock(c.l, r, c.j, c.i));
  return refs;
}

}  // namespace tessera::gemm
