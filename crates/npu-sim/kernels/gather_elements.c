/* gather_elements.c - element-wise gather along one axis (torch.gather,
   aclnnGather), checking each index as it is loaded. */
#include <string.h>

#include "npu_kernels.h"

int64_t npu_gather_elements_run(const npu_copy_desc *d, int32_t dim, int64_t n_src, void *dst,
                                const void *src, const void *index, int index_is_64,
                                int64_t begin, int64_t end, int64_t *bad_value)
{
    int64_t pos[NPU_MAX_RANK];
    const int32_t rank = d->rank;
    const size_t es = d->elem_size;
    const uint64_t ub = n_src > 0 ? (uint64_t)n_src : 0;
    char *dp = (char *)dst;
    const char *sp = (const char *)src;
    int64_t p, rest, total = 1;
    int32_t k;
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
    /* The multi-index of flat position `begin`, row-major. */
    rest = begin;
    for (k = rank - 1; k >= 0; k--) {
        pos[k] = rest % d->shape[k];
        rest /= d->shape[k];
    }
    for (p = begin; p < end; p++) {
        int64_t v, s_off = 0, d_off = 0;
        if (index_is_64) {
            memcpy(&v, (const char *)index + p * 8, 8);
        } else {
            int32_t w;
            memcpy(&w, (const char *)index + p * 4, 4);
            v = w;
        }
        /* As unsigned, a negative index is >= any bound. */
        if ((uint64_t)v >= ub) {
            if (bad_value)
                *bad_value = v;
            return p;
        }
        for (k = 0; k < rank; k++) {
            s_off += (k == dim ? v : pos[k]) * d->src_stride[k];
            d_off += pos[k] * d->dst_stride[k];
        }
        memcpy(dp + d_off * (int64_t)es, sp + s_off * (int64_t)es, es);
        for (k = rank - 1; k >= 0; k--) {
            if (++pos[k] < d->shape[k])
                break;
            pos[k] = 0;
        }
    }
    return -1;
}
