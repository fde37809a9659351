#pragma once
// A stencil sweep that also changes its input in place, cell by cell (the
// PRK's `out += star(in)`, then `in += 1`): each row of the input is updated
// as soon as the last row of the stencil that reads it is done, while it is
// still in the cache. One pass streams the input once (read, and written
// back where it was read) instead of twice, and needs no planes aside: an
// update that reads only its own cell has no neighbours to wait for.

#include "Core/Grid/Box.h"
#include "Core/Parallel/LoopHelpers.h"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

namespace tessera {

// body(j, k) computes x row (j, k) of `box`, reading rows up to `reach`
// away in y and in z of an input (and rows of its own outputs);
// update(j, k) then changes row (j, k) of the input, reading nothing of any
// other row. Every row gets body once and update once, each update after
// every body that reads the row; bodies run in any order, each seeing the
// input as it was (the same bits as two passes).
//
// On the host the rows are swept along z (along y for a box one plane
// deep): each thread takes a slab of planes, and updates plane k - reach
// once plane k, its last reader in the slab, is done. The reach planes at
// either side between two slabs are read by both: they are updated after
// every slab is done. In strips of `stripRows` rows (cache blocking; 0:
// whole planes) the last reach rows of a strip are read by the next one,
// which updates them. `slabs` 0 takes one per thread (the tests ask for
// more). A device space runs the bodies, then the updates.
template <class ExecSpace, class Body, class Update>
void laggedUpdateSweep(const std::string& label, const ExecSpace& space, const Box& box, int reach,
                       int stripRows, const Body& body, const Update& update, int slabs = 0) {
  if (box.empty()) return;
  if constexpr (runsOnHost<ExecSpace>) {
    // The swept axis ("planes", o) and the other one (s), whose rows the
    // strips divide.
    const bool alongZ = box.size().z > 1;
    const int sweptAxis = alongZ ? 2 : 1, stripAxis = alongZ ? 1 : 2;
    const int oLo = box.lo()[sweptAxis], oHi = box.hi()[sweptAxis];
    const int sLo = box.lo()[stripAxis], sHi = box.hi()[stripAxis];
    const int planes = oHi - oLo, rows = sHi - sLo;
    if (slabs <= 0) slabs = static_cast<int>(space.concurrency());
    slabs = std::max(1, std::min(slabs, planes / (2 * reach + 1)));
    if (stripRows <= 0 || stripRows >= rows) stripRows = rows;
    const int strips = (rows + stripRows - 1) / stripRows;
    stripRows = (rows + strips - 1) / strips;  // even strips
    const auto slabStart = [=](int s) {
      return oLo + static_cast<int>(static_cast<std::int64_t>(planes) * s / slabs);
    };
    // Planes [first, last) of a slab have all their readers in it.
    const auto ownFirst = [=](int s) { return s > 0 ? slabStart(s) + reach : slabStart(s); };
    const auto ownLast = [=](int s) {
      return s < slabs - 1 ? slabStart(s + 1) - reach : slabStart(s + 1);
    };
    const auto row = [=](auto& call, int o, int q) {
      if (alongZ) {
        call(q, o);
      } else {
        call(o, q);
      }
    };
    using Slabs = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>;
    Kokkos::parallel_for(
        label, Slabs(space, 0, slabs), KOKKOS_LAMBDA(int s) {
          const Body rowBody = body;  // local copies: the captures stay in registers
          const Update rowUpdate = update;
          const int o0 = slabStart(s), o1 = slabStart(s + 1);
          const int first = ownFirst(s), last = ownLast(s);
          for (int t = 0; t < strips; ++t) {
            const int a = sLo + t * stripRows;
            const int b = std::min(sHi, a + stripRows);
            // This strip's rows to update: its own but the last reach (read
            // by the next strip), and the strip before's last reach.
            const int ua = t == 0 ? sLo : std::max(sLo, a - reach);
            const int ub = t == strips - 1 ? b : std::max(sLo, b - reach);
            const auto updateRows = [&](int done) {
              for (int q = ua; q < ub; ++q)
                row(rowUpdate, done, q);
            };
            for (int o = o0; o < o1; ++o) {
              for (int q = a; q < b; ++q)
                row(rowBody, o, q);
              const int done = o - reach;  // plane o was the last to read it
              if (done >= first && done < last) updateRows(done);
            }
            for (int done = std::max(first, o1 - reach); done < last; ++done)
              updateRows(done);
          }
        });
    if (slabs == 1) return;
    Kokkos::parallel_for(
        label, Slabs(space, 0, slabs), KOKKOS_LAMBDA(int s) {
          const Update rowUpdate = update;
          const int o0 = slabStart(s), o1 = slabStart(s + 1);
          const int first = ownFirst(s), last = ownLast(s);
          for (int o = o0; o < o1; ++o)
            if (o < first || o >= last)
              for (int q = sLo; q < sHi; ++q)
                row(rowUpdate, o, q);
        });
  } else {
    using Rows = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>, Kokkos::IndexType<int>>;
    const Rows rows(space, {box.lo().y, box.lo().z}, {box.hi().y, box.hi().z});
    Kokkos::parallel_for(label, rows, body);
    Kokkos::parallel_for(label, rows, update);
  }
}

}  // namespace tessera
