/* gather.c - gather along one axis (IndexSelect), checking each index as it
   is loaded. */
#include <string.h>

#include "npu_kernels.h"

static inline int64_t load_i32(const void *p, int64_t i)
{
    int32_t v;
    memcpy(&v, (const char *)p + i * 4, 4);
    return v;
}

static inline int64_t load_i64(const void *p, int64_t i)
{
    int64_t v;
    memcpy(&v, (const char *)p + i * 8, 8);
    return v;
}

/* Indices are loaded (and checked) a chunk at a time into a local buffer,
   then used for every outer row: the value checked is the value used, and
   each index is read once per chunk, not once per row. */
#define GATHER_CHUNK 512

/* SZ: a constant (specialised sizes) or inner_bytes. As unsigned, a
   negative index is >= any bound. */
#define GATHER_LOOP(LOAD, SZ)                                                  \
    do {                                                                       \
        const int64_t sz = (SZ);                                               \
        int64_t i0, o, i;                                                      \
        for (i0 = 0; i0 < n_index; i0 += GATHER_CHUNK) {                       \
            const int64_t m =                                                  \
                n_index - i0 < GATHER_CHUNK ? n_index - i0 : GATHER_CHUNK;     \
            for (i = 0; i < m; i++) {                                          \
                const int64_t v = LOAD(index, i0 + i);                         \
                if ((uint64_t)v >= ub) {                                       \
                    if (bad_value)                                             \
                        *bad_value = v;                                        \
                    return i0 + i;                                             \
                }                                                              \
                buf[i] = v;                                                    \
            }                                                                  \
            for (o = outer_begin; o < outer_end; o++) {                        \
                char *dr = d + (o * n_index + i0) * sz;                        \
                const char *sr = s + o * n_src * sz;                           \
                for (i = 0; i < m; i++)                                        \
                    memcpy(dr + i * sz, sr + buf[i] * sz, (size_t)(SZ));       \
            }                                                                  \
        }                                                                      \
    } while (0)

#define GATHER_DISPATCH(LOAD)                                                  \
    do {                                                                       \
        switch (inner_bytes) {                                                 \
        case 1: GATHER_LOOP(LOAD, 1); break;                                   \
        case 2: GATHER_LOOP(LOAD, 2); break;                                   \
        case 4: GATHER_LOOP(LOAD, 4); break;                                   \
        case 8: GATHER_LOOP(LOAD, 8); break;                                   \
        case 16: GATHER_LOOP(LOAD, 16); break;                                 \
        default: GATHER_LOOP(LOAD, inner_bytes); break;                        \
        }                                                                      \
    } while (0)

int64_t npu_gather_run(void *dst, const void *src, int64_t n_src, int64_t inner_bytes,
                       const void *index, int index_is_64, int64_t n_index,
                       int64_t outer_begin, int64_t outer_end, int64_t *bad_value)
{
    char *d = (char *)dst;
    const char *s = (const char *)src;
    const uint64_t ub = n_src > 0 ? (uint64_t)n_src : 0;
    int64_t buf[GATHER_CHUNK];
    if (inner_bytes <= 0 || n_index <= 0 || outer_begin >= outer_end)
        return -1;
    if (index_is_64)
        GATHER_DISPATCH(load_i64);
    else
        GATHER_DISPATCH(load_i32);
    return -1;
}
