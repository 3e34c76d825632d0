/* masked_select.c - the elements where a mask is set, packed in order
   (MaskedSelect).

   Row by row (a row: the innermost dim), with the outer offsets advanced
   by an odometer and the row's loop specialised by element size. */
#include <stdint.h>
#include <string.h>

#include "npu_kernels.h"

/* One row of cnt elements: appends the set ones at dp, returns how many.
   Branch-free (a mask set at random costs a misprediction per element
   with a branch): blocks of up to 256 elements are packed into a local
   buffer, each element written and the count advanced by its mask byte,
   then the packed part is copied out, so nothing past the count is
   written. */
#define MS_BLOCK 256
#define MS_ROW(NAME, ES)                                                                   \
    static int64_t NAME(char *dp, const char *sp, const unsigned char *mp, int64_t cnt,  \
                        int64_t si, int64_t mi)                                            \
    {                                                                                      \
        char buf[MS_BLOCK * (ES)];                                                         \
        int64_t b, t, n = 0;                                                               \
        for (b = 0; b < cnt; b += MS_BLOCK) {                                              \
            int64_t m = 0, e = cnt - b < MS_BLOCK ? cnt - b : MS_BLOCK;                    \
            for (t = 0; t < e; t++) {                                                      \
                memcpy(buf + m * (ES), sp + (b + t) * si * (ES), (ES));                    \
                m += mp[(b + t) * mi] != 0;                                                \
            }                                                                              \
            memcpy(dp + n * (ES), buf, (size_t)m * (ES));                                  \
            n += m;                                                                        \
        }                                                                                  \
        return n;                                                                          \
    }

MS_ROW(ms_1, 1)
MS_ROW(ms_2, 2)
MS_ROW(ms_4, 4)
MS_ROW(ms_8, 8)
MS_ROW(ms_16, 16)

static int64_t ms_any(char *dp, const char *sp, const unsigned char *mp, int64_t cnt, int64_t si,
                      int64_t mi, size_t es)
{
    int64_t t, n = 0;
    for (t = 0; t < cnt; t++) {
        if (mp[t * mi] != 0) {
            memcpy(dp + n * (int64_t)es, sp + t * si * (int64_t)es, es);
            n++;
        }
    }
    return n;
}

/* The set mask bytes of cnt elements (the count alone, for a block's
   place in the output). */
static int64_t ms_count(const unsigned char *mp, int64_t cnt, int64_t mi)
{
    int64_t t, n = 0;
    if (mi == 1) {
        for (t = 0; t < cnt; t++)
            n += mp[t] != 0;
    } else {
        for (t = 0; t < cnt; t++)
            n += mp[t * mi] != 0;
    }
    return n;
}

int64_t npu_masked_select_rows(const npu_copy_desc *d, void *dst, const void *src,
                               const void *mask, int64_t row_begin, int64_t row_end,
                               int count_only)
{
    int64_t pos[NPU_MAX_RANK];
    const int32_t rank = d->rank;
    const size_t es = d->elem_size;
    char *dp = (char *)dst;
    const char *sp = (const char *)src;
    const unsigned char *mp = (const unsigned char *)mask;
    int64_t total = 1, rows, row, n = 0, len, si, mi, q;
    int32_t k, last;
    if (rank < 0 || rank > NPU_MAX_RANK || es == 0)
        return 0;
    for (k = 0; k < rank; k++) {
        if (d->shape[k] <= 0)
            return 0;
        total *= d->shape[k];
    }
    if (rank == 0) {
        if (row_begin > 0 || row_end < 1 || mp[0] == 0)
            return 0;
        if (!count_only)
            memcpy(dp, sp, es);
        return 1;
    }
    last = rank - 1;
    len = d->shape[last];
    si = d->src_stride[last];
    mi = d->dst_stride[last];
    rows = total / len;
    if (row_begin < 0)
        row_begin = 0;
    if (row_end > rows)
        row_end = rows;
    /* The outer coordinates of row_begin. */
    q = row_begin;
    for (k = last - 1; k >= 0; k--) {
        pos[k] = q % d->shape[k];
        q /= d->shape[k];
    }
    for (row = row_begin; row < row_end; row++) {
        int64_t s_off = 0, m_off = 0;
        char *out = dp + n * (int64_t)es;
        for (k = 0; k < last; k++) {
            s_off += pos[k] * d->src_stride[k];
            m_off += pos[k] * d->dst_stride[k];
        }
        {
            const char *s = sp + s_off * (int64_t)es;
            const unsigned char *m = mp + m_off;
            if (count_only) {
                n += ms_count(m, len, mi);
            } else {
                switch (es) {
                case 1: n += ms_1(out, s, m, len, si, mi); break;
                case 2: n += ms_2(out, s, m, len, si, mi); break;
                case 4: n += ms_4(out, s, m, len, si, mi); break;
                case 8: n += ms_8(out, s, m, len, si, mi); break;
                case 16: n += ms_16(out, s, m, len, si, mi); break;
                default: n += ms_any(out, s, m, len, si, mi, es); break;
                }
            }
        }
        for (k = last - 1; k >= 0; k--) {
            if (++pos[k] < d->shape[k])
                break;
            pos[k] = 0;
        }
    }
    return n;
}

int64_t npu_masked_select_run(const npu_copy_desc *d, void *dst, const void *src,
                              const void *mask)
{
    return npu_masked_select_rows(d, dst, src, mask, 0, INT64_MAX, 0);
}
