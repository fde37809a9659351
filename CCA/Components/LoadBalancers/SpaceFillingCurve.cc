#include "CCA/Components/LoadBalancers/SpaceFillingCurve.h"

#include "Core/Util/Error.h"

#include <array>

namespace tessera {

namespace {

// Out-of-range points are caller bugs (a wrong `bits`), not user input.
void checkPoint(const IntVector& p, int bits) {
  TESSERA_REQUIRE_THROWS(bits >= 0 && bits <= kMaxCurveBits,
                         "curve bits " << bits << " outside [0, " << kMaxCurveBits << "]");
  const std::int64_t extent = std::int64_t{1} << bits;
  for (int axis = 0; axis < 3; ++axis) {
    TESSERA_REQUIRE_THROWS(
        p[axis] >= 0 && p[axis] < extent,
        "point " << p << " lies outside the curve's cube [0, " << extent << ")^3");
  }
}

}  // namespace

Curve parseCurve(const std::string& name) {
  if (name == "hilbert") return Curve::Hilbert;
  if (name == "morton") return Curve::Morton;
  throw InputError("unknown space-filling curve '" + name + "' (choices: hilbert, morton)");
}

const char* curveName(Curve curve) {
  return curve == Curve::Hilbert ? "hilbert" : "morton";
}

int curveBits(int extent) {
  TESSERA_REQUIRE_THROWS(extent >= 1, "curve extent " << extent << " must be at least 1");
  int bits = 0;
  while ((std::int64_t{1} << bits) < extent)
    ++bits;
  TESSERA_REQUIRE_THROWS(bits <= kMaxCurveBits, "curve extent " << extent << " needs " << bits
                                                                << " bits per axis, more than "
                                                                << kMaxCurveBits);
  return bits;
}

std::uint64_t mortonIndex(const IntVector& p, int bits) {
  checkPoint(p, bits);
  std::uint64_t index = 0;
  for (int bit = 0; bit < bits; ++bit) {
    for (int axis = 0; axis < 3; ++axis) {
      const std::uint64_t b = (static_cast<std::uint64_t>(p[axis]) >> bit) & 1U;
      index |= b << (3 * bit + axis);
    }
  }
  return index;
}

std::uint64_t hilbertIndex(const IntVector& p, int bits) {
  checkPoint(p, bits);
  if (bits == 0) return 0;
  // J. Skilling, "Programming the Hilbert curve", AIP Conf. Proc. 707 (2004):
  // turn the axes into the "transposed" index in place, then interleave.
  std::array<std::uint32_t, 3> x{static_cast<std::uint32_t>(p.x), static_cast<std::uint32_t>(p.y),
                                 static_cast<std::uint32_t>(p.z)};
  const std::uint32_t top = std::uint32_t{1} << (bits - 1);
  // Undo the rotations and reflections the finer levels of the curve apply.
  for (std::uint32_t q = top; q > 1; q >>= 1) {
    const std::uint32_t lower = q - 1;
    for (int i = 0; i < 3; ++i) {
      if (x[i] & q) {
        x[0] ^= lower;  // reflect
      } else {
        const std::uint32_t swap = (x[0] ^ x[i]) & lower;  // exchange low bits of x[0], x[i]
        x[0] ^= swap;
        x[i] ^= swap;
      }
    }
  }
  // Gray encode.
  for (int i = 1; i < 3; ++i)
    x[i] ^= x[i - 1];
  std::uint32_t flip = 0;
  for (std::uint32_t q = top; q > 1; q >>= 1) {
    if (x[2] & q) flip ^= q - 1;
  }
  for (int i = 0; i < 3; ++i)
    x[i] ^= flip;
  // Interleave: the most significant bit of x[0], then of x[1], x[2], and down.
  std::uint64_t index = 0;
  for (int bit = bits - 1; bit >= 0; --bit) {
    for (int i = 0; i < 3; ++i)
      index = (index << 1) | ((x[i] >> bit) & 1U);
  }
  return index;
}

std::uint64_t curveIndex(Curve curve, const IntVector& p, int bits) {
  return curve == Curve::Hilbert ? hilbertIndex(p, bits) : mortonIndex(p, bits);
}

}  // namespace tessera
