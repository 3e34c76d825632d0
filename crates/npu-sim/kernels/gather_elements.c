/* gather_elements.c - element-wise gather along one axis (torch.gather,
   aclnnGather), checking each index as it is loaded.

   The flat positions [begin, end) of the index's shape are visited row by
   row (a row: the innermost dim); per row the offsets of every other dim
   are summed once, and the row's loop, specialised by element size and
   index width, loads an index, checks it and moves one element. */
#include <string.h>

#include "npu_kernels.h"

/* One row: cnt elements from column j0; stops at the first index out of
   [0, ub) and returns its position in the row, else -1. */
#define GE_ROW(NAME, ES, ITYPE)                                                          \
    static int64_t NAME(char *dp, const char *sp, const char *ip, int64_t cnt,         \
                        int64_t j0, int64_t db, int64_t dl, int64_t sb, int64_t sd,      \
                        int64_t sj, uint64_t ub, int64_t *bad_value)                     \
    {                                                                                    \
        int64_t t;                                                                       \
        for (t = 0; t < cnt; t++) {                                                      \
            ITYPE w;                                                                     \
            int64_t v, j = j0 + t;                                                       \
            memcpy(&w, ip + t * (int64_t)sizeof(ITYPE), sizeof(ITYPE));                  \
            v = (int64_t)w;                                                              \
            /* As unsigned, a negative index is >= any bound. */                        \
            if ((uint64_t)v >= ub) {                                                     \
                if (bad_value)                                                           \
                    *bad_value = v;                                                      \
                return t;                                                                \
            }                                                                            \
            memcpy(dp + (db + j * dl) * (ES), sp + (sb + v * sd + j * sj) * (ES), (ES)); \
        }                                                                                \
        return -1;                                                                       \
    }

GE_ROW(ge_1_32, 1, int32_t)
GE_ROW(ge_2_32, 2, int32_t)
GE_ROW(ge_4_32, 4, int32_t)
GE_ROW(ge_8_32, 8, int32_t)
GE_ROW(ge_16_32, 16, int32_t)
GE_ROW(ge_1_64, 1, int64_t)
GE_ROW(ge_2_64, 2, int64_t)
GE_ROW(ge_4_64, 4, int64_t)
GE_ROW(ge_8_64, 8, int64_t)
GE_ROW(ge_16_64, 16, int64_t)

/* Any other element size: a plain copy of es bytes. */
static int64_t ge_any(char *dp, const char *sp, const char *ip, int is64, size_t es,
                      int64_t cnt, int64_t j0, int64_t db, int64_t dl, int64_t sb, int64_t sd,
                      int64_t sj, uint64_t ub, int64_t *bad_value)
{
    int64_t t;
    for (t = 0; t < cnt; t++) {
        int64_t v, j = j0 + t;
        if (is64) {
            memcpy(&v, ip + t * 8, 8);
        } else {
            int32_t w;
            memcpy(&w, ip + t * 4, 4);
            v = w;
        }
        if ((uint64_t)v >= ub) {
            if (bad_value)
                *bad_value = v;
            return t;
        }
        memcpy(dp + (db + j * dl) * (int64_t)es, sp + (sb + v * sd + j * sj) * (int64_t)es, es);
    }
    return -1;
}

int64_t npu_gather_elements_run(const npu_copy_desc *d, int32_t dim, int64_t n_src, void *dst,
                                const void *src, const void *index, int index_is_64,
                                int64_t begin, int64_t end, int64_t *bad_value)
{
    int64_t pos[NPU_MAX_RANK];
    const int32_t rank = d->rank;
    const size_t es = d->elem_size;
    const uint64_t ub = n_src > 0 ? (uint64_t)n_src : 0;
    const int64_t iw = index_is_64 ? 8 : 4;
    char *dp = (char *)dst;
    const char *sp = (const char *)src;
    const char *ip = (const char *)index;
    int64_t p, rest, total = 1, n, dl, sd, sj;
    int32_t k, last;
    if (rank < 1 || rank > NPU_MAX_RANK || dim < 0 || dim >= rank || es == 0)
        return -1;
    for (k = 0; k < rank; k++) {
        if (d->shape[k] <= 0)
            return -1;
        total *= d->shape[k];
    }
    if (end > total)
        end = total;
    if (begin < 0)
        begin = 0;
    if (begin >= end)
        return -1;
    last = rank - 1;
    n = d->shape[last];
    dl = d->dst_stride[last];
    sd = d->src_stride[dim];
    /* Along the row the source moves with the column unless the row is the
       gathered dim (then only the index moves it). */
    sj = dim == last ? 0 : d->src_stride[last];
    /* The multi-index of flat position `begin`, row-major. */
    rest = begin;
    for (k = rank - 1; k >= 0; k--) {
        pos[k] = rest % d->shape[k];
        rest /= d->shape[k];
    }
    p = begin;
    while (p < end) {
        int64_t sb = 0, db = 0, j0 = pos[last], cnt = n - pos[last], t;
        const char *row_ip = ip + p * iw;
        for (k = 0; k < last; k++) {
            if (k != dim)
                sb += pos[k] * d->src_stride[k];
            db += pos[k] * d->dst_stride[k];
        }
        if (cnt > end - p)
            cnt = end - p;
#define GE_CALL(F) F(dp, sp, row_ip, cnt, j0, db, dl, sb, sd, sj, ub, bad_value)
        switch (es * 2 + (index_is_64 ? 1 : 0)) {
        case 2: t = GE_CALL(ge_1_32); break;
        case 3: t = GE_CALL(ge_1_64); break;
        case 4: t = GE_CALL(ge_2_32); break;
        case 5: t = GE_CALL(ge_2_64); break;
        case 8: t = GE_CALL(ge_4_32); break;
        case 9: t = GE_CALL(ge_4_64); break;
        case 16: t = GE_CALL(ge_8_32); break;
        case 17: t = GE_CALL(ge_8_64); break;
        case 32: t = GE_CALL(ge_16_32); break;
        case 33: t = GE_CALL(ge_16_64); break;
        default:
            t = ge_any(dp, sp, row_ip, index_is_64, es, cnt, j0, db, dl, sb, sd, sj, ub, bad_value);
            break;
        }
#undef GE_CALL
        if (t >= 0)
            return p + t;
        p += cnt;
        pos[last] += cnt;
        if (pos[last] == n) {
            pos[last] = 0;
            for (k = last - 1; k >= 0; k--) {
                if (++pos[k] < d->shape[k])
                    break;
                pos[k] = 0;
            }
        }
    }
    return -1;
}
