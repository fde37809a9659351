#pragma once
// How a cell variable moves between levels, named once per variable (as
// Parthenon's field metadata and AMReX's FillPatch interpolaters are): how
// coarse values are refined onto fine cells (ghost cells at a coarse-fine
// boundary, new fine cells), and how fine values are coarsened onto the
// coarse cells they cover. The operators are in
// Core/Grid/Variables/LevelOperators.h; docs/amr.md states them and their order.

namespace tessera {

enum class RefineOp { Constant, Linear, LimitedLinear };
// Average: the mean of a coarse cell's fine cells. The face operators are
// for fluxes (refluxing, docs/amr.md): a variable holding at each cell the
// flux through its low (or high) face along an axis coarsens to the mean of
// the fine cells whose low (high) face lies on the coarse cell's, and only
// the coarse cells along that face of each finer patch are made (where a
// coarser cell beside the finer level reads them).
enum class CoarsenOp { Average, LowFaceX, LowFaceY, LowFaceZ, HighFaceX, HighFaceY, HighFaceZ };

inline bool isFaceOp(CoarsenOp op) {
  return op != CoarsenOp::Average;
}
// The axis of a face operator (0, 1, 2), and whether it takes high faces.
inline int faceAxis(CoarsenOp op) {
  return (static_cast<int>(op) - 1) % 3;
}
inline bool highFace(CoarsenOp op) {
  return static_cast<int>(op) >= 4;
}
inline CoarsenOp faceOp(int axis, bool high) {
  return static_cast<CoarsenOp>(1 + axis + (high ? 3 : 0));
}

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
inline const char* coarsenOpName(CoarsenOp op) {
  switch (op) {
    case CoarsenOp::Average:
      return "average";
    case CoarsenOp::LowFaceX:
      return "low x face";
    case CoarsenOp::LowFaceY:
      return "low y face";
    case CoarsenOp::LowFaceZ:
      return "low z face";
    case CoarsenOp::HighFaceX:
      return "high x face";
    case CoarsenOp::HighFaceY:
      return "high y face";
    case CoarsenOp::HighFaceZ:
      return "high z face";
  }
  return "?";
}

}  // namespace tessera
