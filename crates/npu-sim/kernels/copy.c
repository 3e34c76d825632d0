/* copy.c - strided N-d copy: normalisation, row count, row-range runner. */
#include <string.h>

#include "npu_kernels.h"
#include "npu_walk.h"

/* Tile of rows x elements used when one view is strided along the inner dim
   but close-packed along the row dim (transposes): a cache line of the
   strided view is then used by many rows before it is evicted. Only 8
   columns, so that 8 lines whose addresses differ by a power of two (which
   share an L1 set) still fit an 8-way cache. */
#ifndef NPU_TILE_ROWS
#define NPU_TILE_ROWS 256
#endif
#ifndef NPU_TILE_COLS
#define NPU_TILE_COLS 8
#endif

static void set_empty(npu_copy_desc *d)
{
    int i;
    d->rank = 1;
    for (i = 0; i < NPU_MAX_RANK; i++) {
        d->shape[i] = i == 0 ? 0 : 1;
        d->dst_stride[i] = 0;
        d->src_stride[i] = 0;
    }
}

void npu_copy_normalize(npu_copy_desc *d)
{
    int64_t sh[NPU_MAX_RANK], ds[NPU_MAX_RANK], ss[NPU_MAX_RANK];
    int32_t r = d->rank, i, k = 0;

    if (r < 0 || r > NPU_MAX_RANK) {
        set_empty(d);
        return;
    }
    for (i = 0; i < r; i++) {
        if (d->shape[i] <= 0) {
            set_empty(d);
            return;
        }
    }
    /* Drop extent-1 dims; merge each dim into the previous kept one when the
       pair is contiguous in both views. */
    for (i = 0; i < r; i++) {
        const int64_t n = d->shape[i], a = d->dst_stride[i], b = d->src_stride[i];
        if (n == 1)
            continue;
        if (k > 0 && ds[k - 1] == a * n && ss[k - 1] == b * n) {
            sh[k - 1] *= n;
            ds[k - 1] = a;
            ss[k - 1] = b;
        } else {
            sh[k] = n;
            ds[k] = a;
            ss[k] = b;
            k++;
        }
    }
    /* Fold a short inner run, contiguous in both, into one wider element. */
    if (k > 0 && d->elem_size != 0 && ds[k - 1] == 1 && ss[k - 1] == 1 && sh[k - 1] <= 16) {
        const int64_t n = sh[k - 1];
        const size_t wide = d->elem_size * (size_t)n;
        int ok = wide == 2 || wide == 4 || wide == 8 || wide == 16;
        for (i = 0; ok && i < k - 1; i++)
            ok = ds[i] % n == 0 && ss[i] % n == 0;
        if (ok) {
            for (i = 0; i < k - 1; i++) {
                ds[i] /= n;
                ss[i] /= n;
            }
            k--;
            d->elem_size = wide;
        }
    }
    d->rank = k;
    for (i = 0; i < NPU_MAX_RANK; i++) {
        d->shape[i] = i < k ? sh[i] : 1;
        d->dst_stride[i] = i < k ? ds[i] : 0;
        d->src_stride[i] = i < k ? ss[i] : 0;
    }
}

int64_t npu_copy_rows(const npu_copy_desc *d)
{
    int64_t rows = 1;
    int32_t i;
    if (d->rank < 0 || d->rank > NPU_MAX_RANK)
        return 0;
    for (i = 0; i < d->rank; i++) {
        if (d->shape[i] <= 0)
            return 0;
        if (i < d->rank - 1)
            rows *= d->shape[i];
    }
    return rows;
}

void npu_copy_split_inner(npu_copy_desc *d, int64_t want_rows, int64_t min_inner)
{
    const int64_t rows = npu_copy_rows(d);
    const int32_t r = d->rank;
    int64_t n, need, qmax, q;

    if (rows <= 0 || rows >= want_rows || r < 1 || r >= NPU_MAX_RANK)
        return;
    if (min_inner < 1)
        min_inner = 1;
    n = d->shape[r - 1];
    need = want_rows / rows + (want_rows % rows != 0); /* >= 2 */
    qmax = n / min_inner;
    if (need <= qmax / 64)
        qmax = 64 * need;
    for (q = need; q <= qmax; q++) {
        if (n % q == 0) {
            const int64_t m = n / q, a = d->dst_stride[r - 1], b = d->src_stride[r - 1];
            d->shape[r - 1] = q;
            d->dst_stride[r - 1] = a * m;
            d->src_stride[r - 1] = b * m;
            d->shape[r] = m;
            d->dst_stride[r] = a;
            d->src_stride[r] = b;
            d->rank = r + 1;
            return;
        }
    }
}

/* ---- segment kernels: `cnt` rows, row k at d + k*dl / s + k*sl ---------- */

/* Inner dim contiguous in both: one memcpy per row. */
static inline void seg_run(const npu_walk *w, char *d, const char *s, int64_t cnt,
                           int64_t dl, int64_t sl, const void *ctx)
{
    const size_t run = (size_t)(w->n * w->dsize);
    int64_t k;
    (void)ctx;
    for (k = 0; k < cnt; k++)
        memcpy(d + k * dl, s + k * sl, run);
}

/* Inner run of 3..32 bytes, not a power of two: two fixed-size moves that
   overlap in the middle instead of a memcpy call of variable size. */
#define SHORT_RUN_LOOP(K)                                                       \
    for (k = 0; k < cnt; k++) {                                                 \
        char *dr = d + k * dl;                                                  \
        const char *sr = s + k * sl;                                            \
        memcpy(dr, sr, K);                                                      \
        memcpy(dr + run - K, sr + run - K, K);                                  \
    }

static inline void seg_short(const npu_walk *w, char *d, const char *s, int64_t cnt,
                             int64_t dl, int64_t sl, const void *ctx)
{
    const int64_t run = w->n * w->dsize;
    int64_t k;
    (void)ctx;
    if (run <= 4) {
        SHORT_RUN_LOOP(2)
    } else if (run <= 8) {
        SHORT_RUN_LOOP(4)
    } else if (run <= 16) {
        SHORT_RUN_LOOP(8)
    } else {
        SHORT_RUN_LOOP(16)
    }
}

/* dst contiguous, src stride 0 along the row: a fill per row. */
static inline void seg_fill(const npu_walk *w, char *d, const char *s, int64_t cnt,
                            int64_t dl, int64_t sl, const void *ctx)
{
    int64_t k;
    (void)ctx;
    for (k = 0; k < cnt; k++)
        npu_fill(d + k * dl, w->n, s + k * sl, (size_t)w->dsize);
}

/* Strided elements of SIZE bytes (a constant, or w->dsize for the generic
   kernel); memcpy with a constant size compiles to one unaligned move. */
#define DEFINE_SEG_STRIDED(NAME, SIZE)                                          \
    static inline void NAME(const npu_walk *w, char *d, const char *s,          \
                            int64_t cnt, int64_t dl, int64_t sl,                \
                            const void *ctx)                                    \
    {                                                                           \
        const int64_t n = w->n, di = w->di, si = w->si;                         \
        const size_t sz = (SIZE);                                               \
        int64_t k, i;                                                           \
        (void)ctx;                                                              \
        if (cnt > 1 && n >= NPU_TILE_COLS &&                                \
            ((si > 64 && sl < si) || (di > 64 && dl < di))) {                   \
            int64_t k0, i0;                                                     \
            for (k0 = 0; k0 < cnt; k0 += NPU_TILE_ROWS) {                       \
                const int64_t k1 =                                              \
                    cnt - k0 < NPU_TILE_ROWS ? cnt : k0 + NPU_TILE_ROWS;        \
                for (i0 = 0; i0 < n; i0 += NPU_TILE_COLS) {                     \
                    const int64_t i1 =                                          \
                        n - i0 < NPU_TILE_COLS ? n : i0 + NPU_TILE_COLS;        \
                    for (k = k0; k < k1; k++) {                                 \
                        char *dr = d + k * dl;                                  \
                        const char *sr = s + k * sl;                            \
                        for (i = i0; i < i1; i++)                               \
                            memcpy(dr + i * di, sr + i * si, sz);               \
                    }                                                           \
                }                                                               \
            }                                                                   \
            return;                                                             \
        }                                                                       \
        for (k = 0; k < cnt; k++) {                                             \
            char *dr = d + k * dl;                                              \
            const char *sr = s + k * sl;                                        \
            for (i = 0; i < n; i++)                                             \
                memcpy(dr + i * di, sr + i * si, sz);                           \
        }                                                                       \
    }

DEFINE_SEG_STRIDED(seg_e1, 1)
DEFINE_SEG_STRIDED(seg_e2, 2)
DEFINE_SEG_STRIDED(seg_e4, 4)
DEFINE_SEG_STRIDED(seg_e8, 8)
DEFINE_SEG_STRIDED(seg_e16, 16)
DEFINE_SEG_STRIDED(seg_eany, (size_t)w->dsize)

NPU_DEFINE_WALKER(walk_run, seg_run)
NPU_DEFINE_WALKER(walk_short, seg_short)
NPU_DEFINE_WALKER(walk_fill, seg_fill)
NPU_DEFINE_WALKER(walk_e1, seg_e1)
NPU_DEFINE_WALKER(walk_e2, seg_e2)
NPU_DEFINE_WALKER(walk_e4, seg_e4)
NPU_DEFINE_WALKER(walk_e8, seg_e8)
NPU_DEFINE_WALKER(walk_e16, seg_e16)
NPU_DEFINE_WALKER(walk_eany, seg_eany)

void npu_copy_run(const npu_copy_desc *d, void *dst, const void *src,
                  int64_t row_begin, int64_t row_end)
{
    npu_walk w;
    char *dp = (char *)dst;
    const char *sp = (const char *)src;
    const int64_t es = (int64_t)d->elem_size;

    if (es <= 0 || !npu_walk_init(&w, d, es, es))
        return;
    if (w.di == es && w.si == es) {
        const int64_t run = w.n * es;
        if (run != 1 && run != 2 && run != 4 && run != 8 && run != 16) {
            if (run <= 32)
                walk_short(&w, dp, sp, row_begin, row_end, NULL);
            else
                walk_run(&w, dp, sp, row_begin, row_end, NULL);
            return;
        }
        /* A short run: copy it as one element of a specialised size. */
        w.n = 1;
        w.dsize = w.ssize = w.di = w.si = run;
    } else if (w.si == 0 && w.di == es && w.n * es >= 64) {
        walk_fill(&w, dp, sp, row_begin, row_end, NULL);
        return;
    }
    switch (w.dsize) {
    case 1: walk_e1(&w, dp, sp, row_begin, row_end, NULL); break;
    case 2: walk_e2(&w, dp, sp, row_begin, row_end, NULL); break;
    case 4: walk_e4(&w, dp, sp, row_begin, row_end, NULL); break;
    case 8: walk_e8(&w, dp, sp, row_begin, row_end, NULL); break;
    case 16: walk_e16(&w, dp, sp, row_begin, row_end, NULL); break;
    default: walk_eany(&w, dp, sp, row_begin, row_end, NULL); break;
    }
}
