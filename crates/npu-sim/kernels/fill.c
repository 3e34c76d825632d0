/* fill.c - contiguous fill with one repeated element. */
#include <string.h>

#include "npu_kernels.h"

/* Small fills of a 2/4/8/16-byte element: plain stores. */
#define FILL_TYPED(T)                                                          \
    do {                                                                       \
        T v;                                                                   \
        size_t k;                                                              \
        memcpy(&v, value, sizeof v);                                           \
        for (k = 0; k < n; k++)                                                \
            memcpy(d + k * sizeof v, &v, sizeof v);                            \
    } while (0)

typedef struct {
    uint64_t lo, hi;
} u128;

/* Elements up to this size are filled from a pattern of 64 elements. */
#define PATTERN_MAX_ELEM 64

void npu_fill(void *dst, int64_t count, const void *value, size_t elem_size)
{
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *v = (const unsigned char *)value;
    size_t n, total, i;

    if (count <= 0 || elem_size == 0)
        return;
    n = (size_t)count;
    total = n * elem_size;

    for (i = 1; i < elem_size && v[i] == v[0]; i++)
        ;
    if (i == elem_size) {
        memset(d, v[0], total);
        return;
    }
    /* 2/4/8/16-byte elements: typed stores (vectorised by the compiler). */
    {
        switch (elem_size) {
        case 2: FILL_TYPED(uint16_t); return;
        case 4: FILL_TYPED(uint32_t); return;
        case 8: FILL_TYPED(uint64_t); return;
        case 16: FILL_TYPED(u128); return;
        default: break;
        }
    }
    if (elem_size <= PATTERN_MAX_ELEM && total >= 64 * elem_size) {
        /* Pattern of 64 elements (a multiple of 16 bytes) built by doubling,
           then stored 16 bytes at a time; the tail is a prefix of it. */
        unsigned char pat[64 * PATTERN_MAX_ELEM];
        const size_t len = 64 * elem_size;
        size_t have = elem_size, k = 0, j;
        memcpy(pat, v, elem_size);
        while (have < len) {
            const size_t c = have < len - have ? have : len - have;
            memcpy(pat + have, pat, c);
            have += c;
        }
        for (; total - k >= len; k += len)
            for (j = 0; j < len; j += 16)
                memcpy(d + k + j, pat + j, 16);
        memcpy(d + k, pat, total - k);
        return;
    }
    /* Otherwise: write one element, then repeatedly copy the filled prefix,
       capped at a cache-sized block (a multiple of elem_size). */
    {
        size_t block = (16384 / elem_size) * elem_size, filled = elem_size;
        if (block == 0)
            block = elem_size;
        memcpy(d, v, elem_size);
        while (filled < total) {
            size_t c = filled < block ? filled : block;
            if (c > total - filled)
                c = total - filled;
            memcpy(d + filled, d, c);
            filled += c;
        }
    }
}
