#pragma once
// Streaming (non-temporal) stores on the host: copies a row of values to
// memory without first reading each destination cache line (the
// write-allocate an ordinary store makes) and without keeping the lines in
// cache. For arrays written whole and not read again soon, that is a third
// less traffic for an update out = f(in): 16 B per value instead of 24.
//
// GCC has no portable way to ask for them in a vectorised loop (it accepts
// `omp simd nontemporal(...)` and emits ordinary stores), so the stencil
// loops compute a row into a small buffer in L1 and copy it out here with
// the x86 intrinsics. Elsewhere (other CPUs, device code) the copy is
// ordinary: the same values, only the traffic differs.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#if defined(__x86_64__) && defined(__SSE2__) && !defined(__CUDA_ARCH__) && \
    !defined(__HIP_DEVICE_COMPILE__)
#include <immintrin.h>
#define TESSERA_HAS_STREAMING_STORES 1
#else
#define TESSERA_HAS_STREAMING_STORES 0
#endif

namespace tessera {

// Whether streamCopy streams (otherwise it is an ordinary copy).
inline constexpr bool kStreamingStoresAvailable = TESSERA_HAS_STREAMING_STORES != 0;

// to[0, n) = from[0, n). The cache lines of `to` that the copy covers
// whole are streamed; the partial lines at its ends are ordinary stores
// (a streamed partial line would still be read, and a row's neighbour
// shares them).
template <class T>
inline void streamCopy(T* to, const T* from, int n) {
#if TESSERA_HAS_STREAMING_STORES
  if constexpr (std::is_same_v<T, double>) {
#if defined(__AVX512F__)
    constexpr int kLanes = 8;
#elif defined(__AVX__)
    constexpr int kLanes = 4;
#else
    constexpr int kLanes = 2;
#endif
    constexpr std::uintptr_t kLine = 64;
    int i = 0;
    while (i < n && reinterpret_cast<std::uintptr_t>(to + i) % kLine != 0) {
      to[i] = from[i];
      ++i;
    }
    // Whole lines only: kLine / sizeof(double) values per line.
    const int lines = (n - i) / static_cast<int>(kLine / sizeof(double));
    const int end = i + lines * static_cast<int>(kLine / sizeof(double));
    for (; i < end; i += kLanes) {
#if defined(__AVX512F__)
      _mm512_stream_pd(to + i, _mm512_loadu_pd(from + i));
#elif defined(__AVX__)
      _mm256_stream_pd(to + i, _mm256_loadu_pd(from + i));
#else
      _mm_stream_pd(to + i, _mm_loadu_pd(from + i));
#endif
    }
    for (; i < n; ++i)
      to[i] = from[i];
    return;
  }
#endif
  for (int i = 0; i < n; ++i)
    to[i] = from[i];
}

// to[i] = value(i) for i in [0, n), computed a chunk at a time into a
// buffer in L1 (where the loop vectorises) and streamed out with streamCopy.
template <class T, class Value>
inline void streamRow(T* to, int n, const Value& value) {
  constexpr int kChunk = 512;  // 4 KiB of doubles
  alignas(64) T buffer[kChunk];
  for (int x0 = 0; x0 < n; x0 += kChunk) {
    const int m = n - x0 < kChunk ? n - x0 : kChunk;
    for (int i = 0; i < m; ++i)
      buffer[i] = value(x0 + i);
    streamCopy(to + x0, buffer, m);
  }
}

// Orders this thread's streaming stores before its later stores: called
// once a thread has finished its share of a loop, before another thread or
// task may read what it wrote (streaming stores are weakly ordered).
inline void streamFence() {
#if TESSERA_HAS_STREAMING_STORES
  _mm_sfence();
#endif
}

}  // namespace tessera
