/* scatter.c - rows written at indices along one axis (IndexCopy), checking
   each index as it is loaded. */
#include <string.h>

#include "npu_kernels.h"

int64_t npu_scatter_run(void *dst, const void *src, int64_t n_dst, int64_t inner_bytes,
                        const void *index, int index_is_64, int64_t n_index,
                        int64_t outer_begin, int64_t outer_end, int64_t *bad_value)
{
    char *d = (char *)dst;
    const char *s = (const char *)src;
    const uint64_t ub = n_dst > 0 ? (uint64_t)n_dst : 0;
    int64_t o, i;
    if (inner_bytes <= 0 || n_index <= 0 || outer_begin >= outer_end)
        return -1;
    for (o = outer_begin; o < outer_end; o++) {
        for (i = 0; i < n_index; i++) {
            int64_t v;
            if (index_is_64) {
                memcpy(&v, (const char *)index + i * 8, 8);
            } else {
                int32_t w;
                memcpy(&w, (const char *)index + i * 4, 4);
                v = w;
            }
            /* As unsigned, a negative index is >= any bound. */
            if ((uint64_t)v >= ub) {
                if (bad_value)
                    *bad_value = v;
                return i;
            }
            memcpy(d + (o * n_dst + v) * inner_bytes, s + (o * n_index + i) * inner_bytes,
                   (size_t)inner_bytes);
        }
    }
    return -1;
}
