#pragma once
// An exact sum of doubles: a fixed-point superaccumulator (after Kulisch, and
// Neal's "fast exact summation using small and large superaccumulators").
//
// Every double is an integer multiple of 2^-1074, so a sum of doubles is an
// integer in those units: ExactSum keeps it as 68 limbs of 32 bits (held in
// 64-bit words, so that carries can wait) spanning 2^-1088 .. 2^1088. Adding
// is exact and therefore associative: the result does not depend on the
// order of the terms, on how they were split between threads, patches or
// ranks, or on the thread count. value() rounds the exact sum once, to the
// nearest double. Infinities and NaNs are counted and reported as IEEE sums
// would (any NaN, or +inf with -inf, gives NaN).
//
// Cost: an add is a few integer operations on 3 limbs (against one add for
// a double), and the value is 552 bytes; a reduction carries one per thread
// and one per patch. docs/runtime.md ("Reproducible sums") has the figures.
//
//   ExactSum total;
//   exec.parallelReduce(box, KOKKOS_LAMBDA(int i, int j, int k, ExactSum& s) { s.add(f(i, j, k)); },
//                       Kokkos::Sum<ExactSum>(total));

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tessera {

class ExactSum {
 public:
  static constexpr int kLimbBits = 32;
  static constexpr int kLowestBit = -1088;  // a multiple of 32 below 2^-1074
  static constexpr int kLimbs = 68;         // up to 2^1088: 2^64 terms of the largest double
  // Limbs hold at most 2^32 in magnitude per term added: after 2^30 terms
  // (far from the 2^63 an int64 holds) the carries are propagated.
  static constexpr std::int64_t kTermsBeforeCarry = std::int64_t{1} << 30;

  KOKKOS_INLINE_FUNCTION ExactSum() {
    for (int i = 0; i < kLimbs; ++i)
      m_limb[i] = 0;
  }
  KOKKOS_INLINE_FUNCTION explicit ExactSum(double x) : ExactSum() { add(x); }

  KOKKOS_INLINE_FUNCTION void add(double x) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &x, sizeof(bits));
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);
    std::uint64_t mantissa = bits & ((std::uint64_t{1} << 52) - 1);
    const bool negative = (bits >> 63) != 0;
    if (biased == 0x7ff) {
      if (mantissa != 0) {
        ++m_nans;
      } else if (negative) {
        ++m_negativeInfinities;
      } else {
        ++m_positiveInfinities;
      }
      return;
    }
    int exponent = -1074;  // of the mantissa's lowest bit
    if (biased == 0) {
      if (mantissa == 0) return;  // a zero adds nothing
    } else {
      mantissa |= std::uint64_t{1} << 52;
      exponent = biased - 1075;
    }
    const int offset = exponent - kLowestBit;
    const int limb = offset / kLimbBits;
    const int shift = offset % kLimbBits;
    // mantissa << shift spans up to 85 bits: three limbs.
    const std::uint64_t low = (mantissa << shift) & 0xffffffffu;
    const std::uint64_t rest = mantissa >> (kLimbBits - shift);
    const std::int64_t pieces[3] = {static_cast<std::int64_t>(low),
                                    static_cast<std::int64_t>(rest & 0xffffffffu),
                                    static_cast<std::int64_t>(rest >> 32)};
    for (int p = 0; p < 3; ++p)
      m_limb[limb + p] += negative ? -pieces[p] : pieces[p];
    if (++m_terms >= kTermsBeforeCarry) carry();
  }

  KOKKOS_INLINE_FUNCTION ExactSum& operator+=(const ExactSum& other) {
    if (m_terms + other.m_terms >= kTermsBeforeCarry) carry();
    for (int i = 0; i < kLimbs; ++i)
      m_limb[i] += other.m_limb[i];
    m_terms += other.m_terms;
    m_nans += other.m_nans;
    m_positiveInfinities += other.m_positiveInfinities;
    m_negativeInfinities += other.m_negativeInfinities;
    if (m_terms >= kTermsBeforeCarry) carry();
    return *this;
  }
  // Kokkos 3.4 joins reduction values through volatile references.
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile ExactSum& other) volatile {
    for (int i = 0; i < kLimbs; ++i)
      m_limb[i] = m_limb[i] + other.m_limb[i];
    m_terms = m_terms + other.m_terms;
    m_nans = m_nans + other.m_nans;
    m_positiveInfinities = m_positiveInfinities + other.m_positiveInfinities;
    m_negativeInfinities = m_negativeInfinities + other.m_negativeInfinities;
    if (m_terms >= kTermsBeforeCarry) {
      for (int i = 0; i + 1 < kLimbs; ++i) {
        const std::int64_t up = m_limb[i] >> kLimbBits;
        m_limb[i] = m_limb[i] - up * (std::int64_t{1} << kLimbBits);
        m_limb[i + 1] = m_limb[i + 1] + up;
      }
      m_terms = 1;
    }
  }
  // The exact sum rounded to the nearest double (ties to even); +-inf past
  // the largest double.
  double value() const {
    ExactSum c = *this;
    c.carry();
    if (c.m_nans > 0 || (c.m_positiveInfinities > 0 && c.m_negativeInfinities > 0))
      return std::numeric_limits<double>::quiet_NaN();
    if (c.m_positiveInfinities > 0) return std::numeric_limits<double>::infinity();
    if (c.m_negativeInfinities > 0) return -std::numeric_limits<double>::infinity();
    const bool negative = c.m_limb[kLimbs - 1] < 0;
    if (negative) {
      for (int i = 0; i < kLimbs; ++i)
        c.m_limb[i] = -c.m_limb[i];
      c.carry();
    }
    int top = kLimbs - 1;
    while (top >= 0 && c.m_limb[top] == 0)
      --top;
    if (top < 0) return 0.0;
    // Limbs are now in [0, 2^32); the top one may be larger only past 2^1056.
    const double sign = negative ? -1.0 : 1.0;
    if (kLowestBit + kLimbBits * top >= 1024 || c.m_limb[top] >= (std::int64_t{1} << kLimbBits))
      return sign * std::numeric_limits<double>::infinity();
    // The top three limbs, cut to 64 bits, with every lower bit folded into
    // a sticky bit: converting that to double rounds correctly.
    const auto limbAt = [&](int i) {
      return i >= 0 ? static_cast<std::uint64_t>(c.m_limb[i]) : std::uint64_t{0};
    };
    const std::uint64_t high = limbAt(top);
    const std::uint64_t middle = limbAt(top - 1);
    const std::uint64_t low = limbAt(top - 2);
    bool sticky = false;
    for (int i = 0; i < top - 2; ++i)
      sticky = sticky || c.m_limb[i] != 0;
    int length = 0;  // bits of the top limb, 1 .. 32
    for (std::uint64_t v = high; v != 0; v >>= 1)
      ++length;
    // (high, middle, low) shifted right by `length`: exactly 64 bits.
    sticky = sticky || (low & ((std::uint64_t{1} << length) - 1)) != 0;
    const std::uint64_t bits64 = (high << (64 - length)) | (middle << (kLimbBits - length)) |
                                 (low >> length) | (sticky ? 1u : 0u);
    const int lowestBit = kLowestBit + kLimbBits * (top - 2) + length;
    return sign * std::ldexp(static_cast<double>(bits64), lowestBit);
  }

  // Carries propagated: every limb but the top in [0, 2^32). Two sums of the
  // same number are then the same bits.
  KOKKOS_INLINE_FUNCTION void carry() {
    for (int i = 0; i + 1 < kLimbs; ++i) {
      const std::int64_t up = m_limb[i] >> kLimbBits;  // floor division by 2^32
      m_limb[i] -= up * (std::int64_t{1} << kLimbBits);
      m_limb[i + 1] += up;
    }
    m_terms = 1;
  }

  // Equal exact values (after carry() on both; the term count aside).
  bool sameValue(const ExactSum& other) const {
    ExactSum a = *this;
    ExactSum b = other;
    a.carry();
    b.carry();
    return std::memcmp(a.m_limb, b.m_limb, sizeof(m_limb)) == 0 && a.m_nans == b.m_nans &&
           a.m_positiveInfinities == b.m_positiveInfinities &&
           a.m_negativeInfinities == b.m_negativeInfinities;
  }

 private:
  std::int64_t m_limb[kLimbs];
  std::int64_t m_terms = 0;  // added since the last carry()
  std::int64_t m_nans = 0;
  std::int64_t m_positiveInfinities = 0;
  std::int64_t m_negativeInfinities = 0;
};

}  // namespace tessera

namespace Kokkos {
template <>
struct reduction_identity<tessera::ExactSum> {
  KOKKOS_FORCEINLINE_FUNCTION static tessera::ExactSum sum() { return tessera::ExactSum(); }
};
}  // namespace Kokkos
