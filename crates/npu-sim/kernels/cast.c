/* cast.c - dtype conversions: half-precision helpers and the casting
   strided copy. Conversion rules are documented in npu_kernels.h. */
#include <float.h>
#include <string.h>

#include "npu_half.h"
#include "npu_kernels.h"
#include "npu_walk.h"

/* ---- bit access ---------------------------------------------------------- */

static inline uint64_t f64_bits(double f)
{
    uint64_t u;
    memcpy(&u, &f, 8);
    return u;
}

/* A signalling f64 NaN made quiet (conversions from f32 and the half types
   already produce quiet NaNs). */
static inline double quiet_f64(double x)
{
    uint64_t u;
    if (x == x)
        return x;
    memcpy(&u, &x, 8);
    u |= (uint64_t)1 << 51;
    memcpy(&x, &u, 8);
    return x;
}

/* double -> a binary format with MB mantissa bits and EB exponent bits
   (MB <= 10, EB <= 8), round half even, in one rounding. */
static inline uint16_t d2small(double x, int mb, int eb)
{
    const uint64_t b = f64_bits(x);
    const uint16_t sign = (uint16_t)((b >> 48) & 0x8000u);
    const uint64_t a = b & 0x7fffffffffffffffu;
    const int bias = (1 << (eb - 1)) - 1, emax = bias, emin = 1 - bias;
    const uint32_t inf = ((1u << eb) - 1) << mb;
    const int sh = 52 - mb;
    if (a >= 0x7ff0000000000000u) { /* inf or NaN */
        if (a == 0x7ff0000000000000u)
            return (uint16_t)(sign | inf);
        return (uint16_t)(sign | inf | (1u << (mb - 1)) |
                          (uint32_t)((a >> sh) & ((1u << mb) - 1)));
    }
    if (a >= (uint64_t)(1023 + emax + 1) << 52) /* >= 2^(emax+1) */
        return (uint16_t)(sign | inf);
    if (a >= (uint64_t)(1023 + emin) << 52) /* normal; carry may reach inf */
        return (uint16_t)(sign | rne_shift(a - ((uint64_t)(1023 - bias) << 52), sh));
    {
        /* subnormal result in units of 2^(emin - mb):
           value = m * 2^(e - 1075), so shift = 1075 + emin - mb - e */
        const int e = (int)(a >> 52), shift = 1075 + emin - mb - e;
        if (shift > 53) /* below half the smallest subnormal */
            return sign;
        return (uint16_t)(sign | rne_shift((a & 0xfffffffffffffu) | ((uint64_t)1 << 52), shift));
    }
}

static inline uint16_t d2h(double x) { return d2small(x, 10, 5); }
static inline uint16_t d2bf(double x) { return d2small(x, 7, 8); }

float npu_f16_to_f32(uint16_t h) { return h2f(h); }
float npu_bf16_to_f32(uint16_t h) { return bf2f(h); }
uint16_t npu_f32_to_f16(float f) { return f2h(f); }
uint16_t npu_f32_to_bf16(float f) { return f2bf(f); }
uint16_t npu_f64_to_f16(double f) { return d2h(f); }
uint16_t npu_f64_to_bf16(double f) { return d2bf(f); }

/* ---- scalar rules ----------------------------------------------------------- */

/* Integers to double "rounded to odd": truncated to 53 bits with the lowest
   bit set if anything was lost. Rounding that once more to <= 51 bits (f16,
   bf16) gives the correctly rounded result of the integer. */
static inline double u64_odd(uint64_t u)
{
    uint64_t v = u;
    int sh = 0;
    if (u < (uint64_t)1 << 53)
        return (double)u;
    while (v >> 53) {
        v >>= 1;
        sh++;
    }
    if (u & (((uint64_t)1 << sh) - 1))
        v |= 1;
    return (double)v * (double)((uint64_t)1 << sh);
}

static inline double s64_odd(int64_t x)
{
    return x < 0 ? -u64_odd(0 - (uint64_t)x) : u64_odd((uint64_t)x);
}

/* Float to signed integer: truncate; NaN -> 0; saturate outside (lo, hi),
   where lo = min - 1 and hi = max + 1 (for int64, lo = -2^63 works as well
   because trunc(-2^63) is min). */
static inline int64_t sat_s(double x, double lo, double hi, int64_t mn, int64_t mx)
{
    if (x != x)
        return 0;
    if (x <= lo)
        return mn;
    if (x >= hi)
        return mx;
    return (int64_t)x;
}

/* Float to unsigned integer: as above with lo = -1, hi = max + 1. */
static inline uint64_t sat_u(double x, double hi, uint64_t mx)
{
    if (x != x || x <= -1.0)
        return 0;
    if (x >= hi)
        return mx;
    return (uint64_t)x;
}

/* ---- chunked two-pass conversion -------------------------------------------
   A row is converted CHUNK elements at a time: decode the source elements
   into doubles (float, complex), int64 (signed, bool) or uint64 (unsigned),
   then encode those into the destination type. Each pass is one loop per
   type, chosen once per chunk. */

#define CHUNK 256

enum { CLS_F, CLS_C, CLS_S, CLS_U };

typedef union {
    double f[2 * CHUNK]; /* CLS_F: f[i]; CLS_C: f[2i], f[2i+1] */
    int64_t s[CHUNK];
    uint64_t u[CHUNK];
} cbuf;

static int dtype_class(npu_dtype t)
{
    switch (t) {
    case NPU_F32: case NPU_F16: case NPU_BF16: case NPU_F64: return CLS_F;
    case NPU_C64: case NPU_C128: return CLS_C;
    case NPU_U8: case NPU_U16: case NPU_U32: case NPU_U64: return CLS_U;
    default: return CLS_S;
    }
}

/* BODY runs for i in [0, M) with `off` = i * STRIDE; a second copy with the
   constant stride SZ serves the contiguous case so it can be vectorised. */
#define STRIDED_LOOP(M, STRIDE, SZ, BODY)                                      \
    do {                                                                       \
        int64_t i;                                                             \
        if ((STRIDE) == (SZ) && (M) == CHUNK) {                                \
            for (i = 0; i < CHUNK; i++) {                                      \
                const int64_t off = i * (SZ);                                  \
                BODY                                                           \
            }                                                                  \
        } else if ((STRIDE) == (SZ)) {                                         \
            for (i = 0; i < (M); i++) {                                        \
                const int64_t off = i * (SZ);                                  \
                BODY                                                           \
            }                                                                  \
        } else {                                                               \
            for (i = 0; i < (M); i++) {                                        \
                const int64_t off = i * (STRIDE);                              \
                BODY                                                           \
            }                                                                  \
        }                                                                      \
    } while (0)

/* Like STRIDED_LOOP for a destination (`off`, stride DI, size DSZ) and a
   source (`soff`, stride SI, size SSZ) at once. */
#define PAIR_LOOP(M, DI, DSZ, SI, SSZ, BODY)                                   \
    do {                                                                       \
        int64_t i;                                                             \
        if ((DI) == (DSZ) && (SI) == (SSZ)) {                                  \
            for (i = 0; i < (M); i++) {                                        \
                const int64_t off = i * (DSZ), soff = i * (SSZ);               \
                BODY                                                           \
            }                                                                  \
        } else {                                                               \
            for (i = 0; i < (M); i++) {                                        \
                const int64_t off = i * (DI), soff = i * (SI);                 \
                BODY                                                           \
            }                                                                  \
        }                                                                      \
    } while (0)

/* Load one element of type T at s + off into the variable `x`. */
#define LOAD(T) T x; memcpy(&x, s + off, sizeof x);
/* Store the value `y` of type T at d + off. */
#define STORE(T, VAL) { const T y = (VAL); memcpy(d + off, &y, sizeof y); }

static void decode(npu_dtype t, const char *restrict s, int64_t si, int64_t m, cbuf *restrict b)
{
    switch (t) {
    case NPU_F32: STRIDED_LOOP(m, si, 4, { LOAD(float) b->f[i] = x; }); break;
    case NPU_F16: STRIDED_LOOP(m, si, 2, { LOAD(uint16_t) b->f[i] = h2f(x); }); break;
    case NPU_BF16: STRIDED_LOOP(m, si, 2, { LOAD(uint16_t) b->f[i] = bf2f(x); }); break;
    case NPU_F64: STRIDED_LOOP(m, si, 8, { LOAD(double) b->f[i] = quiet_f64(x); }); break;
    case NPU_C64:
        STRIDED_LOOP(m, si, 8, {
            float x[2];
            memcpy(x, s + off, 8);
            b->f[2 * i] = x[0];
            b->f[2 * i + 1] = x[1];
        });
        break;
    case NPU_C128:
        STRIDED_LOOP(m, si, 16, {
            double x[2];
            memcpy(x, s + off, 16);
            b->f[2 * i] = quiet_f64(x[0]);
            b->f[2 * i + 1] = quiet_f64(x[1]);
        });
        break;
    case NPU_I8: STRIDED_LOOP(m, si, 1, { LOAD(int8_t) b->s[i] = x; }); break;
    case NPU_I16: STRIDED_LOOP(m, si, 2, { LOAD(int16_t) b->s[i] = x; }); break;
    case NPU_I32: STRIDED_LOOP(m, si, 4, { LOAD(int32_t) b->s[i] = x; }); break;
    case NPU_I64: STRIDED_LOOP(m, si, 8, { LOAD(int64_t) b->s[i] = x; }); break;
    case NPU_BOOL: STRIDED_LOOP(m, si, 1, { LOAD(uint8_t) b->s[i] = x != 0; }); break;
    case NPU_U8: STRIDED_LOOP(m, si, 1, { LOAD(uint8_t) b->u[i] = x; }); break;
    case NPU_U16: STRIDED_LOOP(m, si, 2, { LOAD(uint16_t) b->u[i] = x; }); break;
    case NPU_U32: STRIDED_LOOP(m, si, 4, { LOAD(uint32_t) b->u[i] = x; }); break;
    case NPU_U64: STRIDED_LOOP(m, si, 8, { LOAD(uint64_t) b->u[i] = x; }); break;
    }
}

/* From doubles: f[i * FS] is the (real part of the) value, FS = 1 for real
   and 2 for complex sources. */
#define ENC_FLOAT(FS)                                                          \
    switch (t) {                                                               \
    case NPU_F32: STRIDED_LOOP(m, di, 4, STORE(float, (float)f[i * FS])); break;           \
    case NPU_F16: STRIDED_LOOP(m, di, 2, STORE(uint16_t, d2h(f[i * FS]))); break;          \
    case NPU_BF16: STRIDED_LOOP(m, di, 2, STORE(uint16_t, d2bf(f[i * FS]))); break;        \
    case NPU_F64: STRIDED_LOOP(m, di, 8, STORE(double, f[i * FS])); break;                 \
    case NPU_I8:                                                               \
        STRIDED_LOOP(m, di, 1, STORE(int8_t, (int8_t)sat_s(f[i * FS], -129.0, 128.0,      \
                                                           INT8_MIN, INT8_MAX)));          \
        break;                                                                 \
    case NPU_I16:                                                              \
        STRIDED_LOOP(m, di, 2, STORE(int16_t, (int16_t)sat_s(f[i * FS], -32769.0, 32768.0, \
                                                             INT16_MIN, INT16_MAX)));      \
        break;                                                                 \
    case NPU_I32:                                                              \
        STRIDED_LOOP(m, di, 4, STORE(int32_t, (int32_t)sat_s(f[i * FS], -2147483649.0,     \
                                                             2147483648.0, INT32_MIN,      \
                                                             INT32_MAX)));                 \
        break;                                                                 \
    case NPU_I64:                                                              \
        STRIDED_LOOP(m, di, 8, STORE(int64_t, sat_s(f[i * FS], -9223372036854775808.0,     \
                                                    9223372036854775808.0, INT64_MIN,      \
                                                    INT64_MAX)));                          \
        break;                                                                 \
    case NPU_U8:                                                               \
        STRIDED_LOOP(m, di, 1, STORE(uint8_t, (uint8_t)sat_u(f[i * FS], 256.0, UINT8_MAX))); \
        break;                                                                 \
    case NPU_U16:                                                              \
        STRIDED_LOOP(m, di, 2,                                                 \
                     STORE(uint16_t, (uint16_t)sat_u(f[i * FS], 65536.0, UINT16_MAX)));    \
        break;                                                                 \
    case NPU_U32:                                                              \
        STRIDED_LOOP(m, di, 4,                                                 \
                     STORE(uint32_t, (uint32_t)sat_u(f[i * FS], 4294967296.0, UINT32_MAX))); \
        break;                                                                 \
    case NPU_U64:                                                              \
        STRIDED_LOOP(m, di, 8, STORE(uint64_t, sat_u(f[i * FS], 18446744073709551616.0,    \
                                                     UINT64_MAX)));                        \
        break;                                                                 \
    case NPU_BOOL:                                                             \
        if (FS == 2)                                                           \
            STRIDED_LOOP(m, di, 1, STORE(uint8_t, f[2 * i] != 0 || f[2 * i + 1] != 0));    \
        else                                                                   \
            STRIDED_LOOP(m, di, 1, STORE(uint8_t, f[i] != 0));                 \
        break;                                                                 \
    case NPU_C64:                                                              \
        STRIDED_LOOP(m, di, 8, {                                               \
            float y[2];                                                        \
            y[0] = (float)f[i * FS];                                           \
            y[1] = FS == 2 ? (float)f[i * FS + 1] : 0.0f;                      \
            memcpy(d + off, y, 8);                                             \
        });                                                                    \
        break;                                                                 \
    case NPU_C128:                                                             \
        STRIDED_LOOP(m, di, 16, {                                              \
            double y[2];                                                       \
            y[0] = f[i * FS];                                                  \
            y[1] = FS == 2 ? f[i * FS + 1] : 0.0;                              \
            memcpy(d + off, y, 16);                                            \
        });                                                                    \
        break;                                                                 \
    }

static void enc_real(npu_dtype t, char *restrict d, int64_t di, int64_t m, const double *restrict f)
{
    ENC_FLOAT(1)
}

static void enc_complex(npu_dtype t, char *restrict d, int64_t di, int64_t m,
                        const double *restrict f)
{
    ENC_FLOAT(2)
}

/* From integers v[i] (int64 or uint64): float targets round once (f16/bf16
   through the round-to-odd double), integer targets keep the low bits. */
#define ENC_INT(V)                                                             \
    switch (t) {                                                               \
    case NPU_F32: STRIDED_LOOP(m, di, 4, STORE(float, (float)V[i])); break;    \
    case NPU_F16: STRIDED_LOOP(m, di, 2, STORE(uint16_t, d2h(ODD(V[i])))); break;          \
    case NPU_BF16: STRIDED_LOOP(m, di, 2, STORE(uint16_t, d2bf(ODD(V[i])))); break;        \
    case NPU_F64: STRIDED_LOOP(m, di, 8, STORE(double, (double)V[i])); break;  \
    case NPU_I8: case NPU_U8: STRIDED_LOOP(m, di, 1, STORE(uint8_t, (uint8_t)V[i])); break; \
    case NPU_I16: case NPU_U16:                                                \
        STRIDED_LOOP(m, di, 2, STORE(uint16_t, (uint16_t)V[i]));               \
        break;                                                                 \
    case NPU_I32: case NPU_U32:                                                \
        STRIDED_LOOP(m, di, 4, STORE(uint32_t, (uint32_t)V[i]));               \
        break;                                                                 \
    case NPU_I64: case NPU_U64:                                                \
        STRIDED_LOOP(m, di, 8, STORE(uint64_t, (uint64_t)V[i]));               \
        break;                                                                 \
    case NPU_BOOL: STRIDED_LOOP(m, di, 1, STORE(uint8_t, V[i] != 0)); break;   \
    case NPU_C64:                                                              \
        STRIDED_LOOP(m, di, 8, {                                               \
            float y[2];                                                        \
            y[0] = (float)V[i];                                                \
            y[1] = 0.0f;                                                       \
            memcpy(d + off, y, 8);                                             \
        });                                                                    \
        break;                                                                 \
    case NPU_C128:                                                             \
        STRIDED_LOOP(m, di, 16, {                                              \
            double y[2];                                                       \
            y[0] = (double)V[i];                                               \
            y[1] = 0.0;                                                        \
            memcpy(d + off, y, 16);                                            \
        });                                                                    \
        break;                                                                 \
    }

static void enc_signed(npu_dtype t, char *restrict d, int64_t di, int64_t m,
                       const int64_t *restrict v)
{
#define ODD s64_odd
    ENC_INT(v)
#undef ODD
}

static void enc_unsigned(npu_dtype t, char *restrict d, int64_t di, int64_t m,
                         const uint64_t *restrict v)
{
#define ODD u64_odd
    ENC_INT(v)
#undef ODD
}

/* ---- the row kernel ------------------------------------------------------- */

/* Common float pairs in a single pass. Full chunks get a constant trip
   count, which lets even gcc's cheapest vectoriser model (-O2) handle the
   contiguous loop. */
#define DEFINE_DIRECT(NAME, DT, DSZ, ST, SSZ, CONV)                            \
    static void NAME(char *restrict d, int64_t di, const char *restrict s,    \
                     int64_t si, int64_t m)                                   \
    {                                                                          \
        if (m == CHUNK)                                                        \
            PAIR_LOOP(CHUNK, di, DSZ, si, SSZ,                                 \
                      { ST x; memcpy(&x, s + soff, SSZ); STORE(DT, CONV(x)) }); \
        else                                                                   \
            PAIR_LOOP(m, di, DSZ, si, SSZ,                                     \
                      { ST x; memcpy(&x, s + soff, SSZ); STORE(DT, CONV(x)) }); \
    }

DEFINE_DIRECT(direct_f16_f32, float, 4, uint16_t, 2, h2f)
DEFINE_DIRECT(direct_bf16_f32, float, 4, uint16_t, 2, bf2f)
DEFINE_DIRECT(direct_f32_f16, uint16_t, 2, float, 4, f2h)
DEFINE_DIRECT(direct_f32_bf16, uint16_t, 2, float, 4, f2bf)

/* Integer pairs the generic path takes through int64 (the same values:
   int32 to float rounds once either way; integers keep their low bits). */
static inline float i32_f32(int32_t x) { return (float)x; }
static inline int64_t i32_i64(int32_t x) { return x; }
static inline uint32_t i64_u32(uint64_t x) { return (uint32_t)x; }
DEFINE_DIRECT(direct_i32_f32, float, 4, int32_t, 4, i32_f32)
DEFINE_DIRECT(direct_i32_i64, int64_t, 8, int32_t, 4, i32_i64)
DEFINE_DIRECT(direct_i64_i32, uint32_t, 4, uint64_t, 8, i64_u32)

enum {
    DIRECT_NONE,
    DIRECT_F16_F32,
    DIRECT_BF16_F32,
    DIRECT_F32_F16,
    DIRECT_F32_BF16,
    DIRECT_I32_F32,
    DIRECT_I32_I64,
    DIRECT_I64_I32
};

typedef struct {
    npu_dtype dt, st;
    int scls; /* class of the source: what decode produces */
    int direct;
} cast_ctx;

#if NPU_HAVE_F16C
/* The CPU has AVX2 and the OS saves YMM state (F16C's check covers AVX
   and the state). */
static int have_avx2(void)
{
    static int known = -1;
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (k < 0) {
        unsigned a, b, c, d;
        k = have_f16c() && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX2);
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k;
}

/* Contiguous rows of the integer pairs, eight elements at a time in YMM
   registers (SSE2's 16-byte stores made these casts store-bound at twice
   a copy's time); each returns how many it converted, the rest (fewer
   than eight) is the caller's. The same values as the scalar loops:
   sign extension, truncation to the low 32 bits, and int32 to float
   rounded to nearest even (vcvtdq2ps under the default MXCSR, as the C
   conversion). */
__attribute__((target("avx2"))) static int64_t i32_i64_avx2(char *d, const char *s, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i * 4));
        const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i * 4 + 16));
        _mm256_storeu_si256((__m256i *)(void *)(d + i * 8), _mm256_cvtepi32_epi64(a));
        _mm256_storeu_si256((__m256i *)(void *)(d + i * 8 + 32), _mm256_cvtepi32_epi64(b));
    }
    return i;
}

__attribute__((target("avx2"))) static int64_t i32_f32_avx2(char *d, const char *s, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps((float *)(void *)(d + i * 4),
                         _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)(const void *)(s + i * 4))));
    return i;
}

__attribute__((target("avx2"))) static int64_t i64_i32_avx2(char *d, const char *s, int64_t n)
{
    /* The even 32-bit lanes of each pair of YMM registers: the low halves. */
    const __m256i pick = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i a = _mm256_permutevar8x32_epi32(
            _mm256_loadu_si256((const __m256i *)(const void *)(s + i * 8)), pick);
        const __m256i b = _mm256_permutevar8x32_epi32(
            _mm256_loadu_si256((const __m256i *)(const void *)(s + i * 8 + 32)), pick);
        _mm256_storeu_si256((__m256i *)(void *)(d + i * 4), _mm256_permute2x128_si256(a, b, 0x20));
    }
    return i;
}
#endif

static void cast_row(const npu_walk *w, char *dst, const char *src, const cast_ctx *c)
{
    const int64_t n = w->n, di = w->di, si = w->si;
    int64_t b0 = 0;
    cbuf buf;

#if NPU_HAVE_F16C
    /* Contiguous f16 rows in hardware, eight at a time; the rest below. */
    if (c->direct == DIRECT_F32_F16 && di == 2 && si == 4 && have_f16c())
        b0 = f32_to_f16_f16c(dst, src, n);
    else if (c->direct == DIRECT_F16_F32 && di == 4 && si == 2 && have_f16c())
        b0 = f16_to_f32_f16c(dst, src, n);
    else if (c->direct == DIRECT_I32_I64 && di == 8 && si == 4 && have_avx2())
        b0 = i32_i64_avx2(dst, src, n);
    else if (c->direct == DIRECT_I32_F32 && di == 4 && si == 4 && have_avx2())
        b0 = i32_f32_avx2(dst, src, n);
    else if (c->direct == DIRECT_I64_I32 && di == 4 && si == 8 && have_avx2())
        b0 = i64_i32_avx2(dst, src, n);
#endif
    for (; b0 < n; b0 += CHUNK) {
        const int64_t m = n - b0 < CHUNK ? n - b0 : CHUNK;
        char *d = dst + b0 * di;
        const char *s = src + b0 * si;
        switch (c->direct) {
        case DIRECT_F16_F32: direct_f16_f32(d, di, s, si, m); continue;
        case DIRECT_BF16_F32: direct_bf16_f32(d, di, s, si, m); continue;
        case DIRECT_F32_F16: direct_f32_f16(d, di, s, si, m); continue;
        case DIRECT_F32_BF16: direct_f32_bf16(d, di, s, si, m); continue;
        case DIRECT_I32_F32: direct_i32_f32(d, di, s, si, m); continue;
        case DIRECT_I32_I64: direct_i32_i64(d, di, s, si, m); continue;
        case DIRECT_I64_I32: direct_i64_i32(d, di, s, si, m); continue;
        default: break;
        }
        decode(c->st, s, si, m, &buf);
        switch (c->scls) {
        case CLS_F: enc_real(c->dt, d, di, m, buf.f); break;
        case CLS_C: enc_complex(c->dt, d, di, m, buf.f); break;
        case CLS_S: enc_signed(c->dt, d, di, m, buf.s); break;
        default: enc_unsigned(c->dt, d, di, m, buf.u); break;
        }
    }
}

static inline void seg_cast(const npu_walk *w, char *d, const char *s, int64_t cnt,
                            int64_t dl, int64_t sl, const void *ctx)
{
    int64_t k;
    for (k = 0; k < cnt; k++)
        cast_row(w, d + k * dl, s + k * sl, (const cast_ctx *)ctx);
}

NPU_DEFINE_WALKER(walk_cast, seg_cast)

size_t npu_dtype_size(npu_dtype t)
{
    switch (t) {
    case NPU_I8: case NPU_U8: case NPU_BOOL: return 1;
    case NPU_F16: case NPU_BF16: case NPU_I16: case NPU_U16: return 2;
    case NPU_F32: case NPU_I32: case NPU_U32: return 4;
    case NPU_F64: case NPU_I64: case NPU_U64: case NPU_C64: return 8;
    case NPU_C128: return 16;
    }
    return 0;
}

int npu_cast_run(const npu_copy_desc *d, npu_dtype dst_type, void *dst,
                 npu_dtype src_type, const void *src,
                 int64_t row_begin, int64_t row_end)
{
    const size_t dsz = npu_dtype_size(dst_type), ssz = npu_dtype_size(src_type);
    npu_walk w;
    cast_ctx c;

    if (dsz == 0 || ssz == 0)
        return -1;
    if (dst_type == src_type) {
        npu_copy_desc e = *d;
        e.elem_size = dsz;
        npu_copy_run(&e, dst, src, row_begin, row_end);
        return 0;
    }
    if (!npu_walk_init(&w, d, (int64_t)dsz, (int64_t)ssz))
        return 0;
    c.dt = dst_type;
    c.st = src_type;
    c.scls = dtype_class(src_type);
    c.direct = DIRECT_NONE;
    if (dst_type == NPU_F32 && src_type == NPU_F16)
        c.direct = DIRECT_F16_F32;
    else if (dst_type == NPU_F32 && src_type == NPU_BF16)
        c.direct = DIRECT_BF16_F32;
    else if (dst_type == NPU_F16 && src_type == NPU_F32)
        c.direct = DIRECT_F32_F16;
    else if (dst_type == NPU_BF16 && src_type == NPU_F32)
        c.direct = DIRECT_F32_BF16;
    else if (dst_type == NPU_F32 && src_type == NPU_I32)
        c.direct = DIRECT_I32_F32;
    else if (dst_type == NPU_I64 && src_type == NPU_I32)
        c.direct = DIRECT_I32_I64;
    else if ((dst_type == NPU_I32 || dst_type == NPU_U32) && (src_type == NPU_I64 || src_type == NPU_U64))
        c.direct = DIRECT_I64_I32;
    walk_cast(&w, (char *)dst, (const char *)src, row_begin, row_end, &c);
    return 0;
}
