/* gather_nd.c - slices at coordinate tuples (GatherNd), checking each
   coordinate as it is loaded. */
#include <string.h>

#include "npu_kernels.h"

int64_t npu_gather_nd_run(void *dst, const void *src, int32_t k, const int64_t *dims,
                          int64_t inner_bytes, const void *indices, int index_is_64, int negative,
                          int64_t t_begin, int64_t t_end, int64_t *bad_value)
{
    char *d = (char *)dst;
    const char *s = (const char *)src;
    int64_t t;
    int32_t j;
    if (k < 1 || k > NPU_MAX_RANK || inner_bytes <= 0 || t_begin >= t_end)
        return -1;
    for (t = t_begin; t < t_end; t++) {
        int64_t row = 0;
        for (j = 0; j < k; j++) {
            const int64_t p = t * k + j;
            const int64_t n = dims[j];
            int64_t v, c;
            if (index_is_64) {
                memcpy(&v, (const char *)indices + p * 8, 8);
            } else {
                int32_t w;
                memcpy(&w, (const char *)indices + p * 4, 4);
                v = w;
            }
            c = (negative && v < 0 && v >= -n) ? v + n : v;
            /* As unsigned, a negative coordinate is >= any bound. */
            if (n <= 0 || (uint64_t)c >= (uint64_t)n) {
                if (bad_value)
                    *bad_value = v;
                return p;
            }
            row = row * n + c;
        }
        memcpy(d + t * inner_bytes, s + row * inner_bytes, (size_t)inner_bytes);
    }
    return -1;
}
