/* arith.c - elementwise arithmetic of one dtype over contiguous buffers
   (Add, Mul). The rules are documented in npu_kernels.h. Needs the
   compiler never to fuse a multiply and an add (build with
   -ffp-contract=off, as the simulator's build script does). */
#include <float.h>
#include <string.h>

#include "npu_half.h"
#include "npu_kernels.h"

/* Rounds x to its type: needed only where float arithmetic may be done
   in a wider format (FLT_EVAL_METHOD != 0, e.g. x87). */
#if FLT_EVAL_METHOD == 0
#define R32(x) (x)
#define R64(x) (x)
#else
static float r32(float x)
{
    volatile float v = x;
    return v;
}
static double r64(double x)
{
    volatile double v = x;
    return v;
}
#define R32(x) r32(x)
#define R64(x) r64(x)
#endif

/* ---- canonical NaN ---------------------------------------------------------- */

/* Branch-free (a select), so that the f32 and half loops vectorise. */
static inline float canon32(float x)
{
    const uint32_t m = mask_if(x != x);
    return bits_f32((f32_bits(x) & ~m) | (0x7fc00000u & m));
}

static inline double canon64(double x)
{
    if (x != x) {
        const uint64_t u = (uint64_t)0x7ff8 << 48;
        memcpy(&x, &u, 8);
    }
    return x;
}

/* ---- element access ----------------------------------------------------------- */

static inline uint64_t ld_u(const char *p, size_t w)
{
    uint8_t b1;
    uint16_t b2;
    uint32_t b4;
    uint64_t b8;
    switch (w) {
    case 1: memcpy(&b1, p, 1); return b1;
    case 2: memcpy(&b2, p, 2); return b2;
    case 4: memcpy(&b4, p, 4); return b4;
    default: memcpy(&b8, p, 8); return b8;
    }
}

static inline void st_u(char *p, size_t w, uint64_t v)
{
    uint8_t b1 = (uint8_t)v;
    uint16_t b2 = (uint16_t)v;
    uint32_t b4 = (uint32_t)v;
    switch (w) {
    case 1: memcpy(p, &b1, 1); break;
    case 2: memcpy(p, &b2, 2); break;
    case 4: memcpy(p, &b4, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

static inline float ld_f32(const char *p)
{
    float f;
    memcpy(&f, p, 4);
    return f;
}

static inline double ld_f64(const char *p)
{
    double f;
    memcpy(&f, p, 8);
    return f;
}

/* ---- the operations --------------------------------------------------------- */

static inline double op64(npu_binary_op op, double a, double b, double al, int al_one)
{
    if (op == NPU_BINARY_MUL)
        return canon64(R64(a * b));
    if (al_one)
        return canon64(R64(a + b));
    return canon64(R64(a + R64(al * b)));
}

/* Complex product parts: (xr yr - xi yi, xr yi + xi yr), each rounded. */
#define CMUL(T, R, xr, xi, yr, yi, outr, outi)                                 \
    do {                                                                       \
        const T p1 = R((xr) * (yr)), p2 = R((xi) * (yi));                      \
        const T p3 = R((xr) * (yi)), p4 = R((xi) * (yr));                      \
        (outr) = R(p1 - p2);                                                   \
        (outi) = R(p3 + p4);                                                   \
    } while (0)

/* ---- f16 with the F16C instructions ----------------------------------------- */

#if NPU_HAVE_F16C
/* Elements [begin, end) eight at a time; returns where the rest starts.
   Every multiply and add is its own instruction (no FMA), as in the
   scalar loops. */
__attribute__((target("avx,f16c"))) static int64_t
f16_binary_f16c(npu_binary_op op, char *d, const char *x, const char *y, float alf, int one,
                int64_t begin, int64_t end)
{
    const __m256 al = _mm256_set1_ps(alf);
    const __m256 qnan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000));
    int64_t i = begin;
    for (; i + 8 <= end; i += 8) {
        const __m256 a = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(x + i * 2)));
        const __m256 b = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(y + i * 2)));
        __m256 r;
        if (op == NPU_BINARY_MUL)
            r = _mm256_mul_ps(a, b);
        else if (one)
            r = _mm256_add_ps(a, b);
        else
            r = _mm256_add_ps(a, _mm256_mul_ps(al, b));
        /* NaN lanes become the canonical NaN, with masks: GCC turned a
           blendv here into a branch per lane, mispredicted on random data
           (f16 add of 1 MiB: 129 us). */
        {
            const __m256 nan = _mm256_cmp_ps(r, r, _CMP_UNORD_Q);
            r = _mm256_or_ps(_mm256_andnot_ps(nan, r), _mm256_and_ps(nan, qnan));
        }
        _mm_storeu_si128((__m128i *)(void *)(d + i * 2), _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT));
    }
    return i;
}
#endif

int npu_binary_run(npu_binary_op op, npu_dtype t, void *dst, const void *a, const void *b,
                   const void *alpha, int64_t begin, int64_t end)
{
    const size_t es = npu_dtype_size(t);
    char *d = (char *)dst;
    const char *x = (const char *)a, *y = (const char *)b, *al = (const char *)alpha;
    int64_t i;
    if (es == 0 || (op != NPU_BINARY_ADD && op != NPU_BINARY_MUL))
        return -1;
    if (op == NPU_BINARY_MUL)
        al = NULL;
    if (begin < 0)
        begin = 0;
    switch (t) {
    case NPU_BOOL: {
        const int alb = al == NULL || al[0] != 0;
        for (i = begin; i < end; i++) {
            const int p = x[i] != 0, q = y[i] != 0;
            d[i] = (char)(op == NPU_BINARY_MUL ? (p & q) : (p | (alb & q)));
        }
        return 0;
    }
    case NPU_I8: case NPU_U8: case NPU_I16: case NPU_U16:
    case NPU_I32: case NPU_U32: case NPU_I64: case NPU_U64: {
        /* Modulo 2^bits the result depends only on the low bits of the
           operands, so every integer type is its unsigned width. */
        const uint64_t alu = al == NULL ? 1 : ld_u(al, es);
        for (i = begin; i < end; i++) {
            const uint64_t p = ld_u(x + i * es, es), q = ld_u(y + i * es, es);
            st_u(d + i * es, es, op == NPU_BINARY_MUL ? p * q : p + alu * q);
        }
        return 0;
    }
    case NPU_F32: {
        const float alf = al == NULL ? 1.0f : ld_f32(al);
        const int one = alf == 1.0f;
        /* One branch-free loop per operation, so that each vectorises. */
#define F32_LOOP(EXPR)                                                         \
        for (i = begin; i < end; i++) {                                        \
            const float a_ = ld_f32(x + i * 4), b_ = ld_f32(y + i * 4);         \
            const float r = canon32(EXPR);                                     \
            memcpy(d + i * 4, &r, 4);                                          \
        }
        if (op == NPU_BINARY_MUL) {
            F32_LOOP(R32(a_ * b_))
        } else if (one) {
            F32_LOOP(R32(a_ + b_))
        } else {
            F32_LOOP(R32(a_ + R32(alf * b_)))
        }
#undef F32_LOOP
        return 0;
    }
    case NPU_F64: {
        const double alf = al == NULL ? 1.0 : ld_f64(al);
        const int one = alf == 1.0;
        for (i = begin; i < end; i++) {
            const double r = op64(op, ld_f64(x + i * 8), ld_f64(y + i * 8), alf, one);
            memcpy(d + i * 8, &r, 8);
        }
        return 0;
    }
    case NPU_F16: case NPU_BF16: {
        uint16_t h;
        float alf = 1.0f;
        int one;
        if (al != NULL) {
            memcpy(&h, al, 2);
            alf = t == NPU_F16 ? h2f(h) : bf2f(h);
        }
        one = alf == 1.0f;
        /* One loop per type and operation, each free of branches on the
           element's value, so that the compiler vectorises it. */
#define HALF_LOOP(TO_F, FROM_F, EXPR)                                          \
        for (i = begin; i < end; i++) {                                        \
            uint16_t p, q, r;                                                  \
            float a_, b_;                                                      \
            memcpy(&p, x + i * 2, 2);                                          \
            memcpy(&q, y + i * 2, 2);                                          \
            a_ = TO_F(p);                                                      \
            b_ = TO_F(q);                                                      \
            r = FROM_F(canon32(EXPR));                                         \
            memcpy(d + i * 2, &r, 2);                                          \
        }
#define HALF_OPS(TO_F, FROM_F)                                                 \
        if (op == NPU_BINARY_MUL) {                                            \
            HALF_LOOP(TO_F, FROM_F, R32(a_ * b_))                              \
        } else if (one) {                                                      \
            HALF_LOOP(TO_F, FROM_F, R32(a_ + b_))                              \
        } else {                                                               \
            HALF_LOOP(TO_F, FROM_F, R32(a_ + R32(alf * b_)))                   \
        }
        if (t == NPU_F16) {
#if NPU_HAVE_F16C
            if (have_f16c()) {
                /* Same bits as h2f/f2h (IEEE conversions, round half even,
                   NaN payloads kept and made quiet): test_kernels.c
                   compares the two over every f16 value. */
                begin = f16_binary_f16c(op, d, x, y, alf, one, begin, end);
            }
#endif
            HALF_OPS(h2f, f2h)
        } else {
            HALF_OPS(bf2f, f2bf)
        }
#undef HALF_OPS
#undef HALF_LOOP
        return 0;
    }
    case NPU_C64: {
        const float ar = al == NULL ? 1.0f : ld_f32(al), ai = al == NULL ? 0.0f : ld_f32(al + 4);
        const int one = ar == 1.0f && ai == 0.0f;
        for (i = begin; i < end; i++) {
            const float xr = ld_f32(x + i * 8), xi = ld_f32(x + i * 8 + 4);
            const float yr = ld_f32(y + i * 8), yi = ld_f32(y + i * 8 + 4);
            float rr, ri, tr, ti;
            if (op == NPU_BINARY_MUL) {
                CMUL(float, R32, xr, xi, yr, yi, rr, ri);
            } else if (one) {
                rr = R32(xr + yr);
                ri = R32(xi + yi);
            } else {
                CMUL(float, R32, ar, ai, yr, yi, tr, ti);
                rr = R32(xr + tr);
                ri = R32(xi + ti);
            }
            rr = canon32(rr);
            ri = canon32(ri);
            memcpy(d + i * 8, &rr, 4);
            memcpy(d + i * 8 + 4, &ri, 4);
        }
        return 0;
    }
    case NPU_C128: {
        const double ar = al == NULL ? 1.0 : ld_f64(al), ai = al == NULL ? 0.0 : ld_f64(al + 8);
        const int one = ar == 1.0 && ai == 0.0;
        for (i = begin; i < end; i++) {
            const double xr = ld_f64(x + i * 16), xi = ld_f64(x + i * 16 + 8);
            const double yr = ld_f64(y + i * 16), yi = ld_f64(y + i * 16 + 8);
            double rr, ri, tr, ti;
            if (op == NPU_BINARY_MUL) {
                CMUL(double, R64, xr, xi, yr, yi, rr, ri);
            } else if (one) {
                rr = R64(xr + yr);
                ri = R64(xi + yi);
            } else {
                CMUL(double, R64, ar, ai, yr, yi, tr, ti);
                rr = R64(xr + tr);
                ri = R64(xi + ti);
            }
            rr = canon64(rr);
            ri = canon64(ri);
            memcpy(d + i * 16, &rr, 8);
            memcpy(d + i * 16 + 8, &ri, 8);
        }
        return 0;
    }
    }
    return -1;
}
