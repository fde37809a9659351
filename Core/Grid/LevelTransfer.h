#pragma once
// How a cell variable moves between levels, named once per variable (as
// Parthenon's field metadata and AMReX's FillPatch interpolaters are): how
// coarse values are refined onto fine cells (ghost cells at a coarse-fine
// boundary, new fine cells), and how fine values are coarsened onto the
// coarse cells they cover. The operators are in
// Core/Grid/Variables/LevelOperators.h; docs/amr.md states them and their order.

namespace tessera {

enum class RefineOp { Constant, Linear, LimitedLinear };
enum class CoarsenOp { Average };

struct LevelTransfer {
  RefineOp refine = RefineOp::LimitedLinear;
  CoarsenOp coarsen = CoarsenOp::Average;

  bool operator==(const LevelTransfer& o) const {
    return refine == o.refine && coarsen == o.coarsen;
  }
  bool operator!=(const LevelTransfer& o) const { return !(*this == o); }
};

inline const char* refineOpName(RefineOp op) {
  switch (op) {
    case RefineOp::Constant:
      return "constant";
    case RefineOp::Linear:
      return "linear";
    case RefineOp::LimitedLinear:
      return "limited_linear";
  }
  return "?";
}
inline const char* coarsenOpName(CoarsenOp) { return "average"; }

}  // namespace tessera
