#pragma once
// Space-filling curves over a cube of integer points, used to order patches so
// that patches close along the curve are close in space: cutting the curve
// into contiguous pieces then gives each rank a compact set of patches and
// keeps most ghost exchanges on-rank.

#include "Core/Grid/IntVector.h"

#include <cstdint>
#include <string>

namespace tessera {

enum class Curve { Hilbert, Morton };

// "hilbert" or "morton"; anything else is an InputError naming the choices.
Curve parseCurve(const std::string& name);
const char* curveName(Curve curve);

// The most bits per axis an index can use: 3 * 21 bits fit a 64-bit index.
constexpr int kMaxCurveBits = 21;

// The fewest bits per axis whose cube [0, 2^bits)^3 covers [0, extent)^3.
int curveBits(int extent);

// Position of p along the Z-order (Morton) curve over [0, 2^bits)^3: bit i of
// x, y, z becomes bit 3i, 3i+1, 3i+2 of the index.
std::uint64_t mortonIndex(const IntVector& p, int bits);

// Position of p along the 3D Hilbert curve over [0, 2^bits)^3 (Skilling's
// transpose algorithm). Unlike Morton, consecutive indices are always
// face-adjacent points, so every contiguous piece of the curve is compact.
std::uint64_t hilbertIndex(const IntVector& p, int bits);

std::uint64_t curveIndex(Curve curve, const IntVector& p, int bits);

}  // namespace tessera
