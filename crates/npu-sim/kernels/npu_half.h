/* npu_half.h - f32 <-> f16/bf16 bit conversions shared by the kernels
   (cast.c, arith.c), inline so that loops over them vectorise. Rounding is
   half to even; NaNs come out quiet with their top payload bits. */
#ifndef NPU_HALF_H
#define NPU_HALF_H

#include <float.h>
#include <stdint.h>
#include <string.h>

/* ---- bit access ---------------------------------------------------------- */

static inline uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* ---- half precision --------------------------------------------------------
   f16:  1 sign, 5 exponent (bias 15), 10 mantissa bits.
   bf16: 1 sign, 8 exponent (bias 127), 7 mantissa bits (top half of an f32). */

/* Round-half-even of (x >> sh) given the discarded bits; 0 < sh < 64. */
static inline uint64_t rne_shift(uint64_t x, int sh)
{
    const uint64_t r = x >> sh, rem = x & (((uint64_t)1 << sh) - 1);
    const uint64_t half = (uint64_t)1 << (sh - 1);
    return r + (rem > half || (rem == half && (r & 1)));
}

/* The f16/bf16 <-> f32 helpers compute every case and combine them with
   masks (all ones or zero) instead of branches, so loops over them
   vectorise. */
static inline uint32_t mask_if(int c) { return 0u - (uint32_t)(c != 0); }

static inline float h2f(uint16_t h)
{
    const uint32_t s = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t a = h & 0x7fffu, sh = a << 13;
    const uint32_t nrm = sh + 0x38000000u; /* exponent bias 15 -> 127 */
    const uint32_t special = sh | 0x7f800000u | (uint32_t)(a > 0x7c00u) << 22; /* inf, quiet NaN */
    const uint32_t sub = f32_bits((float)(int32_t)a * 0x1p-24f); /* zero, subnormal: exact */
    const uint32_t m_sub = mask_if(a < 0x400u), m_spec = mask_if(a >= 0x7c00u);
    return bits_f32(s | (sub & m_sub) | (special & m_spec) | (nrm & ~(m_sub | m_spec)));
}

static inline float bf2f(uint16_t h)
{
    const uint32_t u = (uint32_t)h << 16;
    return bits_f32(u | (uint32_t)((u & 0x7fffffffu) > 0x7f800000u) << 22); /* quiet NaN */
}

static inline uint16_t f2h(float f)
{
    const uint32_t x = f32_bits(f);
    const uint32_t sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    /* normal (2^-14 <= |f| < 2^16): rebias, round half even on the 13
       dropped bits; a carry into the exponent is right, up to 0x7c00 (inf)
       for |f| >= 65520 */
    const uint32_t nrm = (a - 0x38000000u + 0xfffu + ((a >> 13) & 1u)) >> 13;
#if FLT_EVAL_METHOD == 0 && !defined(NPU_F16_INTEGER_ONLY)
    /* below 2^-14: in |f| + 0.5f the last mantissa bit is worth 2^-24, the
       f16 subnormal unit, and the addition rounds half even (needs float
       arithmetic done in float, which FLT_EVAL_METHOD == 0 guarantees) */
    const uint32_t sub = f32_bits(bits_f32(a) + 0.5f) - 0x3f000000u;
#else
    /* below 2^-14: value / 2^-24 = m * 2^(e - 126); a shift of 25 gives 0
       for everything below 2^-25 (also zero and f32 subnormals) */
    const int e = (int)(a >> 23), sh = 126 - e > 25 ? 25 : 126 - e < 1 ? 1 : 126 - e;
    const uint32_t sub = (uint32_t)rne_shift((a & 0x7fffffu) | 0x800000u, sh);
#endif
    const uint32_t nan = 0x7e00u | ((a >> 13) & 0x3ffu); /* quiet */
    const uint32_t m_sub = mask_if(a < 0x38800000u), m_big = mask_if(a >= 0x47800000u);
    const uint32_t m_nan = mask_if(a > 0x7f800000u);
    const uint32_t big = (0x7c00u & ~m_nan) | (nan & m_nan); /* overflow, inf, NaN */
    return (uint16_t)(sign | (sub & m_sub) | (big & m_big) | (nrm & ~(m_sub | m_big)));
}

static inline uint16_t f2bf(float f)
{
    const uint32_t u = f32_bits(f);
    /* round half even on the low 16 bits; a carry overflows into inf */
    const uint32_t r = (u + 0x7fffu + ((u >> 16) & 1)) >> 16;
    const uint32_t m_nan = mask_if((u & 0x7fffffffu) > 0x7f800000u);
    return (uint16_t)((r & ~m_nan) | (((u >> 16) | 0x40u) & m_nan));
}

/* ---- F16C: f16 <-> f32 in hardware ------------------------------------------
   The same bits as h2f/f2h: IEEE conversions, round half to even, NaN
   payloads kept and made quiet (test_kernels.c compares both over every
   f16 value and many f32 ones). */

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define NPU_HAVE_F16C 1
#include <cpuid.h>
#include <immintrin.h>

/* The CPU converts f16 in hardware (F16C) and the OS saves AVX state. */
static inline int have_f16c(void)
{
    static int known = -1;
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (k < 0) {
        unsigned a, b, c, d;
        k = 0;
        if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) && (c & bit_AVX) && (c & bit_OSXSAVE)) {
            unsigned lo, hi;
            __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
            k = (lo & 6u) == 6u; /* XMM and YMM state enabled */
        }
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k;
}

/* n contiguous f32 at s to f16 at d, eight at a time; returns how many
   were converted (the rest, fewer than eight, is the caller's). */
__attribute__((target("avx,f16c"))) static inline int64_t f32_to_f16_f16c(char *d, const char *s,
                                                                           int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(void *)(d + i * 2),
                         _mm256_cvtps_ph(_mm256_loadu_ps((const float *)(const void *)(s + i * 4)),
                                         _MM_FROUND_TO_NEAREST_INT));
    return i;
}

/* n contiguous f16 at s to f32 at d, as above. */
__attribute__((target("avx,f16c"))) static inline int64_t f16_to_f32_f16c(char *d, const char *s,
                                                                           int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps((float *)(void *)(d + i * 4),
                         _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(s + i * 2))));
    return i;
}
#else
#define NPU_HAVE_F16C 0
#endif

#endif
