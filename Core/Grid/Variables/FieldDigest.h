#pragma once
// An order-independent 64-bit digest of a field: the wrapping sum over cells
// of a mixed hash of (global cell index, value bits). Partial digests of any
// split of the cells add up to the same total, so it does not depend on the
// rank count or the patch layout, while any changed bit changes it.

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tessera {

// splitmix64's finaliser: a cheap bijective mixer.
constexpr std::uint64_t mix64(std::uint64_t v) {
  v += 0x9e3779b97f4a7c15ull;
  v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
  v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
  return v ^ (v >> 31);
}

template <class T>
std::uint64_t valueBits(const T& value) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8, "digest of a scalar");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

// Depends on nothing else in Tessera, so that programs outside the framework
// (the benchmark reference) can digest their fields the same way.
inline std::uint64_t cellDigest(int i, int j, int k, std::uint64_t bits) {
  auto component = [](int c) { return static_cast<std::uint64_t>(static_cast<std::uint32_t>(c)); };
  const std::uint64_t where = mix64(mix64(mix64(component(i)) ^ component(j)) ^ component(k));
  return mix64(where ^ mix64(bits));
}

}  // namespace tessera
