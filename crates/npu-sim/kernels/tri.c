/* tri.c - the triangle mask of Tril and Triu over contiguous matrices. */
#include <string.h>

#include "npu_kernels.h"

void npu_tri_zero_run(void *data, int64_t rows, int64_t cols, int64_t diagonal, int32_t lower,
                      size_t elem_size, int64_t row_begin, int64_t row_end)
{
    unsigned char *d = (unsigned char *)data;
    int64_t r, d_clamped = diagonal;

    if (rows <= 0 || cols <= 0 || elem_size == 0 || row_begin >= row_end)
        return;
    /* Beyond these bounds every row keeps (or zeroes) the same columns, and
       i + d stays far from overflow. */
    if (d_clamped > cols + 1)
        d_clamped = cols + 1;
    if (d_clamped < -(rows + 1))
        d_clamped = -(rows + 1);
    for (r = row_begin; r < row_end; r++) {
        const int64_t i = r % rows;
        int64_t lo, hi;
        if (lower) {
            /* keep j - i <= d: zero j in [i + d + 1, cols) */
            lo = i + d_clamped + 1;
            hi = cols;
        } else {
            /* keep j - i >= d: zero j in [0, i + d) */
            lo = 0;
            hi = i + d_clamped;
        }
        if (lo < 0)
            lo = 0;
        if (hi > cols)
            hi = cols;
        if (lo < hi)
            memset(d + ((size_t)r * (size_t)cols + (size_t)lo) * elem_size, 0,
                   (size_t)(hi - lo) * elem_size);
    }
}
