#include "Core/Grid/Ghost.h"

namespace tessera {

const char* ghostTypeName(Ghost::Type type) {
  switch (type) {
    case Ghost::None:
      return "Ghost::None";
    case Ghost::AroundCells:
      return "Ghost::AroundCells";
    case Ghost::AroundFaces:
      return "Ghost::AroundFaces";
  }
  return "Ghost::?";
}

}  // namespace tessera
