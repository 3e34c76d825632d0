/* masked_select.c - the elements where a mask is set, packed in order
   (MaskedSelect). */
#include <string.h>

#include "npu_kernels.h"

int64_t npu_masked_select_run(const npu_copy_desc *d, void *dst, const void *src,
                              const void *mask)
{
    int64_t pos[NPU_MAX_RANK];
    const int32_t rank = d->rank;
    const size_t es = d->elem_size;
    char *dp = (char *)dst;
    const char *sp = (const char *)src;
    const unsigned char *mp = (const unsigned char *)mask;
    int64_t total = 1, p, n = 0;
    int32_t k;
    if (rank < 0 || rank > NPU_MAX_RANK || es == 0)
        return 0;
    for (k = 0; k < rank; k++) {
        if (d->shape[k] <= 0)
            return 0;
        total *= d->shape[k];
        pos[k] = 0;
    }
    for (p = 0; p < total; p++) {
        int64_t s_off = 0, m_off = 0;
        for (k = 0; k < rank; k++) {
            s_off += pos[k] * d->src_stride[k];
            m_off += pos[k] * d->dst_stride[k];
        }
        if (mp[m_off] != 0) {
            memcpy(dp + n * (int64_t)es, sp + s_off * (int64_t)es, es);
            n++;
        }
        for (k = rank - 1; k >= 0; k--) {
            if (++pos[k] < d->shape[k])
                break;
            pos[k] = 0;
        }
    }
    return n;
}
