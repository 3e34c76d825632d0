/*
 * npu_walk.h - private to the kernels: the row walker shared by the plain
 * and the casting strided copy. Not part of the API.
 */
#ifndef NPU_WALK_H
#define NPU_WALK_H

#include "npu_kernels.h"

/* A copy description in bytes, split into outer dims (the rows) and the
   innermost dim (one row). */
typedef struct {
    int32_t nout;                       /* number of outer dims, 0..7 */
    int64_t shape[NPU_MAX_RANK];        /* outer extents */
    int64_t dstep[NPU_MAX_RANK];        /* outer dst strides, bytes */
    int64_t sstep[NPU_MAX_RANK];        /* outer src strides, bytes */
    int64_t n;                          /* inner extent (1 for rank 0) */
    int64_t di, si;                     /* inner strides, bytes */
    int64_t dsize, ssize;               /* element sizes, bytes */
    int64_t rows;                       /* product of outer extents */
} npu_walk;

/* Fills *w from d with the given element sizes. Returns 0 if the copy is
   empty or the rank invalid (then *w is unusable), else 1. */
static inline int npu_walk_init(npu_walk *w, const npu_copy_desc *d,
                                int64_t dsize, int64_t ssize)
{
    int32_t r = d->rank, i;
    if (r < 0 || r > NPU_MAX_RANK)
        return 0;
    for (i = 0; i < r; i++)
        if (d->shape[i] <= 0)
            return 0;
    w->dsize = dsize;
    w->ssize = ssize;
    w->rows = 1;
    if (r == 0) {
        w->nout = 0;
        w->n = 1;
        w->di = dsize;
        w->si = ssize;
        return 1;
    }
    w->nout = r - 1;
    for (i = 0; i < r - 1; i++) {
        w->shape[i] = d->shape[i];
        w->dstep[i] = d->dst_stride[i] * dsize;
        w->sstep[i] = d->src_stride[i] * ssize;
        w->rows *= d->shape[i];
    }
    w->n = d->shape[r - 1];
    w->di = d->dst_stride[r - 1] * dsize;
    w->si = d->src_stride[r - 1] * ssize;
    return 1;
}

/* Multi-index and byte offsets of row `row` (0 <= row < rows, nout >= 1). */
static inline void npu_walk_start(const npu_walk *w, int64_t row, int64_t *idx,
                                  int64_t *od, int64_t *os)
{
    int64_t d = 0, s = 0;
    int j;
    for (j = w->nout - 1; j >= 0; j--) {
        idx[j] = row % w->shape[j];
        row /= w->shape[j];
        d += idx[j] * w->dstep[j];
        s += idx[j] * w->sstep[j];
    }
    *od = d;
    *os = s;
}

/*
 * Defines  static void NAME(const npu_walk *w, char *dst, const char *src,
 *                           int64_t rb, int64_t re, const void *ctx)
 * which visits rows [rb, re) (clamped to [0, rows)) as segments of
 * consecutive rows along the last outer dim, calling
 *   SEG(w, dst_row0, src_row0, count, dst_row_step, src_row_step, ctx)
 * with byte steps. Offsets are kept as integers and advanced by an
 * odometer; the only divisions are in npu_walk_start, once per call.
 */
#define NPU_DEFINE_WALKER(NAME, SEG)                                           \
    static void NAME(const npu_walk *w, char *dst, const char *src,            \
                     int64_t rb, int64_t re, const void *ctx)                  \
    {                                                                          \
        int64_t idx[NPU_MAX_RANK];                                             \
        int64_t od, os, r;                                                     \
        int L = w->nout - 1, j;                                                \
        if (rb < 0)                                                            \
            rb = 0;                                                            \
        if (re > w->rows)                                                      \
            re = w->rows;                                                      \
        if (rb >= re)                                                          \
            return;                                                            \
        if (L < 0) {                                                           \
            SEG(w, dst, src, 1, 0, 0, ctx);                                    \
            return;                                                            \
        }                                                                      \
        npu_walk_start(w, rb, idx, &od, &os);                                  \
        r = rb;                                                                \
        for (;;) {                                                             \
            const int64_t ext = w->shape[L];                                   \
            const int64_t dl = w->dstep[L], sl = w->sstep[L];                  \
            int64_t cnt = ext - idx[L];                                        \
            if (cnt > re - r)                                                  \
                cnt = re - r;                                                  \
            SEG(w, dst + od, src + os, cnt, dl, sl, ctx);                      \
            r += cnt;                                                          \
            if (r >= re)                                                       \
                break;                                                         \
            /* idx[L] + cnt == ext: wrap dim L and carry into the others */    \
            od -= idx[L] * dl;                                                 \
            os -= idx[L] * sl;                                                 \
            idx[L] = 0;                                                        \
            for (j = L - 1; j >= 0; j--) {                                     \
                od += w->dstep[j];                                             \
                os += w->sstep[j];                                             \
                if (++idx[j] < w->shape[j])                                    \
                    break;                                                     \
                od -= w->shape[j] * w->dstep[j];                               \
                os -= w->shape[j] * w->sstep[j];                               \
                idx[j] = 0;                                                    \
            }                                                                  \
        }                                                                      \
    }

#endif /* NPU_WALK_H */
