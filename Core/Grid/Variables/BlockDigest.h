#pragma once
// The digest of a block variable's values: FieldDigest's wrapping sum over
// entries of a hash of (global row, global column, value bits), so that it
// does not depend on how the array is cut into blocks or over which ranks.
// sus prints it at the end of a run; the archive stores it per dataset.

#include "Core/Grid/Variables/BlockVariable.h"
#include "Core/Grid/Variables/FieldDigest.h"

#include <cstdint>
#include <cstring>

namespace tessera {

// Values of up to 8 bytes (every type a block variable is archived with).
inline std::uint64_t blockDigest(const BlockData& data) {
  const BlockExtent& e = data.extent();
  const std::size_t bytes = data.elementBytes();
  const std::byte* at = data.data();
  std::uint64_t digest = 0;
  for (std::int64_t i = 0; i < e.rows; ++i)
    for (std::int64_t j = 0; j < e.cols; ++j, at += bytes) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, at, bytes < sizeof(bits) ? bytes : sizeof(bits));
      digest += cellDigest(static_cast<int>(e.row0 + i), static_cast<int>(e.col0 + j), 0, bits);
    }
  return digest;
}

}  // namespace tessera
