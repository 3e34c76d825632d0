/*
 * npu_stream.h - private to the kernels: a copy of contiguous bytes with
 * non-temporal ("streaming") stores, for outputs too large for the cache.
 * Not part of the API.
 *
 * A store that misses the cache first reads the line it writes (a "read
 * for ownership"), so a copy far larger than the last-level cache moves
 * three bytes for every two; streaming stores write whole lines straight
 * to memory. glibc's memcpy decides this per call (by its size against a
 * threshold near the cache size), which never fires for the 16-64 KiB
 * pieces a parallel or row-by-row copy hands it: the caller decides here,
 * from the size of the whole operation. The stores are weakly ordered:
 * npu_stream_fence() must run before another thread is told the bytes are
 * written.
 */
#ifndef NPU_STREAM_H
#define NPU_STREAM_H

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Runs shorter than this are copied with memcpy (the aligning head and the
   tail would dominate). */
#define NPU_STREAM_MIN 256

/* dst[0, n) = src[0, n); the ranges do not overlap. */
static inline void npu_stream_copy(void *dst, const void *src, size_t n)
{
    char *d = (char *)dst;
    const char *s = (const char *)src;
#if defined(__SSE2__)
    if (n >= NPU_STREAM_MIN) {
        const size_t head = (size_t)(-(uintptr_t)d & 15u);
        memcpy(d, s, head);
        d += head;
        s += head;
        n -= head;
        for (; n >= 64; n -= 64, d += 64, s += 64) {
            const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
            const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
            const __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
            const __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));
            _mm_stream_si128((__m128i *)(void *)d, a);
            _mm_stream_si128((__m128i *)(void *)(d + 16), b);
            _mm_stream_si128((__m128i *)(void *)(d + 32), c);
            _mm_stream_si128((__m128i *)(void *)(d + 48), e);
        }
    }
#endif
    memcpy(d, s, n);
}

/* Orders the streaming stores before any later store (the signal that the
   work is done). */
static inline void npu_stream_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

#endif /* NPU_STREAM_H */
